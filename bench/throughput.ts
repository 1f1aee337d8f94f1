/**
 * Executor figures: sequential latency of a one-native-call program (p50/p99) and throughput with
 * concurrent callers, for the worker pool and the process pool in reuse and strict mode and for the
 * inline executor; and the cold start of each pool (a new pool to its first result).
 *
 * Run: `deno run -A bench/throughput.ts [--seconds=3] [--callers=8] [--only=process]`
 *
 * @module
 */
import { type Executor, InlineExecutor, ProcessPool, WorkerPool } from "../src/executor/mod.ts";
import { benchRequest as request } from "./_executor.ts";

const args = new Map(Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const SECONDS = Number(args.get("seconds") ?? 3);
const CALLERS = Number(args.get("callers") ?? 8);
const ONLY = args.get("only");

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
}

async function sequential(ex: Executor, n: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await ex.run(request("subject-1"));
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function concurrent(ex: Executor, callers: number, seconds: number): Promise<number> {
  let done = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: callers }, async () => {
    while (performance.now() < end) {
      await ex.run(request("subject-1"));
      done++;
    }
  }));
  return done / seconds;
}

function fmt(ms: number): string {
  return `${ms.toFixed(3)} ms`;
}

// A strict pool spawns a worker per execution, so it gets no warm-up and fewer sequential samples.
async function measure(
  name: string,
  make: () => Executor & { probe?(t?: number): Promise<void> },
  { warmup = 200, samples = 2_000 } = {},
): Promise<void> {
  if (ONLY !== undefined && !name.includes(ONLY)) return;
  const ex = make();
  try {
    await ex.probe?.(5_000);
    if (warmup > 0) await sequential(ex, warmup); // warm up the JIT on both sides
    const seq = await sequential(ex, samples);
    const rate = await concurrent(ex, CALLERS, SECONDS);
    console.log(
      `${name.padEnd(24)} sequential p50 ${fmt(seq.p50)}  p99 ${fmt(seq.p99)}  | ${CALLERS} callers: ${
        rate.toFixed(0)
      } executions/s`,
    );
  } finally {
    await ex.close();
  }
}

// A new pool (nothing spawned yet) to its first result: spawn, module load, engine warm-up, one run.
async function coldStart(name: string, make: () => Executor, times = 5): Promise<void> {
  if (ONLY !== undefined && !name.includes(ONLY)) return;
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const ex = make();
    const t0 = performance.now();
    await ex.run(request("subject-1"));
    samples.push(performance.now() - t0);
    await ex.close();
  }
  samples.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(24)} cold start to first result: median ${fmt(percentile(samples, 0.5))}, ` +
      `min ${fmt(samples[0])}, max ${fmt(samples[samples.length - 1])} (${times} pools)`,
  );
}

console.log(`deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores; program: one native call`);
await coldStart("process pool", () => new ProcessPool({ warmWorkers: 0 }));
await coldStart("worker pool", () => new WorkerPool({ warmWorkers: 0 }));
await measure("process pool (reuse)", () => new ProcessPool({ maxConcurrentExecutions: 8 }));
await measure("worker pool (reuse)", () => new WorkerPool({ maxConcurrentExecutions: 8 }));
await measure("inline", () => new InlineExecutor({ maxConcurrentExecutions: 8 }));
await measure(
  "worker pool (strict)",
  () => new WorkerPool({ maxConcurrentExecutions: 8, mode: "strict" }),
  { warmup: 0, samples: 100 },
);
await measure(
  "process pool (strict)",
  () => new ProcessPool({ maxConcurrentExecutions: 8, mode: "strict" }),
  { warmup: 0, samples: 50 },
);
