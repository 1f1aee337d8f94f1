/**
 * Search over 4,096 registered capabilities (target: p50 ≤ 100 µs per query).
 */
import { allowAll, Builder, type Executor } from "../mod.ts";
import { QUERIES, syntheticCatalog } from "./_catalog.ts";

const noExecutor: Executor = { run: () => Promise.resolve(null), close: () => Promise.resolve() };
const builder = new Builder({ authorizer: allowAll(), executor: noExecutor });
for (const cap of syntheticCatalog(4096)) builder.register(cap);
const server = await builder.build();

for (const query of QUERIES) {
  Deno.bench({ name: `search 4096: ${JSON.stringify(query)}`, group: "search" }, () => {
    server.search(query);
  });
}

let i = 0;
Deno.bench({ name: "search 4096: query mix", group: "search", baseline: true }, () => {
  server.search(QUERIES[i++ % QUERIES.length]);
});
