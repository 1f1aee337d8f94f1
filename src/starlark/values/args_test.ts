import assert from "node:assert/strict";
import {
  anyArg,
  asInt32,
  boolArg,
  callableArg,
  checkPositional,
  dictArg,
  floatArg,
  intArg,
  isCallable,
  isIterable,
  iterableArg,
  listArg,
  noKwargs,
  sliceIndices,
  stringArg,
  unpackArgs,
  unpackPositional,
} from "./args.ts";
import { Builtin, Bytes, Dict, EvalError, Float, List, Range, StarSet, Tuple } from "./value.ts";

function msg(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof EvalError) return e.message;
    throw e;
  }
  return "no error";
}

Deno.test("unpackPositional: counts, conversion messages, absent optionals", () => {
  assert.deepEqual(unpackPositional("f", [1], [], 1, anyArg, stringArg), [1, undefined]);
  assert.deepEqual(unpackPositional("f", [1, "s"], [], 1, anyArg, stringArg), [1, "s"]);
  assert.equal(
    msg(() => unpackPositional("f", [], [], 1, anyArg, stringArg)),
    "f: got 0 arguments, want at least 1",
  );
  assert.equal(msg(() => unpackPositional("f", [], [], 1, anyArg)), "f: got 0 arguments, want 1");
  assert.equal(msg(() => unpackPositional("f", [1, 2], [], 1, anyArg)), "f: got 2 arguments, want 1");
  assert.equal(
    msg(() => unpackPositional("f", [1, 2, 3], [], 1, anyArg, anyArg)),
    "f: got 3 arguments, want at most 2",
  );
  assert.equal(
    msg(() => unpackPositional("f", [1], [["k", 1]], 1, anyArg)),
    "f: unexpected keyword arguments",
  );
  assert.equal(
    msg(() => unpackPositional("f", [1, 2], [], 1, anyArg, stringArg)),
    "f: for parameter 2: got int, want string",
  );
});

Deno.test("unpackArgs: names, keywords, duplicates, missing, suggestions", () => {
  const specs = [["x", anyArg], ["base?", intArg]] as const;
  assert.deepEqual(unpackArgs("int", ["1"], [], ...specs), ["1", undefined]);
  assert.deepEqual(unpackArgs("int", [], [["base", 2], ["x", "1"]], ...specs), ["1", 2]);
  assert.equal(msg(() => unpackArgs("int", [], [], ...specs)), "int: missing argument for x");
  assert.equal(msg(() => unpackArgs("int", [1, 2, 3], [], ...specs)), "int: got 3 arguments, want at most 2");
  assert.equal(
    msg(() => unpackArgs("int", [1], [["x", 2]], ...specs)),
    'int: got multiple values for keyword argument "x"',
  );
  assert.equal(
    msg(() => unpackArgs("int", [1, "a"], [], ...specs)),
    "int: for parameter base: got string, want int",
  );
  assert.equal(
    msg(() => unpackArgs("int", [1], [["base", "a"]], ...specs)),
    'int: for parameter "base": got string, want int',
  );
  assert.equal(
    msg(() => unpackArgs("int", [1], [["bse", 1]], ...specs)),
    'int: unexpected keyword argument "bse"',
  );
  assert.equal(
    msg(() => unpackArgs("f", [], [["sep_", ""]], ["sep?", stringArg])),
    'f: unexpected keyword argument "sep_" (did you mean sep?)',
  );
  // Only the first half of the parameters are offered as suggestions, as in the reference.
  const three = [["iterable", anyArg], ["key?", anyArg], ["reverse?", anyArg]] as const;
  assert.equal(
    msg(() => unpackArgs("sorted", [], [["keyy", 1]], ...three)),
    'sorted: unexpected keyword argument "keyy" (did you mean key?)',
  );
  assert.equal(
    msg(() => unpackArgs("sorted", [], [["revers", 1]], ...three)),
    'sorted: unexpected keyword argument "revers"',
  );
});

Deno.test("unpackArgs: '??' treats None as absent, '?' makes the rest optional", () => {
  const specs = [["a", anyArg], ["b??", stringArg], ["c", anyArg]] as const;
  assert.deepEqual(unpackArgs("f", [1, null], [], ...specs), [1, undefined, undefined]);
  assert.deepEqual(unpackArgs("f", [1], [["b", null]], ...specs), [1, undefined, undefined]);
  assert.deepEqual(unpackArgs("f", [1, "x", 3], [], ...specs), [1, "x", 3]);
});

Deno.test("unpackers accept exactly their types", () => {
  assert.equal(msg(() => boolArg(1)), "got int, want bool");
  assert.equal(boolArg(false), false);
  assert.equal(msg(() => stringArg(new Bytes("x"))), "got bytes, want string");
  assert.equal(intArg(5n ** 20n), 95367431640625);
  assert.equal(
    msg(() => intArg(1n << 64n)),
    "18446744073709551616 out of range (want value in signed 64-bit range)",
  );
  assert.equal(msg(() => intArg(new Float(1))), "got float, want int");
  assert.equal(floatArg(new Float(1.5)), 1.5);
  assert.equal(msg(() => floatArg(1)), "got int, want float");
  assert.equal(msg(() => listArg(new Tuple([]))), "got tuple, want list");
  assert.equal(msg(() => dictArg(new List())), "got list, want dict");
  assert.equal(msg(() => callableArg("f")), "got string, want callable");
  assert.equal(msg(() => iterableArg(new Bytes(""))), "got bytes, want iterable");
  assert.equal(asInt32(-2147483648), -2147483648);
  assert.equal(msg(() => asInt32(2147483648)), "2147483648 out of range");
  assert.equal(msg(() => asInt32(1n << 80n)), "1208925819614629174706176 out of range");
});

Deno.test("isIterable and isCallable", () => {
  for (const v of [new List(), new Tuple([]), new Dict(), new StarSet(), new Range(0, 1, 1)]) {
    assert.ok(isIterable(v));
  }
  for (const v of ["abc", new Bytes("a"), 1, null, new Float(1)]) assert.ok(!isIterable(v));
  assert.ok(isCallable(new Builtin("f", () => null)));
  assert.ok(!isCallable(new List()));
});

Deno.test("noKwargs and checkPositional", () => {
  assert.equal(msg(() => noKwargs("chr", [["i", 1]])), "chr does not accept keyword arguments");
  noKwargs("chr", []);
  checkPositional("f", [1], [], 1, 1);
  assert.equal(msg(() => checkPositional("f", [], [], 0, 0)), "no error");
});

Deno.test("sliceIndices clamps and resolves negatives", () => {
  assert.deepEqual(sliceIndices(undefined, undefined, 5), [0, 5]);
  assert.deepEqual(sliceIndices(null, null, 5), [0, 5]);
  assert.deepEqual(sliceIndices(-2, 100, 5), [3, 5]);
  assert.deepEqual(sliceIndices(-100, -1, 5), [0, 4]);
  assert.deepEqual(sliceIndices(4, 2, 5), [4, 2]);
  assert.equal(msg(() => sliceIndices("a", null, 5)), "invalid start index: got string, want int");
  assert.equal(msg(() => sliceIndices(0, 1n << 40n, 5)), "invalid end index: 1099511627776 out of range");
});
