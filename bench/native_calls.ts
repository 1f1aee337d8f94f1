/**
 * What one native call costs inside a program, per executor (issue 26: at most 50 µs at p50 on the
 * worker and process pools). Each executor runs programs making 1, 10, 100 and 1000 calls, to a trivial
 * capability (no arguments, a one-field result) and to one with a typical small object argument and
 * result; the per-call cost is the slope of the p50 execution time between 10 and 100 (and 10 and 1000)
 * calls, so the fixed cost of an execution cancels out. In the same run it measures the floors the
 * calls are built on: a worker ↔ host round trip over a `SharedArrayBuffer` (the worker blocked in
 * `Atomics.wait`, the host waiting with `Atomics.waitAsync`), the same with a `postMessage` for the
 * request, and a pipe round trip to a child process blocked in a `readSync` (the process pool's wire);
 * and the CPU cost of each piece of one call on this thread (`parts`): binding and encoding the
 * arguments on the engine side, the host's decoding and re-validation, dispatch and result encoding,
 * the engine's decoding of the result, and the process pool's frames. The `server` rows run the same
 * programs through a built `Server` (`execute` with the core's binding, `allowAll()` authorization and
 * output conversion around each call), which is what a user of the library pays per call.
 *
 * ```sh
 * deno run -A bench/native_calls.ts                   # every section, ~2 min
 * deno run -A bench/native_calls.ts --only=worker     # floor | parts | worker | process | inline | server
 * deno run -A bench/native_calls.ts --seconds=2       # time per measured cell (default 1)
 * ```
 *
 * CPU timing is noisy on a shared machine: run it a few times and quote the medians.
 *
 * @module
 */
import {
  type CapabilityStub,
  type ExecutionRequest,
  type Executor,
  InlineExecutor,
  ProcessPool,
  WorkerPool,
} from "../src/executor/mod.ts";
import { BUDGETS } from "./_executor.ts";
import { bindArguments, decodeStarValue } from "../src/executor/star_codec.ts";
import { decodeArguments, encodeHostValue } from "../src/executor/host_codec.ts";
import { NativeCallHost } from "../src/executor/host_call.ts";
import { encodeFrame, FrameDecoder, SyncFrameReader } from "../src/executor/process_protocol.ts";
import { List, Thread } from "../src/starlark/mod.ts";
import { allowAll, Builder, type ExecutorChoice, t } from "../mod.ts";
import { cpuUsage } from "node:process";

const args = new Map(Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const ONLY = args.get("only");
const SECONDS = Number(args.get("seconds") ?? 1);
const TARGET_US = 50;
const COUNTS = [1, 10, 100, 1000] as const;

const STUBS: readonly CapabilityStub[] = [
  {
    name: "clock.tick",
    input: { kind: "struct", fields: [] },
    output: { kind: "struct", fields: [{ name: "n", type: { kind: "int" } }] },
  },
  {
    name: "records.lookup",
    input: {
      kind: "struct",
      fields: [
        { name: "key", type: { kind: "str" } },
        { name: "limit", type: { kind: "optional", of: { kind: "int" } } },
        { name: "tags", type: { kind: "list", of: { kind: "str" } } },
      ],
    },
    output: {
      kind: "struct",
      fields: [
        { name: "key", type: { kind: "str" } },
        { name: "count", type: { kind: "int" } },
        { name: "score", type: { kind: "float" } },
        { name: "tags", type: { kind: "list", of: { kind: "str" } } },
        { name: "owner", type: { kind: "struct", fields: [{ name: "id", type: { kind: "str" } }] } },
      ],
    },
  },
];

const WORKLOADS = {
  trivial: (n: number) =>
    `def main():\n    t = 0\n    for i in range(${n}):\n        t += clock.tick()["n"]\n    return t\n`,
  object: (n: number) =>
    `def main():\n    t = 0\n    for i in range(${n}):\n` +
    `        r = records.lookup(key="k%d" % i, limit=3, tags=["a", "b"])\n` +
    `        t += r["count"] + len(r["tags"])\n    return t\n`,
} as const;
type Workload = keyof typeof WORKLOADS;

const budgets = {
  ...BUDGETS,
  maxNativeCalls: 5_000,
  maxExecutionTime: 60_000,
  maxIntermediateValueBytes: 1 << 26,
};

function request(source: string): ExecutionRequest {
  return {
    subjectId: "bench",
    source,
    budgets,
    capabilities: STUBS,
    // The core's dispatch is async (binding, authorization, the handler): resolved promises, as here.
    dispatch: (cap, a) =>
      Promise.resolve(
        cap === 0 ? { n: 1 } : {
          key: a.key,
          count: (a.limit as number | undefined) ?? 1,
          score: 0.5,
          tags: a.tags,
          owner: { id: "u-1" },
        },
      ),
    startedAt: performance.now(),
  };
}

/**
 * CPU time (ms) used so far by this process (every thread: the host and its workers) and by its child
 * processes that are still running (read from /proc on Linux; elsewhere only this process counts).
 * On a shared machine wall time mostly measures the neighbours; CPU time is the work itself.
 */
function cpuMs(): number {
  const own = cpuUsage();
  let children = 0;
  try {
    const tick = 100; // USER_HZ on Linux
    for (const e of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(e.name)) continue;
      let stat: string;
      try {
        stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      } catch {
        continue;
      }
      // Fields after the parenthesized command name: state ppid ... utime(14) stime(15).
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(f[1]) === Deno.pid) children += ((Number(f[11]) + Number(f[12])) * 1000) / tick;
    }
  } catch {
    // No /proc: this process only.
  }
  return (own.user + own.system) / 1000 + children;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
}

