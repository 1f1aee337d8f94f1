/**
 * UTF-8 helpers over binary strings (one char code per byte), with Go's decoding rules: an invalid or
 * truncated sequence decodes as U+FFFD consuming exactly one byte, surrogates and overlong forms are
 * invalid. Starlark's reference implementation is written in Go, so its string operations follow these
 * rules (which differ from the WHATWG decoder that `TextDecoder` implements).
 *
 * @module
 */
import { isPrintRune } from "../unicode/mod.ts";
import { TextBuilder } from "./text_builder.ts";

/** The replacement character U+FFFD. */
export const RUNE_ERROR = 0xfffd;

/** UTF-8 encoding of U+FFFD as a binary string. */
export const RUNE_ERROR_UTF8 = "\xef\xbf\xbd";

/**
 * Decodes the code point starting at byte `i` of the binary string `s` (i < s.length).
 * Returns `rune * 8 + size` packed in one number to avoid allocating: use {@link runeOf} and
 * {@link sizeOf} to unpack. Invalid input yields U+FFFD with size 1, like Go's `utf8.DecodeRuneInString`.
 */
export function decodeRune(s: string, i: number): number {
  const b0 = s.charCodeAt(i);
  if (b0 < 0x80) return b0 * 8 + 1;
  const n = s.length;
  if (b0 < 0xc2 || b0 > 0xf4) return INVALID;
  if (b0 < 0xe0) {
    if (i + 1 >= n) return INVALID;
    const b1 = s.charCodeAt(i + 1);
    if (b1 < 0x80 || b1 > 0xbf) return INVALID;
    return (((b0 & 0x1f) << 6) | (b1 & 0x3f)) * 8 + 2;
  }
  let lo = 0x80, hi = 0xbf;
  if (b0 === 0xe0) lo = 0xa0;
  else if (b0 === 0xed) hi = 0x9f;
  else if (b0 === 0xf0) lo = 0x90;
  else if (b0 === 0xf4) hi = 0x8f;
  if (i + 1 >= n) return INVALID;
  const b1 = s.charCodeAt(i + 1);
  if (b1 < lo || b1 > hi) return INVALID;
  if (i + 2 >= n) return INVALID;
  const b2 = s.charCodeAt(i + 2);
  if (b2 < 0x80 || b2 > 0xbf) return INVALID;
  if (b0 < 0xf0) return (((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f)) * 8 + 3;
  if (i + 3 >= n) return INVALID;
  const b3 = s.charCodeAt(i + 3);
  if (b3 < 0x80 || b3 > 0xbf) return INVALID;
  return (((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f)) * 8 + 4;
}

const INVALID = RUNE_ERROR * 8 + 1;

/** The code point of a {@link decodeRune} result. */
export function runeOf(packed: number): number {
  return Math.floor(packed / 8);
}

/** The byte length of a {@link decodeRune} result (1..4). */
export function sizeOf(packed: number): number {
  return packed & 7;
}

/** Whether a {@link decodeRune} result is the error case (invalid byte), as opposed to a literal U+FFFD. */
export function isInvalid(packed: number): boolean {
  return packed === INVALID;
}

/**
 * Encodes a code point as UTF-8 (binary string). Surrogates and values outside 0..0x10FFFF encode
 * U+FFFD, like Go's `utf8.EncodeRune`.
 */
export function encodeRune(r: number): string {
  if (r >= 0 && r < 0x80) return String.fromCharCode(r);
  if (r < 0 || r > 0x10ffff || (r >= 0xd800 && r < 0xe000)) r = RUNE_ERROR;
  if (r < 0x800) return String.fromCharCode(0xc0 | (r >> 6), 0x80 | (r & 0x3f));
  if (r < 0x10000) {
    return String.fromCharCode(0xe0 | (r >> 12), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
  }
  return String.fromCharCode(
    0xf0 | (r >> 18),
    0x80 | ((r >> 12) & 0x3f),
    0x80 | ((r >> 6) & 0x3f),
    0x80 | (r & 0x3f),
  );
}

// deno-lint-ignore no-control-regex
const ASCII_RE = /^[\x00-\x7f]*$/;

/** Bytes between two calls of a loop's `poll` callback (ops_bulk's TEXT_POLL_CHUNK; this module is a leaf). */
const POLL_BYTES = 1 << 15;

/** Whether the binary string is valid UTF-8 (Go's `utf8.ValidString`); `poll` runs between chunks. */
export function validUTF8(s: string, poll?: () => void): boolean {
  if (ASCII_RE.test(s)) return true;
  for (let i = 0, next = POLL_BYTES; i < s.length;) {
    if (i >= next) {
      poll?.();
      next = i + POLL_BYTES;
    }
    if (s.charCodeAt(i) < 0x80) {
      i++;
      continue;
    }
    const p = decodeRune(s, i);
    if (p === INVALID) return false;
    i += p & 7;
  }
  return true;
}

/**
 * Replaces each byte of an invalid UTF-8 sequence with U+FFFD (Go's range-over-string transcoding);
 * `poll` runs between chunks of a long string.
 */
export function transcodeUTF8(s: string, poll?: () => void): string {
  if (validUTF8(s, poll)) return s;
  // A builder, not `+=`: a rope of a million replacements would be flattened in one unpolled call.
  const out = new TextBuilder(poll === undefined ? undefined : { poll });
  let start = 0;
  for (let i = 0, next = POLL_BYTES; i < s.length;) {
    if (i >= next) {
      poll?.();
      next = i + POLL_BYTES;
    }
    if (s.charCodeAt(i) < 0x80) {
      i++;
      continue;
    }
    const p = decodeRune(s, i);
    if (p === INVALID) {
      if (i > start) out.add(s.slice(start, i));
      out.add(RUNE_ERROR_UTF8);
      i++;
      start = i;
    } else {
      i += p & 7;
    }
  }
  out.add(s.slice(start));
  return out.finish();
}

/** Number of code points in `s` (each invalid byte counts as one), like Go's `utf8.RuneCountInString`. */
export function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; n++) {
    i += s.charCodeAt(i) < 0x80 ? 1 : decodeRune(s, i) & 7;
  }
  return n;
}

/**
 * Go's `strconv.IsPrint` for a code point: whether `repr` shows it literally rather than escaped. The
 * tables are generated from Go's Unicode version (see `unicode/gen`), not the runtime's.
 */
export function isPrint(r: number): boolean {
  if (r < 0x7f) return r >= 0x20;
  if (r < 0xa1 || r > 0x10ffff) return false;
  return isPrintRune(r);
}
