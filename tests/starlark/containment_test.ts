/**
 * Containment: generated hostile programs (see `containment_programs.ts`) must end — normally, with a
 * Starlark error, or with a ResourceError — without the engine allocating much more than its memory
 * budget or running much past its deadline. This is the engine's half of the wall that keeps one
 * program from taking down a worker (and with it every user's service): see `docs/cost_model.md`.
 *
 * The programs run in a child `deno run` process whose V8 heap is capped at a small factor above the
 * budget, so an allocation the engine failed to charge kills the child, and the test names the program
 * it was running. For each program the child also reports its sampled heap growth, and the time spent
 * past the deadline: in wall time, and in the process's CPU time from the last poll before the deadline.
 * Both bound the main thread's work past the deadline from above: wall time is inflated when the OS runs
 * other processes (a loaded machine), CPU time when V8's GC threads run beside the main thread. The test
 * checks the smaller of the two.
 *
 * Also here: the two programs of the issue, run in-process.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { execFile, ResourceError } from "../../src/starlark/mod.ts";
import type { ContainmentResult } from "./containment_child.ts";
import { SHAPE_NAMES } from "./containment_programs.ts";

/** The memory budget of every generated program. */
const BUDGET = 16 << 20;
/** The deadline of every generated program (ms). */
const DEADLINE_MS = 300;
/** Heap growth allowed over the budget: the child's heap cap is this factor over its baseline. */
const HEAP_FACTOR = 6;
/** Heap of the child with the engine loaded, before any program (MB, generous). */
const BASELINE_MB = 40;
/** Time allowed past the deadline (ms): the smaller of the wall and the CPU measure (see above). */
const MAX_OVERRUN_MS = 50;
/**
 * Wall time allowed past the deadline (ms). Wall time includes time the OS gave to other processes, so
 * on a loaded shared machine it is only checked against gross overruns; the CPU check above is the
 * precise one.
 */
const MAX_WALL_OVERRUN_MS = 400;

const child = fileURLToPath(new URL("./containment_child.ts", import.meta.url));

interface Started {
  start: number;
  shape: string;
  source: string;
}

async function runBatch(
  seed: number,
  count: number,
  shape?: string,
): Promise<{ results: ContainmentResult[]; sources: string[] }> {
  const heapMb = BASELINE_MB + Math.ceil((HEAP_FACTOR * BUDGET) / 2 ** 20);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--v8-flags=--max-old-space-size=${heapMb},--expose-gc`,
      child,
      String(seed),
      String(count),
      String(BUDGET),
      String(DEADLINE_MS),
      ...(shape === undefined ? [] : [shape]),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const lines = new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "");
  const results: ContainmentResult[] = [];
  const sources: string[] = [];
  let last: Started | undefined;
  for (const line of lines) {
    const r = JSON.parse(line);
    if ("start" in r) {
      last = r as Started;
      sources.push(last.source);
    } else results.push(r as ContainmentResult);
  }
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr).slice(-2000);
    assert.fail(
      `the child died (code ${out.code}, heap cap ${heapMb} MB) running program ${last?.start} ` +
        `(${last?.shape}):\n${last?.source}\n${err}`,
    );
  }
  assert.equal(results.length, count);
  return { results, sources };
}

Deno.test("containment: hostile programs stay within a small factor of the memory budget and the deadline", async () => {
  const outcomes = new Map<string, number>();
  const shapes = new Set<string>();
  let maxGrowth = 0, maxPast = 0, maxWall = -Infinity;
  // Two mixed batches, and one of scans that allocate nothing, which only the deadline stops.
  const batches: [number, number, string?][] = [[1, 45], [2, 45], [3, 8, "scan"]];
  for (const [seed, count, shape] of batches) {
    const { results, sources } = await runBatch(seed, count, shape);
    for (const r of results) {
      const where = `seed ${seed}, program ${r.index} (${r.shape}):\n${sources[r.index]}`;
      assert.notEqual(r.outcome, "internal", `a JS exception escaped the engine: ${r.message}\n${where}`);
      const past = Math.min(r.overrunMs, r.cpuOverrunMs);
      assert.ok(
        past <= MAX_OVERRUN_MS,
        `${r.overrunMs.toFixed(1)} ms (wall) and ${
          r.cpuOverrunMs.toFixed(1)
        } ms (CPU) past the deadline\n${where}`,
      );
      assert.ok(
        r.overrunMs <= MAX_WALL_OVERRUN_MS,
        `${r.overrunMs.toFixed(1)} ms past the deadline\n${where}`,
      );
      assert.ok(
        r.heapGrowth <= HEAP_FACTOR * BUDGET,
        `heap grew by ${(r.heapGrowth / 2 ** 20).toFixed(1)} MB\n${where}`,
      );
      outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
      shapes.add(r.shape);
      maxGrowth = Math.max(maxGrowth, r.heapGrowth);
      maxPast = Math.max(maxPast, past);
      maxWall = Math.max(maxWall, r.overrunMs);
    }
  }
  // The batch must exercise every way of stopping, or it proves nothing.
  for (const kind of ["ok", "resource:memory", "resource:cancelled"]) {
    assert.ok((outcomes.get(kind) ?? 0) >= 3, `too few outcomes ${kind}: ${JSON.stringify([...outcomes])}`);
  }
  assert.ok(shapes.size >= SHAPE_NAMES.length - 2, `shapes covered: ${[...shapes]}`);
  console.log(
    `outcomes ${JSON.stringify(Object.fromEntries(outcomes))}; max heap growth ` +
      `${(maxGrowth / 2 ** 20).toFixed(1)} MB (budget 16 MB); max past deadline: ` +
      `${maxPast.toFixed(1)} ms (the smaller of wall and CPU; ${maxWall.toFixed(1)} ms wall)`,
  );
});

function resourceError(f: () => unknown): ResourceError {
  try {
    f();
  } catch (e) {
    if (e instanceof ResourceError) return e;
    throw e;
  }
  throw new Error("no resource error");
}

Deno.test("containment: the issue's big-int program fails fast on the integer-size cap", () => {
  const src = "def main():\n    x = 3\n    for i in range(25):\n        x = x * x\n" +
    "    l = [x + i for i in range(750)]\n    return len(l)\nmain()\n";
  const e = resourceError(() => execFile(src, { maxMemory: BUDGET, maxSteps: 1_000_000 }));
  assert.equal(e.resource, "memory");
  assert.match(e.message, /integer-size limit/);
});

Deno.test("containment: concatenation with a long string is charged for its whole result", () => {
  const src = 'def main():\n    s = "x" * (1 << 20)\n    n = 0\n    for i in range(100):\n' +
    "        t = s + str(i)\n        n += ord(t[-1])\n    return n\nmain()\n";
  let thread;
  const e = resourceError(() => {
    const r = execFile(src, { maxMemory: BUDGET });
    thread = r.thread;
  });
  assert.equal(e.resource, "memory");
  assert.equal(thread, undefined);
  // With room for all of it, the charge is at least the total of the results.
  const { thread: t } = execFile(src.replace("range(100)", "range(10)"), { maxMemory: BUDGET });
  assert.ok(t.memory >= 11 * (1 << 20), `charged ${t.memory}`);
});
