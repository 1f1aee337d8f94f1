/**
 * Spreads Web Worker creations over the host's event loop.
 *
 * `new Worker()` blocks the calling thread for 10–30 ms while Deno sets up the new isolate (measured on
 * Deno 2.9.6; a nested worker started by a helper worker instead takes 0.5–1 s to start, so the creation
 * cannot simply move off the host's thread). A pool refilling its slots after a burst of interrupted or
 * over-budget runs made several in one turn and froze the host, and every other subject's execution,
 * for their sum (stalls of up to 95 ms under the hostile corpus). The pacer makes at most one creation
 * per macrotask and, after each, leaves the host free for at least as long as that creation took, so
 * the messages of running executions get through between spawns.
 *
 * @module
 */

/** Runs spawn jobs one per macrotask, with a gap as long as the previous job took. */
export class SpawnPacer {
  readonly #queue: (() => void)[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #notBefore = 0;

  /** Queues `job` (a synchronous creation); it runs on a later macrotask. */
  schedule(job: () => void): void {
    this.#queue.push(job);
    this.#arm();
  }

  /** Drops every queued job. Idempotent. */
  close(): void {
    this.#queue.length = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#queue.length === 0) return;
    const wait = Math.max(0, this.#notBefore - performance.now());
    this.#timer = setTimeout(() => this.#run(), wait);
  }

  #run(): void {
    this.#timer = undefined;
    const job = this.#queue.shift();
    if (job !== undefined) {
      const started = performance.now();
      try {
        job();
      } finally {
        const now = performance.now();
        this.#notBefore = now + (now - started);
      }
    }
    this.#arm();
  }
}
