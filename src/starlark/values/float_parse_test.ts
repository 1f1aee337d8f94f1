/**
 * Tests of {@link parseLongDecimal}: on generated texts of every shape (signs, leading zeros, fractions,
 * exponents, underscores, malformed ones) it must give what V8's `Number` gives for the same literal, and
 * refuse exactly what the literal syntax refuses. The hard cases are the exact midpoints between two
 * doubles, and texts a digit past 800 away from them, where dropping digits would round the wrong way.
 */
import assert from "node:assert/strict";
import { seededRandom as rng } from "../seeded_random_test.ts";
import { parseLongDecimal } from "./float_parse.ts";

// Go's decimal literal syntax, as `float()` checks it for short texts (builtins/numbers.ts).
const DEC = "[0-9]+(?:_[0-9]+)*";
const GO_DECIMAL = new RegExp(`^[+-]?(?:${DEC}(?:\\.(?:${DEC})?)?|\\.${DEC})(?:[eE][+-]?${DEC})?$`);

function reference(s: string): number | undefined {
  return GO_DECIMAL.test(s) ? Number(s.replaceAll("_", "")) : undefined;
}

function digits(r: () => number, n: number, underscores: boolean): string {
  let s = "";
  for (let i = 0; i < n; i++) {
    s += String(Math.floor(r() * 10));
    if (underscores && i + 1 < n && r() < 0.05) s += "_";
  }
  return s;
}

/** The exact decimal text of the midpoint between the positive double `d` and the next one up. */
function midpoint(d: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, d);
  const bits = view.getBigUint64(0);
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const m = exp === 0 ? frac : frac | (1n << 52n);
  const e = (exp === 0 ? 1 : exp) - 1075; // d = m × 2^e
  const odd = 2n * m + 1n; // midpoint = odd × 2^(e-1)
  if (e - 1 >= 0) return (odd << BigInt(e - 1)).toString();
  const k = 1 - e; // odd / 2^k = odd × 5^k / 10^k
  const text = (odd * 5n ** BigInt(k)).toString().padStart(k + 1, "0");
  return text.slice(0, text.length - k) + "." + text.slice(text.length - k);
}

Deno.test("float parse: generated literals parse as V8 parses them, malformed ones are refused", () => {
  const r = rng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  for (let k = 0; k < 3000; k++) {
    const underscores = r() < 0.3;
    const sign = pick(["", "", "-", "+"]);
    const zeros = "0".repeat(pick([0, 0, 1, 5, 900]));
    const int = r() < 0.8 ? zeros + digits(r, pick([1, 3, 20, 790, 801, 5000]), underscores) : "";
    const frac = r() < 0.7
      ? "." + "0".repeat(pick([0, 3, 1000])) + digits(r, pick([0, 1, 17, 2000]), underscores)
      : "";
    const exp = r() < 0.5
      ? pick(["e", "E"]) + pick(["", "-", "+"]) + pick(["0", "5", "308", "-400", "99999999999", "3_0"])
      : "";
    let s = sign + int + frac + exp;
    if (r() < 0.1) {
      s = s.slice(0, Math.floor(r() * s.length)) + pick(["_", ".", "x", "e", "__", " "]) +
        s.slice(Math.floor(r() * s.length));
    }
    const got = parseLongDecimal(s, () => {}, true);
    assert.equal(
      Object.is(got, reference(s)) || got === reference(s),
      true,
      `${s.slice(0, 80)}… (${s.length}): ${got} vs ${reference(s)}`,
    );
  }
});

Deno.test("float parse: midpoints between doubles, and texts just past them, round as V8 rounds them", () => {
  const r = rng(11);
  const samples = [
    1,
    0.1,
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    123456.789,
    9007199254740993,
  ];
  for (let k = 0; k < 60; k++) samples.push(Math.exp((r() - 0.5) * 1400));
  for (const d of samples) {
    if (!Number.isFinite(d) || d === 0) continue;
    const m = midpoint(d);
    // Just above and just below the midpoint, by a digit far past the 800th. A fractional midpoint ends
    // in 5 (an odd number times a power of 5), so its last digit can be lowered.
    const cases = m.includes(".")
      ? [m, m + "0".repeat(2000) + "1", m.slice(0, -1) + String(Number(m.slice(-1)) - 1) + "9".repeat(2000)]
      : [m, m + ".0" + "0".repeat(2000) + "1", (BigInt(m) - 1n).toString() + "." + "9".repeat(2000)];
    for (const s of cases) {
      assert.equal(parseLongDecimal(s, () => {}, false), Number(s), `${d}: ${s.slice(0, 60)}… (${s.length})`);
    }
  }
});

Deno.test("float parse: a literal of millions of digits polls as it is scanned", () => {
  let polls = 0;
  const s = "1." + "1".repeat(4_000_000) + "e-5";
  assert.equal(parseLongDecimal(s, () => polls++, false), Number(s));
  assert.ok(polls >= 100, `${polls} polls`);
  assert.equal(parseLongDecimal("1".repeat(1_000_000), () => {}, false), Infinity);
  assert.equal(parseLongDecimal("-" + "0".repeat(1_000_000) + "e99999999999", () => {}, false), -0);
});
