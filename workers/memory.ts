/**
 * What both sandbox entries measure after a run: the heap in use, collecting first when the run left
 * the heap clearly grown and the host exposed `gc` (`--v8-flags=--expose-gc`, which a child process
 * always gets and Web Workers share with their host). A collected sandbox can be kept instead of being
 * replaced: V8 keeps a heap's freed pages until it collects, and a replacement costs a spawn.
 *
 * @module
 */

const gc = (globalThis as { gc?: () => void }).gc;
let gcAbove = Infinity;

/** Records the warmed-up engine's heap: a collection pays off only when a run left clearly more. */
export function noteBaselineHeap(): void {
  gcAbove = Deno.memoryUsage().heapUsed + 8 * 1024 * 1024;
}

/** The heap in use and the resident set after a run, collecting first when the run left the heap grown. */
export function memoryAfterRun(): { heapUsed: number; rss: number } {
  let m = Deno.memoryUsage();
  if (gc !== undefined && m.heapUsed > gcAbove) {
    gc();
    m = Deno.memoryUsage();
  }
  return { heapUsed: m.heapUsed, rss: m.rss };
}
