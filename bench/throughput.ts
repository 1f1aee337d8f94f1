/**
 * Executor figures: sequential latency of a one-native-call program (p50/p99) and throughput with
 * concurrent callers, for the worker pool in reuse and strict mode and for the inline executor.
 *
 * Run: `deno run -A bench/throughput.ts [--seconds=3] [--callers=8]`
 *
 * @module
 */
import type { ExecutionBudgets, ExecutionRequest, Executor } from "../src/executor/contract.ts";
import { InlineExecutor, WorkerPool } from "../src/executor/mod.ts";
import type { CapabilityStub } from "../src/executor/contract.ts";

const args = new Map(Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const SECONDS = Number(args.get("seconds") ?? 3);
const CALLERS = Number(args.get("callers") ?? 8);

const STUBS: readonly CapabilityStub[] = [{
  name: "records.lookup",
  input: {
    kind: "struct",
    fields: [{ name: "key", type: { kind: "str" } }, {
      name: "limit",
      type: { kind: "optional", of: { kind: "int" } },
    }],
  },
  output: {
    kind: "struct",
    fields: [{ name: "key", type: { kind: "str" } }, { name: "count", type: { kind: "int" } }],
  },
} as CapabilityStub];

const BUDGETS: ExecutionBudgets = {
  maxSourceBytes: 65_536,
  maxExecutionSteps: 1_000_000,
  maxExecutionTime: 5_000,
  maxNativeCalls: 100,
  maxValueDepth: 32,
  maxValueBytes: 1_048_576,
  maxIntermediateValueBytes: 8_388_608,
};

const SOURCE = 'def main():\n    r = records.lookup(key="a", limit=2)\n    return r["count"]\n';

function request(subjectId: string): ExecutionRequest {
  return {
    subjectId,
    source: SOURCE,
    budgets: BUDGETS,
    capabilities: STUBS,
    dispatch: (_cap, a) => Promise.resolve({ key: a.key, count: (a.limit as number | undefined) ?? 1 }),
    startedAt: performance.now(),
  };
}

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

async function measure(
  name: string,
  make: () => Executor & { probe?(t?: number): Promise<void> },
): Promise<void> {
  const ex = make();
  try {
    await ex.probe?.(5_000);
    await sequential(ex, 200); // warm up the JIT on both sides
    const seq = await sequential(ex, 2_000);
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

console.log(`deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores; program: one native call`);
await measure("worker pool (reuse)", () => new WorkerPool({ maxConcurrentExecutions: 8 }));
await measure("inline", () => new InlineExecutor({ maxConcurrentExecutions: 8 }));
{
  const ex = new WorkerPool({ maxConcurrentExecutions: 8, mode: "strict" });
  try {
    await ex.probe(5_000);
    const seq = await sequential(ex, 100);
    const rate = await concurrent(ex, CALLERS, SECONDS);
    console.log(
      `${"worker pool (strict)".padEnd(24)} sequential p50 ${fmt(seq.p50)}  p99 ${
        fmt(seq.p99)
      }  | ${CALLERS} callers: ${rate.toFixed(0)} executions/s`,
    );
  } finally {
    await ex.close();
  }
}
