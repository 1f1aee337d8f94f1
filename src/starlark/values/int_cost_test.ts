/**
 * Tests of the big-integer cost model: exact results of the split decimal conversions, the integer-size
 * cap (checked before a result is computed), and steps and memory charged in proportion to the work.
 */
import assert from "node:assert/strict";
import { compile, execFile, ResourceError, Thread } from "../mod.ts";
import {
  chargeMul,
  DEFAULT_MAX_INT_BITS,
  intBits,
  intToDecimal,
  mulSteps,
  parseDecimal,
  reciprocal,
} from "./int_cost.ts";
import { seededRandom } from "../seeded_random_test.ts";

function resourceError(f: () => unknown): ResourceError {
  try {
    f();
  } catch (e) {
    if (e instanceof ResourceError) return e;
    throw e;
  }
  throw new Error("no resource error");
}

/** A random bigint of about `bits` bits, with long runs of 0s and 9s in decimal now and then. */
function randomBig(rnd: () => number, bits: number): bigint {
  const shape = Math.floor(rnd() * 4);
  if (shape === 0) return 10n ** BigInt(Math.max(1, Math.floor(bits / 3.33)));
  if (shape === 1) return 10n ** BigInt(Math.max(1, Math.floor(bits / 3.33))) - 1n;
  let x = 1n;
  while (intBits(x) < bits) x = (x << 30n) | BigInt(Math.floor(rnd() * 2 ** 30));
  return shape === 2 ? x : -x;
}

Deno.test("int cost: split decimal conversion and parsing agree with V8 at every size", () => {
  const rnd = seededRandom(7);
  const thread = new Thread({ maxIntBits: 1 << 20 });
  for (let i = 0; i < 80; i++) {
    const bits = 1 + Math.floor(rnd() ** 2 * 200_000);
    const x = randomBig(rnd, bits);
    const text = intToDecimal(x, thread);
    assert.equal(text, x.toString(), `bits ${bits}`);
    const abs = x < 0n ? -x : x;
    const digits = abs.toString();
    assert.equal(parseDecimal(digits, thread), abs, `parse, bits ${bits}`);
    assert.equal(parseDecimal("000" + digits, thread), abs, `parse with leading zeros, bits ${bits}`);
    assert.equal(intBits(x), abs.toString(2).length === 1 && abs === 0n ? 0 : abs.toString(2).length);
  }
});

Deno.test("int cost: bit lengths are exact beyond 2^1024 and within one bit below", () => {
  for (const k of [0, 1, 52, 53, 54, 63, 64, 65, 500, 1023, 1024, 1025, 4096, 100_000]) {
    const x = 1n << BigInt(k);
    const got = intBits(x);
    if (k >= 1024) assert.equal(got, k + 1);
    else assert.ok(Math.abs(got - (k + 1)) <= 1, `2^${k}: ${got}`);
    assert.equal(intBits(-x), got);
  }
  assert.equal(intBits(0), 0);
});

Deno.test("int cost: the issue's tower of squares stops at the integer-size cap, at once", () => {
  const src = "def main():\n    x = 3\n    for i in range(25):\n        x = x * x\n" +
    "    l = [x + i for i in range(750)]\n    return len(l)\nmain()\n";
  const t0 = performance.now();
  const e = resourceError(() => execFile(src, { maxMemory: 16 << 20 }));
  assert.equal(e.resource, "memory");
  assert.match(e.message, /exceeds the integer-size limit \(maxIntBits = 262144\)/);
  // The refused product was never computed: the whole run is a few small multiplications.
  assert.ok(performance.now() - t0 < 2_000);
  assert.equal(DEFAULT_MAX_INT_BITS, 262_144);
});

Deno.test("int cost: maxIntBits is configurable and checked before each operation", () => {
  // Shift counts stop at 511, so the big operands are predeclared.
  const predeclared = { a: 1n << 4000n, b: 1n << 2000n, c: 1n << 3000n, m: -(1n << 4095n), d: 1n << 2047n };
  const run = (expr: string) => execFile(`x = ${expr}\n`, { maxIntBits: 4096, predeclared });
  run("a + 1");
  run("b * b");
  run("d * d"); // operands of 2048 bits each: the product may have 4096 bits
  for (
    const expr of [
      "c * b",
      "a << 200",
      "int('9' * 2000)",
      "m + m - 1",
      "-(m + m - 1)",
      "str(a) + str(int('1' * 1300))",
    ]
  ) {
    const e = resourceError(() => run(expr));
    assert.equal(e.resource, "memory", expr);
    assert.match(e.message, /maxIntBits = 4096/, expr);
  }
  assert.throws(() => new Thread({ maxIntBits: 100 }), RangeError);
});