/** A cell: the p50 wall time of one execution and the mean CPU time of one, in ms. */
interface Cell {
  readonly p50: number;
  readonly cpu: number;
}

/** Runs `once` until `SECONDS` pass (at least `min`, at most `max` times). */
async function measure(once: () => Promise<unknown>, min = 7, max = 2_000): Promise<Cell> {
  const times: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  const cpu0 = cpuMs();
  while (times.length < min || (times.length < max && performance.now() < end)) {
    const t0 = performance.now();
    await once();
    times.push(performance.now() - t0);
  }
  return { p50: median(times), cpu: (cpuMs() - cpu0) / times.length };
}

function us(ms: number): string {
  return `${(ms * 1000).toFixed(1)} µs`;
}

/** Runs every workload through `run` and prints its cells and per-call slopes under `name`. */
async function workloads(name: string, run: (source: string) => Promise<unknown>): Promise<void> {
  for (const workload of Object.keys(WORKLOADS) as Workload[]) {
    const source = (n: number) => WORKLOADS[workload](n);
    // Warm both sides' JIT on the exact programs first.
    for (const n of COUNTS) await measure(() => run(source(n)), 3, 3);
    const cells = new Map<number, Cell>();
    for (const n of COUNTS) cells.set(n, await measure(() => run(source(n)), n >= 1000 ? 5 : 9));
    const slope = (to: number, f: (c: Cell) => number) => (f(cells.get(to)!) - f(cells.get(10)!)) / (to - 10);
    const wall100 = slope(100, (c) => c.p50), wall1000 = slope(1000, (c) => c.p50);
    console.log(
      `${name.padEnd(14)} ${workload.padEnd(8)} p50 per execution: ` +
        COUNTS.map((n) => `${n} → ${cells.get(n)!.p50.toFixed(3)} ms`).join(", "),
    );
    console.log(
      `${"".padEnd(23)} per call: p50 ${us(wall100)} (10→100), ${us(wall1000)} (10→1000)` +
        `; ${(wall100 * 1000 / TARGET_US).toFixed(2)}× the ${TARGET_US} µs target` +
        `; CPU ${us(slope(100, (c) => c.cpu))} (10→100), ${us(slope(1000, (c) => c.cpu))} (10→1000)`,
    );
  }
}

async function executor(name: string, ex: Executor & { probe?(t?: number): Promise<void> }): Promise<void> {
  try {
    await ex.probe?.(10_000);
    await workloads(name, (source) => ex.run(request(source)));
  } finally {
    await ex.close();
  }
}

