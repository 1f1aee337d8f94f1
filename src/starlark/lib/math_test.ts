// Unit tests of the math module, calling the built-ins directly. Expected values and messages were
// checked against the reference implementation (starlark-go); gomath_test.ts checks the numerics in bulk.
import assert from "node:assert/strict";
import { attrNames } from "../methods/mod.ts";
import {
  type Builtin,
  EvalError,
  Float,
  type Kwargs,
  Module,
  repr,
  Thread,
  toJSString,
  type Value,
} from "../values/mod.ts";
import { math } from "./math.ts";

const call = (name: string, args: Value[], kwargs: Kwargs = []): Value => {
  const b = math.members.get(name) as Builtin;
  return b.fn(new Thread(), args, kwargs, b);
};
const f = (x: number): Float => new Float(x);
const show = (v: Value): string => toJSString(repr(v));

function throwsEval(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => e instanceof EvalError && e.message === message);
}

Deno.test("math: members and constants are the reference's", () => {
  assert.ok(math instanceof Module);
  assert.equal(math.name, "math");
  assert.deepEqual(attrNames(math), [
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "ceil",
    "copysign",
    "cos",
    "cosh",
    "degrees",
    "e",
    "exp",
    "fabs",
    "floor",
    "gamma",
    "hypot",
    "log",
    "mod",
    "pi",
    "pow",
    "radians",
    "remainder",
    "round",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
  ]);
  assert.equal(show(math.members.get("e")!), "2.718281828459045");
  assert.equal(show(math.members.get("pi")!), "3.141592653589793");
  // Builtin names are the bare function names, as in the reference's "Error in ceil: ...".
  assert.equal((math.members.get("ceil") as Builtin).name, "ceil");
});

Deno.test("math.ceil/floor: int results, ints unchanged, errors without a prefix", () => {
  const cases: [string, Value, string][] = [
    ["ceil", f(1.5), "2"],
    ["ceil", f(-1.5), "-1"],
    ["ceil", f(-0.5), "0"],
    ["ceil", 5, "5"],
    ["ceil", 2n ** 100n, "1267650600228229401496703205376"],
    ["ceil", f(1e30), "1000000000000000019884624838656"],
    ["floor", f(-0.5), "-1"],
    ["floor", f(-0), "0"],
    ["floor", f(2.5), "2"],
    ["floor", f(9007199254740993), "9007199254740992"],
    ["floor", f(-1e19), "-10000000000000000000"],
  ];
  for (const [name, x, want] of cases) assert.equal(show(call(name, [x])), want, `${name}(${show(x)})`);
  assert.equal(typeof call("floor", [f(1.5)]), "number");
  assert.ok(Object.is(call("floor", [f(-0)]), 0), "no negative-zero ints");
  throwsEval(() => call("ceil", [f(NaN)]), "cannot convert float NaN to integer");
  throwsEval(() => call("ceil", [f(Infinity)]), "cannot convert float infinity to integer");
  throwsEval(() => call("floor", [f(-Infinity)]), "cannot convert float infinity to integer");
  throwsEval(() => call("ceil", [true]), "got bool, want float or int");
  throwsEval(() => call("floor", [null]), "got NoneType, want float or int");
  throwsEval(() => call("ceil", ["x"]), "got string, want float or int");
  throwsEval(() => call("ceil", []), "ceil: got 0 arguments, want 1");
  throwsEval(() => call("ceil", [1, 2]), "ceil: got 2 arguments, want 1");
  throwsEval(() => call("floor", [], [["x", 1]]), "floor: unexpected keyword arguments");
});

