/**
 * `deno bench` for the executor: one execution of a program making one native call, in the worker pool
 * (reuse and strict mode) and inline, plus the wire codec on a typical result.
 *
 * Run: `deno bench -A bench/executor_bench.ts`. For latency percentiles and throughput with concurrent
 * callers, run `bench/throughput.ts`.
 *
 * @module
 */
import { decodeHostValue, encodeHostValue } from "../src/executor/host_codec.ts";
import { InlineExecutor, WorkerPool } from "../src/executor/mod.ts";
import { benchRequest } from "./_executor.ts";

const request = () => benchRequest("bench");

// Executors live for the whole bench process (deno bench exits when the benches are done).
const reuse = new WorkerPool({ maxConcurrentExecutions: 8 });
const strict = new WorkerPool({ maxConcurrentExecutions: 8, mode: "strict" });
const inline = new InlineExecutor();
await reuse.probe(5_000);
await strict.probe(5_000);

Deno.bench({
  name: "execute, one native call (worker pool, reuse)",
  group: "execute",
  baseline: true,
  async fn() {
    await reuse.run(request());
  },
});

Deno.bench({
  name: "execute, one native call (inline)",
  group: "execute",
  async fn() {
    await inline.run(request());
  },
});

Deno.bench({
  name: "execute, one native call (worker pool, strict: new worker each time)",
  group: "execute",
  n: 60,
  warmup: 5,
  async fn() {
    await strict.run(request());
  },
});

const RESULT = {
  items: Array.from(
    { length: 50 },
    (_, i) => ({ id: i, title: `item number ${i}`, score: i / 7, tags: ["a", "b"] }),
  ),
};
const LIMITS = { maxBytes: 1 << 20, maxDepth: 32 };
const ENCODED = encodeHostValue(RESULT, LIMITS);

Deno.bench({
  name: "codec: encode a 50-record result",
  group: "codec",
  fn() {
    encodeHostValue(RESULT, LIMITS);
  },
});

Deno.bench({
  name: "codec: decode a 50-record result",
  group: "codec",
  fn() {
    decodeHostValue(ENCODED, LIMITS);
  },
});
