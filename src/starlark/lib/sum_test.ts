import assert from "node:assert/strict";
import {
  Bytes,
  Dict,
  EvalError,
  Float,
  type Kwargs,
  List,
  Range,
  repr,
  ResourceError,
  StarSet,
  Thread,
  toJSString,
  Tuple,
  type Value,
} from "../values/mod.ts";
import { sum } from "./sum.ts";

const call = (args: Value[], kwargs: Kwargs = [], thread = new Thread()): Value =>
  sum.fn(thread, args, kwargs, sum);
const show = (v: Value): string => toJSString(repr(v));
const L = (...xs: Value[]): List => new List(xs);
const f = (x: number): Float => new Float(x);

function throwsEval(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => e instanceof EvalError && e.message === message);
}

Deno.test("sum: ints, floats and mixing", () => {
  const cases: [Value[], Kwargs, string][] = [
    [[L(1, 2, 3)], [], "6"],
    [[L()], [], "0"],
    [[L(1, f(2.5))], [], "3.5"],
    [[L(f(1.5), f(2.5))], [], "4.0"],
    [[L(), 10], [], "10"],
    [[L(1)], [["start", 10]], "11"],
    [[L(1, 2), f(0.5)], [], "3.5"],
    [[L(2 ** 62, 2 ** 62)], [], "9223372036854775808"],
    [[L(9007199254740991, 1)], [], "9007199254740992"],
    [[L(-(2n ** 70n), 2n ** 70n)], [], "0"],
    [[new Range(0, 101, 1)], [], "5050"],
    [[L(...Array.from({ length: 10 }, () => f(0.1)))], [], "0.9999999999999999"], // plain left-to-right
    [[new Tuple([1, 2])], [], "3"],
    [[L(L(1), L(2)), L()], [], "[1, 2]"],
    [[L(new Tuple([1]), new Tuple([2])), new Tuple([])], [], "(1, 2)"],
  ];
  for (const [args, kwargs, want] of cases) assert.equal(show(call(args, kwargs)), want, want);
  const d = new Dict();
  d.setUnchecked(1, "a");
  d.setUnchecked(2, "b");
  assert.equal(call([d]), 3); // iterates the keys
  const s = new StarSet();
  s.addUnchecked(1);
  s.addUnchecked(2);
  assert.equal(call([s]), 3);
  assert.equal(typeof call([L(1, 2)]), "number");
  assert.ok(call([L(f(1))]) instanceof Float);
  assert.equal(typeof call([L(2 ** 62, 2 ** 62)]), "bigint");
});

Deno.test("sum: errors", () => {
  throwsEval(() => call([L("a", "b"), ""]), 'sum: can\'t sum strings [use "".join(seq) instead]');
  throwsEval(() => call([L()], [["start", "x"]]), 'sum: can\'t sum strings [use "".join(seq) instead]');
  throwsEval(
    () => call([L(new Bytes("a")), new Bytes("")]),
    'sum: can\'t sum bytes [use b"".join(seq) instead]',
  );
  throwsEval(() => call([L("a")]), "sum: unknown binary op: int + string");
  throwsEval(() => call([L(1, null)]), "sum: unknown binary op: int + NoneType");
  throwsEval(() => call([L(true)]), "sum: unknown binary op: int + bool");
  throwsEval(() => call([L(1)], [["start", null]]), "sum: unknown binary op: NoneType + int");
  throwsEval(() => call([1]), "sum: for parameter iterable: got int, want iterable");
  throwsEval(() => call(["abc"]), "sum: for parameter iterable: got string, want iterable");
  throwsEval(() => call([], [["iterable", L(1)]]), "sum: unexpected keyword argument iterable");
  throwsEval(() => call([]), "sum: missing argument for iterable");
  throwsEval(() => call([L(1), 2, 3]), "sum: got 3 arguments, want at most 2");
  throwsEval(() => call([L(1)], [["foo", 2]]), 'sum: unexpected keyword argument "foo"');
});

Deno.test("sum: charges a step per element and releases the iteration lock", () => {
  const big = new List(Array.from({ length: 5000 }, (_, i) => i));
  assert.throws(() => call([big], [], new Thread({ maxSteps: 1000 })), ResourceError);
  assert.equal(big.itercount, 0);
  assert.throws(() => call([L(1, "x")]), EvalError);
  const l = L(1, "x");
  try {
    call([l]);
  } catch { /* expected */ }
  assert.equal(l.itercount, 0);
});
