/**
 * Small text helpers shared by registration, search, binding and error reporting: Unicode whitespace as
 * Go's `unicode.IsSpace` defines it (the `White_Space` property, which unlike JS `trim()` excludes U+FEFF
 * and includes U+0085), UTF-8 byte lengths without encoding, Starlark identifier rules, and the escaping
 * of every model-visible text ({@link escapeModelText}).
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

/**
 * Every code point a model-visible text never carries raw. A text shown to a model may quote program
 * data, so anything that is invisible, changes how the surrounding text is laid out or read, or ends a
 * line is escaped:
 *
 * - `Cc`: C0 controls (tab, newline and carriage return included), DEL and the C1 controls (U+0085 NEL
 *   included);
 * - `Cf`: format characters — the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
 *   U+2066–U+2069), the marks U+200E, U+200F and U+061C, zero-width space/joiners (U+200B–U+200D), word
 *   joiner and invisible operators (U+2060–U+2064), U+FEFF, the soft hyphen, interlinear annotation
 *   marks, Arabic number signs and the tag characters (U+E0001, U+E0020–U+E007F);
 * - `Zl`, `Zp`: U+2028 and U+2029, which many renderers (and JavaScript source) treat as line breaks;
 * - `Default_Ignorable_Code_Point`: the rest of the invisible code points that are not `Cf` (variation
 *   selectors, the combining grapheme joiner, Hangul fillers, Mongolian free variation selectors...);
 * - `Cs`, `Co`, `Cn`: lone surrogates, private-use and unassigned code points (their rendering is
 *   undefined, and a noncharacter such as U+FFFF is unassigned).
 *
 * The zero-width joiner is escaped too, so an emoji ZWJ sequence reads as its parts joined by
 * `\u200d`: we prefer a visible, unambiguous text to a faithful rendering.
 */
const MODEL_UNSAFE_CLASS =
  "[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}\\p{Cs}\\p{Co}\\p{Cn}]";
const MODEL_UNSAFE_ANY = new RegExp(MODEL_UNSAFE_CLASS, "u");
const MODEL_UNSAFE_ALL = new RegExp(MODEL_UNSAFE_CLASS, "gu");

const NAMED_ESCAPES: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

function escapeCodePoint(c: string): string {
  const named = NAMED_ESCAPES[c];
  if (named !== undefined) return named;
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16);
  if (cp <= 0xff) return `\\x${hex.padStart(2, "0")}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, "0")}`;
  return `\\u{${hex}}`;
}

/**
 * Escapes every code point of `s` that a model must never see raw (see the list above): tab, newline
 * and carriage return as `\t`, `\n`, `\r`; other code points up to U+00FF as `\xNN`; the rest of the
 * BMP as `\uNNNN` (a lone surrogate included); astral code points as `\u{NNNNN}` (lower-case hex).
 * Everything else, the backslash included, is left as it is, so the function is idempotent and the
 * result is always well-formed UTF-16.
 */
export function escapeModelText(s: string): string {
  return MODEL_UNSAFE_ANY.test(s) ? s.replace(MODEL_UNSAFE_ALL, escapeCodePoint) : s;
}

/** The longest model-visible detail built by the core, in UTF-16 code units (the executor's bound). */
export const MAX_MODEL_DETAIL_CHARS = 2048;

/**
 * A model-visible detail: {@link escapeModelText}, then cut to `max` UTF-16 code units with `...`,
 * never inside a surrogate pair.
 */
export function modelDetail(text: string, max = MAX_MODEL_DETAIL_CHARS): string {
  const s = escapeModelText(text);
  if (s.length <= max) return s;
  let end = Math.max(0, max - 3);
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return s.slice(0, end) + "...";
}
