import assert from "node:assert/strict";
import {
  type Builtin,
  Bytes,
  call,
  Dict,
  Float,
  List,
  Range,
  repr,
  ResourceError,
  StarSet,
  Thread,
  Tuple,
  type Value,
} from "../values/mod.ts";
import { fn, registerCases, src } from "./harness_test.ts";
import type { Case } from "./harness_test.ts";
import { UNIVERSE } from "./mod.ts";
import { minmaxGen } from "./collections.ts";

const L = (...xs: Value[]): List => new List(xs);
const T = (...xs: Value[]): Tuple => new Tuple(xs);
const dictOf = (...kvs: [Value, Value][]): Dict => {
  const d = new Dict();
  for (const [k, v] of kvs) d.setUnchecked(k, v);
  return d;
};
const setSrc = (source: string, ...xs: Value[]) =>
  src(source, () => {
    const s = new StarSet();
    for (const x of xs) s.addUnchecked(x);
    return s;
  });
const rangeSrc = (source: string, a: number, b: number, c = 1) => src(source, () => new Range(a, b, c));
const builtin = (name: string) => src(name, () => UNIVERSE.get(name)!);

const CASES: Case[] = [
  fn("bytes", ["é"], 'b"é"'),
  fn("bytes", [L(65, 66)], 'b"AB"'),
  fn("bytes", [new Bytes("x")], 'b"x"'),
  fn("bytes", [rangeSrc("range(3)", 0, 3)], 'b"\\x00\\x01\\x02"'),
  fn("bytes", [1], "ERR: bytes: got int, want string, bytes, or iterable of ints"),
  fn("bytes", [L(256)], "ERR: bytes: at index 0, 256 out of range (want value in unsigned 8-bit range)"),
  fn("bytes", [L(1, -1)], "ERR: bytes: at index 1, -1 out of range (want value in unsigned 8-bit range)"),
  fn("bytes", [L(1, "a")], "ERR: bytes: at index 1, got string, want int"),
  fn("bytes", [], "ERR: bytes: got 0 arguments, want exactly 1"),
  fn("bytes", [], "ERR: bytes does not accept keyword arguments", { x: 1 }),
  fn("dict", [], "{}"),
  fn("dict", [L(T(1, 2), L("a", "b"))], '{1: 2, "a": "b"}'),
  fn("dict", [L(L(1, 2))], '{1: 2, "a": 1}', { a: 1 }),
  fn("dict", [dictOf([1, 2])], '{1: 2, "a": 1}', { a: 1 }),
  fn("dict", [], '{"b": 1, "a": 2}', { b: 1, a: 2 }),
  fn("dict", [L(T(1, 2), T(1, 3))], "{1: 3}"),
  fn("dict", [1], "ERR: dict: got int, want iterable"),
  fn("dict", ["ab"], "ERR: dict: got string, want iterable"),
  fn("dict", [L(1)], "ERR: dict: dictionary update sequence element #0 is not iterable (int)"),
  fn("dict", [L(T(1, 2), "ab")], "ERR: dict: dictionary update sequence element #1 is not iterable (string)"),
  fn("dict", [L(T(1, 2, 3))], "ERR: dict: dictionary update sequence element #0 has length 3, want 2"),
  fn("dict", [L(T(L(), 1))], "ERR: dict: unhashable type: list"),
  fn("dict", [1, 2], "ERR: dict: got 2 arguments, want at most 1"),
  fn("enumerate", [L("a", "b")], '[(0, "a"), (1, "b")]'),
  fn("enumerate", [L("a", "b"), 10], '[(10, "a"), (11, "b")]'),
  fn("enumerate", [L("a"), -5], '[(-5, "a")]'),
  fn("enumerate", [dictOf([1, 2], [3, 4])], "[(0, 1), (1, 3)]"),
  fn("enumerate", [1], "ERR: enumerate: for parameter 1: got int, want iterable"),
  fn("enumerate", [L(), "x"], "ERR: enumerate: for parameter 2: got string, want int"),
  fn(
    "enumerate",
    [L(), src("1 << 70", () => 1n << 70n)],
    "ERR: enumerate: for parameter 2: 1180591620717411303424 out of range (want value in signed 64-bit range)",
  ),
  fn("enumerate", [L()], "ERR: enumerate: unexpected keyword arguments", { start: 1 }),
  fn("list", [], "[]"),
  fn("list", [T(1, 2)], "[1, 2]"),
  fn("list", [rangeSrc("range(0, 10, 3)", 0, 10, 3)], "[0, 3, 6, 9]"),
  fn("list", [rangeSrc("range(5, 0, -2)", 5, 0, -2)], "[5, 3, 1]"),
  fn("list", [dictOf(["a", 1], ["b", 2])], '["a", "b"]'),
  fn("list", [setSrc("set([3, 1])", 3, 1)], "[3, 1]"),
  fn("list", ["ab"], "ERR: list: for parameter 1: got string, want iterable"),
  fn("list", [1, 2], "ERR: list: got 2 arguments, want at most 1"),
  fn("max", [1, 3, 2], "3"),
  fn("max", [L(1, 3, 2)], "3"),
  fn("max", [L("b", "abc")], '"b"'),
  fn("max", [src('[1, float("nan"), 3]', () => L(1, new Float(NaN), 3))], "nan"),
  fn("max", [L(1.5 as number, 2, new Float(2))], "2"),
  fn("max", [L(new Float(2), 2)], "2.0"),
  fn("min", [src('[float("nan"), 1]', () => L(new Float(NaN), 1))], "1"),
  fn("min", [4, 2, 2], "2"),
  fn("max", [L()], "ERR: max: argument is an empty sequence"),
  fn("min", [T()], "ERR: min: argument is an empty sequence"),
  fn("max", [1], "ERR: max: int value is not iterable"),
  fn("max", ["abc"], "ERR: max: string value is not iterable"),
  fn("max", [], "ERR: max requires at least one positional argument"),
  fn("min", [1, "a"], "ERR: min: string < int not implemented"),
  fn("max", [L(1, 2)], 'ERR: max: for parameter "key": got int, want callable', { key: 3 }),
  fn("max", [1, 2], 'ERR: max: for parameter "key": got NoneType, want callable', { key: null }),
  fn("min", [1, 2], 'ERR: min: unexpected keyword argument "default"', { default: 3 }),
  fn("range", [5], "range(5)"),
  fn("range", [1, 5], "range(1, 5)"),
  fn("range", [1, 5, 2], "range(1, 5, 2)"),
  fn("range", [0, 5, 1], "range(5)"),
  fn("range", [src("1 << 40", () => 2 ** 40)], "range(1099511627776)"),
  fn("range", [0, 10, 0], "ERR: range: step argument must not be zero"),
  fn("range", ["a"], "ERR: range: for parameter 1: got string, want int"),
  fn("range", [1, null], "ERR: range: for parameter 2: got NoneType, want int"),
  fn("range", [], "ERR: range: got 0 arguments, want at least 1"),
  fn("range", [1, 2, 3, 4], "ERR: range: got 4 arguments, want at most 3"),
  fn("range", [1], "ERR: range: unexpected keyword arguments", { step: 1 }),
  fn("reversed", [L(1, 2, 3)], "[3, 2, 1]"),
  fn("reversed", [rangeSrc("range(3)", 0, 3)], "[2, 1, 0]"),
  fn("reversed", [dictOf([1, 1], [2, 2])], "[2, 1]"),
  fn("reversed", ["abc"], "ERR: reversed: for parameter 1: got string, want iterable"),
  fn("set", [], "set([])"),
  fn("set", [L(3, 1, 3)], "set([3, 1])"),
  fn("set", [dictOf(["a", 1])], 'set(["a"])'),
  fn("set", [1], "ERR: set: for parameter 1: got int, want iterable"),
  fn("set", [L(L())], "ERR: set: unhashable type: list"),
  fn("set", [L(1)], "ERR: set: unexpected keyword arguments", { x: 1 }),
  fn("sorted", [L(3, 1, 2)], "[1, 2, 3]"),
  fn("sorted", [L(3, 1, 2)], "[3, 2, 1]", { reverse: true }),
  fn("sorted", [L("b", "a", "B")], '["B", "a", "b"]'),
  fn(
    "sorted",
    [src(
      '[2.0, float("nan"), 1, float("-inf")]',
      () => L(new Float(2), new Float(NaN), 1, new Float(-Infinity)),
    )],
    "[-inf, 1, 2.0, nan]",
  ),
  fn("sorted", [L(T(1, "b"), T(1, "a"), T(0, "z"))], '[(0, "z"), (1, "a"), (1, "b")]'),
  fn("sorted", [dictOf([2, 0], [1, 0])], "[1, 2]"),
  fn("sorted", ["abc"], "ERR: sorted: for parameter iterable: got string, want iterable"),
  fn("sorted", [L(3, 1, 2)], 'ERR: sorted: for parameter "reverse": got int, want bool', { reverse: 1 }),
  fn("sorted", [L(3, 1, 2), null, true], "ERR: sorted: for parameter key: got NoneType, want callable"),
  fn("sorted", [L(1, "a")], "ERR: string < int not implemented"),
  fn("sorted", [L(dictOf(), dictOf())], "ERR: dict < dict not implemented"),
  // The reference reports the last failing comparison of Go's stable sort.
  fn("sorted", [L(1, 2, null, 3)], "ERR: int < NoneType not implemented"),
  fn("sorted", [L(1, 2, null, 3)], "ERR: NoneType < int not implemented", { reverse: true }),
  fn("sorted", [
    src("[1] * 30 + ['x'] + [2] * 30", () => new List([...Array(30).fill(1), "x", ...Array(30).fill(2)])),
  ], "ERR: int < string not implemented"),
  fn(
    "sorted",
    [src(
      '["a", 1, None, 2.0, (), 3, [], "b"] * 5',
      () => new List(Array.from({ length: 5 }, () => ["a", 1, null, new Float(2), T(), 3, L(), "b"]).flat()),
    )],
    "ERR: tuple < float not implemented",
  ),
  fn("sorted", [L(3, "b", 1, "a")], "ERR: int < string not implemented", { reverse: true }),
  fn("sorted", [L(2, 1, 3)], "[3, 2, 1]", { reverse: true }),
  fn("sorted", [L("b", "c", "a")], '["c", "b", "a"]', { reverse: true }),
  fn("sorted", [L(2, new Float(1.5), 1)], "[1, 1.5, 2]"),
  fn(
    "sorted",
    [src("[1 << 60, 1, -(1 << 70)]", () => L(1n << 60n, 1, -(1n << 70n)))],
    "[-1180591620717411303424, 1, 1152921504606846976]",
  ),
  fn("sorted", [L()], 'ERR: sorted: unexpected keyword argument "revers"', { revers: true }),
  fn("sorted", [], "ERR: sorted: missing argument for iterable"),
  fn("tuple", [], "()"),
  fn("tuple", [L(1)], "(1,)"),
  fn("tuple", [T(1, 2)], "(1, 2)"),
  fn("tuple", [rangeSrc("range(2)", 0, 2)], "(0, 1)"),
  fn("tuple", [1, 2], "ERR: tuple: got 2 arguments, want at most 1"),
  fn("tuple", [1], "ERR: tuple: for parameter 1: got int, want iterable"),
  fn("zip", [], "[]"),
  fn("zip", [L(1, 2, 3), "ab"], "ERR: zip: argument #2 is not iterable: string"),
  fn("zip", [L(1, 2, 3), T("a", "b")], '[(1, "a"), (2, "b")]'),
  fn("zip", [L(1, 2)], "[(1,), (2,)]"),
  fn("zip", [L(1), L(2), L(3)], "[(1, 2, 3)]"),
  fn("zip", [setSrc("set([1, 2])", 1, 2), dictOf(["k", 0])], '[(1, "k")]'),
  fn("zip", [L()], "ERR: zip does not accept keyword arguments", { x: 1 }),
];

