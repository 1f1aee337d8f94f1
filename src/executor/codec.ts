/**
 * The type-preserving wire encoding of values that cross the sandbox boundary: the format, a bounded
 * writer and a checking reader. `host_codec.ts` maps it to plain JS values and `star_codec.ts` to
 * Starlark values. `maxValueBytes` measures exactly this encoding; `maxValueDepth` is checked while
 * encoding and again while decoding.
 *
 * Format (one tag byte per value, lengths and counts as unsigned LEB128 varints):
 *
 * | tag | value | payload |
 * |---|---|---|
 * | 0 | None | — |
 * | 1 / 2 | False / True | — |
 * | 3 | int ≥ 0 | varint n |
 * | 4 | int < 0 | varint −n |
 * | 5 | float | 8 bytes IEEE-754, little-endian |
 * | 6 | string | varint byte length, UTF-8 bytes |
 * | 7 | list (and tuple) | varint count, elements |
 * | 8 | dict with string keys | varint count, then per entry: varint key length, key bytes, value |
 *
 * Ints are limited to JS safe integers (|n| ≤ 2^53−1); the sign lives in the tag so that the varint
 * never leaves the safe range. String bytes need not be valid UTF-8 (a Starlark string is a byte string):
 * a host reading them as text replaces each byte that does not begin a valid UTF-8 sequence with one
 * U+FFFD, as Go's `utf8.DecodeRune` does and as `json.encode` does in the engine and in starlark-go
 * ({@link decodeUtf8}). Depth is inclusive: a scalar is 1, a container is one more than its
 * deepest element (an empty container is 1).
 *
 * This module uses no Deno APIs: the worker imports it too.
 *
 * @module
 */

/** Tag: None. */
export const TAG_NONE = 0;
/** Tag: False. */
export const TAG_FALSE = 1;
/** Tag: True. */
export const TAG_TRUE = 2;
/** Tag: non-negative int. */
export const TAG_INT = 3;
/** Tag: negative int (payload is its magnitude). */
export const TAG_NEG_INT = 4;
/** Tag: float. */
export const TAG_FLOAT = 5;
/** Tag: string. */
export const TAG_STR = 6;
/** Tag: list or tuple. */
export const TAG_LIST = 7;
/** Tag: dict with string keys. */
export const TAG_DICT = 8;

/** Size and depth bounds for one encoding or decoding. */
export interface WireLimits {
  /** Max encoded bytes. */
  readonly maxBytes: number;
  /** Max inclusive nesting depth. */
  readonly maxDepth: number;
}

/** A value exceeded `maxBytes` or `maxDepth`. */
export class WireLimitError extends Error {
  /** Which bound. */
  readonly limit: "bytes" | "depth";
  /** Creates the error. */
  constructor(limit: "bytes" | "depth", message: string) {
    super(message);
    this.name = "WireLimitError";
    this.limit = limit;
  }
}

/** A value cannot be encoded (unsupported type, non-finite float, unsafe int) or does not match its schema. */
export class WireTypeError extends Error {
  /** Creates the error; the message is safe to show to the program's author. */
  constructor(message: string) {
    super(message);
    this.name = "WireTypeError";
  }
}

/** Encoded bytes are malformed (a protocol violation, never a user error). */
export class WireFormatError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "WireFormatError";
  }
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Appends encoded values to a growable buffer, refusing to grow past `maxBytes`. */
export class WireWriter {
  /** Bytes written so far (valid up to {@link WireWriter.length}). */
  buf: Uint8Array;
  private view: DataView;
  private pos = 0;
  /** Byte bound. */
  readonly maxBytes: number;
  /** Depth bound. */
  readonly maxDepth: number;

  /** Creates a writer bounded by `limits`. */
  constructor(limits: WireLimits, initial = 256) {
    this.maxBytes = limits.maxBytes;
    this.maxDepth = limits.maxDepth;
    this.buf = new Uint8Array(Math.max(16, Math.min(initial, limits.maxBytes + 16)));
    this.view = new DataView(this.buf.buffer);
  }

  /** Bytes written. */
  get length(): number {
    return this.pos;
  }

  /** Makes room for `n` more bytes or throws {@link WireLimitError}. */
  ensure(n: number): void {
    const end = this.pos + n;
    if (end > this.maxBytes) {
      throw new WireLimitError("bytes", `value encodes to more than ${this.maxBytes} bytes`);
    }
    if (end > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < end) cap *= 2;
      const next = new Uint8Array(Math.min(cap, Math.max(end, this.maxBytes)));
      next.set(this.buf.subarray(0, this.pos));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
  }

  /**
   * Refuses at once, without growing the buffer, when `n` more bytes cannot fit: callers use it with a
   * lower bound of what they are about to write (one byte per list item, one per UTF-16 unit), so an
   * oversized value is refused before it is walked.
   */
  reserve(n: number): void {
    if (this.pos + n > this.maxBytes) {
      throw new WireLimitError("bytes", `value encodes to more than ${this.maxBytes} bytes`);
    }
  }

