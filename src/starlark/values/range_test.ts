/**
 * Tests of `Range` beyond 2^53: its bounds are exact int64s, so element access, length, membership,
 * slicing, equality, printing and iteration must be exact too (they used to go through doubles).
 */
import assert from "node:assert/strict";
import { equals, getIndex, iterate, repr, slice } from "./ops.ts";
import { binary } from "./ops_binary.ts";
import { Range, Thread } from "./value.ts";
import type { Value } from "./value.ts";
import { rangeBuiltin } from "../builtins/collections.ts";
import { lenBuiltin } from "../builtins/core.ts";

const th = new Thread();
const MAX_SAFE = Number.MAX_SAFE_INTEGER; // 2^53 - 1

function first(r: Range, n: number): Value[] {
  const it = iterate(r);
  const out: Value[] = [];
  for (let v = it.next(); v !== undefined && out.length < n; v = it.next()) out.push(v);
  it.done();
  return out;
}

Deno.test("range: bounds within the safe integers keep the number representation", () => {
  const r = new Range(0, 10, 3);
  assert.equal(r.big, undefined);
  assert.equal(r.length, 4);
  assert.deepEqual(first(r, 10), [0, 3, 6, 9]);
  // A span beyond 2^53 switches to exact bounds even though each bound is safe.
  const wide = new Range(-MAX_SAFE, MAX_SAFE, 1);
  assert.notEqual(wide.big, undefined);
  assert.equal(wide.exactLength, 2n * BigInt(MAX_SAFE));
  // Bigints inside the safe range are normalized back to numbers.
  assert.equal(new Range(0n, 5n, 1n).big, undefined);
});

Deno.test("range: len, index and iteration are exact for range(1 << 62)", () => {
  const r = rangeBuiltin(th, [1n << 62n], []) as Range;
  assert.equal(lenBuiltin(th, [r], []), 1n << 62n);
  assert.equal(getIndex(th, r, -1), (1n << 62n) - 1n);
  assert.equal(getIndex(th, r, 0), 0);
  const s = rangeBuiltin(th, [1n << 62n, (1n << 62n) + 3n], []) as Range;
  assert.deepEqual(first(s, 5), [1n << 62n, (1n << 62n) + 1n, (1n << 62n) + 2n]);
  assert.throws(() => getIndex(th, s, 3), /range index 3 out of range \[-3:2\]/);
  assert.throws(() => getIndex(th, r, 2 ** 31), /range index: 2147483648 out of range/);
  const huge = new Range(-(1n << 63n), (1n << 63n) - 1n, 1n);
  assert.equal(lenBuiltin(th, [huge], []), (1n << 64n) - 1n);
  assert.equal(getIndex(th, huge, -1), (1n << 63n) - 2n);
  assert.equal(getIndex(th, huge, -(2 ** 31)), (1n << 63n) - 1n - (1n << 31n));
});

Deno.test("range: elements across 2^53 are exact and normalized", () => {
  const r = new Range(MAX_SAFE - 2, MAX_SAFE + 3, 1);
  const xs = first(r, 10);
  assert.deepEqual(xs, [MAX_SAFE - 2, MAX_SAFE - 1, MAX_SAFE, 2n ** 53n, 2n ** 53n + 1n]);
  // Safe values are numbers, the others bigints (the int representation's invariant).
  assert.deepEqual(xs.map((x) => typeof x), ["number", "number", "number", "bigint", "bigint"]);
});

Deno.test("range: membership is exact for big bounds and big values", () => {
  const r = new Range(0n, 1n << 62n, 3n);
  const has = (x: Value) => binary(th, "in", x, r);
  assert.equal(has(3n * ((1n << 60n) + 1n)), true);
  assert.equal(has(3n * ((1n << 60n) + 1n) + 1n), false);
  assert.equal(has(1n << 62n), false); // the stop is excluded
  assert.equal(has(-3), false);
  assert.equal(binary(th, "in", 3 * 2 ** 40, new Range(0, 2 ** 50, 1)), true);
  const down = new Range(1n << 62n, 0n, -2n);
  assert.equal(binary(th, "in", (1n << 62n) - 2n, down), true);
  assert.equal(binary(th, "in", (1n << 62n) - 1n, down), false);
  assert.equal(binary(th, "in", 0, down), false);
});

Deno.test("range: slices of big ranges are exact, and compare equal to small ones", () => {
  const r = new Range(0n, 1n << 62n, 1n);
  const tail = slice(th, r, -3, null, null) as Range;
  assert.equal(repr(tail), "range(4611686018427387901, 4611686018427387904)");
  const back = slice(th, r, null, null, -1) as Range;
  assert.equal(getIndex(th, back, 0), (1n << 62n) - 1n);
  assert.equal(repr(slice(th, back, null, 2, null)), "range(4611686018427387903, 4611686018427387901, -1)");
  assert.equal(equals(slice(th, r, null, 3, null), new Range(0, 3, 1)), true);
  assert.equal(equals(new Range(0n, 1n << 60n, 1n << 60n), new Range(0, 1, 1)), true);
  assert.equal(equals(new Range(5, 5, 1), new Range(1n << 62n, 0n, 1n)), true);
  assert.equal(equals(new Range(0n, 1n << 62n, 2n), new Range(0n, 1n << 62n, 4n)), false);
  // A slice whose stop leaves the int64 range is still exact.
  assert.equal(
    repr(slice(th, new Range(0n, (1n << 63n) - 1n, 1n << 62n), null, null, null)),
    "range(0, 9223372036854775808, 4611686018427387904)",
  );
});

Deno.test("range: repr prints big bounds in decimal", () => {
  assert.equal(repr(rangeBuiltin(th, [(1n << 63n) - 1n], [])), "range(9223372036854775807)");
  assert.equal(
    repr(new Range(-(1n << 63n), 0n, 1n << 62n)),
    "range(-9223372036854775808, 0, 4611686018427387904)",
  );
  assert.throws(
    () => rangeBuiltin(th, [1n << 63n], []),
    /out of range \(want value in signed 64-bit range\)/,
  );
});
