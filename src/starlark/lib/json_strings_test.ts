/**
 * Tests of the one-pass string decoder of json.decode ({@link unquoteSpan}, which writes into one shared
 * scratch array) against the general two-pass path ({@link unquoteValidated}), on generated literals:
 * every literal the fast path accepts must decode to the general path's string, and every one it refuses
 * must be one the general path reports or decodes itself.
 */
import assert from "node:assert/strict";
import { type Builtin, List, Thread, type Value } from "../values/mod.ts";
import { json } from "./json.ts";
import { JSONSyntaxError } from "./json_scan.ts";
import { FAST_UNQUOTE_MAX, unquoteJSONString, unquoteSpan, unquoteValidated } from "./json_strings.ts";
import { seededRandom } from "../seeded_random_test.ts";

const decode = (s: string): Value => {
  const b = json.members.get("decode") as Builtin;
  return b.fn(new Thread(), [s], [], b);
};

/** The elements of the list that the document `s` decodes to. */
const decodeList = (s: string): Value[] => {
  const v = decode(s);
  assert.ok(v instanceof List);
  return v.elems;
};

/** The general path's result, or its error message. */
function general(lit: string): { ok: string } | { err: string } {
  try {
    return { ok: unquoteValidated(lit) };
  } catch (e) {
    if (!(e instanceof JSONSyntaxError)) throw e;
    return { err: e.message };
  }
}

/** Whether `lit` has no backslash and no byte above 0x7f. */
const isPlain = (lit: string): boolean => [...lit].every((c) => c !== "\\" && c.charCodeAt(0) < 0x80);

const hex4 = (n: number): string => n.toString(16).padStart(4, "0");

/** One piece of a literal's body: plain text, an escape, raw UTF-8, an invalid byte, or a flaw. */
function piece(rand: () => number, flaws: boolean): string {
  const pick = (xs: string[]): string => xs[Math.floor(rand() * xs.length)];
  const r = rand();
  if (r < 0.25) return pick(["a", "hello ", "Title 12", "C:", "x y z", "{}[],:"]);
  if (r < 0.45) return pick(['\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"]);
  if (r < 0.65) {
    // \u escapes: ASCII, 2- and 3-byte scalars, surrogate pairs, lone and misordered surrogates.
    const kind = Math.floor(rand() * 6);
    const any = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo));
    if (kind === 0) return "\\u" + hex4(any(0, 0x80));
    if (kind === 1) return "\\u" + hex4(any(0x80, 0x800)).toUpperCase();
    if (kind === 2) return "\\u" + hex4(any(0x800, 0xd800));
    if (kind === 3) return "\\u" + hex4(any(0xd800, 0xdc00)) + "\\u" + hex4(any(0xdc00, 0xe000));
    if (kind === 4) return "\\u" + hex4(any(0xd800, 0xe000));
    return "\\u" + hex4(any(0xdc00, 0xe000)) + "\\u" + hex4(any(0xd800, 0xdc00));
  }
  if (r < 0.8) {
    // Raw UTF-8 (a binary string: one char per byte), valid.
    const bytes = new TextEncoder().encode(pick(["é", "中文", "😀", "ß", "\u2028"]));
    return String.fromCharCode(...bytes);
  }
  if (r < 0.9 || !flaws) {
    // Invalid UTF-8: a stray continuation byte, a truncated sequence, a byte never valid.
    return pick(["\x80", "\xbf", "\xc3", "\xe4\xb8", "\xff", "\xf0\x9f\x98", "\xed\xa0\x80"]);
  }
  // Flaws the general path reports: a control byte, a bad escape, a short \u, an inner quote.
  return pick(["\x01", "\n", "\\x", "\\u12", "\\uZZZZ", '"']);
}

Deno.test("json strings: the one-pass decoder agrees with the general path on generated literals", () => {
  const rand = seededRandom(27);
  let accepted = 0, refused = 0;
  for (let n = 0; n < 4000; n++) {
    let body = "";
    const pieces = Math.floor(rand() * 12);
    for (let k = 0; k < pieces; k++) body += piece(rand, n % 3 === 0);
    const lit = '"' + body + '"';
    const want = general(lit);
    const fast = unquoteSpan(lit, 0, lit.length);
    if (fast !== undefined) {
      accepted++;
      assert.deepEqual({ ok: fast }, want, JSON.stringify(lit));
    } else refused++;
    // The combined path gives the general path's result or error, whichever way it went.
    let got: { ok: string } | { err: string };
    try {
      got = { ok: unquoteJSONString(lit) };
    } catch (e) {
      assert.ok(e instanceof JSONSyntaxError);
      got = { err: e.message };
    }
    assert.deepEqual(got, want, JSON.stringify(lit));
  }
  // Both ways were exercised.
  assert.ok(accepted > 1000 && refused > 300, `${accepted} accepted, ${refused} refused`);
});

