/**
 * What the downstream transports need to enforce the result size cap while reading, not after: a
 * streaming scanner that finds the top-level `id` (and whether there is a `method`) of a JSON-RPC
 * message whose bytes are being discarded, in constant memory, so that the call an oversized answer
 * belongs to can still be answered at once ("result too large") and the session stays usable.
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/** Longer keys are not `id` or `method`; longer ids are not ours (the SDK numbers its requests). */
const MAX_CAPTURE = 256;

const decoder = new TextDecoder();

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

/**
 * Scans the bytes of one JSON text pushed in any number of pieces, remembering only the members `id`
 * and `method` of the top-level object. Malformed input never throws: the id just stays unknown.
 */
export class TopLevelIdScanner {
  #depth = 0;
  #inString = false;
  #escape = false;
  /** At depth 1, whether the next string is a member name. */
  #expectKey = false;
  /** The member name being read (undefined when not capturing one). */
  #key: number[] | undefined;
  #lastKey = "";
  /** Whether the next value at depth 1 is the `id`'s, and its bytes while it is being read. */
  #awaitingId = false;
  #id: number[] | undefined;
  #idIsString = false;
  #idDone = false;
  #hasMethod = false;
  /** Bytes seen. */
  bytes = 0;

  /** Feeds the next piece of the text. */
  push(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (this.#inString) {
        const capture = this.#key ?? (this.#idIsString && !this.#idDone ? this.#id : undefined);
        if (capture === undefined && !this.#escape) {
          // The bulk of an oversized answer is one long string: skip to its next quote or backslash.
          let j = i;
          while (j < chunk.length && chunk[j] !== QUOTE && chunk[j] !== BACKSLASH) j++;
          if (j === chunk.length) return;
          i = j;
        }
        const c = chunk[i];
        if (this.#escape) {
          this.#escape = false;
        } else if (c === BACKSLASH) {
          this.#escape = true;
        } else if (c === QUOTE) {
          this.#inString = false;
          this.#endString();
          continue;
        }
        if (capture !== undefined && capture.length < MAX_CAPTURE) capture.push(c);
        continue;
      }
      this.#structural(b);
    }
  }

  #endString(): void {
    if (this.#key !== undefined) {
      this.#lastKey = this.#key.length < MAX_CAPTURE ? decoder.decode(new Uint8Array(this.#key)) : "";
      this.#key = undefined;
      this.#expectKey = false;
      if (this.#lastKey === "method") this.#hasMethod = true;
    } else if (this.#idIsString && this.#id !== undefined && !this.#idDone) {
      this.#idDone = true;
    }
  }

  #structural(b: number): void {
    if (this.#id !== undefined && !this.#idDone && !this.#idIsString) {
      // A bare value (a number, null) ends at the first delimiter.
      if (b === COMMA || b === CLOSE_OBJECT || isSpace(b)) this.#idDone = true;
      else if (this.#id.length < MAX_CAPTURE) this.#id.push(b);
      if (!this.#idDone) return;
    }
    if (isSpace(b)) return;
    if (this.#awaitingId && this.#depth === 1) {
      this.#awaitingId = false;
      if (b === QUOTE) {
        this.#id = [];
        this.#idIsString = true;
        this.#inString = true;
        return;
      }
      if (b !== OPEN_OBJECT && b !== OPEN_ARRAY) {
        this.#id = [b];
        this.#idIsString = false;
        return;
      }
    }
    switch (b) {
      case QUOTE:
        this.#inString = true;
        if (this.#depth === 1 && this.#expectKey) this.#key = [];
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        this.#depth++;
        this.#expectKey = this.#depth === 1 && b === OPEN_OBJECT;
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        this.#depth--;
        return;
      case COMMA:
        if (this.#depth === 1) this.#expectKey = true;
        return;
      case COLON:
        if (this.#depth === 1 && this.#lastKey === "id" && this.#id === undefined) this.#awaitingId = true;
        return;
    }
  }

  /** Whether the message has a top-level `method` (a request or a notification, not an answer). */
  get hasMethod(): boolean {
    return this.#hasMethod;
  }

  /** The top-level `id`, once read whole: a string or an integer; `undefined` when absent or malformed. */
  get id(): string | number | undefined {
    if (this.#id === undefined || (this.#idIsString && !this.#idDone)) return undefined;
    const raw = decoder.decode(new Uint8Array(this.#id));
    try {
      const value = JSON.parse(this.#idIsString ? `"${raw}"` : raw);
      if (typeof value === "string" || Number.isSafeInteger(value)) return value;
    } catch {
      // Not a JSON string or number.
    }
    return undefined;
  }
}

/** The error a too-large answer is replaced by on its way to the SDK, so that its call ends at once. */
export function oversizedAnswer(id: string | number): Record<string, unknown> {
  return { jsonrpc: "2.0", id, error: { code: -32603, message: "result too large" } };
}

/** The error an answer that does not parse is replaced by, so that its call ends at once. */
export function malformedAnswer(id: string | number): Record<string, unknown> {
  return { jsonrpc: "2.0", id, error: { code: -32700, message: "malformed answer" } };
}

/**
 * Bytes a frame may carry beyond `max_result_bytes` before it is discarded: the JSON-RPC envelope
 * around a result that is itself within the cap (which the redact(out) stage checks exactly).
 */
export const FRAME_SLACK_BYTES = 64 * 1024;
