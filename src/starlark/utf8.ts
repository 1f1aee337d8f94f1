/**
 * UTF-8 helpers over binary strings (one char code per byte), with Go's decoding rules: an invalid or
 * truncated sequence decodes as U+FFFD consuming exactly one byte, surrogates and overlong forms are
 * invalid. Starlark's reference implementation is written in Go, so its string operations follow these
 * rules (which differ from the WHATWG decoder that `TextDecoder` implements).
 *
 * @module
 */

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
  let out = "";
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
      out += s.slice(start, i) + RUNE_ERROR_UTF8;
      i++;
      start = i;
    } else {
      i += p & 7;
    }
  }
  return out + s.slice(start);
}

/** Number of code points in `s` (each invalid byte counts as one), like Go's `utf8.RuneCountInString`. */
export function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; n++) {
    i += s.charCodeAt(i) < 0x80 ? 1 : decodeRune(s, i) & 7;
  }
  return n;
}

// Go's strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. The JS
// property escapes follow the runtime's Unicode version, which may be newer than Go's tables; the
// characters assigned after Unicode 15.0 (Go's version) are listed below so they stay non-printable.
const PRINT_RE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/**
 * Go's `strconv.IsPrint` for a code point: whether `repr` shows it literally rather than escaped.
 */
export function isPrint(r: number): boolean {
  if (r < 0x7f) return r >= 0x20;
  if (r < 0xa1 || r > 0x10ffff) return false;
  if (r < 0x10000) {
    // Memoized for the BMP: 1 = printable, 2 = not.
    const c = bmpCache[r];
    if (c !== 0) return c === 1;
    const p = classify(r);
    bmpCache[r] = p ? 1 : 2;
    return p;
  }
  return classify(r);
}

const bmpCache = new Uint8Array(0x10000);

function classify(r: number): boolean {
  if (r >= 0xd800 && r < 0xe000) return false;
  return !isNewerThanGo(r) && PRINT_RE.test(String.fromCodePoint(r));
}

// Sorted, inclusive [lo, hi] pairs of code points assigned after Unicode 15.0.0 (Go's tables) that newer
// Unicode data (V8's) classifies as printable. Generated by comparing strconv.IsPrint with the regex.
// deno-fmt-ignore
const NEWER_RANGES: readonly number[] = [
  0x897, 0x897, 0x1b4e, 0x1b4f, 0x1b7f, 0x1b7f, 0x1c89, 0x1c8a, 0x2427, 0x2429, 0x2ffc, 0x2fff,
  0x31e4, 0x31e5, 0x31ef, 0x31ef, 0xa7cb, 0xa7cd, 0xa7da, 0xa7dc, 0x105c0, 0x105f3, 0x10d40, 0x10d65,
  0x10d69, 0x10d85, 0x10d8e, 0x10d8f, 0x10ec2, 0x10ec4, 0x10efc, 0x10efc, 0x11380, 0x11389,
  0x1138b, 0x1138b, 0x1138e, 0x1138e, 0x11390, 0x113b5, 0x113b7, 0x113c0, 0x113c2, 0x113c2,
  0x113c5, 0x113c5, 0x113c7, 0x113ca, 0x113cc, 0x113d5, 0x113d7, 0x113d8, 0x113e1, 0x113e2,
  0x116d0, 0x116e3, 0x11bc0, 0x11be1, 0x11bf0, 0x11bf9, 0x11f5a, 0x11f5a, 0x13460, 0x143fa,
  0x16100, 0x16139, 0x16d40, 0x16d79, 0x18cff, 0x18cff, 0x1cc00, 0x1ccf9, 0x1cd00, 0x1ceb3,
  0x1e5d0, 0x1e5fa, 0x1e5ff, 0x1e5ff, 0x1f8b2, 0x1f8bb, 0x1f8c0, 0x1f8c1, 0x1fa89, 0x1fa89,
  0x1fa8f, 0x1fa8f, 0x1fabe, 0x1fabe, 0x1fac6, 0x1fac6, 0x1fadc, 0x1fadc, 0x1fadf, 0x1fadf,
  0x1fae9, 0x1fae9, 0x1fbcb, 0x1fbef, 0x2ebf0, 0x2ee5d,
];

function isNewerThanGo(r: number): boolean {
  const a = NEWER_RANGES;
  let lo = 0, hi = a.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (r < a[2 * mid]) hi = mid - 1;
    else if (r > a[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}