Deno.test("json strings: literals inside a document decode like the literal alone, or fail like it", () => {
  const rand = seededRandom(2027);
  let failed = 0;
  for (let n = 0; n < 1500; n++) {
    const lits: string[] = [];
    for (let k = 0; k < 1 + Math.floor(rand() * 6); k++) {
      let body = "";
      for (let p = Math.floor(rand() * 8); p > 0; p--) {
        const pc = piece(rand, n % 2 === 0);
        if (pc !== '"') body += pc; // an inner quote would end the literal early: not this test's subject
      }
      lits.push('"' + body + '"');
    }
    // As in the reference, a literal without escapes or non-ASCII bytes is its text, unchecked.
    const wants = lits.map((l) => isPlain(l) ? { ok: l.slice(1, -1) } : general(l));
    const text = "[" + lits.join(", ") + "]";
    const firstErr = wants.find((w) => "err" in w);
    if (firstErr === undefined) {
      assert.deepEqual(decodeList(text), wants.map((w) => "ok" in w && w.ok), JSON.stringify(text));
      continue;
    }
    failed++;
    assert.throws(() => decode(text), (e: unknown) => {
      assert.ok(e instanceof Error);
      assert.ok(
        e.message.endsWith(", " + (firstErr as { err: string }).err),
        `${JSON.stringify(text)}: ${e.message}`,
      );
      return true;
    });
  }
  assert.ok(failed > 100, `${failed} failures checked`);
});

Deno.test("json strings: the longest fast literals, whose decoding is up to three times their length", () => {
  // Every byte invalid: each becomes the three bytes of U+FFFD, the most a literal's char can grow.
  const cases = [
    '"' + "\xff".repeat(FAST_UNQUOTE_MAX - 2) + '"',
    '"' + "\\n" + "\x80".repeat(FAST_UNQUOTE_MAX - 4) + '"',
    '"' + "\\u00e9".repeat(Math.floor((FAST_UNQUOTE_MAX - 2) / 6)) + '"',
    '"' + "ab\\t".repeat(Math.floor((FAST_UNQUOTE_MAX - 2) / 4)) + '"',
  ];
  for (const lit of cases) {
    assert.ok(lit.length <= FAST_UNQUOTE_MAX);
    const fast = unquoteSpan(lit, 0, lit.length);
    assert.equal(fast, unquoteValidated(lit));
    // A short literal decoded next shows nothing of the long one before it.
    assert.equal(unquoteSpan('"\\tx\\u00e9"', 0, 11), "\tx\xc3\xa9");
    assert.deepEqual(decodeList("[" + lit + ', "a\\nb"]'), [unquoteValidated(lit), "a\nb"]);
  }
  assert.equal(
    unquoteSpan('"' + "\xff".repeat(FAST_UNQUOTE_MAX - 2) + '"', 0, FAST_UNQUOTE_MAX)?.length,
    3 * (FAST_UNQUOTE_MAX - 2),
  );
  // Around the longest fast literal, in a document: a plain prefix of any length, then escapes.
  for (const len of [FAST_UNQUOTE_MAX - 1, FAST_UNQUOTE_MAX, FAST_UNQUOTE_MAX + 1, 3 * FAST_UNQUOTE_MAX]) {
    for (const tail of ["\\n", "\\u00e9", "\xc3\xa9", "\xff", "\\ud83d\\ude00"]) {
      const lit = '"' + "p".repeat(len - 2 - tail.length) + tail + '"';
      assert.equal(lit.length, len);
      assert.deepEqual(decodeList("[" + lit + ', "\\t"]'), [unquoteValidated(lit), "\t"]);
    }
  }
  // Longer literals are the general path's.
  const long = '"' + "\\n".repeat(FAST_UNQUOTE_MAX) + '"';
  assert.equal(unquoteSpan(long, 0, long.length), undefined);
  assert.equal(unquoteJSONString(long), "\n".repeat(FAST_UNQUOTE_MAX));
});

Deno.test("json strings: decoded strings of every short length, twice each (their arrays are reused)", () => {
  for (let round = 0; round < 2; round++) {
    for (let n = 1; n <= 200; n++) {
      // n decoded bytes: an escape, then n - 1 letters that differ per length and round.
      const body = "\\t" +
        Array.from({ length: n - 1 }, (_, i) => String.fromCharCode(0x61 + (i + n + round) % 26))
          .join("");
      const lit = '"' + body + '"';
      const got = unquoteSpan(lit, 0, lit.length);
      assert.equal(got, unquoteValidated(lit));
      assert.equal(got?.length, n);
    }
  }
});
