/**
 * What a program prints, kept for the caller: models debug by printing, so `print()` output comes back
 * with the result and with every error. Only the last {@link MAX_OUTPUT_BYTES} bytes are kept (with how
 * many were dropped before them), so a program that prints in a loop never grows the host; every printed
 * byte is also charged to the run's memory budget as it is printed (see `program.ts`).
 *
 * @module
 */
// No engine import: the host side (host_call.ts) bounds the output it receives with this module too.
const decoder = new TextDecoder();

/** Decodes a binary string of UTF-8 bytes (invalid sequences become U+FFFD). */
function decodeBytes(bytes: string): string {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = bytes.charCodeAt(i);
  return decoder.decode(out);
}

/** The most bytes of printed output kept (the last ones). */
export const MAX_OUTPUT_BYTES = 8 * 1024;

/** The line that tells how much printed output was dropped before what is kept. */
export function droppedLine(bytes: number): string {
  return `[${bytes} bytes dropped]\n`;
}

/** The last {@link MAX_OUTPUT_BYTES} bytes of a run's printed output. */
export class PrintTail {
  // Binary strings of UTF-8 bytes (the engine's strings), newest last; their total stays bounded.
  #parts: string[] = [];
  #kept = 0;
  #dropped = 0;

  /** Appends one message (a binary string of UTF-8 bytes, as the engine's print hook gets it). */
  add(bytes: string): void {
    if (bytes.length >= MAX_OUTPUT_BYTES) {
      this.#dropped += this.#kept + bytes.length - MAX_OUTPUT_BYTES;
      this.#parts = [bytes.slice(bytes.length - MAX_OUTPUT_BYTES)];
      this.#kept = MAX_OUTPUT_BYTES;
      return;
    }
    this.#parts.push(bytes);
    this.#kept += bytes.length;
    if (this.#kept > 2 * MAX_OUTPUT_BYTES) this.#compact();
  }

  #compact(): void {
    const all = this.#parts.join("");
    const cut = Math.max(0, all.length - MAX_OUTPUT_BYTES);
    this.#dropped += cut;
    this.#parts = [all.slice(cut)];
    this.#kept = all.length - cut;
  }

  /** The kept output as text, led by a "N bytes dropped" line when more was printed; undefined when none. */
  text(): string | undefined {
    this.#compact();
    let kept = this.#parts.join("");
    if (kept === "" && this.#dropped === 0) return undefined;
    // A cut inside a character: drop its continuation bytes too, so the text starts on a whole one.
    let skip = 0;
    while (skip < kept.length && (kept.charCodeAt(skip) & 0xc0) === 0x80 && this.#dropped > 0) skip++;
    kept = kept.slice(skip);
    const dropped = this.#dropped + skip;
    return (dropped > 0 ? droppedLine(dropped) : "") + decodeBytes(kept);
  }
}

/**
 * Bounds printed output that arrived from a sandbox (which the host does not trust to have bounded it):
 * at most {@link MAX_OUTPUT_BYTES} code units past the dropped line; anything not a string is no output.
 */
export function boundOutput(output: unknown): string | undefined {
  if (typeof output !== "string" || output === "") return undefined;
  const limit = MAX_OUTPUT_BYTES + 64;
  return output.length <= limit
    ? output
    : `[output cut]\n${output.slice(output.length - limit).toWellFormed()}`;
}
