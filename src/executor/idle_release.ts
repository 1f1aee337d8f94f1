/**
 * Giving a grown heap back to the OS once the isolate is idle.
 *
 * A regular collection frees objects but keeps the heap's pages committed (measured on Deno 2.9.6:
 * 1,000,000 small objects dropped, `gc()` 5 ms, RSS still 209 MiB); only a memory-reducing collection
 * (`flavor: "last-resort"`, 30 ms, RSS 45 MiB) returns them. It is too slow to sit before a reply, so an
 * isolate whose work left its heap grown schedules it for when it has stayed idle a moment, and new work
 * cancels it. Both need `gc` exposed (`--v8-flags=--expose-gc`); without it this does nothing and the
 * pages stay until the isolate ends.
 *
 * @module
 */

type Collect = (options?: { type: "major"; execution: "sync"; flavor: "regular" | "last-resort" }) => void;

/** V8's `gc`, when the process was started with `--expose-gc` (shared by every isolate of the process). */
export const exposedGc: Collect | undefined = (globalThis as { gc?: Collect }).gc;

/** A memory-reducing collection scheduled for idle time, for one isolate. */
export class IdleRelease {
  readonly #idleMs: number;
  readonly #grownBytes: number;
  readonly #committed: () => number;
  #committedAbove = Infinity;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param idleMs how long the isolate must stay idle before the collection runs
   * @param grownBytes committed heap over the baseline that makes the collection worth its time
   * @param committed reads the isolate's committed heap in bytes (`Deno.memoryUsage().heapTotal`; passed
   *   in so the sandbox's side of the executor uses no Deno API itself)
   */
  constructor(idleMs: number, grownBytes: number, committed: () => number) {
    this.#idleMs = idleMs;
    this.#grownBytes = grownBytes;
    this.#committed = committed;
  }

  /** Records the isolate's committed heap when warmed up: only clearly more than that is released. */
  noteBaseline(): void {
    this.#committedAbove = this.#committed() + this.#grownBytes;
  }

  /** Work ended: if the committed heap has grown past the baseline, release it after the idle time. */
  schedule(): void {
    if (exposedGc === undefined || this.#timer !== undefined) return;
    if (this.#committed() <= this.#committedAbove) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      exposedGc!({ type: "major", execution: "sync", flavor: "last-resort" });
      // What is still committed now is live: the isolate's own growth, not a run's garbage.
      this.noteBaseline();
    }, this.#idleMs);
  }

  /** Work is starting: a pending release would only delay it (and the work may reuse those pages). */
  cancel(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
