/**
 * Unicode character properties and case mappings with the reference's (Go's) semantics: case
 * mappings are Go's simple one-to-one mappings rather than JavaScript's full (possibly
 * multi-character) ones, and rune iteration decodes invalid UTF-8 one byte at a time as U+FFFD.
 *
 * @module
 */
import { decodeRune, encodeRune, RUNE_ERROR, runeOf, sizeOf } from "../utf8.ts";
import type { Thread } from "../value.ts";

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

/**
 * Applies `f` to every rune of `s` and re-encodes; invalid bytes become U+FFFD, as Go's `strings.Map`
 * does. The work is charged to `thread` as it goes.
 */
export function mapRunes(thread: Thread, s: string, f: (r: number) => number): string {
  const meter = new RuneMeter(thread);
  const out: string[] = [];
  const codes: number[] = [];
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
    if (m >= 0 && m < 0x80) codes.push(m);
    else {
      const e = encodeRune(m);
      for (let k = 0; k < e.length; k++) codes.push(e.charCodeAt(k));
    }
    if (codes.length >= 8192) {
      out.push(String.fromCharCode.apply(null, codes));
      codes.length = 0;
    }
  }
  meter.flush();
  out.push(String.fromCharCode.apply(null, codes));
  return out.length === 1 ? out[0] : out.join("");
}

// ---------------------------------------------------------------------------
// Character properties (Go's `unicode` package)

const SPACES = new Set([0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);

/** Go's `unicode.IsSpace`. */
export function isSpace(r: number): boolean {
  if (r <= 0x20) return r === 0x20 || (r >= 0x09 && r <= 0x0d);
  return SPACES.has(r) || (r >= 0x2000 && r <= 0x200a);
}

const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;
const UPPER = /^\p{Lu}$/u;
const LOWER = /^\p{Ll}$/u;
const TITLE = /^\p{Lt}$/u;

/** Go's `unicode.IsLetter` (category L). */
export function isLetter(r: number): boolean {
  if (r < 0x80) return (r | 0x20) >= 0x61 && (r | 0x20) <= 0x7a;
  return LETTER.test(String.fromCodePoint(r));
}

/** Go's `unicode.IsDigit` (category Nd). */
export function isDigit(r: number): boolean {
  if (r < 0x80) return r >= 0x30 && r <= 0x39;
  return DIGIT.test(String.fromCodePoint(r));
}

/** Go's `unicode.IsUpper` (category Lu). */
export function isUpper(r: number): boolean {
  if (r < 0x80) return r >= 0x41 && r <= 0x5a;
  return UPPER.test(String.fromCodePoint(r));
}

/** Go's `unicode.IsLower` (category Ll). */
export function isLower(r: number): boolean {
  if (r < 0x80) return r >= 0x61 && r <= 0x7a;
  return LOWER.test(String.fromCodePoint(r));
}

/** Go's `unicode.IsTitle` (category Lt). */
export function isTitle(r: number): boolean {
  if (r < 0x80) return false;
  return TITLE.test(String.fromCodePoint(r));
}

function single(s: string, r: number): number {
  const c = s.codePointAt(0)!;
  return s.length === (c > 0xffff ? 2 : 1) ? c : r;
}

// Go's simple mappings differ from "JS full mapping when it is a single character" only here.
function upperException(r: number): number | undefined {
  if ((r >= 0x1f80 && r <= 0x1f87) || (r >= 0x1f90 && r <= 0x1f97) || (r >= 0x1fa0 && r <= 0x1fa7)) {
    return r + 8;
  }
  if (r === 0x1fb3 || r === 0x1fc3 || r === 0x1ff3) return r + 9;
  return undefined;
}

/** Go's `unicode.ToUpper` (simple mapping). */
export function toUpper(r: number): number {
  if (r < 0x80) return r >= 0x61 && r <= 0x7a ? r - 32 : r;
  return upperException(r) ?? single(String.fromCodePoint(r).toUpperCase(), r);
}

/** Go's `unicode.ToLower` (simple mapping). */
export function toLower(r: number): number {
  if (r < 0x80) return r >= 0x41 && r <= 0x5a ? r + 32 : r;
  if (r === 0x130) return 0x69;
  return single(String.fromCodePoint(r).toLowerCase(), r);
}

/** Go's `unicode.ToTitle` (simple mapping): the upper case except for digraphs and Georgian. */
export function toTitle(r: number): number {
  if (r >= 0x1c4 && r <= 0x1cc) return 0x1c5 + 3 * Math.floor((r - 0x1c4) / 3);
  if (r >= 0x1f1 && r <= 0x1f3) return 0x1f2;
  if (r >= 0x10d0 && r <= 0x10ff) return r;
  return toUpper(r);
}

/** Whether `r` has a case (ASCII letter, or Go's `SimpleFold(r) != r`). */
export function isCased(r: number): boolean {
  if (r < 0x80) return (r | 0x20) >= 0x61 && (r | 0x20) <= 0x7a;
  if (r === 0xdf) return true;
  if (r === 0x130 || r === 0x131) return false;
  return toUpper(r) !== r || toLower(r) !== r;
}
