/**
 * Unicode character properties and case mappings with the reference's (Go's) semantics: case
 * mappings are Go's simple one-to-one mappings rather than JavaScript's full (possibly
 * multi-character) ones, and both follow Go's Unicode version (generated tables in `../unicode/`), and rune iteration decodes invalid UTF-8 one byte at a time as U+FFFD.
 *
 * @module
 */
import { decodeRune, RUNE_ERROR, runeOf, sizeOf, type Thread } from "../values/mod.ts";
import {
  isCasedRune,
  isDigitRune,
  isLetterRune,
  isLowerRune,
  isTitleRune,
  isUpperRune,
  toLowerRune,
  toTitleRune,
  toUpperRune,
} from "../unicode/mod.ts";

/**
 * Decodes the rune that ends just before byte `end` (end > 0), like Go's `DecodeLastRuneInString`.
 * Returns the packed form of `decodeRune`.
 */
export function decodeLastRune(s: string, end: number): number {
  const last = s.charCodeAt(end - 1);
  if (last < 0x80) return last * 8 + 1;
  // A rune is at most 4 bytes: find the start byte among the previous 3 continuation bytes.
  const lim = Math.max(0, end - 4);
  let start = end - 1;
  while (start > lim && (s.charCodeAt(start) & 0xc0) === 0x80) start--;
  const p = decodeRune(s, start);
  if (start + sizeOf(p) !== end) return RUNE_ERROR * 8 + 1;
  return p;
}

/** Whether every byte of `s` is ASCII. */
export function isASCII(s: string): boolean {
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(s);
}

/** Steps per non-ASCII rune whose properties are looked up (a regex or case-mapping call on the JS side). */
export const STEPS_PER_WIDE_RUNE = 4;

/**
 * Charges the steps of a rune loop written in JS as it goes: a step per ASCII rune and
 * {@link STEPS_PER_WIDE_RUNE} per other rune, in batches, so that the interrupt poll runs during long loops.
 */
export class RuneMeter {
  private owed = 0;
  /** Creates a meter charging `thread`. */
  constructor(private readonly thread: Thread) {}
  /** Accounts for one rune whose code point is `r`. */
  rune(r: number): void {
    this.owed += r < 0x80 ? 1 : STEPS_PER_WIDE_RUNE;
    if (this.owed >= 1024) this.flush();
  }
  /** Charges what is owed. */
  flush(): void {
    if (this.owed > 0) {
      this.thread.charge(Math.ceil(this.owed));
      this.owed = 0;
    }
  }
}

/** Bytes of output gathered before they are turned into a string piece. */
const MAP_CHUNK = 8192;

/** Writes the UTF-8 bytes of `r` (U+FFFD for surrogates and out-of-range values) at `n`; returns the new end. */
function putRune(buf: Uint8Array, n: number, r: number): number {
  if (r < 0 || r > 0x10ffff || (r >= 0xd800 && r < 0xe000)) r = RUNE_ERROR;
  if (r < 0x80) {
    buf[n] = r;
    return n + 1;
  }
  if (r < 0x800) {
    buf[n] = 0xc0 | (r >> 6);
    buf[n + 1] = 0x80 | (r & 0x3f);
    return n + 2;
  }
  if (r < 0x10000) {
    buf[n] = 0xe0 | (r >> 12);
    buf[n + 1] = 0x80 | ((r >> 6) & 0x3f);
    buf[n + 2] = 0x80 | (r & 0x3f);
    return n + 3;
  }
  buf[n] = 0xf0 | (r >> 18);
  buf[n + 1] = 0x80 | ((r >> 12) & 0x3f);
  buf[n + 2] = 0x80 | ((r >> 6) & 0x3f);
  buf[n + 3] = 0x80 | (r & 0x3f);
  return n + 4;
}

/**
 * Applies `f` to every rune of `s` and re-encodes; invalid bytes become U+FFFD, as Go's `strings.Map`
 * does. The work is charged to `thread` as it goes. Bytes are gathered in a typed buffer (no string per
 * rune) and turned into string pieces a chunk at a time.
 */
