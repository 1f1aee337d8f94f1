/**
 * `register()` × 4,096 + `build()` (target ≤ 500 ms). The first benchmark uses a no-op executor, so the
 * worker probe is excluded; the second builds with the default worker pool, probe included.
 */
import { allowAll, Builder, type Executor } from "../mod.ts";
import { syntheticCatalog } from "./_catalog.ts";

const noExecutor: Executor = { run: () => Promise.resolve(null), close: () => Promise.resolve() };
const catalog = syntheticCatalog(4096);

Deno.bench({ name: "build 4096 capabilities (no probe)", n: 20, warmup: 3 }, async () => {
  const builder = new Builder({ authorizer: allowAll(), executor: noExecutor });
  for (const cap of catalog) builder.register(cap);
  await builder.build();
});

Deno.bench({ name: "build 4096 capabilities + worker probe", n: 8, warmup: 1 }, async () => {
  const builder = new Builder({ authorizer: allowAll(), executor: "worker" });
  for (const cap of catalog) builder.register(cap);
  const server = await builder.build();
  await server.close();
});