registerCases("collection builtins", CASES);

const callWorks = (() => {
  try {
    const len = UNIVERSE.get("len")!;
    return call(new Thread(), len, ["ab"], []) === 2;
  } catch {
    return false;
  }
})();

registerCases(
  "key functions",
  [
    fn("sorted", [L("bbb", "a", "cc")], '["a", "cc", "bbb"]', { key: builtin("len") }),
    fn("sorted", [L("bb", "a", "cc", "d")], '["a", "d", "bb", "cc"]', { key: builtin("len") }),
    fn("sorted", [L("bb", "a", "cc", "d")], '["bb", "cc", "a", "d"]', { key: builtin("len"), reverse: true }),
    fn("max", [L("bb", "a", "cc")], '"bb"', { key: builtin("len") }),
    fn("min", ["bb", "a", "c"], '"a"', { key: builtin("len") }),
    fn("max", [L(1, 2)], "ERR: len: value of type int has no len", { key: builtin("len") }),
  ].filter(() => callWorks),
);

Deno.test("list(range(10**18)) fails fast on the memory budget", () => {
  const th = new Thread({ maxMemory: 1 << 20 });
  const list = UNIVERSE.get("list") as Builtin;
  const range = UNIVERSE.get("range") as Builtin;
  const r = range.fn(th, [1e18], [], range);
  assert.throws(() => list.fn(th, [r], [], list), ResourceError);
});