  /** Checks the depth of a value about to be written at `level` (1 = top). */
  depth(level: number): void {
    if (level > this.maxDepth) {
      throw new WireLimitError("depth", `value is nested deeper than ${this.maxDepth} levels`);
    }
  }

  /** Writes one byte. */
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** Writes an unsigned varint (0 ≤ n ≤ 2^53−1). */
  varint(n: number): void {
    this.ensure(varintLength(n));
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
  }

  /** Writes a tagged safe integer. */
  int(n: number): void {
    if (n < 0) {
      this.byte(TAG_NEG_INT);
      this.varint(-n);
    } else {
      this.byte(TAG_INT);
      this.varint(n === 0 ? 0 : n); // -0 is written as 0
    }
  }

  /** Writes a tagged float. */
  float(x: number): void {
    this.ensure(9);
    this.buf[this.pos++] = TAG_FLOAT;
    this.view.setFloat64(this.pos, x, true);
    this.pos += 8;
  }

  /** Writes the length-prefixed UTF-8 encoding of a JS (UTF-16) string. */
  jsString(s: string): void {
    const n = s.length;
    this.reserve(n); // every UTF-16 unit is at least one UTF-8 byte
    let ascii = true;
    for (let i = 0; i < n; i++) {
      if (s.charCodeAt(i) >= 0x80) {
        ascii = false;
        break;
      }
    }
    // ASCII text is its own UTF-8 encoding, one byte per char.
    if (ascii) return this.binaryString(s);
    const len = utf8Length(s);
    this.varint(len);
    this.ensure(len);
    encoder.encodeInto(s, this.buf.subarray(this.pos, this.pos + len));
    this.pos += len;
  }

  /** Writes a length-prefixed byte string given as a binary string (each char code is one byte). */
  binaryString(s: string): void {
    const n = s.length;
    this.reserve(n);
    this.varint(n);
    this.ensure(n);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** A copy of the bytes written (its own ArrayBuffer, so it can be transferred). */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

/** Bytes of the varint encoding of `n`. */
export function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    len++;
  }
  return len;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8");

/**
 * The length (1–4) of the valid UTF-8 sequence that starts at `b[i]`, or 0 when that byte does not
 * begin one. Go's rules: no overlong forms, no surrogates (U+D800–U+DFFF), nothing above U+10FFFF.
 */
function sequenceLength(b: Uint8Array, i: number): number {
  const b0 = b[i];
  if (b0 < 0x80) return 1;
  if (b0 < 0xc2 || b0 > 0xf4) return 0;
  const n = b.length;
  if (i + 1 >= n) return 0;
  const b1 = b[i + 1];
  if (b0 < 0xe0) return b1 >= 0x80 && b1 <= 0xbf ? 2 : 0;
  let lo = 0x80, hi = 0xbf;
  if (b0 === 0xe0) lo = 0xa0;
  else if (b0 === 0xed) hi = 0x9f;
  else if (b0 === 0xf0) lo = 0x90;
  else if (b0 === 0xf4) hi = 0x8f;
  if (b1 < lo || b1 > hi || i + 2 >= n) return 0;
  const b2 = b[i + 2];
  if (b2 < 0x80 || b2 > 0xbf) return 0;
  if (b0 < 0xf0) return 3;
  if (i + 3 >= n) return 0;
  const b3 = b[i + 3];
  return b3 >= 0x80 && b3 <= 0xbf ? 4 : 0;
}

/** The index of the first byte at or after `from` that does not begin a valid UTF-8 sequence, or `b.length`. */
export function invalidUtf8Index(b: Uint8Array, from = 0): number {
  let i = from;
  while (i < b.length) {
    if (b[i] < 0x80) {
      i++;
      continue;
    }
    const len = sequenceLength(b, i);
    if (len === 0) return i;
    i += len;
  }
  return b.length;
}

/**
 * Decodes UTF-8 bytes to a JS string the way Go converts a string to runes: every byte that does not
 * begin a valid sequence becomes one U+FFFD (so `"\xe2\x82"` — a truncated `€` — is two, where the
 * WHATWG decoder of `TextDecoder` would write one). Valid input decodes exactly as `TextDecoder` does.
 * This is the one rule for every engine string that reaches the host as text: argument strings and
 * keys, the final value, and messages.
 */
export function decodeUtf8(b: Uint8Array): string {
  let bad = invalidUtf8Index(b);
  if (bad === b.length) return decoder.decode(b);
  let out = "";
  let start = 0;
  while (bad < b.length) {
    if (bad > start) out += decoder.decode(b.subarray(start, bad));
    out += "\ufffd";
    start = bad + 1;
    bad = invalidUtf8Index(b, start);
  }
  return start < b.length ? out + decoder.decode(b.subarray(start)) : out;
}

/**
 * Quotes bytes for a message the way starlark-go's `repr` shows a string: valid UTF-8 as text, each
 * byte that does not begin a valid sequence as `\xNN`, with `"` and `\` escaped. Two distinct byte
 * strings always quote differently (model-visible callers still escape the result).
 */
export function quoteBytes(b: Uint8Array): string {
  let out = '"';
  let i = 0;
  while (i < b.length) {
    const len = sequenceLength(b, i);
    if (len === 0) {
      out += `\\x${b[i].toString(16).padStart(2, "0")}`;
      i++;
      continue;
    }
    const text = decoder.decode(b.subarray(i, i + len));
    out += text === '"' || text === "\\" ? "\\" + text : text;
    i += len;
  }
  return out + '"';
}

/** UTF-8 byte length of a JS string as `TextEncoder` encodes it (lone surrogates become U+FFFD). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** {@link decodeUtf8} with a fast path for short ASCII strings (most keys). */
export function bytesToText(raw: Uint8Array): string {
  if (raw.length <= 64) {
    let s = "";
    for (let i = 0; i < raw.length; i++) {
      const c = raw[i];
      if (c >= 0x80) return decodeUtf8(raw);
      s += String.fromCharCode(c);
    }
    return s;
  }
  return decodeUtf8(raw);
}

const UTF16 = new TextDecoder("utf-16le");

/** Reads encoded values, checking depth and well-formedness. */
export class WireReader {
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  /** Read position. */
  pos = 0;
  /** Depth bound. */
  readonly maxDepth: number;

