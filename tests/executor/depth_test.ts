/**
 * Deep recursion through built-ins that call back (`sorted`, `min`, `max` with a `key`) inside the
 * zero-permission worker sandbox, whose JS stack is half the main thread's: the recursion runs on the
 * engine's explicit stack, so the worker reaches the same depth as the main thread and the reference
 * (every frame counts, built-ins included: 100,000), and past it the run ends with the classified
 * depth budget, its message bounded, while the worker serves the next run.
 */
import assert from "node:assert/strict";
import { CodeModeError } from "../../src/errors.ts";
import { WorkerPool } from "../../src/executor/pool.ts";
import { rejection, request } from "./helpers.ts";

/** `f(n)` nests n levels of f → sorted → lambda (three frames a level) and returns n. */
function viaSorted(n: number): string {
  return "def f(n):\n    return 0 if n == 0 else sorted([n], key = lambda x: f(x - 1) + 1)[0]\n" +
    `def main():\n    return f(${n})\n`;
}

/** The same through `max` and `min`, alternating (each returns its one element, n). */
function viaMinMax(n: number): string {
  return "def f(n):\n    if n == 0:\n        return 0\n" +
    "    if n % 2:\n        return max([n], key = lambda x: f(x - 1))\n" +
    "    return min([n], key = lambda x: -f(x - 1))\n" +
    `def main():\n    return f(${n})\n`;
}

// Each level holds three activations (about 4.6 KB charged): 33,000 levels need about 150 MB.
const BIG = { maxExecutionSteps: 100_000_000, maxMemoryBytes: 512 << 20 };

Deno.test("depth: a worker recurses through sorted/min/max keys as deep as the reference", async () => {
  const pool = new WorkerPool({ warmWorkers: 0, dialect: { recursion: true } });
  try {
    assert.equal(await pool.run(request(viaSorted(10_000), { budgets: BIG })), 10_000);
    // main, then 33,332 levels of three frames and the innermost f: 99,999 frames.
    assert.equal(await pool.run(request(viaSorted(33_332), { budgets: BIG })), 33_332);
    assert.equal(await pool.run(request(viaMinMax(20_000), { budgets: BIG })), 20_000);
    const over = await rejection(pool.run(request(viaSorted(33_333), { budgets: BIG })));
    assert.ok(over instanceof CodeModeError && over.code === "resource_limit", String(over));
    assert.match(over.message, /maximum call depth 100000 exceeded/);
    // The 100,000-frame traceback the engine recorded does not reach the model.
    assert.ok(over.message.length + (over.detail?.length ?? 0) < 2_000, over.message);
    assert.equal(await pool.run(request(viaSorted(10), { budgets: BIG })), 10);
  } finally {
    await pool.close();
  }
});
