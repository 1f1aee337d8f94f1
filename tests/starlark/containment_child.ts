/**
 * The child process of the containment test: runs a batch of generated hostile programs, one after the
 * other, each under a fresh thread with a memory budget and a deadline, and writes one JSON line per
 * program to stdout. It is started with a V8 heap cap (`--max-old-space-size`) a small factor above the
 * memory budget, so an allocation the engine failed to charge kills the process, and the test names the
 * program it was running from the last `start` line.
 *
 *     deno run --v8-flags=--max-old-space-size=MB,--expose-gc tests/starlark/containment_child.ts \
 *       SEED COUNT MEMORY_BYTES DEADLINE_MS [SHAPE]
 *
 * @module
 */
import { execFile, InternalError, json, ResourceError, StarlarkError } from "../../src/starlark/mod.ts";
import { HostileGenerator } from "./containment_programs.ts";
import process from "node:process";

/** What the child reports for one program. */
export interface ContainmentResult {
  /** Index in the batch. */
  readonly index: number;
  /** Generator shape. */
  readonly shape: string;
  /** `ok`, `resource:<kind>`, `error` (a Starlark error), or `internal` (any other exception). */
  readonly outcome: string;
  /** The error message, if any (shortened). */
  readonly message?: string;
  /** Milliseconds from the deadline to the end of the run (negative when it ended before). */
  readonly overrunMs: number;
  /**
   * CPU milliseconds (the process's user + system time) from the last poll before the deadline to the
   * end of the run, when the run reached its deadline: an upper bound of the CPU time spent past the
   * deadline that, unlike wall time, a loaded machine does not inflate. 0 when the run ended earlier.
   */
  readonly cpuOverrunMs: number;
  /** Largest sampled growth of the JS heap over its level before the run, in bytes. */
  readonly heapGrowth: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function heapUsed(): number {
  return Deno.memoryUsage().heapUsed;
}

function runOne(index: number, shape: string, source: string, memory: number, deadlineMs: number) {
  gc?.();
  const base = heapUsed();
  let peak = base;
  let polls = 0;
  const start = performance.now();
  const deadline = start + deadlineMs;
  let lastCpu = cpuMs();
  let late = false;
  let outcome = "ok";
  let message: string | undefined;
  try {
    execFile(source, {
      maxMemory: memory,
      predeclared: { json },
      checkInterrupt: () => {
        // Sampling the heap costs a few microseconds: every 8th poll (~30k steps) is enough.
        if ((++polls & 7) === 0) {
          const h = heapUsed();
          if (h > peak) peak = h;
        }
        if (performance.now() > deadline) {
          late = true;
          return "deadline exceeded";
        }
        lastCpu = cpuMs();
        return undefined;
      },
    });
  } catch (e) {
    if (e instanceof ResourceError) outcome = `resource:${e.resource}`;
    else if (e instanceof InternalError) outcome = "internal"; // a JS exception inside the engine
    else if (e instanceof StarlarkError) outcome = "error";
    else outcome = "internal";
    message = String((e as Error).message ?? e).slice(0, 300);
  }
  const end = performance.now();
  const cpuEnd = cpuMs();
  const h = heapUsed();
  if (h > peak) peak = h;
  const result: ContainmentResult = {
    index,
    shape,
    outcome,
    message,
    overrunMs: end - deadline,
    cpuOverrunMs: late || end > deadline ? cpuEnd - lastCpu : 0,
    heapGrowth: peak - base,
  };
  return result;
}

if (import.meta.main) {
  const [seed, count, memory, deadlineMs, shape] = Deno.args;
  const gen = new HostileGenerator(Number(seed));
  const enc = new TextEncoder();
  for (let i = 0; i < Number(count); i++) {
    const p = gen.program(shape);
    // Written before the run: if the process dies, the test knows which program killed it.
    Deno.stdout.writeSync(enc.encode(JSON.stringify({ start: i, shape: p.shape, source: p.source }) + "\n"));
    const r = runOne(i, p.shape, p.source, Number(memory), Number(deadlineMs));
    Deno.stdout.writeSync(enc.encode(JSON.stringify(r) + "\n"));
  }
}