  /** Reads `bytes`, which must not exceed `limits.maxBytes`. */
  constructor(bytes: Uint8Array, limits: WireLimits) {
    if (bytes.length > limits.maxBytes) {
      throw new WireLimitError("bytes", `value encodes to more than ${limits.maxBytes} bytes`);
    }
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.maxDepth = limits.maxDepth;
  }

  /** Throws unless every byte was consumed. */
  end(): void {
    if (this.pos !== this.bytes.length) throw new WireFormatError("trailing bytes after value");
  }

  /** Checks the depth of a value read at `level`. */
  depth(level: number): void {
    if (level > this.maxDepth) {
      throw new WireLimitError("depth", `value is nested deeper than ${this.maxDepth} levels`);
    }
  }

  /** Reads one byte. */
  byte(): number {
    if (this.pos >= this.bytes.length) throw new WireFormatError("unexpected end of value");
    return this.bytes[this.pos++];
  }

  /** Reads an unsigned varint that must stay within 2^53−1. */
  varint(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (n > MAX_SAFE) throw new WireFormatError("integer out of range");
      if (b < 0x80) return n;
      scale *= 0x80;
      if (scale > 2 ** 56) throw new WireFormatError("varint too long");
    }
  }

  /** Reads a count of items, each of which needs at least `minItemBytes` more bytes. */
  count(minItemBytes: number): number {
    const n = this.varint();
    if (n * minItemBytes > this.bytes.length - this.pos) {
      throw new WireFormatError("count exceeds value size");
    }
    return n;
  }

  /**
   * Reads the value of a tag both decoders map alike — None, the bools and the ints (the sign lives in
   * the tag, so −0 never appears) — after the tag byte.
   *
   * @throws {WireFormatError} for any other tag.
   */
  scalar(tag: number): null | boolean | number {
    switch (tag) {
      case TAG_NONE:
        return null;
      case TAG_FALSE:
        return false;
      case TAG_TRUE:
        return true;
      case TAG_INT:
        return this.varint();
      case TAG_NEG_INT: {
        const n = this.varint();
        return n === 0 ? 0 : -n;
      }
    }
    throw new WireFormatError(`unknown tag ${tag}`);
  }

  /** Reads an 8-byte float. */
  float(): number {
    if (this.pos + 8 > this.bytes.length) throw new WireFormatError("unexpected end of value");
    const x = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return x;
  }

  /** Reads the raw bytes of a length-prefixed string. */
  rawString(): Uint8Array {
    const n = this.varint();
    if (this.pos + n > this.bytes.length) throw new WireFormatError("unexpected end of value");
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Reads a length-prefixed string as a JS string ({@link decodeUtf8}: one U+FFFD per invalid byte). */
  jsString(): string {
    return bytesToText(this.rawString());
  }

  /** Reads a length-prefixed string as a binary string (one char per byte). */
  binaryString(): string {
    const raw = this.rawString();
    // Byte i becomes char code i. Short strings by one apply (an array-like, not the spread's
    // iterator: 8x faster); long ones through UTF-16 code units, one flat string and no chunk limit.
    if (raw.length <= 4096) return String.fromCharCode.apply(null, raw as unknown as number[]);
    const units = new Uint16Array(raw.length);
    units.set(raw);
    return UTF16.decode(units);
  }
}