Deno.test("math: float functions, special values and argument conversion", () => {
  const cases: [string, Value[], string][] = [
    ["round", [f(2.5)], "3.0"],
    ["round", [f(-2.5)], "-3.0"],
    ["round", [f(0.49999999999999994)], "0.0"],
    ["round", [5], "5.0"],
    ["sqrt", [-1], "nan"],
    ["sqrt", [4], "2.0"],
    ["sqrt", [2n ** 1100n], "+inf"], // ints beyond the float range convert to ±inf
    ["sqrt", [2n ** 1023n], "9.480751908109177e+153"],
    ["pow", [2, 10], "1024.0"],
    ["pow", [2, f(0.5)], "1.4142135623730951"],
    ["pow", [-8, f(1 / 3)], "nan"],
    ["pow", [0, -1], "+inf"],
    ["pow", [2, 1024], "+inf"],
    ["pow", [f(NaN), 0], "1.0"],
    ["pow", [f(-8.67999006412964), 29], "-1.648381050555026e+27"], // Go's Pow, not V8's
    ["log", [8, 2], "3.0"],
    ["log", [100, 10], "2.0"],
    ["log", [0], "-inf"],
    ["log", [-1], "nan"],
    ["log", [8, 0], "-0.0"],
    ["log", [8, -2], "nan"],
    ["log", [f(Math.E)], "1.0"],
    ["exp", [1], "2.718281828459045"],
    ["exp", [1000], "+inf"],
    ["exp", [-1000], "0.0"],
    ["exp", [f(-0.27663447753891357)], "0.7583316337026689"], // Go's amd64 Exp, not V8's
    ["acos", [2], "nan"],
    ["asin", [2], "nan"],
    ["atanh", [1], "+inf"],
    ["atanh", [2], "nan"],
    ["acosh", [f(0.5)], "nan"],
    ["gamma", [0], "+inf"],
    ["gamma", [-1], "nan"],
    ["gamma", [f(0.5)], "1.7724538509055159"],
    ["gamma", [5], "24.0"],
    ["gamma", [171], "7.257415615307999e+306"],
    ["gamma", [172], "+inf"],
    ["gamma", [f(-0.5)], "-3.5449077018110318"],
    ["gamma", [f(-170.5)], "-3.3127395215386015e-308"],
    ["gamma", [f(-200.5)], "-0.0"],
    ["degrees", [f(Math.PI)], "180.0"],
    ["radians", [180], "3.141592653589793"],
    ["copysign", [3, f(-0)], "-3.0"],
    ["fabs", [-3], "3.0"],
    ["fabs", [f(-0)], "0.0"],
    ["mod", [7, 3], "1.0"],
    ["mod", [-7, 3], "-1.0"],
    ["mod", [7, 0], "nan"],
    ["remainder", [7, 3], "1.0"],
    ["remainder", [5, 2], "1.0"],
    ["remainder", [7, 0], "nan"],
    ["hypot", [3, 4], "5.0"],
    ["hypot", [f(Infinity), f(NaN)], "+inf"],
    ["atan2", [1, 1], "0.7853981633974483"],
    ["atan2", [0, -1], "3.141592653589793"],
    ["atan2", [f(-0), -1], "-3.141592653589793"],
    ["atan2", [f(Infinity), f(-Infinity)], "2.356194490192345"],
    ["tan", [f(Math.PI / 2)], "1.6331239353195392e+16"],
    ["sin", [f(1e300)], "-0.8178819121159087"],
    ["cos", [f(1e22)], "0.5232147853951389"],
    ["tan", [f(1e10)], "-0.5583496378112419"],
    ["cos", [f(-0.25394327790673477)], "0.9679293086590328"], // Go's Cos, not V8's
    ["sinh", [1], "1.1752011936438014"],
    ["cosh", [1], "1.5430806348152437"],
    ["tanh", [f(0.3)], "0.2913126124515909"],
    ["tanh", [100], "1.0"],
    ["asinh", [1], "0.881373587019543"],
    ["acosh", [2], "1.3169578969248166"],
  ];
  for (const [name, args, want] of cases) {
    const got = call(name, args);
    assert.ok(got instanceof Float, name);
    assert.equal(show(got), want, `${name}(${args.map(show).join(", ")})`);
  }
});

Deno.test("math: argument errors", () => {
  throwsEval(() => call("round", ["x"]), "round: for parameter 1: got string, want float or int");
  throwsEval(() => call("sqrt", [true]), "sqrt: for parameter 1: got bool, want float or int");
  throwsEval(() => call("sqrt", [1, 2]), "sqrt: got 2 arguments, want 1");
  throwsEval(() => call("sqrt", []), "sqrt: got 0 arguments, want 1");
  throwsEval(() => call("sqrt", [], [["x", 4]]), "sqrt: unexpected keyword arguments");
  throwsEval(() => call("pow", [1, "x"]), "pow: for parameter 2: got string, want float or int");
  throwsEval(() => call("pow", ["x", 1]), "pow: for parameter 1: got string, want float or int");
  throwsEval(() => call("pow", [2]), "pow: got 1 arguments, want 2");
  throwsEval(() => call("pow", [2, 3, 4]), "pow: got 3 arguments, want 2");
  throwsEval(() => call("log", [1, 1]), "division by zero");
  throwsEval(() => call("log", [2, f(1)]), "division by zero");
  throwsEval(() => call("log", []), "log: got 0 arguments, want at least 1");
  throwsEval(() => call("log", [1, 2, 3]), "log: got 3 arguments, want at most 2");
  throwsEval(() => call("log", ["x"]), "log: for parameter 1: got string, want float or int");
  throwsEval(() => call("log", [8, "x"]), "log: for parameter 2: got string, want float or int");
  throwsEval(() => call("log", [2], [["base", 2]]), "log: unexpected keyword arguments");
  throwsEval(() => call("hypot", [1, 2, 3]), "hypot: got 3 arguments, want 2");
  throwsEval(() => call("mod", [1, false]), "mod: for parameter 2: got bool, want float or int");
});
