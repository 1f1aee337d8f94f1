/**
 * Wall-clock margins for tests that assert timing behaviour (a deadline is honoured, a refusal is fast).
 *
 * A bound such as "ends within 50 ms of its deadline" describes the engine on a machine that gives it a
 * core. On a saturated machine (the suite must pass next to 8 busy processes on 2 cores) the scheduler
 * alone can delay a timer or a thread by several times that, so a margin is multiplied by how
 * oversubscribed the cores are while the test runs: the number of runnable tasks per core
 * (`/proc/loadavg`, instantaneous) or the one-minute load average per core, whichever is higher, and never
 * less than 1. On a quiet machine the factor is 1 and every bound is the one the behaviour promises.
 *
 * `CODEMODE_TEST_SLOWDOWN` (a number ≥ 1) overrides the measurement, e.g. for a slow emulator.
 *
 * @module
 */

const MAX_FACTOR = 40;

function cores(): number {
  return Math.max(1, navigator.hardwareConcurrency || 1);
}

function runnableTasks(): number {
  try {
    // Fields: 1-, 5-, 15-minute averages, then "running/total".
    const fields = Deno.readTextFileSync("/proc/loadavg").trim().split(/\s+/);
    const running = Number(fields[3]?.split("/")[0]);
    return Number.isFinite(running) ? running : 0;
  } catch {
    return 0;
  }
}

/**
 * How many times slower than a quiet machine the scheduler makes things now (≥ 1). Sample it around
 * the measurement (the larger of two samples), since load comes and goes during a parallel run.
 */
export function loadFactor(): number {
  const forced = Number(Deno.env.get("CODEMODE_TEST_SLOWDOWN"));
  if (Number.isFinite(forced) && forced >= 1) return forced;
  let avg = 0;
  try {
    avg = Deno.loadavg()[0];
  } catch {
    // No sys permission or no load average on this platform: rely on the instantaneous count.
  }
  const perCore = Math.max(avg, runnableTasks()) / cores();
  return Math.min(MAX_FACTOR, Math.max(1, perCore));
}

/**
 * Measures the wall time of `fn` and the load around it, so that a bound can be scaled by the load
 * that the measurement actually saw.
 */
export async function timed<T>(fn: () => Promise<T> | T): Promise<{ value: T; ms: number; factor: number }> {
  const before = loadFactor();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  return { value, ms, factor: Math.max(before, loadFactor()) };
}

/** `ms` scaled by the current load: the margin a timing bound may use on this machine right now. */
export function slack(ms: number, factor: number = loadFactor()): number {
  return ms * factor;
}