Deno.test("sorted charges n log n steps", () => {
  const th = new Thread();
  const sorted = UNIVERSE.get("sorted") as Builtin;
  const elems = Array.from({ length: 1024 }, (_, i) => (i * 7919) % 1024);
  const res = sorted.fn(th, [new List(elems)], [], sorted) as List;
  assert.deepEqual(res.elems, Array.from({ length: 1024 }, (_, i) => i));
  assert.ok(th.steps >= 1024 * 10, `steps ${th.steps}`);
});

Deno.test("collecting from a list during iteration leaves it mutable afterwards", () => {
  const th = new Thread();
  const l = new List([1, 2]);
  const tuple = UNIVERSE.get("tuple") as Builtin;
  const any = UNIVERSE.get("any") as Builtin;
  tuple.fn(th, [l], [], tuple);
  any.fn(th, [l], [], any);
  assert.equal(l.itercount, 0);
  const d = new Dict();
  d.setUnchecked(1, 1);
  const all = UNIVERSE.get("all") as Builtin;
  all.fn(th, [d], [], all);
  assert.equal(d.itercount, 0);
});

Deno.test("max and min without a key agree with the generator path on generated values, errors and steps", () => {
  const max = UNIVERSE.get("max") as Builtin, min = UNIVERSE.get("min") as Builtin;
  let seed = 99;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return (seed >> 8) % n;
  };
  // Mostly ints (the inline path), with floats, strings and lists mixed in for the generic comparison
  // and its errors (int vs string), and NaN for the unordered case.
  const value = (): Value => {
    const k = next(20);
    if (k < 14) return next(41) - 20;
    if (k < 16) return new Float(next(9) / 2);
    if (k === 16) return new Float(NaN);
    if (k === 17) return "abc".slice(next(3));
    if (k === 18) return L(next(3), next(3));
    return next(2) === 0 ? T(1) : 2n ** 60n;
  };
  const outcome = (f: () => Value): string => {
    try {
      return repr(f());
    } catch (e) {
      return `ERR: ${(e as Error).message}`;
    }
  };
  for (let n = 0; n < 2000; n++) {
    const b = next(2) === 0 ? max : min;
    const elems = Array.from({ length: next(6) }, value);
    const args: Value[] = next(3) === 0 ? [next(2) === 0 ? L(...elems) : T(...elems)] : elems;
    const plain = new Thread(), viaGen = new Thread();
    const got = outcome(() => b.fn(plain, args, [], b));
    const want = outcome(() => {
      const r = minmaxGen(viaGen, args, [], b).next();
      assert.ok(r.done, "no key, so nothing to call back");
      return r.value;
    });
    assert.equal(got, want, `${b.name}(${args.map((a) => repr(a)).join(", ")})`);
    assert.equal(plain.steps, viaGen.steps, `steps of ${b.name}(${args.map((a) => repr(a)).join(", ")})`);
  }
});