/** The same programs through a built server: the core's binding, authorization and output conversion. */
async function server(name: string, choice: ExecutorChoice): Promise<void> {
  const builder = new Builder({
    authorizer: allowAll(),
    executor: choice,
    limits: { maxNativeCalls: 5_000, maxExecutionTime: 60_000, maxIntermediateValueBytes: 1 << 26 },
  });
  builder.register({
    id: "bench.clock.tick",
    name: "clock.tick",
    summary: "A counter tick",
    input: t.struct({}),
    output: t.struct({ n: t.int() }),
    handler: () => ({ n: 1 }),
  });
  builder.register({
    id: "bench.records.lookup",
    name: "records.lookup",
    summary: "Look up one stored record by key",
    input: t.struct({ key: t.str(), limit: t.optional(t.int()), tags: t.list(t.str()) }),
    output: t.struct({
      key: t.str(),
      count: t.int(),
      score: t.float(),
      tags: t.list(t.str()),
      owner: t.struct({ id: t.str() }),
    }),
    handler: ({ key, limit, tags }) => ({ key, count: limit ?? 1, score: 0.5, tags, owner: { id: "u-1" } }),
  });
  const srv = await builder.build();
  try {
    await workloads(name, (source) => srv.execute({ id: "bench" }, source));
  } finally {
    await srv.close();
  }
}

/** Round-trip time and CPU (ms) between this thread and a worker blocked in `Atomics.wait`. */
async function sabFloor(mode: "sab" | "post" | "call", n: number): Promise<Cell> {
  const worker = new Worker(new URL("./_native_floor_worker.ts", import.meta.url), {
    type: "module",
    deno: { permissions: "none" },
  });
  const buffer = new SharedArrayBuffer(64);
  const w = new Int32Array(buffer);
  const reply = () => {
    Atomics.store(w, 0, 2);
    Atomics.notify(w, 0);
  };
  try {
    const times: number[] = [], cpu: number[] = [];
    for (let round = 0; round < 5; round++) {
      const done = new Promise<void>((resolve) => {
        worker.onmessage = (e) => {
          if (e.data === "done") resolve();
          else if (mode !== "sab") reply();
        };
      });
      const t0 = performance.now(), c0 = cpuMs();
      worker.postMessage({ mode, buffer, n });
      if (mode === "sab") {
        for (let i = 0; i < n; i++) {
          // Wait for the worker's request (state CALL), then answer it.
          for (;;) {
            // Wait on the value just tested: a fresh load could miss a notify that came in between.
            const seen = Atomics.load(w, 0);
            if (seen === 1) break;
            const r = Atomics.waitAsync(w, 0, seen);
            if (r.async) await r.value;
          }
          reply();
        }
      }
      await done;
      times.push((performance.now() - t0) / n);
      cpu.push((cpuMs() - c0) / n);
    }
    return { p50: median(times), cpu: median(cpu) };
  } finally {
    worker.terminate();
  }
}

/**
 * Round-trip time and CPU (ms) of 8 bytes to a child process answering with blocking reads and writes.
 * `byob` reads the child's stdout into one reused buffer, as the process pool does; the default reader
 * allocates a fresh 64 KiB chunk for every read.
 */
async function pipeFloor(n: number, byob: boolean): Promise<Cell> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-config", new URL("./_native_floor_child.ts", import.meta.url).href],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = byob ? child.stdout.getReader({ mode: "byob" }) : child.stdout.getReader();
  let buf = new Uint8Array(64 * 1024);
  const msg = new Uint8Array(8);
  try {
    const times: number[] = [], cpu: number[] = [];
    for (let round = 0; round < 5; round++) {
      const t0 = performance.now(), c0 = cpuMs();
      for (let i = 0; i < n; i++) {
        void writer.write(msg); // the pool does not wait for its writes either
        let got = 0;
        while (got < 8) {
          const { value, done } = reader instanceof ReadableStreamBYOBReader
            ? await reader.read(buf)
            : await reader.read();
          if (done || value === undefined) throw new Error("echo child ended");
          if (reader instanceof ReadableStreamBYOBReader) buf = new Uint8Array(value.buffer);
          got += value.length;
        }
      }
      times.push((performance.now() - t0) / n);
      cpu.push((cpuMs() - c0) / n);
    }
    return { p50: median(times), cpu: median(cpu) };
  } finally {
    await writer.close();
    reader.releaseLock();
    await child.status;
  }
}

/** Median CPU time (µs) of one `f()` over batches of `n`. */
function perOp(n: number, f: () => unknown): number {
  const batches: number[] = [];
  for (let b = 0; b < 9; b++) {
    const c0 = cpuMs();
    for (let i = 0; i < n; i++) f();
    batches.push(((cpuMs() - c0) * 1000) / n);
  }
  return median(batches);
}

