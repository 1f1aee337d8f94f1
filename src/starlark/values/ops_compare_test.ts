/**
 * Ordering of tuples: the leading-int shortcut of `compare` must order, fail and charge exactly as the
 * element-by-element comparison does (checked against lists, which always take the long way).
 */
import assert from "node:assert/strict";
import { compare, type CompareOp } from "./ops_compare.ts";
import { EvalError, Float, List, Thread, Tuple, type Value } from "./mod.ts";

Deno.test("tuple ordering with leading ints agrees with list ordering in results, errors and steps", () => {
  let seed = 2718;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return (seed >> 8) % n;
  };
  const elem = (): Value => {
    const k = next(10);
    if (k < 6) return next(5) - 2;
    if (k === 6) return "ab".slice(next(3));
    if (k === 7) return new Float(next(3) - 1);
    if (k === 8) return 2n ** 64n * BigInt(next(3) - 1);
    return null; // not ordered: an error when compared
  };
  const outcome = (f: () => boolean): string => {
    try {
      return String(f());
    } catch (e) {
      if (e instanceof EvalError) return `error: ${e.message}`;
      throw e;
    }
  };
  const ops: CompareOp[] = ["<", "<=", ">", ">="];
  for (let t = 0; t < 5000; t++) {
    // Short tuples mostly; some longer than 64 elements, whose comparison is charged.
    const len = () => (next(8) === 0 ? 60 + next(10) : next(4));
    const xs = Array.from({ length: len() }, elem), ys = Array.from({ length: len() }, elem);
    if (next(2) === 0 && xs.length > 0 && ys.length > 0) ys[0] = xs[0]; // equal heads: decided later
    const op = ops[next(4)];
    const a = new Thread(), b = new Thread();
    const got = outcome(() => compare(op, new Tuple(xs), new Tuple(ys), a));
    const want = outcome(() => compare(op, new List(xs), new List(ys), b))
      .replace("list", "tuple").replace("list", "tuple");
    const what = `${op} on ${xs.length}/${ys.length} elements, heads ${String(xs[0])}/${String(ys[0])}`;
    assert.equal(got, want, what);
    assert.equal(a.steps, b.steps, what);
  }
});
