import assert from "node:assert/strict";
import {
  escapeModelText,
  hasSurroundingSpace,
  isIdentifier,
  MAX_MODEL_DETAIL_CHARS,
  modelDetail,
  quote,
  trimSpace,
  utf8Length,
} from "./text.ts";

Deno.test("trimSpace and hasSurroundingSpace follow Go's unicode.IsSpace", () => {
  assert.equal(trimSpace(" \t\n\v\f\r\u0085\u00a0x y\u3000\u2028"), "x y");
  assert.equal(trimSpace("\ufeffx"), "\ufeffx"); // BOM is not whitespace in Go
  assert.equal(hasSurroundingSpace("x"), false);
  assert.equal(hasSurroundingSpace("a b"), false);
  assert.equal(hasSurroundingSpace(" x"), true);
  assert.equal(hasSurroundingSpace("x\u0085"), true);
  assert.equal(hasSurroundingSpace("\u00a0x"), true);
  assert.equal(hasSurroundingSpace("\ufeffx"), false);
});

Deno.test("utf8Length matches TextEncoder", () => {
  const enc = new TextEncoder();
  for (const s of ["", "abc", "é", "€", "😀", "a😀b€", "\ud800", "x\udc00y", "\ud800\ud800"]) {
    assert.equal(utf8Length(s), enc.encode(s).length, JSON.stringify(s));
  }
});

Deno.test("isIdentifier follows the reference scanner", () => {
  for (const ok of ["a", "_", "_a1", "records", "é", "ǅx", "None", "True", "assert", "x9"]) {
    assert.ok(isIdentifier(ok), ok);
  }
  for (
    const bad of ["", "1a", "a-b", "a b", "x٣", "x²", "def", "lambda", "load", "as", "import", "yield", "not"]
  ) {
    assert.ok(!isIdentifier(bad), bad);
  }
});

Deno.test("quote shortens long values", () => {
  assert.equal(quote("ab"), '"ab"');
  assert.equal(quote("abcdef", 3), '"abc…"');
});

/** Code points the brief names explicitly, listed here independently of the implementation's classes. */
const MUST_ESCAPE: readonly [number, number][] = [
  [0x00, 0x1f], // C0, tab/newline/carriage return included
  [0x7f, 0x9f], // DEL and C1 (U+0085 NEL included)
  [0xad, 0xad], // soft hyphen
  [0x034f, 0x034f], // combining grapheme joiner
  [0x061c, 0x061c], // Arabic letter mark
  [0x115f, 0x1160], // Hangul fillers
  [0x180b, 0x180f], // Mongolian variation selectors and vowel separator
  [0x200b, 0x200f], // zero-width space, ZWNJ, ZWJ, LRM, RLM
  [0x2028, 0x2029], // line and paragraph separators
  [0x202a, 0x202e], // bidi embeddings and overrides
  [0x2060, 0x2064], // word joiner, invisible operators
  [0x2066, 0x2069], // bidi isolates
  [0x3164, 0x3164], // Hangul filler
  [0xd800, 0xdfff], // lone surrogates
  [0xe000, 0xe000], // private use
  [0xfe00, 0xfe0f], // variation selectors
  [0xfeff, 0xfeff], // BOM / zero-width no-break space
  [0xffa0, 0xffa0], // halfwidth Hangul filler
  [0xfff9, 0xfffb], // interlinear annotation marks
  [0xfffe, 0xffff], // noncharacters
  [0x1d173, 0x1d17a], // musical formatting
  [0xe0001, 0xe0001], // language tag
  [0xe0020, 0xe007f], // tag characters
  [0xe0100, 0xe01ef], // variation selectors supplement
  [0x10ffff, 0x10ffff], // noncharacter
];

/** Reads back one escape produced by escapeModelText, or undefined when `s` is not exactly one. */
function unescapeOne(s: string): number | undefined {
  const named: Record<string, number> = { "\\t": 9, "\\n": 10, "\\r": 13 };
  if (s in named) return named[s];
  const m = /^\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|u\{([0-9a-f]{5,6})\})$/.exec(s);
  if (m === null) return undefined;
  return parseInt(m[1] ?? m[2] ?? m[3], 16);
}

const VISIBLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]$/u;

Deno.test("escapeModelText: every code point is either escaped reversibly or visible", () => {
  const listed = (cp: number) => MUST_ESCAPE.some(([lo, hi]) => cp >= lo && cp <= hi);
  let escaped = 0;
  const printableAscii = /^[\x21-\x7e]+$/;
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    const s = String.fromCodePoint(cp);
    const out = escapeModelText(s);
    const hex = () => `U+${cp.toString(16)}`;
    if (out === s) {
      if (listed(cp)) assert.fail(`${hex()} must be escaped`);
      if (!VISIBLE.test(s)) assert.fail(`${hex()} is left raw, so it must be visible`);
      continue;
    }
    escaped++;
    if (!printableAscii.test(out)) assert.fail(`${hex()} escapes to printable ASCII, not ${out}`);
    if (unescapeOne(out) !== cp) assert.fail(`${hex()} escapes reversibly, not as ${out}`);
    if (escapeModelText(out) !== out) assert.fail(`${hex()}: escaping is idempotent`);
  }
  // Every listed code point was met above; the rest of the escaped ones are format/unassigned/private.
  assert.ok(escaped > 900_000, `${escaped} escaped (private use and unassigned planes included)`);
});

Deno.test("escapeModelText: texts keep their visible parts and read unambiguously", () => {
  assert.equal(escapeModelText('plain é 😀 ✓ \\ "q"'), 'plain é 😀 ✓ \\ "q"');
  assert.equal(escapeModelText("a\u202eb\u2066c"), "a\\u202eb\\u2066c");
  assert.equal(escapeModelText("line\nnext\ttab\r\u0085\u2028"), "line\\nnext\\ttab\\r\\x85\\u2028");
  assert.equal(escapeModelText("\u0000\u001b\u007f"), "\\x00\\x1b\\x7f");
  assert.equal(escapeModelText("x\u{e0041}\u{e007f}"), "x\\u{e0041}\\u{e007f}");
  assert.equal(escapeModelText("\ud800x\udc00"), "\\ud800x\\udc00");
  assert.equal(escapeModelText("👨\u200d👩"), "👨\\u200d👩");
  assert.ok(escapeModelText("a\ud800").isWellFormed());
});

Deno.test("modelDetail escapes, bounds the length and never splits a surrogate pair", () => {
  assert.equal(modelDetail("bad \u202e key"), "bad \\u202e key");
  const long = "x".repeat(10) + "😀".repeat(20);
  for (let max = 8; max < long.length; max++) {
    const d = modelDetail(long, max);
    assert.ok(d.length <= max, `${d.length} > ${max}`);
    assert.ok(d.endsWith("...") && d.isWellFormed(), d);
  }
  assert.equal(modelDetail("x".repeat(5000)).length, MAX_MODEL_DETAIL_CHARS);
});
