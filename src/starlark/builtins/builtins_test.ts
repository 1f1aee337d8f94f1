import assert from "node:assert/strict";
import { Bytes, Dict, Float, List, ResourceError, StarSet, Thread, Tuple } from "../values/value.ts";
import type { Builtin, Value } from "../values/value.ts";
import { fn, registerCases, src } from "./harness_test.ts";
import type { Case } from "./harness_test.ts";
import { UNIVERSE } from "./mod.ts";

const f = (x: number): Float => new Float(x);
const dictOf = (...kvs: [Value, Value][]): Dict => {
  const d = new Dict();
  for (const [k, v] of kvs) d.setUnchecked(k, v);
  return d;
};
const L = (...xs: Value[]): List => new List(xs);
const T = (...xs: Value[]): Tuple => new Tuple(xs);
const big = (source: string, v: bigint) => src(source, () => v);

const CORE: Case[] = [
  fn("abs", [-5], "5"),
  fn("abs", [f(-5.5)], "5.5"),
  fn("abs", [big("-(1 << 70)", -(2n ** 70n))], "1180591620717411303424"),
  fn("abs", [true], "ERR: got bool, want int or float"),
  fn("abs", [], "ERR: abs: got 0 arguments, want 1"),
  fn("all", [L()], "True"),
  fn("all", [L(1, 0)], "False"),
  fn("all", [1], "ERR: all: for parameter 1: got int, want iterable"),
  fn("all", ["ab"], "ERR: all: for parameter 1: got string, want iterable"),
  fn("any", [L(0, null, "")], "False"),
  fn("any", [T(0, 2)], "True"),
  fn("any", [1], "ERR: any: for parameter 1: got int, want iterable"),
  fn("any", [L()], "ERR: any: unexpected keyword arguments", { x: 1 }),
  fn("bool", [], "False"),
  fn("bool", [L()], "False"),
  fn("bool", ["x"], "True"),
  fn("bool", [f(0)], "False"),
  fn("bool", [1, 2], "ERR: bool: got 2 arguments, want at most 1"),
  fn("chr", [65], '"A"'),
  fn("chr", [0x1f600], '"😀"'),
  fn("chr", [0xd800], '"�"'),
  fn("chr", [-1], "ERR: chr: Unicode code point -1 out of range (<0)"),
  fn("chr", [0x110000], "ERR: chr: Unicode code point U+110000 out of range (>0x10FFFF)"),
  fn("chr", ["a"], "ERR: chr: got string, want int"),
  fn("chr", [big("1 << 40", 2n ** 40n)], "ERR: chr: 1099511627776 out of range"),
  fn("chr", [1, 2], "ERR: chr: got 2 arguments, want 1"),
  fn("chr", [], "ERR: chr does not accept keyword arguments", { i: 1 }),
  fn(
    "dir",
    [""],
    '["capitalize", "codepoint_ords", "codepoints", "count", "elem_ords", "elems", "endswith", ' +
      '"find", "format", "index", "isalnum", "isalpha", "isdigit", "islower", "isspace", "istitle", "isupper", ' +
      '"join", "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex", ' +
      '"rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "title", "upper"]',
  ),
  fn("dir", [new Bytes("")], '["elems"]'),
  fn("dir", [L()], '["append", "clear", "extend", "index", "insert", "pop", "remove"]'),
  fn(
    "dir",
    [new Dict()],
    '["clear", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values"]',
  ),
  fn(
    "dir",
    [src("set()", () => new StarSet())],
    '["add", "clear", "difference", "discard", "intersection", "issubset", "issuperset", "pop", "remove", ' +
      '"symmetric_difference", "union", "update"]',
  ),
  fn("dir", [1], "[]"),
  fn("dir", [T()], "[]"),
  fn("dir", [1, 2], "ERR: dir: got 2 arguments, want 1"),
  fn("fail", [], "ERR: fail: "),
  fn("fail", [1, "a", null], "ERR: fail: 1-a-None", { sep: "-" }),
  fn("fail", ["x", L("y")], 'ERR: fail: x ["y"]'),
  fn("fail", ["x"], 'ERR: fail: for parameter "sep": got int, want string', { sep: 1 }),
  fn("fail", ["x"], 'ERR: fail: unexpected keyword argument "sap" (did you mean sep?)', { sap: "" }),
  fn("getattr", ["a", "x", 5], "5"),
  fn("getattr", ["a", "x"], "ERR: getattr: string has no .x field or method"),
  fn("getattr", [1, 2], "ERR: getattr: for parameter 2: got int, want string"),
  fn("getattr", [1], "ERR: getattr: got 1 arguments, want at least 2"),
  fn("getattr", [1, "a", 2, 3], "ERR: getattr: got 4 arguments, want at most 3"),
  fn("hasattr", ["a", "upper"], "True"),
  fn("hasattr", ["a", "nope"], "False"),
  fn("hasattr", [1, "x"], "False"),
  fn("hasattr", [L(), "append"], "True"),
  fn("hash", ["a"], "97"),
  fn("hash", [""], "0"),
  fn("hash", ["hello world"], "1794106052"),
  fn("hash", ["日本"], "835047"),
  fn("hash", ["😀"], "128512"),
  fn("hash", ["abcdefghijklmnopqrstuvwxyz"], "958031277"),
  fn("hash", [new Bytes("abc")], "440920331"),
  fn("hash", [1], "ERR: hash: got int, want string or bytes"),
  fn("hash", [L()], "ERR: hash: got list, want string or bytes"),
  fn("len", ["abc"], "3"),
  fn("len", ["日本"], "6"),
  fn("len", [L(1, 2)], "2"),
  fn("len", [dictOf([1, 2])], "1"),
  fn("len", [new Bytes("ab")], "2"),
  fn("len", [1], "ERR: len: value of type int has no len"),
  fn("len", [], "ERR: len: got 0 arguments, want 1"),
  fn("len", [1, 2], "ERR: len: got 2 arguments, want 1"),
  fn("len", [], "ERR: len: unexpected keyword arguments", { x: 1 }),
  fn("ord", ["A"], "65"),
  fn("ord", ["€"], "8364"),
  fn("ord", ["ab"], "ERR: ord: string encodes 2 Unicode code points, want 1"),
  fn("ord", [""], "ERR: ord: string encodes 0 Unicode code points, want 1"),
  fn("ord", [new Bytes("a")], "97"),
  fn("ord", [new Bytes("ab")], "ERR: ord: bytes has length 2, want 1"),
  fn("ord", [1], "ERR: ord: got int, want string or bytes"),
  fn("ord", [], "ERR: ord does not accept keyword arguments", { c: "a" }),
  fn("print", [1], 'ERR: print: for parameter "sep": got NoneType, want string', { sep: null }),
  fn("print", [1], 'ERR: print: unexpected keyword argument "sepp" (did you mean sep?)', { sepp: "" }),
  fn("repr", ["a"], '"\\"a\\""'),
  fn("repr", [L(1, "x")], '"[1, \\"x\\"]"'),
  fn("repr", [], "ERR: repr: got 0 arguments, want 1"),
  fn("str", ["a"], '"a"'),
  fn("str", [1], '"1"'),
  fn("str", [L("a")], '"[\\"a\\"]"'),
  fn("str", [new Bytes("abc")], '"abc"'),
  fn("str", [src('b"\\xff"', () => new Bytes("\xff"))], '"�"'),
  fn("str", [], "ERR: str: got 0 arguments, want exactly 1"),
  fn("str", [1, 2], "ERR: str: got 2 arguments, want exactly 1"),
  fn("str", [], "ERR: str does not accept keyword arguments", { x: 1 }),
  fn("type", [1], '"int"'),
  fn("type", [null], '"NoneType"'),
  fn("type", [f(1)], '"float"'),
  fn("type", [T()], '"tuple"'),
  fn("type", [src("len", () => UNIVERSE.get("len")!)], '"builtin_function_or_method"'),
  fn("type", [1, 2], "ERR: type: got 2 arguments, want exactly 1"),
];

