/**
 * {@link TextBuilder}: accumulates many small pieces of text into one string without building a V8 rope.
 *
 * Why: `out += piece` in a loop makes one cons-string node (32 bytes) per piece, far more memory than the
 * text itself when the pieces are short (an escape, a separator), and the final flattening walks them
 * all in one native call that cannot be interrupted. The builder joins its pieces into a flat chunk
 * every {@link PIECES_PER_CHUNK} pieces, polling the thread's interrupt hook there, so the live overhead
 * stays bounded and a long build is polled.
 *
 * @module
 */
/** What a builder polls between chunks: a thread, or anything with its `poll`. */
export interface Poller {
  /** Polls the interrupt hook (may throw to stop the work). */
  poll(): void;
}

/** Pieces joined into one flat chunk at a time. */
export const PIECES_PER_CHUNK = 4096;

/** A string under construction from pieces (see the module documentation). */
export class TextBuilder {
  private parts: string[] = [];
  private chunks: string[] | undefined;
  /** Characters added so far. */
  length = 0;

  /** A builder that polls `thread` (a Thread, if given) between chunks. */
  constructor(private readonly thread?: Poller) {}

  /** Appends `s`. */
  add(s: string): void {
    const parts = this.parts;
    this.length += s.length;
    parts.push(s);
    if (parts.length >= PIECES_PER_CHUNK) this.flush();
  }

  private flush(): void {
    const chunk = this.parts.join("");
    this.parts = [];
    (this.chunks ??= []).push(chunk);
    this.thread?.poll();
  }

  /** The whole text. */
  finish(): string {
    if (this.chunks === undefined) return this.parts.join("");
    if (this.parts.length > 0) this.flush();
    return this.chunks.length === 1 ? this.chunks[0] : this.chunks.join("");
  }
}
