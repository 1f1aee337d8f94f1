/**
 * Unit tests of the side-by-side comparison's arithmetic: the memory columns above each implementation's
 * floor, and the V8 flags ours runs with.
 */
import assert from "node:assert/strict";
import { deltaMiB, denoOptions, MIN_DELTA_MIB } from "./compare.ts";

Deno.test("deltaMiB: a program's peak minus its implementation's floor, in MiB", () => {
  assert.deepEqual(deltaMiB(60 * 1024, 40 * 1024), { mib: 20, clamped: false });
  assert.deepEqual(deltaMiB(5 * 1024 + 512, 5 * 1024 - 512), { mib: 1, clamped: false });
  // Generated: any peak at least MIN_DELTA_MIB above the floor is reported as it is.
  for (let floor = 1024; floor < 64 * 1024; floor += 3079) {
    for (let above = MIN_DELTA_MIB * 1024; above < 200 * 1024; above += 7919) {
      const d = deltaMiB(floor + above, floor);
      assert.equal(d.clamped, false);
      assert.ok(Math.abs(d.mib - above / 1024) < 1e-9, `${floor} + ${above}`);
    }
  }
});

Deno.test("deltaMiB: a peak at, below or barely above the floor is clamped, and says so", () => {
  for (const [peak, floor] of [[40, 40], [39, 40], [40.2, 40], [1, 300]]) {
    const d = deltaMiB(peak * 1024, floor * 1024);
    assert.deepEqual(d, { mib: MIN_DELTA_MIB, clamped: true }, `${peak} over ${floor}`);
    // The ratio of two clamped deltas stays finite and positive.
    assert.ok(Number.isFinite(d.mib / d.mib) && d.mib > 0);
  }
});

Deno.test("denoOptions: --v8-flags replaces the star task's V8 flags and keeps its other options", () => {
  const task = ["-A", "--v8-flags=--max-semi-space-size=2,--heap-growing-percent=50"];
  assert.deepEqual(denoOptions(task, undefined), task);
  assert.deepEqual(denoOptions(task, "--max-semi-space-size=8"), [
    "-A",
    "--v8-flags=--max-semi-space-size=8",
  ]);
  assert.deepEqual(denoOptions(["-A"], "--single-threaded"), ["-A", "--v8-flags=--single-threaded"]);
});
