/**
 * Small text helpers shared by registration, search and binding: Unicode whitespace as Go's
 * `unicode.IsSpace` defines it (the `White_Space` property, which unlike JS `trim()` excludes U+FEFF and
 * includes U+0085), UTF-8 byte lengths without encoding, and Starlark identifier rules.
 *
 * @module
 */

const LEADING_SPACE = /^\p{White_Space}+/u;
const TRAILING_SPACE = /\p{White_Space}+$/u;
const EDGE_SPACE = /^\p{White_Space}|\p{White_Space}$/u;

/** Removes surrounding Unicode whitespace. */
export function trimSpace(s: string): string {
  return s.replace(LEADING_SPACE, "").replace(TRAILING_SPACE, "");
}

/** Whether `s` begins or ends with Unicode whitespace. */
export function hasSurroundingSpace(s: string): boolean {
  return EDGE_SPACE.test(s);
}

/**
 * UTF-8 length of `s` in bytes. Lone surrogates count 3 bytes, the size of the U+FFFD that
 * `TextEncoder` substitutes for them.
 */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      n += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        // A pair is 2 UTF-16 units and 4 UTF-8 bytes.
        n += 2;
        i++;
      } else {
        n += 2;
      }
    } else {
      n += 2;
    }
  }
  return n;
}

/** Words the Starlark parser of the reference refuses as identifiers (keywords and reserved words). */
export const STARLARK_KEYWORDS: ReadonlySet<string> = new Set([
  "and",
  "as",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "load",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
]);

// The reference scanner starts an identifier with an ASCII letter, `_` or any Unicode letter, and
// continues with those or ASCII digits only (non-ASCII digits are "unexpected input character").
const IDENTIFIER = /^[\p{L}_][\p{L}_0-9]*$/u;

/** Whether `s` is a valid Starlark identifier (and not a keyword). */
export function isIdentifier(s: string): boolean {
  return IDENTIFIER.test(s) && !STARLARK_KEYWORDS.has(s);
}

/** Quotes a string for a diagnostic, shortening long values. */
export function quote(s: string, max = 80): string {
  const chars = Array.from(s);
  return JSON.stringify(chars.length > max ? chars.slice(0, max).join("") + "…" : s);
}
