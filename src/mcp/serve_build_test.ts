/**
 * The stdio server's build on demand: it starts on the first call, once the first listing is answered, or
 * by itself after the fallback delay — once only — and closing before it started closes the executor alone.
 */
import assert from "node:assert/strict";
import { Builder, type Server, t } from "../core/mod.ts";
import { allowAll } from "../../authz.ts";
import { buildOnDemand, buildStarted, startAfterListing, startingService } from "./serve_build.ts";

/** A real server (inline executor) and a counter of the builds asked for. */
function counted(): { builds: () => number; build: () => Promise<Server> } {
  let n = 0;
  return {
    builds: () => n,
    build: () => {
      n++;
      const b = new Builder({ authorizer: allowAll(), executor: "inline" });
      b.register({
        id: "demo.echo",
        name: "demo.echo",
        summary: "Echo a word back",
        input: t.struct({ word: t.str() }),
        output: t.struct({ word: t.str() }),
        handler: ({ word }) => ({ word }),
      });
      return b.build();
    },
  };
}

/** An executor whose close is seen. */
function closable(): { executor: { close(): Promise<void> }; closed: () => number } {
  let closed = 0;
  return { executor: { close: () => Promise.resolve(void closed++) }, closed: () => closed };
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

Deno.test("serve build: nothing is built until a call needs the server; then once", async () => {
  const { builds, build } = counted();
  const on = buildOnDemand(build, "inline", 60_000);
  const service = startingService(on);
  await tick(20);
  assert.equal(builds(), 0, "built before anything asked");
  const [a, b] = await Promise.all([
    service.execute({ id: "u" }, 'def main():\n    return demo.echo(word="hi")["word"]\n'),
    service.search("echo"),
  ]);
  assert.equal(a, "hi");
  assert.equal(b.results[0].name, "demo.echo");
  assert.equal((await service.describe("demo.echo")).name, "demo.echo");
  assert.equal(builds(), 1);
  await on.close();
});

Deno.test("serve build: the first listing starts the build once its answer is out", async () => {
  const { builds, build } = counted();
  const on = buildOnDemand(build, "inline", 60_000);
  const listing = startAfterListing(() => Promise.resolve(["listed"]), on);
  assert.deepEqual(await listing(), ["listed"]);
  assert.equal(builds(), 0, "the build competed with the listing's answer");
  await tick(10);
  assert.equal(builds(), 1);
  await listing();
  await tick(10);
  assert.equal(builds(), 1);
  await on.close();
});

Deno.test("serve build: with no listing nor call, the build starts after the fallback delay", async () => {
  const { builds, build } = counted();
  const on = buildOnDemand(build, "inline", 30);
  assert.equal(builds(), 0);
  // The fallback timer never keeps a process alive by itself (stdin does, in the server): here this does.
  const alive = setTimeout(() => {}, 5_000);
  const server = await on.pending;
  clearTimeout(alive);
  assert.equal(builds(), 1);
  assert.equal(server.search("echo").results.length, 1);
  await on.close();
});

Deno.test("serve build: closed before it started, only the executor closes and nothing is built", async () => {
  const { builds, build } = counted();
  const { executor, closed } = closable();
  const on = buildOnDemand(build, executor as never, 20);
  await on.close();
  assert.equal(closed(), 1);
  await tick(60);
  on.start();
  assert.equal(builds(), 0, "a closed build started");
});

Deno.test("serve build: a failed build fails the calls as internal, and close still settles", async () => {
  const on = buildOnDemand(() => Promise.reject(new Error("no sandbox")), "inline", 60_000);
  on.pending.catch(() => {});
  await assert.rejects(
    startingService(on).execute({ id: "u" }, "def main():\n    return 1\n"),
    (e: Error & { code?: string }) => e.code === "internal",
  );
  await on.close();
  const started = buildStarted(Promise.reject(new Error("refused")));
  started.pending.catch(() => {});
  await started.close();
});