const NUMBERS: Case[] = [
  fn("int", [], "ERR: int: missing argument for x"),
  fn("int", ["0x10", 16], "16"),
  fn("int", ["0x10", 0], "16"),
  fn("int", ["0x10"], "ERR: int: invalid literal with base 10: 0x10"),
  fn("int", ["0b1", 16], "177"),
  fn("int", ["0o17", 0], "15"),
  fn("int", ["017", 0], "ERR: int: invalid literal with base 0: 017"),
  fn("int", ["000", 0], "0"),
  fn("int", ["-0x10", 0], "-16"),
  fn("int", ["+42"], "42"),
  fn("int", ["-0"], "0"),
  fn("int", ["- 1"], "ERR: int: invalid literal with base 10: - 1"),
  fn("int", [""], "ERR: int: invalid literal with base 10: "),
  fn("int", ["+-1"], "ERR: int: invalid literal with base 10: +-1"),
  fn("int", [" 1"], "ERR: int: invalid literal with base 10:  1"),
  fn("int", ["1_0"], "ERR: int: invalid literal with base 10: 1_0"),
  fn("int", ["0x_10", 0], "ERR: int: invalid literal with base 0: 0x_10"),
  fn("int", ["z", 36], "35"),
  fn("int", ["Zz", 36], "1295"),
  fn("int", ["123456789abcdefghij", 36], "10912240439872435973745996715"),
  fn("int", ["777", 8], "511"),
  fn("int", ["8", 8], "ERR: int: invalid literal with base 8: 8"),
  fn("int", ["99999999999999999999999"], "99999999999999999999999"),
  fn("int", ["-9007199254740993"], "-9007199254740993"),
  fn("int", ["1", 37], "ERR: int: base must be an integer >= 2 && <= 36"),
  fn("int", ["1", 1], "ERR: int: base must be an integer >= 2 && <= 36"),
  fn("int", ["1"], "ERR: int: for base, got string, want int", { base: "x" }),
  fn("int", [f(1.9)], "1"),
  fn("int", [f(-1.9)], "-1"),
  fn("int", [f(1e30)], "1000000000000000019884624838656"),
  fn("int", [src('float("nan")', () => f(NaN))], "ERR: int: cannot convert float NaN to integer"),
  fn("int", [src('float("inf")', () => f(Infinity))], "ERR: int: cannot convert float infinity to integer"),
  fn("int", [L()], "ERR: int: cannot convert list to int"),
  fn("int", [1, 10], "ERR: int: can't convert non-string with explicit base"),
  fn("int", [true], "1"),
  fn("int", [], "5", { x: "5" }),
  fn("int", [], "ERR: int: missing argument for x", { base: 10 }),
  fn("int", ["1"], 'ERR: int: unexpected keyword argument "bas"', { bas: 2 }),
  fn("int", ["1"], 'ERR: int: got multiple values for keyword argument "x"', { x: 2 }),
  fn("int", ["1", 2, 3], "ERR: int: got 3 arguments, want at most 2"),
  fn("float", [], "0.0"),
  fn("float", [3], "3.0"),
  fn("float", [true], "1.0"),
  fn("float", [f(2.5)], "2.5"),
  fn("float", [big("1 << 64", 2n ** 64n)], "1.8446744073709552e+19"),
  fn(
    "float",
    [big("(1 << 500) * (1 << 500) * (1 << 100)", 2n ** 1100n)],
    "ERR: int too large to convert to float",
  ),
  fn("float", ["1_000"], "1000.0"),
  fn("float", ["0x1p3"], "8.0"),
  fn("float", ["0x1.8p1"], "3.0"),
  fn("float", ["0x.8p1"], "1.0"),
  fn("float", ["0X1P-2"], "0.25"),
  fn("float", ["0x_1_0p0"], "16.0"),
  fn("float", ["0x1p-1074"], "5e-324"),
  fn("float", ["0x1p-1080"], "0.0"),
  fn("float", ["0x1.fffffffffffff8p1023"], "ERR: floating-point number too large"),
  fn("float", ["0x1.fffffffffffff7p1023"], "1.7976931348623157e+308"),
  fn("float", ["0x1.00000000000008p0"], "1.0"),
  fn("float", ["0x1.00000000000018p0"], "1.0000000000000004"),
  fn("float", ["0x1p"], "ERR: invalid float literal: 0x1p"),
  fn("float", ["0x1.0"], "ERR: invalid float literal: 0x1.0"),
  fn("float", ["0x10"], "ERR: invalid float literal: 0x10"),
  fn("float", ["1e400"], "ERR: floating-point number too large"),
  fn("float", ["-1e400"], "ERR: floating-point number too large"),
  fn("float", ["1e-400"], "0.0"),
  fn("float", ["1e1_0"], "1e+10"),
  fn("float", ["1__0"], "ERR: invalid float literal: 1__0"),
  fn("float", ["_1"], "ERR: invalid float literal: _1"),
  fn("float", ["1_"], "ERR: invalid float literal: 1_"),
  fn("float", ["1_.5"], "ERR: invalid float literal: 1_.5"),
  fn("float", ["1._5"], "ERR: invalid float literal: 1._5"),
  fn("float", ["1."], "1.0"),
  fn("float", [".5"], "0.5"),
  fn("float", ["+.5"], "0.5"),
  fn("float", ["-.5e-3"], "-0.0005"),
  fn("float", ["01.5"], "1.5"),
  fn("float", ["1E5"], "100000.0"),
  fn("float", ["1e"], "ERR: invalid float literal: 1e"),
  fn("float", ["."], "ERR: invalid float literal: ."),
  fn("float", [" 1"], "ERR: invalid float literal:  1"),
  fn("float", ["abc"], "ERR: invalid float literal: abc"),
  fn("float", [""], "ERR: float: empty string"),
  fn("float", ["-Inf"], "-inf"),
  fn("float", ["infinity"], "+inf"),
  fn("float", ["+INFINITY"], "+inf"),
  fn("float", ["+nan"], "nan"),
  fn("float", ["nan "], "ERR: invalid float literal: nan "),
  fn("float", ["0b1"], "ERR: invalid float literal: 0b1"),
  fn("float", [1, 2], "ERR: float got 2 arguments, wants 1"),
  fn("float", [], "ERR: float does not accept keyword arguments", { x: 1 }),
  fn("float", [null], "ERR: float got NoneType, want number or string"),
];