Deno.test("int cost: steps are charged in proportion to the work, before it is done", () => {
  // A 100,000-bit square: charged by the model (n·√n/2 for n limbs), not one step.
  const n = Math.ceil(100_001 / 64);
  const t = new Thread();
  chargeMul(t, 1n << 100_000n, 1n << 100_000n);
  assert.equal(t.steps, mulSteps(n, n));
  assert.ok(t.steps > 30_000, `${t.steps}`);
  assert.ok(t.memory >= (2 * 100_001) / 8, `${t.memory}`);
  // With a small step budget the squares are refused by the step budget instead.
  const e = resourceError(() =>
    execFile("def f():\n    x = 1 << 500\n    for i in range(8):\n        x = x * x\nf()\n", {
      maxSteps: 20_000,
    })
  );
  assert.equal(e.resource, "steps");
  // str() of a huge int costs far more than of a small one.
  const small = execFile("s = str(a)\n", { predeclared: { a: 1n << 1000n } }).thread.steps;
  const big = execFile("s = str(a)\n", { predeclared: { a: 1n << 200_000n } }).thread.steps;
  assert.ok(big > small + 100_000, `${small} ${big}`);
});

Deno.test("int cost: small ints are charged nothing beyond their step", () => {
  const src = "x = 12345678901234567 * 98765432109876543\n";
  const a = execFile(src);
  // Nothing beyond what compiling the source costs (execFile charges its thread for that too).
  assert.equal(a.thread.memory, compile(src).compileBytes);
  assert.equal(a.globals.get("x"), 12345678901234567n * 98765432109876543n);
});

Deno.test("int cost: decimal conversions poll the interrupt hook between pieces", () => {
  let polls = 0;
  const thread = new Thread({ checkInterrupt: () => void polls++ });
  const x = (1n << 250_000n) / 7n;
  polls = 0;
  assert.equal(intToDecimal(x, thread), x.toString());
  assert.ok(polls >= 8, `polls ${polls}`);
  polls = 0;
  assert.equal(parseDecimal(x.toString(), thread), x);
  assert.ok(polls >= 8, `polls ${polls}`);
});

Deno.test("int cost: Barrett reciprocals by Newton's iteration are exact floors of 2^(2k)/p", () => {
  const rnd = seededRandom(21);
  const sizes = [4097, 4160, 8191, 8192, 8193, 20_000, 65_537, 131_072, 262_144];
  for (let i = 0; i < 12; i++) sizes.push(4097 + Math.floor(rnd() * 200_000));
  for (const k of sizes) {
    const top = 1n << BigInt(k - 1);
    let r = 1n;
    while (r < top) r = (r << 30n) | BigInt(Math.floor(rnd() * 2 ** 30));
    const random = top | (r & (top - 1n));
    for (const p of [top, (top << 1n) - 1n, random, top + 1n]) {
      const want = (1n << BigInt(2 * k)) / p;
      assert.equal(reciprocal(p, k), want, `k = ${k}`);
    }
  }
});

Deno.test("int cost: decimal text and parsing are exact at the split's power-of-ten boundaries", () => {
  const thread = new Thread({ maxIntBits: 1 << 20 });
  // Powers of ten at and around each level's size (150·2^i digits) are where a quotient estimate that is
  // one or two short, or a padded piece, would show.
  for (let i = 0; i <= 10; i++) {
    const digits = 150 * 2 ** i;
    for (const d of [-1, 0, 1, digits]) {
      const p = 10n ** BigInt(digits + d);
      for (const x of [p, p - 1n, p + 1n, -p, -(p - 1n), p * 7n - 3n]) {
        assert.equal(intToDecimal(x, thread), x.toString(), `10^${digits + d} neighbour`);
        const abs = x < 0n ? -x : x;
        assert.equal(parseDecimal(abs.toString(), thread), abs, `parse 10^${digits + d} neighbour`);
      }
    }
  }
});
