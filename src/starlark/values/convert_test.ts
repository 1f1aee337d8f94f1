/**
 * JS ↔ Starlark conversions.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ConversionError, fromJS, toJS } from "./convert.ts";
import { repr } from "./ops.ts";
import { Builtin, Bytes, Dict, Float, List, StarSet, Tuple, type Value } from "./value.ts";

Deno.test("fromJS maps JSON-like data to Starlark values", () => {
  const v = fromJS({ name: "café", n: 3, x: 1.5, big: 2n ** 70n, ok: true, none: null, list: [1, [2]] });
  assert.equal(
    repr(v),
    '{"name": "caf\xc3\xa9", "n": 3, "x": 1.5, "big": 1180591620717411303424, "ok": True, "none": None, "list": [1, [2]]}',
  );
  assert.equal(fromJS(undefined), null);
  assert.ok(fromJS(2 ** 53) instanceof Float); // not a safe integer: stays a float
  assert.ok(fromJS(NaN) instanceof Float);
  assert.ok(Object.is(fromJS(-0), 0));
  assert.equal(repr(fromJS(3, { numbers: "float" })), "3.0");
  assert.ok(fromJS([1], { arrays: "tuple" }) instanceof Tuple);
  assert.equal(repr(fromJS(new Uint8Array([0, 255]))), 'b"\\x00\\xff"');
  assert.equal(
    repr(fromJS(new Map<unknown, unknown>([[1, "a"], [new Tuple([1, 2]), "b"]]))),
    '{1: "a", (1, 2): "b"}',
  );
  assert.equal(repr(fromJS(Object.assign(Object.create(null), { k: 1 }))), '{"k": 1}');
  const f = new Float(2);
  assert.equal(fromJS(f), f);
});

Deno.test("fromJS rejects what has no Starlark equivalent", () => {
  assert.throws(() => fromJS(() => 1), ConversionError);
  assert.throws(() => fromJS(Symbol("s")), ConversionError);
  assert.throws(() => fromJS(new Date()), /cannot convert JS Date/);
  const cyc: unknown[] = [];
  cyc.push(cyc);
  assert.throws(() => fromJS(cyc), /cyclic/);
  assert.throws(() => fromJS(new Map([[[1], 2]])), /unhashable type: list/);
  // Shared (acyclic) substructure is fine.
  const shared = [1];
  assert.equal(repr(fromJS([shared, shared])), "[[1], [1]]");
});

Deno.test("toJS maps Starlark values to JS data", () => {
  const d = new Dict();
  d.setUnchecked("a", new List([1, new Float(2.5), "\xc3\xa9", null, true]));
  d.setUnchecked("__proto__", new Tuple([new Bytes("\x01")]));
  const js = toJS(d) as Record<string, unknown>;
  assert.deepEqual(js.a, [1, 2.5, "é", null, true]);
  assert.deepEqual(Object.keys(js), ["a", "__proto__"]);
  assert.deepEqual(js["__proto__"], [new Uint8Array([1])]);
  assert.equal(Object.getPrototypeOf(js), Object.prototype);
  assert.equal(toJS(2n ** 60n), 2n ** 60n);
  assert.throws(() => toJS(2n ** 60n, { bigints: "error" }), /outside the JS safe-integer range/);
});

Deno.test("toJS rejects sets, functions, non-string keys and cycles", () => {
  assert.throws(() => toJS(new StarSet()), /cannot convert Starlark set to JS/);
  assert.throws(() => toJS(new Builtin("len", () => null)), ConversionError);
  const d = new Dict();
  d.setUnchecked(1, 2);
  assert.throws(() => toJS(d), /dict with int key/);
  const l = new List([]);
  l.elems.push(l);
  assert.throws(() => toJS(l), /cyclic list/);
});

Deno.test("fromJS and toJS round-trip JSON data", () => {
  const data = { a: [1, 2.5, "x", { b: null, c: [true, false] }], d: "ünï", e: -7 };
  assert.deepEqual(toJS(fromJS(data)), data);
});

Deno.test("convert: values of any depth convert both ways, with the same errors as shallow ones", () => {
  const build = (n: number, map: boolean) => {
    let js: unknown = ["leaf", { k: 1n << 70n }];
    for (let i = 0; i < n; i++) {
      js = i % 3 === 0 ? [js, i] : i % 3 === 1 ? { a: js } : map ? new Map([["m", js]]) : { m: js };
    }
    return js;
  };
  // Maps come back as plain objects; everything else as it was (assert.deepEqual itself recurses).
  assert.deepEqual(toJS(fromJS(build(300, true))), build(300, false));
  let back = toJS(fromJS(build(100_000, true)));
  let levels = 0;
  while (!Array.isArray(back) || back[0] !== "leaf") {
    back = Array.isArray(back) ? back[0] : Object.values(back as object)[0];
    levels++;
  }
  assert.equal(levels, 100_000);
  // A cycle closing far below the top, and a refused value there.
  const top: unknown[] = [];
  let cur = top;
  for (let i = 0; i < 1000; i++) cur.push(cur = []);
  cur.push(top);
  assert.throws(() => fromJS(top), /cannot convert a cyclic JS structure/);
  cur.pop();
  cur.push(new Date(0));
  assert.throws(() => fromJS(top), /cannot convert JS Date/);
  let d: Value = new Dict();
  (d as Dict).setUnchecked(1, 2);
  for (let i = 0; i < 1000; i++) d = new List([d]);
  assert.throws(() => toJS(d), /cannot convert dict with int key to a JS object/);
});
