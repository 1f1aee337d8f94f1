/**
 * The search tokenizer, identical at build time and query time: every rune that is not a Unicode
 * letter or decimal digit separates; letter↔digit changes split; a lower→upper change splits unless
 * the token began with an upper-case letter (`GitHub`, `MySQL` stay whole); an upper→upper change
 * splits when the next rune is lower case (`parseXMLFile` → parse, xml, file); tokens are lower-cased,
 * connector words are dropped and only the first occurrence of each token is kept.
 *
 * @module
 */

/** Words removed from queries and indexed text. */
export const CONNECTOR_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "by",
  "for",
  "from",
  "in",
  "of",
  "on",
  "or",
  "the",
  "to",
  "with",
]);

// Rune classes. OTHER_LETTER covers letters that are neither upper nor lower case (Lt, Lm, Lo).
const SEP = 0;
const LOWER = 1;
const UPPER = 2;
const OTHER_LETTER = 3;
const DIGIT = 4;

const RE_LOWER = /^\p{Ll}$/u;
const RE_UPPER = /^\p{Lu}$/u;
const RE_LETTER = /^\p{L}$/u;
const RE_DIGIT = /^\p{Nd}$/u;

// Non-ASCII classification is memoised: real text reuses few distinct runes.
const classCache = new Map<number, number>();

const ASCII_CLASS = Uint8Array.from(
  { length: 128 },
  (_, cp) =>
    cp >= 0x61 && cp <= 0x7a
      ? LOWER
      : cp >= 0x41 && cp <= 0x5a
      ? UPPER
      : cp >= 0x30 && cp <= 0x39
      ? DIGIT
      : SEP,
);

function classify(cp: number): number {
  if (cp < 0x80) return ASCII_CLASS[cp];
  let c = classCache.get(cp);
  if (c === undefined) {
    const s = String.fromCodePoint(cp);
    c = RE_LOWER.test(s)
      ? LOWER
      : RE_UPPER.test(s)
      ? UPPER
      : RE_LETTER.test(s)
      ? OTHER_LETTER
      : RE_DIGIT.test(s)
      ? DIGIT
      : SEP;
    if (classCache.size < 65_536) classCache.set(cp, c);
  }
  return c;
}

/**
 * Splits `text` into raw tokens (original case, connectors kept, duplicates kept). Exposed for tests;
 * use {@link tokenize} for search.
 */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let start = -1; // start index (UTF-16) of the current token
  let startUpper = false;
  let prevClass = SEP;
  let i = 0;
  while (i < n) {
    const unit = text.charCodeAt(i);
    const cp = unit < 0xd800 || unit > 0xdbff ? unit : text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const cls = unit < 0x80 ? ASCII_CLASS[unit] : classify(cp);
    if (cls === SEP) {
      if (start >= 0) out.push(text.slice(start, i));
      start = -1;
      prevClass = SEP;
      i += width;
      continue;
    }
    if (start >= 0) {
      const prevDigit = prevClass === DIGIT;
      const curDigit = cls === DIGIT;
      let split = prevDigit !== curDigit;
      if (!split && prevClass === LOWER && cls === UPPER && !startUpper) split = true;
      if (!split && prevClass === UPPER && cls === UPPER && i + width < n) {
        if (classify(text.codePointAt(i + width)!) === LOWER) split = true;
      }
      if (split) {
        out.push(text.slice(start, i));
        start = -1;
      }
    }
    if (start < 0) {
      start = i;
      startUpper = cls === UPPER;
    }
    prevClass = cls;
    i += width;
  }
  if (start >= 0) out.push(text.slice(start));
  return out;
}

/** The distinct normalized tokens of `text`, in first-occurrence order. */
export function tokenize(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const word of splitWords(text)) {
    const token = word.toLowerCase();
    if (CONNECTOR_WORDS.has(token) || seen.has(token)) continue;
    seen.add(token);
    out.push(token);
  }
  return out;
}

/** Number of Unicode code points in `s`. */
export function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one rune.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
