/**
 * The string/bytes iterable views. Expected values were printed by the reference `starlark` binary.
 *
 * @module
 */
import assert from "node:assert/strict";
import { equals, getIndex, isHashable, iterate, len, repr, truth } from "./ops.ts";
import {
  bytesElems,
  stringCodepointOrds,
  stringCodepoints,
  stringElemOrds,
  stringElems,
} from "./string_views.ts";
import { Dict, EvalError, List, Thread, UnhashableError } from "./value.ts";
import type { Value } from "./value.ts";

const th = new Thread();

function items(v: Value): Value[] {
  const out: Value[] = [];
  const it = iterate(v);
  for (let x = it.next(); x !== undefined; x = it.next()) out.push(x);
  it.done();
  return out;
}

Deno.test("codepoints decode UTF-8 and map each invalid byte to U+FFFD", () => {
  const s = "a\xc3\xa9\xf0\x9f\x98\x80"; // "aé😀"
  assert.deepEqual(items(stringCodepointOrds(s)), [97, 233, 128512]);
  assert.deepEqual(items(stringCodepoints(s)), ["a", "\xc3\xa9", "\xf0\x9f\x98\x80"]);
  assert.deepEqual(items(stringCodepoints("\xc3")), ["\xef\xbf\xbd"]);
  assert.deepEqual(items(stringCodepointOrds("\xc3x")), [65533, 120]);
});

Deno.test("elems iterate bytes; string.elems is indexable and has a length", () => {
  assert.deepEqual(items(stringElems("h\xc3\xa9")), ["h", "\xc3", "\xa9"]);
  assert.deepEqual(items(stringElemOrds("h\xc3\xa9")), [104, 195, 169]);
  assert.deepEqual(items(bytesElems("\x00\xff")), [0, 255]);
  assert.equal(len(stringElems("abc")), 3);
  assert.equal(getIndex(th, stringElems("abc"), -1), "c");
  assert.equal(getIndex(th, stringElemOrds("abc"), 0), 97);
  assert.throws(() => getIndex(th, stringElems("abc"), 3), {
    message: "string.elems index 3 out of range [-3:2]",
  });
  assert.equal(len(stringCodepoints("abc")), -1);
  assert.equal(len(bytesElems("abc")), -1);
  assert.throws(
    () => getIndex(th, bytesElems("abc"), 1),
    (e: unknown) => e instanceof EvalError && e.message === "unhandled index operation bytes.elems[int]",
  );
});

Deno.test("views: type names, repr, truth, equality, unhashable", () => {
  assert.equal(stringElems("").typeName, "string.elems");
  assert.equal(stringCodepoints("").typeName, "string.codepoints");
  assert.equal(bytesElems("").typeName, "bytes.elems");
  assert.equal(repr(stringElems("\xc3\xa9")), '"\xc3\xa9".elems()');
  assert.equal(repr(stringCodepoints("\xc3")), '"\\xc3".codepoints()');
  assert.equal(repr(bytesElems("\xff")), 'b"\\xff".elems()');
  assert.equal(repr(stringElemOrds("\n")), '"\\n".elem_ords()');
  assert.equal(repr(stringCodepointOrds("a")), '"a".codepoint_ords()');
  assert.equal(truth(stringElems("")), true);
  assert.equal(equals(stringElems("abc"), stringElems("abc")), true);
  assert.equal(equals(stringElems("abc"), stringElemOrds("abc")), false);
  assert.equal(equals(stringCodepoints("a"), stringCodepoints("a")), true);
  assert.equal(equals(bytesElems("a"), bytesElems("b")), false);
  assert.equal(isHashable(stringElems("a")), false);
  assert.throws(
    () => new Dict().setUnchecked(stringElems("a"), 1),
    (e: unknown) => e instanceof UnhashableError && e.message === "unhashable: string.elems",
  );
  assert.equal(repr(new List([stringElems("a")])), '["a".elems()]');
});