export function mapRunes(thread: Thread, s: string, f: (r: number) => number): string {
  const meter = new RuneMeter(thread);
  const out: string[] = [];
  // Room for one more rune past the chunk size.
  const buf = new Uint8Array(MAP_CHUNK + 4);
  let n = 0;
  for (let i = 0; i < s.length;) {
    const c = s.charCodeAt(i);
    let r: number;
    if (c < 0x80) {
      r = c;
      i++;
    } else {
      const p = decodeRune(s, i);
      r = runeOf(p);
      i += sizeOf(p);
    }
    meter.rune(r);
    const m = f(r);
    if (m >= 0 && m < 0x80) buf[n++] = m;
    else n = putRune(buf, n, m);
    if (n >= MAP_CHUNK) {
      out.push(String.fromCharCode.apply(null, buf.subarray(0, n) as unknown as number[]));
      n = 0;
    }
  }
  meter.flush();
  out.push(String.fromCharCode.apply(null, buf.subarray(0, n) as unknown as number[]));
  return out.length === 1 ? out[0] : out.join("");
}

// ---------------------------------------------------------------------------
// Character properties (Go's `unicode` package)

const SPACES = new Set([0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);

/** Go's `unicode.IsSpace`. */
export function isSpace(r: number): boolean {
  if (r < 0x80) return r === 0x20 || (r >= 0x09 && r <= 0x0d);
  return SPACES.has(r) || (r >= 0x2000 && r <= 0x200a);
}

/** Go's `unicode.IsLetter` (category L). */
export function isLetter(r: number): boolean {
  if (r < 0x80) return (r | 0x20) >= 0x61 && (r | 0x20) <= 0x7a;
  return isLetterRune(r);
}

/** Go's `unicode.IsDigit` (category Nd). */
export function isDigit(r: number): boolean {
  if (r < 0x80) return r >= 0x30 && r <= 0x39;
  return isDigitRune(r);
}

/** Go's `unicode.IsUpper` (category Lu). */
export function isUpper(r: number): boolean {
  if (r < 0x80) return r >= 0x41 && r <= 0x5a;
  return isUpperRune(r);
}

/** Go's `unicode.IsLower` (category Ll). */
export function isLower(r: number): boolean {
  if (r < 0x80) return r >= 0x61 && r <= 0x7a;
  return isLowerRune(r);
}

/** Go's `unicode.IsTitle` (category Lt). */
export function isTitle(r: number): boolean {
  if (r < 0x80) return false;
  return isTitleRune(r);
}

/** Go's `unicode.ToUpper` (simple mapping). */
export const toUpper: (r: number) => number = toUpperRune;

/** Go's `unicode.ToLower` (simple mapping). */
export const toLower: (r: number) => number = toLowerRune;

/** Go's `unicode.ToTitle` (simple mapping). */
export const toTitle: (r: number) => number = toTitleRune;

/** Whether `r` has a case (ASCII letter, or Go's `SimpleFold(r) != r`), as the reference's `isCasedRune`. */
export function isCased(r: number): boolean {
  if (r < 0x80) return (r | 0x20) >= 0x61 && (r | 0x20) <= 0x7a;
  return isCasedRune(r);
}

/**
 * A matcher for an all-ASCII strip cutset, as a 128-bit bitmap in four 32-bit words (undefined when the
 * cutset has a non-ASCII byte): building a Set of runes on every call costs more than most strips do.
 */
function asciiCutset(chars: string): ((r: number) => boolean) | undefined {
  let w0 = 0, w1 = 0, w2 = 0, w3 = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars.charCodeAt(i);
    if (c >= 0x80) return undefined;
    const bit = 1 << (c & 31);
    if (c < 32) w0 |= bit;
    else if (c < 64) w1 |= bit;
    else if (c < 96) w2 |= bit;
    else w3 |= bit;
  }
  return (r) => {
    if (r >= 0x80) return false;
    const w = r < 32 ? w0 : r < 64 ? w1 : r < 96 ? w2 : w3;
    return (w & (1 << (r & 31))) !== 0;
  };
}

/** The set of runes of a strip cutset (invalid bytes decode as U+FFFD, as in Go). */
function runeSet(chars: string): Set<number> {
  const set = new Set<number>();
  for (let i = 0; i < chars.length;) {
    const p = decodeRune(chars, i);
    set.add(runeOf(p));
    i += sizeOf(p);
  }
  return set;
}

/** Whether a rune is in the strip cutset `chars` (non-empty), built once per call. */
export function cutsetMatcher(chars: string): (r: number) => boolean {
  const c = chars.charCodeAt(0);
  // One ASCII character (`strip('"')`): nothing to build.
  if (chars.length === 1 && c < 0x80) return (r) => r === c;
  const ascii = asciiCutset(chars);
  if (ascii !== undefined) return ascii;
  const set = runeSet(chars);
  return (r) => set.has(r);
}
