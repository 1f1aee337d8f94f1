/**
 * What the sandbox entries measure after a run: the heap in use, collecting first when the run left the
 * heap clearly grown and the host exposed `gc` (`--v8-flags=--expose-gc`, which a child process always
 * gets and Web Workers share with their host). A collected sandbox can be kept instead of being replaced:
 * V8 keeps a heap's freed objects until it collects, and a replacement costs a spawn.
 *
 * That collection keeps the freed pages committed; the worker entry also gives them back once it has
 * been idle a moment ({@link idleRelease}). The process entry blocks on its input between runs, and its
 * pages leave with the process.
 *
 * @module
 */
import { exposedGc, IdleRelease } from "../src/executor/idle_release.ts";

/** Extra heap, over the warmed-up engine's, above which collecting pays off. */
const GROWN_BYTES = 8 * 1024 * 1024;
let gcAbove = Infinity;

/** The memory-reducing collection a worker runs after staying idle 100 ms with a grown heap. */
export const idleRelease: IdleRelease = new IdleRelease(100, GROWN_BYTES, () => Deno.memoryUsage().heapTotal);

/** Records the warmed-up engine's heap: a collection pays off only when a run left clearly more. */
export function noteBaselineHeap(): void {
  gcAbove = Deno.memoryUsage().heapUsed + GROWN_BYTES;
  idleRelease.noteBaseline();
}

/** The heap in use and the resident set after a run, collecting first when the run left the heap grown. */
export function memoryAfterRun(): { heapUsed: number; rss: number } {
  let m = Deno.memoryUsage();
  if (exposedGc !== undefined && m.heapUsed > gcAbove) {
    exposedGc();
    m = Deno.memoryUsage();
  }
  return { heapUsed: m.heapUsed, rss: m.rss };
}

/**
 * Heap in use below which a sandbox process reports its figures uncollected and collects only after its
 * result is sent. No host retires a child for so small a heap (the host's bound is half the heap cap,
 * at least 32 MiB), so the figure decides nothing a collection would change.
 */
export const COLLECT_LATER_BELOW_BYTES = 32 * 1024 * 1024;

/**
 * {@link memoryAfterRun} for the process entry, without making the caller wait for a collection it
 * does not need: when the run left the heap grown but below {@link COLLECT_LATER_BELOW_BYTES}, the
 * figures are taken as they are and `collect` (run it once the result is sent) collects. A collection
 * after a run of a thousand native calls costs about as much as the calls did.
 */
export function memoryAfterRunDeferred(): { heapUsed: number; rss: number; collect?: () => void } {
  const m = Deno.memoryUsage();
  const gc = exposedGc;
  if (gc === undefined || m.heapUsed <= gcAbove) return { heapUsed: m.heapUsed, rss: m.rss };
  if (m.heapUsed >= COLLECT_LATER_BELOW_BYTES) return memoryAfterRun();
  return { heapUsed: m.heapUsed, rss: m.rss, collect: () => gc() };
}