/** The CPU cost of each piece of one `records.lookup` call, measured on this thread. */
async function parts(): Promise<void> {
  const stub = STUBS[1];
  const limits = { maxBytes: budgets.maxValueBytes, maxDepth: budgets.maxValueDepth };
  const kwargs: [string, List | string | number][] = [["key", "k12"], ["limit", 3], [
    "tags",
    new List(["a", "b"]),
  ]];
  const args = bindArguments(stub.input, [], kwargs, limits);
  const output = { key: "k12", count: 3, score: 0.5, tags: ["a", "b"], owner: { id: "u-1" } };
  const host = new NativeCallHost({
    ...request(""),
    budgets: { ...budgets, maxNativeCalls: 1e9, maxIntermediateValueBytes: 1e15 },
  });
  const signal = new AbortController().signal;
  const result = await host.call(1, args, signal);
  const thread = new Thread({ name: "bench", maxSteps: 1e12, maxMemory: 1e15 });
  const callFrame = encodeFrame({ t: "call", id: 1, seq: 1, cap: 1 }, args);
  const replyFrame = encodeFrame({ t: "reply", seq: 1 }, result);
  const decoder = new FrameDecoder({ maxHeaderBytes: 1 << 16, maxPayloadBytes: () => 1 << 20 });
  const reader = new SyncFrameReader((buf) => (buf.set(replyFrame), replyFrame.length), 1 << 16, 1 << 20);
  const row = (what: string, v: number) => console.log(`parts: ${what.padEnd(62)} ${v.toFixed(2)} µs`);
  const n = 20_000;
  row(
    "engine: bind + encode the arguments (bindArguments)",
    perOp(n, () => bindArguments(stub.input, [], kwargs, limits)),
  );
  row(
    "host: decode + re-validate the arguments (decodeArguments)",
    perOp(n, () => decodeArguments(args, stub.input, limits)),
  );
  row(
    "host: encode + measure the result (encodeHostValue)",
    perOp(n, () => encodeHostValue(output, limits, stub.output)),
  );
  const c0 = cpuMs();
  for (let i = 0; i < n; i++) await host.call(1, args, signal);
  row("host: the whole NativeCallHost.call (both, dispatch, awaited)", ((cpuMs() - c0) * 1000) / n);
  row("engine: decode the result (decodeStarValue)", perOp(n, () => decodeStarValue(result, limits, thread)));
  row(
    "process: encode a call frame + a reply frame (JSON headers)",
    perOp(n, () => {
      encodeFrame({ t: "call", id: 1, seq: 1, cap: 1 }, args);
      encodeFrame({ t: "reply", seq: 1 }, result);
    }),
  );
  row("process: host FrameDecoder.push of a call frame", perOp(n, () => decoder.push(callFrame)));
  row("process: child SyncFrameReader.next of a reply frame", perOp(n, () => reader.next()));
}

const want = (name: string) => ONLY === undefined || name.includes(ONLY);

console.log(
  `deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores; target ${TARGET_US} µs per call`,
);
const floor = (what: string, c: Cell) => console.log(`floor: ${what}: ${us(c.p50)}, CPU ${us(c.cpu)}`);
if (want("floor")) {
  floor(
    "worker ↔ host SharedArrayBuffer round trip (Atomics.wait / waitAsync)",
    await sabFloor("sab", 20_000),
  );
  floor("worker postMessage → host, reply through the SharedArrayBuffer", await sabFloor("post", 20_000));
  floor("the same posting a call message with a transferred buffer", await sabFloor("call", 20_000));
  floor("pipe round trip to a child blocked in readSync (BYOB reader)", await pipeFloor(5_000, true));
  floor("pipe round trip to a child blocked in readSync (default reader)", await pipeFloor(5_000, false));
}
if (want("parts")) await parts();
// One sandbox serves every execution (no spare spawned, none retired): the CPU figures then count only
// the calls, never a spawn, and no child exits taking its CPU time with it.
const ONE_SANDBOX = {
  maxConcurrentExecutions: 1,
  warmWorkers: 0,
  maxExecutionsPerWorker: Number.MAX_SAFE_INTEGER,
  idleTimeoutMs: 600_000,
};
if (want("worker")) await executor("worker pool", new WorkerPool(ONE_SANDBOX));
if (want("process")) await executor("process pool", new ProcessPool(ONE_SANDBOX));
if (want("inline")) await executor("inline", new InlineExecutor({ maxConcurrentExecutions: 2 }));
if (want("server")) {
  await server("server/worker", "worker");
  await server("server/process", "process");
}
