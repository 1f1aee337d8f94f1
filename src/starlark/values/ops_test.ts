/**
 * Unit tests of ops.ts beyond the expression table of ops_cases_test.ts: budgets, iteration counts,
 * mutation checks, freezing, cycles and deep values. Expected messages were checked with
 * the reference `starlark` binary.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  binary,
  compare,
  compareValues,
  equals,
  freeze,
  getIndex,
  iterate,
  len,
  nearest,
  repr,
  setIndex,
  slice,
  str,
  truth,
  tryIterate,
  unary,
} from "./ops.ts";
import { evalExpr } from "./ops_evalutil_test.ts";
import {
  Builtin,
  Bytes,
  Dict,
  EvalError,
  Float,
  List,
  Range,
  ResourceError,
  StarObject,
  StarSet,
  Thread,
  Tuple,
} from "./value.ts";
import type { Value } from "./value.ts";

const th = new Thread();

function evalError(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => e instanceof EvalError && e.message === message);
}

function drain(v: Value): Value[] {
  const it = iterate(v);
  const out: Value[] = [];
  for (let x = it.next(); x !== undefined; x = it.next()) out.push(x);
  it.done();
  return out;
}

Deno.test("repetition charges the memory budget before allocating", () => {
  const t = new Thread({ maxMemory: 1 << 20 });
  assert.throws(
    () => binary(t, "*", "x", 1 << 29),
    (e: unknown) => e instanceof ResourceError && e.resource === "memory",
  );
  assert.throws(() => binary(t, "*", new List([1]), 1 << 25), ResourceError);
  // A billion-times repetition is refused by the reference's own limit first.
  evalError(() => binary(th, "*", "x", 2 ** 31), "repeat count 2147483648 too large");
  evalError(() => binary(th, "*", "ab", 1 << 29), "excessive repeat (2 * 536870912 elements)");
  assert.equal(binary(new Thread({ maxMemory: 100 }), "*", "ab", 50), "ab".repeat(50));
});

Deno.test("large operations charge steps in proportion to their size", () => {
  const t = new Thread({ maxSteps: 1000 });
  const big = "x".repeat(1 << 20);
  assert.throws(
    () => binary(t, "in", "y", big),
    (e: unknown) => e instanceof ResourceError && e.resource === "steps",
  );
  const t2 = new Thread({ maxSteps: 100 });
  const list = new List(new Array(10_000).fill(1));
  assert.throws(() => binary(t2, "+", list, list), ResourceError);
  const t3 = new Thread();
  binary(t3, "+", list, list);
  assert.ok(t3.steps >= 2000, `charged ${t3.steps}`);
});

Deno.test("repr of shared structure is bounded by the budgets", () => {
  let x: Value = new List(new Array(100).fill(1));
  for (let i = 0; i < 4; i++) x = new List(new Array(100).fill(x)); // 10^10 leaves, tiny memory
  const t = new Thread({ maxSteps: 10_000 });
  assert.throws(() => repr(x, t), ResourceError);
  const t2 = new Thread({ maxMemory: 100_000 });
  assert.throws(() => repr(x, t2), ResourceError);
});

Deno.test("repr and freeze handle very deep nesting without a JS stack overflow", () => {
  let x: Value = new List([]);
  for (let i = 0; i < 200_000; i++) x = new List([x]);
  const s = repr(x);
  assert.equal(s.length, 2 * 200_001);
  freeze(x);
  assert.equal((x as List).frozen, true);
});

Deno.test("freeze walks each tuple once: tuples sharing their halves at 40 levels freeze at once", () => {
  const inner = new List([1]);
  let x: Value = new Tuple([inner]);
  // Walked as a tree, this is 2^40 paths; freeze reaches the list through every one of them.
  for (let i = 0; i < 40; i++) x = new Tuple([x, x]);
  freeze(x);
  assert.equal(inner.frozen, true);
});

Deno.test("cyclic values print like the reference", () => {
  const l = new List([1]);
  l.elems.push(l);
  assert.equal(repr(l), "[1, [...]]");
  const d = new Dict();
  d.setUnchecked("a", d);
  assert.equal(repr(d), '{"a": {...}}');
  const m = new List([]);
  const t = new Tuple([m]);
  m.elems.push(t);
  assert.equal(repr(m), "[([...],)]");
  assert.equal(repr(t), "([([...],)],)");
  const d2 = new Dict();
  d2.setUnchecked(1, new List([d2]));
  assert.equal(repr(d2), "{1: [{...}]}");
  evalError(() => equals(l, l), "comparison exceeded maximum recursion depth");
});

Deno.test("equality depth limit is the reference's 10", () => {
  const nest = (n: number, leaf: Value): Value => {
    let v = leaf;
    for (let i = 0; i < n; i++) v = new List([v]);
    return v;
  };
  assert.equal(equals(nest(9, 1), nest(9, 1)), true);
  evalError(() => equals(nest(10, 1), nest(10, 1)), "comparison exceeded maximum recursion depth");
  assert.equal(equals(nest(9, "a"), nest(9, "a")), true);
  evalError(() => equals(nest(10, "a"), nest(10, "a")), "comparison exceeded maximum recursion depth");
  assert.equal(compare("<", nest(9, 1), nest(9, 2)), true);
  evalError(() => compare("<", nest(10, 1), nest(10, 2)), "comparison exceeded maximum recursion depth");
});

Deno.test("iteration counts block mutation until done()", () => {
  const l = new List([1, 2]);
  const it = iterate(l);
  assert.equal(l.itercount, 1);
  evalError(() => setIndex(th, l, 0, 5), "cannot assign to element of list during iteration");
  it.done();
  it.done(); // idempotent
  assert.equal(l.itercount, 0);
  setIndex(th, l, -1, 7);
  assert.deepEqual(l.elems, [1, 7]);

  const d = new Dict();
  d.setUnchecked(1, 2);
  const di = iterate(d);
  evalError(() => setIndex(th, d, 1, 5), "cannot insert into hash table during iteration");
  di.done();
  setIndex(th, d, 1, 5);
  assert.equal(d.get(1), 5);

  const s = new StarSet();
  s.addUnchecked(1);
  const si = iterate(s);
  assert.equal(s.itercount, 1);
  si.done();
  assert.equal(s.itercount, 0);
});

Deno.test("iterate: sequences, keys, views; strings and scalars are not iterable", () => {
  assert.deepEqual(drain(new Tuple([1, "a"])), [1, "a"]);
  assert.deepEqual(drain(new Range(10, 0, -3)), [10, 7, 4, 1]);
  const d = new Dict();
  d.setUnchecked("b", 1);
  d.setUnchecked("a", 2);
  assert.deepEqual(drain(d), ["b", "a"]);
  assert.deepEqual(drain(evalExpr(th, '"h\\u00e9".codepoints()')), ["h", "\xc3\xa9"]);
  assert.deepEqual(drain(evalExpr(th, 'b"\\xffA".elems()')), [255, 65]);
  evalError(() => iterate("abc"), "string value is not iterable");
  evalError(() => iterate(1), "int value is not iterable");
  evalError(() => iterate(new Bytes("x")), "bytes value is not iterable");
  assert.equal(tryIterate(null), undefined);
});

Deno.test("frozen values reject mutation with the reference's messages", () => {
  const inner = new List([1]);
  const d = new Dict();
  d.setUnchecked("k", inner);
  const outer = new List([new Tuple([d])]);
  freeze(outer);
  assert.equal(inner.frozen && d.frozen && outer.frozen, true);
  evalError(() => setIndex(th, inner, 0, 2), "cannot assign to element of frozen list");
  evalError(() => setIndex(th, d, "k", 2), "cannot insert into frozen hash table");
  // The index is checked before mutability, as in the reference.
  evalError(() => setIndex(th, inner, 5, 2), "list index 5 out of range [-1:0]");
  // Freezing a bound method freezes its receiver; other objects are asked to freeze themselves.
  const recv = new List([]);
  freeze(new Builtin("append", () => null, recv));
  assert.equal(recv.frozen, true);
  let called = 0;
  class Fn extends StarObject {
    get typeName(): string {
      return "function";
    }
    freeze(): void {
      called++;
    }
  }
  freeze(new List([new Fn()]));
  assert.equal(called, 1);
});

Deno.test("setIndex errors", () => {
  evalError(() => setIndex(th, new List([1]), "a", 1), "got string, want int");
  evalError(() => setIndex(th, new List([1]), 2 ** 31, 1), "2147483648 out of range");
  evalError(() => setIndex(th, new Tuple([1]), 0, 1), "tuple value does not support item assignment");
  evalError(() => setIndex(th, "a", 0, 1), "string value does not support item assignment");
  evalError(() => setIndex(th, new Dict(), new List([]), 1), "unhashable type: list");
});

Deno.test("getIndex of host-indexable values and unsupported operands", () => {
  assert.equal(getIndex(th, evalExpr(th, '"abc".elem_ords()'), -1), 99);
  evalError(() => getIndex(th, null, 0), "unhandled index operation NoneType[int]");
  evalError(() => getIndex(th, new Dict(), new List([])), "unhashable type: list");
  evalError(() => getIndex(th, evalExpr(th, "range(2)"), "x"), "range index: got string, want int");
});

Deno.test("nearest: case and underscores ignored, at most half the letters differ", () => {
  assert.equal(nearest("uper", ["lower", "upper", "title"]), "upper");
  assert.equal(nearest("startwith", ["startswith", "endswith"]), "startswith");
  assert.equal(nearest("xyz", ["upper"]), undefined);
  assert.equal(nearest("SPLIT_LINES", ["splitlines", "split"]), "splitlines");
});

Deno.test("truth, len, str and compareValues", () => {
  assert.equal(truth(new Float(NaN)), true);
  assert.equal(truth(new Float(-0)), false);
  assert.equal(truth(2n ** 80n), true);
  assert.equal(truth(new Range(0, 0, 1)), false);
  assert.equal(truth(new Builtin("f", () => null)), true);
  assert.equal(len(evalExpr(th, '"abc".elems()')), 3);
  assert.equal(len(evalExpr(th, '"abc".codepoints()')), -1);
  assert.equal(len(1), -1);
  assert.equal(len(evalExpr(th, "range(0, 10, 3)")), 4);
  assert.equal(str(new Bytes("\xff\xc3\xa9")), "\xef\xbf\xbd\xc3\xa9");
  assert.equal(str("a\n"), "a\n");
  assert.equal(compareValues(1, new Float(0.5)), 1);
  assert.equal(compareValues(new Float(NaN), new Float(Infinity)), 1);
  assert.equal(compareValues("b", "a"), 1);
  assert.equal(compareValues(new Tuple([1, 2]), new Tuple([1, 2])), 0);
  assert.ok(compareValues(2n ** 70n, new Float(1e21)) > 0);
  evalError(() => compareValues(1, "a"), "int < string not implemented");
  evalError(() => compareValues(null, null), "NoneType < NoneType not implemented");
});

Deno.test("unary and binary return normalized ints (no -0, bigint only when needed)", () => {
  assert.ok(Object.is(unary(th, "-", 0), 0));
  assert.ok(Object.is(binary(th, "*", -3, 0), 0));
  assert.ok(Object.is(binary(th, "//", 0, -5), 0));
  assert.ok(Object.is(binary(th, "%", -4, 2), 0));
  assert.equal(binary(th, "+", 2 ** 53 - 1, 1), 2n ** 53n);
  assert.equal(binary(th, "-", 2n ** 53n, 1), 2 ** 53 - 1);
  assert.equal(typeof binary(th, "-", 2n ** 53n, 1), "number");
  assert.equal(unary(th, "~", -(2 ** 53) + 1), 2 ** 53 - 2);
  assert.equal(unary(th, "~", 2 ** 53 - 1), -(2n ** 53n));
  assert.equal(repr(binary(th, "*", 0, new Float(-1))), "-0.0");
  assert.equal(repr(binary(th, "*", binary(th, "*", 0, -5), new Float(1))), "0.0");
});

Deno.test("slices share nothing with their operand", () => {
  const l = new List([1, 2, 3]);
  const s = slice(th, l, null, null, null) as List;
  s.elems[0] = 9;
  assert.deepEqual(l.elems, [1, 2, 3]);
  const r = slice(th, new Range(0, 10, 1), 2, null, 3) as Range;
  assert.deepEqual([r.start, r.stop, r.step, r.length], [2, 10, 3, 3]);
});

Deno.test("host values: repr, equality and comparison hooks", () => {
  class Thing extends StarObject {
    constructor(readonly id: number) {
      super();
    }
    get typeName(): string {
      return "thing";
    }
    starlarkRepr(): string {
      return `<thing ${this.id}>`;
    }
    starlarkEquals(y: Value): boolean {
      return y instanceof Thing && y.id === this.id;
    }
    starlarkCompare(y: Value): number {
      return this.id - (y as Thing).id;
    }
  }
  assert.equal(repr(new List([new Thing(1)])), "[<thing 1>]");
  assert.equal(equals(new Thing(1), new Thing(1)), true);
  assert.equal(equals(new Thing(1), new Thing(2)), false);
  assert.equal(compare("<", new Thing(1), new Thing(2)), true);
  class Opaque extends StarObject {
    get typeName(): string {
      return "opaque";
    }
  }
  const o = new Opaque();
  assert.equal(repr(o), "<opaque>");
  assert.equal(equals(o, o), true);
  assert.equal(equals(o, new Opaque()), false);
  evalError(() => compare("<", o, o), "opaque < opaque not implemented");
});
