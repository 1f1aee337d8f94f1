/**
 * Turns on one JS thread: paused runs of the inline executor wait here to go on, one per macrotask.
 *
 * Each turn is granted from its own `setImmediate` callback, so the event loop polls its I/O (new requests,
 * timers, native call results) between any two slices; a new execution therefore never waits for more
 * than the slice that runs when it arrives. Each turn is asked with a key, and the least key goes
 * first (ties first come, first served): the inline executor passes the thread time its subject has
 * used, so a subject flooding the executor with long runs waits behind the others' short ones, and
 * runs of one subject take turns round-robin.
 *
 * Why `setImmediate` (measured on Deno 2.9.6, 4 ms slices for 2 s next to a 10 ms timer): chained
 * `setTimeout(0)` is clamped to 4 ms, leaving the thread idle 42% of the time; a MessageChannel's
 * messages starve timers (4 fires in 2 s, one 543 ms late); `setImmediate` kept the thread 97% busy
 * while the timer fired on time (6 ms late at worst).
 *
 * @module
 */
import { clearImmediate, setImmediate } from "node:timers";

/** A queue of runs waiting for their next slice of the thread. */
export class Turns {
  readonly #waiting: { readonly key: number; readonly grant: () => void }[] = [];
  #scheduled: ReturnType<typeof setImmediate> | undefined;

  /** Number of runs waiting for a turn. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Resolves when it is this caller's turn: after every waiting turn whose key is less than `key` or
   * equal to it, each in its own macrotask. Rejects with the signal's reason if it aborts
   * first (the turn is then given up).
   */
  next(key: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        const i = this.#waiting.indexOf(entry);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal!.reason);
      };
      const entry = {
        key,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      let i = this.#waiting.length;
      while (i > 0 && this.#waiting[i - 1].key > key) i--;
      this.#waiting.splice(i, 0, entry);
      this.#post();
    });
  }

  /** Cancels the pending grant; turns still waiting are granted once another is requested. */
  close(): void {
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
  }

  #post(): void {
    if (this.#scheduled === undefined) this.#scheduled = setImmediate(() => this.#grant());
  }

  #grant(): void {
    this.#scheduled = undefined;
    const next = this.#waiting.shift();
    if (this.#waiting.length > 0) this.#post();
    next?.grant();
  }
}
