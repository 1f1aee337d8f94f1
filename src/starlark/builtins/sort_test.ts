import assert from "node:assert/strict";
import { Builtin, compareValues, EvalError, Float, repr, Thread, Tuple, type Value } from "../values/mod.ts";
import { sortByKeys, sortKeys } from "./sort.ts";
import { seededRandom } from "../seeded_random_test.ts";
// sortKeys calls key functions through the calling protocol, which the evaluator installs as it loads.
import "../eval/calls.ts";

/** The obvious stable sort, as the specification of sortByKeys. */
function naive(values: Value[], keys: Value[], reverse: boolean): Value[] {
  const idx = values.map((_, i) => i);
  idx.sort((i, j) => (reverse ? -1 : 1) * compareValues(keys[i], keys[j]));
  return idx.map((i) => values[i]);
}

type Gen = (r: () => number) => Value;

const pick = <T>(r: () => number, xs: T[]): T => xs[Math.floor(r() * xs.length)];
const int = (lo: number, hi: number): Gen => (r) => lo + Math.floor(r() * (hi - lo + 1));
const str: Gen = (r) => {
  let s = "";
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) s += pick(r, ["a", "b", "ab", "\x00", "\xc3\xa9", "\xff", "Z"]);
  return s;
};
const num: Gen = (r) =>
  r() < 0.5 ? int(-5, 5)(r) : new Float(pick(r, [-0, 0, 0.5, -2.5, 1e300, -Infinity, Infinity, 3]));
const tuple = (...cols: Gen[]): Gen => (r) => {
  const n = Math.floor(r() * (cols.length + 1));
  return new Tuple(cols.slice(0, n).map((g) => g(r)));
};

const SHAPES: Record<string, Gen> = {
  "narrow ints": int(-20, 20),
  "wide ints": int(-(2 ** 52), 2 ** 52),
  "ints and floats": num,
  "strings": str,
  "long strings": (r) => "x".repeat(64 + Math.floor(r() * 3)) + str(r),
  "tuples of int, string": tuple(int(0, 3), str),
  "tuples of float, int, wide int": tuple(num, int(0, 2), int(-(2 ** 40), 2 ** 40)),
};

for (const [name, gen] of Object.entries(SHAPES)) {
  Deno.test(`sortByKeys agrees with a naive stable sort: ${name}`, () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = seededRandom(seed);
      const n = 1 + Math.floor(r() * 300);
      const keys: Value[] = [];
      for (let i = 0; i < n; i++) keys.push(gen(r));
      // Values are the original indices, so stability is visible.
      const values: Value[] = keys.map((_, i) => i);
      for (const reverse of [false, true]) {
        const got = sortByKeys(new Thread(), values, keys, reverse);
        const want = naive(values, keys, reverse);
        assert.deepEqual(
          got,
          want,
          `seed ${seed}, reverse ${reverse}: ${keys.map((k) => repr(k)).join(" ")}`,
        );
      }
    }
  });
}

Deno.test("sortByKeys of strings that are their own keys: the naive order, and the ranked path's charges", () => {
  for (let seed = 1; seed <= 30; seed++) {
    const r = seededRandom(100 + seed);
    const n = 2 + Math.floor(r() * 300);
    const long = seed % 3 === 0; // some strings of 64 bytes or more: the ranked path, which charges them
    const values: Value[] = [];
    for (let i = 0; i < n; i++) values.push((long && r() < 0.2 ? "q".repeat(64) : "") + str(r));
    for (const reverse of [false, true]) {
      const th = new Thread();
      const got = sortByKeys(th, values, values, reverse);
      assert.deepEqual(got, naive(values, values, reverse), `seed ${seed}, reverse ${reverse}`);
      // The same keys as a copy (a key function's results) go the ranked way: the same steps.
      const ranked = new Thread();
      assert.deepEqual(sortByKeys(ranked, values, values.slice(), reverse), got);
      assert.equal(th.steps, ranked.steps);
    }
  }
});

Deno.test("sortByKeys falls back to comparisons for mixed keys that never meet", () => {
  // (1, "a") and (2, 3) are ordered by their first elements; the strings and ints are never compared.
  const keys: Value[] = [new Tuple([2, 3]), new Tuple([1, "a"]), new Tuple([1])];
  assert.deepEqual(sortByKeys(new Thread(), [0, 1, 2], keys, false), [2, 1, 0]);
  assert.deepEqual(sortByKeys(new Thread(), [0, 1, 2], keys, true), [0, 1, 2]);
  const empty = [new Tuple([]), new Tuple([]), new Tuple([])];
  assert.deepEqual(sortByKeys(new Thread(), [0, 1, 2], empty, true), [0, 1, 2]);
});

Deno.test("sortByKeys reports unordered keys like the reference", () => {
  assert.throws(
    () => sortByKeys(new Thread(), [0, 1, 2], [1, "a", 2], false),
    (e: unknown) => e instanceof EvalError && e.message === "int < string not implemented",
  );
  assert.throws(
    () => sortByKeys(new Thread(), [0, 1], [new Float(NaN), null], false),
    (e: unknown) => e instanceof EvalError && e.message === "NoneType < float not implemented",
  );
});

Deno.test("sortByKeys charges long string keys", () => {
  const th = new Thread();
  const keys = ["y".repeat(640), "x".repeat(640), "z".repeat(640)];
  assert.deepEqual(sortByKeys(th, [0, 1, 2], keys, false), [1, 0, 2]);
  assert.ok(th.steps >= 30, `charged ${th.steps} steps`);
});

Deno.test("sortKeys calls a built-in key function once per value", () => {
  let calls = 0;
  const neg = new Builtin("neg", (_th, args) => {
    calls++;
    return -(args[0] as number);
  });
  assert.deepEqual(sortKeys(new Thread(), [1, 3, 2], neg), [-1, -3, -2]);
  assert.equal(calls, 3);
  assert.throws(() => sortKeys(new Thread(), [1, 2], 5), /invalid call of non-function \(int\)/);
});
