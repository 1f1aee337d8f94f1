/**
 * The `math` module of the reference implementation (starlark-go's `lib/math`).
 *
 * Members: `ceil`, `floor` (int results; ints pass through unchanged), `round` (float, halves away from
 * zero), `copysign`, `fabs`, `mod`, `pow`, `remainder`, `exp`, `sqrt`, `acos`, `asin`, `atan`, `atan2`,
 * `cos`, `hypot`, `sin`, `tan`, `degrees`, `radians`, `acosh`, `asinh`, `atanh`, `cosh`, `sinh`, `tanh`,
 * `log(x, base=e)`, `gamma`, and the constants `e` and `pi`.
 *
 * Every function takes positional int or float arguments (not bool) and, except `ceil`/`floor`, returns
 * a float. Like the reference, out-of-domain arguments give `nan` or `±inf` rather than errors
 * (`math.sqrt(-1)` is `nan`, `math.log(0)` is `-inf`); the only errors are argument errors,
 * `log` with base 1 (`division by zero`) and `ceil`/`floor` of a non-finite float. Results are
 * bit-identical to the reference (see `gomath.ts`).
 *
 * @module
 */
import {
  anyArg,
  ArgConversionError,
  Builtin,
  EvalError,
  Float,
  type Kwargs,
  Module,
  normInt,
  type Thread,
  typeName,
  type Unpacker,
  unpackPositional,
  type Value,
} from "../values/mod.ts";
import * as gm from "./gomath.ts";
import * as gt from "./gomath_trig.ts";

/** Converts an int or float argument to a JS number (huge ints round to the nearest double or ±inf). */
const floatOrInt: Unpacker<number> = (v) => {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Float) return v.value;
  throw new ArgConversionError(`got ${typeName(v)}, want float or int`);
};

function unary(name: string, f: (x: number) => number): [string, Builtin] {
  const fn = (_t: Thread, args: Value[], kwargs: Kwargs): Value => {
    const [x] = unpackPositional(name, args, kwargs, 1, floatOrInt);
    return new Float(f(x!));
  };
  return [name, new Builtin(name, fn)];
}

function binary(name: string, f: (x: number, y: number) => number): [string, Builtin] {
  const fn = (_t: Thread, args: Value[], kwargs: Kwargs): Value => {
    const [x, y] = unpackPositional(name, args, kwargs, 2, floatOrInt, floatOrInt);
    return new Float(f(x!, y!));
  };
  return [name, new Builtin(name, fn)];
}

/** Truncates a finite integral float to an int (the reference's `NumberToInt`). */
function floatToInt(f: number): Value {
  if (f !== f) throw new EvalError("cannot convert float NaN to integer");
  if (!Number.isFinite(f)) throw new EvalError("cannot convert float infinity to integer");
  if (Number.isSafeInteger(f)) return f === 0 ? 0 : f; // no -0 ints
  return normInt(BigInt(f));
}

function rounding(name: string, f: (x: number) => number): [string, Builtin] {
  const fn = (_t: Thread, args: Value[], kwargs: Kwargs): Value => {
    const [x] = unpackPositional(name, args, kwargs, 1, anyArg);
    if (typeof x === "number" || typeof x === "bigint") return x;
    if (x instanceof Float) return floatToInt(f(x.value));
    // Unlike the other functions, the reference reports this without the function name.
    throw new EvalError(`got ${typeName(x!)}, want float or int`);
  };
  return [name, new Builtin(name, fn)];
}

function logFn(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x, base] = unpackPositional("log", args, kwargs, 1, floatOrInt, floatOrInt);
  const b = base ?? Math.E;
  if (b === 1) throw new EvalError("division by zero");
  return new Float(gm.log(x!) / gm.log(b));
}

function degrees(x: number): number {
  return 360 * x / (2 * Math.PI);
}

function radians(x: number): number {
  return 2 * Math.PI * x / 360;
}

/** The `math` module. */
export const math: Module = new Module(
  "math",
  new Map<string, Value>([
    rounding("ceil", Math.ceil),
    binary("copysign", gm.copysign),
    unary("fabs", Math.abs),
    rounding("floor", Math.floor),
    binary("mod", (x, y) => x % y),
    binary("pow", gm.pow),
    binary("remainder", gm.remainder),
    unary("round", gm.round),
    unary("exp", gm.exp),
    unary("sqrt", Math.sqrt),
    unary("acos", gt.acos),
    unary("asin", gt.asin),
    unary("atan", gt.atan),
    binary("atan2", gt.atan2),
    unary("cos", gt.cos),
    binary("hypot", gm.hypot),
    unary("sin", gt.sin),
    unary("tan", gt.tan),
    unary("degrees", degrees),
    unary("radians", radians),
    unary("acosh", gt.acosh),
    unary("asinh", gt.asinh),
    unary("atanh", gt.atanh),
    unary("cosh", gt.cosh),
    unary("sinh", gt.sinh),
    unary("tanh", gt.tanh),
    ["log", new Builtin("log", logFn)],
    unary("gamma", gt.gamma),
    ["e", new Float(Math.E)],
    ["pi", new Float(Math.PI)],
  ]),
);