registerCases("core builtins", CORE);
registerCases("int and float", NUMBERS);

Deno.test("print joins with sep and hands the UTF-8 binary string to the print hook", () => {
  const out: string[] = [];
  const th = new Thread({ print: (_t, msg) => out.push(msg) });
  const p = UNIVERSE.get("print") as Builtin;
  p.fn(th, ["a", 1, L("x"), new Bytes("b"), "\xc3\xa9"], [], p);
  p.fn(th, ["a", "b"], [["sep", ", "]], p);
  p.fn(th, [], [], p);
  assert.deepEqual(out, ['a 1 ["x"] b \xc3\xa9', "a, b", ""]);
});

Deno.test("the universe has every reference name, and set", () => {
  const names = [...UNIVERSE.keys()].sort();
  assert.deepEqual(names, [
    "False",
    "None",
    "True",
    "abs",
    "all",
    "any",
    "bool",
    "bytes",
    "chr",
    "dict",
    "dir",
    "enumerate",
    "fail",
    "float",
    "getattr",
    "hasattr",
    "hash",
    "int",
    "len",
    "list",
    "max",
    "min",
    "ord",
    "print",
    "range",
    "repr",
    "reversed",
    "set",
    "sorted",
    "str",
    "tuple",
    "type",
    "zip",
  ]);
  assert.equal(UNIVERSE.get("None"), null);
  assert.equal(UNIVERSE.get("True"), true);
});

Deno.test("step budget stops hash of a huge string", () => {
  const th = new Thread({ maxSteps: 100 });
  const h = UNIVERSE.get("hash") as Builtin;
  assert.throws(() => h.fn(th, ["x".repeat(100000)], [], h), ResourceError);
});
