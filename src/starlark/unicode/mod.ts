/**
 * Character classes and simple case mappings exactly as the reference sees them: the tables in
 * `tables.ts` are generated from Go's `unicode` and `strconv` packages (see `gen/main.go`), so they follow
 * Go's Unicode version rather than the JS runtime's (V8's is newer, and classifies thousands of code
 * points differently). Callers keep their own ASCII fast paths; these functions are exact for every code
 * point, ASCII included.
 *
 * @module
 */
import {
  CASE_RANGES,
  CASED,
  DIGIT,
  LETTER,
  LOWER,
  PRINT,
  TITLE,
  UNICODE_VERSION,
  UPPER,
  UPPER_LOWER,
} from "./tables.ts";

export { UNICODE_VERSION };

/** Undoes the delta encoding of a generated table. */
function decode(deltas: readonly number[]): Uint32Array {
  const out = new Uint32Array(deltas.length);
  let x = 0;
  for (let i = 0; i < deltas.length; i++) out[i] = x += deltas[i];
  return out;
}

/**
 * A range table, decoded on first use: most programs never look up a non-ASCII character, and decoding
 * every table at load would add to the start-up of each run.
 */
class RangeTable {
  private table: Uint32Array | undefined;
  constructor(private readonly deltas: readonly number[]) {}
  /** Whether `r` lies in one of the table's sorted inclusive [lo, hi] pairs. */
  has(r: number): boolean {
    const t = this.table ??= decode(this.deltas);
    let lo = 0, hi = (t.length >> 1) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (r < t[2 * mid]) hi = mid - 1;
      else if (r > t[2 * mid + 1]) lo = mid + 1;
      else return true;
    }
    return false;
  }
}

const letters = new RangeTable(LETTER);
const digits = new RangeTable(DIGIT);
const uppers = new RangeTable(UPPER);
const lowers = new RangeTable(LOWER);
const titles = new RangeTable(TITLE);
const printable = new RangeTable(PRINT);
const cased = new RangeTable(CASED);

/** Go's `unicode.IsLetter`. */
export function isLetterRune(r: number): boolean {
  return letters.has(r);
}

/** Go's `unicode.IsDigit`. */
export function isDigitRune(r: number): boolean {
  return digits.has(r);
}

/** Go's `unicode.IsUpper`. */
export function isUpperRune(r: number): boolean {
  return uppers.has(r);
}

/** Go's `unicode.IsLower`. */
export function isLowerRune(r: number): boolean {
  return lowers.has(r);
}

/** Go's `unicode.IsTitle`. */
export function isTitleRune(r: number): boolean {
  return titles.has(r);
}

/** Go's `strconv.IsPrint`: whether a quoted string shows `r` literally rather than escaped. */
export function isPrintRune(r: number): boolean {
  return printable.has(r);
}

/** Whether Go's `unicode.SimpleFold(r) != r`: the reference's test for a cased rune. */
export function isCasedRune(r: number): boolean {
  return cased.has(r);
}

/** Go's unicode.CaseRanges, unpacked on first use: per range its lo, hi and the three deltas. */
interface CaseTable {
  count: number;
  lo: Uint32Array;
  hi: Uint32Array;
  delta: Int32Array;
}

let caseTable: CaseTable | undefined;

function unpackCaseRanges(): CaseTable {
  const count = CASE_RANGES.length / 5;
  const t: CaseTable = {
    count,
    lo: new Uint32Array(count),
    hi: new Uint32Array(count),
    delta: new Int32Array(count * 3),
  };
  let x = 0;
  for (let i = 0; i < count; i++) {
    t.lo[i] = x += CASE_RANGES[5 * i];
    t.hi[i] = x += CASE_RANGES[5 * i + 1];
    for (let k = 0; k < 3; k++) t.delta[3 * i + k] = CASE_RANGES[5 * i + 2 + k];
  }
  return t;
}

/** Go's `unicode.To`: `which` is 0 for upper, 1 for lower, 2 for title case. */
function to(which: 0 | 1 | 2, r: number): number {
  const { lo: caseLo, hi: caseHi, delta: caseDelta, count } = caseTable ??= unpackCaseRanges();
  let lo = 0, hi = count;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (r < caseLo[m]) hi = m;
    else if (r > caseHi[m]) lo = m + 1;
    else {
      const d = caseDelta[3 * m + which];
      // An alternating run starts with an upper-case letter: even offsets are upper (and title) case,
      // odd ones lower case, so the mapping sets the offset's low bit from the case wanted.
      if (d === UPPER_LOWER) return caseLo[m] + (((r - caseLo[m]) & ~1) | (which & 1));
      return r + d;
    }
  }
  return r;
}

/** Go's `unicode.ToUpper` (a simple, one-rune mapping). */
export function toUpperRune(r: number): number {
  if (r < 0x80) return r >= 0x61 && r <= 0x7a ? r - 32 : r;
  return to(0, r);
}

/** Go's `unicode.ToLower` (a simple, one-rune mapping). */
export function toLowerRune(r: number): number {
  if (r < 0x80) return r >= 0x41 && r <= 0x5a ? r + 32 : r;
  return to(1, r);
}

/** Go's `unicode.ToTitle` (a simple, one-rune mapping). */
export function toTitleRune(r: number): number {
  if (r < 0x80) return r >= 0x61 && r <= 0x7a ? r - 32 : r;
  return to(2, r);
}
