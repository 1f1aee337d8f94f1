/**
 * Argument unpacking for built-in functions, with the reference implementation's rules and messages
 * (starlark-go's `UnpackArgs` / `UnpackPositionalArgs`).
 *
 * A parameter is described by an {@link Unpacker}: a function that checks and converts one argument
 * value, throwing {@link ArgConversionError} (message like `got int, want string`) when it does not fit.
 * The unpacking functions add the `fn: for parameter p: ` prefix.
 *
 * ```ts
 * const [x, base] = unpackArgs("int", args, kwargs, ["x", anyArg], ["base?", anyArg]);
 * const [sub, start, end] = unpackPositional("find", args, kwargs, 1, stringArg, anyArg, anyArg);
 * ```
 *
 * @module
 */
import { nearest } from "./ops.ts";
import type { StarlarkIterable } from "./ops.ts";
import { intBounded, reprBounded } from "./quote_bounded.ts";
import {
  Builtin,
  Dict,
  EvalError,
  Float,
  List,
  Range,
  StarObject,
  StarSet,
  Tuple,
  typeName,
} from "./value.ts";
import type { Kwargs, Value } from "./value.ts";

/** A value did not have the type or range a parameter requires (message without the function prefix). */
export class ArgConversionError extends EvalError {
  /** Creates the error; `message` is e.g. `got int, want string`. */
  constructor(message: string) {
    super(message);
    this.name = "ArgConversionError";
  }
}

/** Checks and converts one argument value; throws {@link ArgConversionError} when it does not fit. */
export type Unpacker<T> = (v: Value) => T;

/** The converted values of an unpacking call; `undefined` where an optional argument was absent. */
export type Unpacked<U extends readonly Unpacker<unknown>[]> = {
  -readonly [K in keyof U]: U[K] extends Unpacker<infer T> ? T | undefined : never;
};

/** One named parameter: `[name, unpacker]`; a name ending in `?` is optional, `??` also treats None as absent. */
export type ParamSpec = readonly [string, Unpacker<unknown>];

/** The converted values of {@link unpackArgs}, in parameter order. */
export type UnpackedNamed<S extends readonly ParamSpec[]> = {
  -readonly [K in keyof S]: S[K] extends readonly [string, Unpacker<infer T>] ? T | undefined : never;
};

// ---------------------------------------------------------------------------
// Unpackers

/** Accepts any value. */
export const anyArg: Unpacker<Value> = (v: Value): Value => v;

/** Accepts a string (the reference's `*string`). */
export const stringArg: Unpacker<string> = (v: Value): string => {
  if (typeof v !== "string") throw new ArgConversionError(`got ${typeName(v)}, want string`);
  return v;
};

/** Accepts only `True`/`False` (the reference's `*bool`: no truth conversion). */
export const boolArg: Unpacker<boolean> = (v: Value): boolean => {
  if (typeof v !== "boolean") throw new ArgConversionError(`got ${typeName(v)}, want bool`);
  return v;
};

/** Accepts an int in the signed 32-bit range (the reference's `AsInt32`). */
export const int32Arg: Unpacker<number> = (v: Value): number => asInt32(v);

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/**
 * Accepts an int in the signed 64-bit range (the reference's Go `int`). Values beyond ±2^53 are
 * returned as the nearest double, which is exact for every practical index or count.
 */
export const intArg: Unpacker<number> = (v: Value): number => {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") {
    if (v < INT64_MIN || v > INT64_MAX) {
      throw new ArgConversionError(`${intBounded(v)} out of range (want value in signed 64-bit range)`);
    }
    return Number(v);
  }
  throw new ArgConversionError(`got ${typeName(v)}, want int`);
};

/** Accepts a float (not an int). */
export const floatArg: Unpacker<number> = (v: Value): number => {
  if (!(v instanceof Float)) throw new ArgConversionError(`got ${typeName(v)}, want float`);
  return v.value;
};

/** Accepts a list. */
export const listArg: Unpacker<List> = (v: Value): List => {
  if (!(v instanceof List)) throw new ArgConversionError(`got ${typeName(v)}, want list`);
  return v;
};

/** Accepts a dict. */
export const dictArg: Unpacker<Dict> = (v: Value): Dict => {
  if (!(v instanceof Dict)) throw new ArgConversionError(`got ${typeName(v)}, want dict`);
  return v;
};

/** Accepts a callable value (built-in, Starlark function or lambda). */
export const callableArg: Unpacker<Value> = (v: Value): Value => {
  if (!isCallable(v)) throw new ArgConversionError(`got ${typeName(v)}, want callable`);
  return v;
};

/** Accepts an iterable value (list, tuple, dict, set, range, string views...; not a string). */
export const iterableArg: Unpacker<Value> = (v: Value): Value => {
  if (!isIterable(v)) throw new ArgConversionError(`got ${typeName(v)}, want iterable`);
  return v;
};

/** Whether `v` can be called. Starlark functions are recognised by their type name `function`. */
export function isCallable(v: Value): boolean {
  return v instanceof Builtin || (v instanceof StarObject && v.typeName === "function");
}

/** Whether `v` is iterable in the reference's sense (strings and bytes are not). */
export function isIterable(v: Value): boolean {
  return v instanceof List || v instanceof Tuple || v instanceof Dict || v instanceof StarSet ||
    v instanceof Range || typeof (v as Partial<StarlarkIterable> | null)?.starlarkIterate === "function";
}

/**
 * Converts an int in the signed 32-bit range to a number (the reference's `AsInt32`).
 * @throws {ArgConversionError} `got T, want int` or `N out of range`.
 */
export function asInt32(v: Value): number {
  if (typeof v === "number") {
    if (v < -2147483648 || v > 2147483647) throw new ArgConversionError(`${v} out of range`);
    return v;
  }
  if (typeof v === "bigint") throw new ArgConversionError(`${intBounded(v)} out of range`);
  throw new ArgConversionError(`got ${typeName(v)}, want int`);
}

// ---------------------------------------------------------------------------
// Unpacking

function quoteName(name: string): string {
  return reprBounded(name);
}

/** Throws `fn does not accept keyword arguments` when `kwargs` is non-empty. */
export function noKwargs(fn: string, kwargs: Kwargs): void {
  if (kwargs.length > 0) throw new EvalError(`${fn} does not accept keyword arguments`);
}

/**
 * Checks the argument counts of a positional-only function (the reference's `checkPositionalArgs`).
 * @throws {EvalError} `fn: unexpected keyword arguments`, `fn: got N arguments, want [at least|at most] M`.
 */
export function checkPositional(fn: string, args: Value[], kwargs: Kwargs, min: number, max: number): void {
  if (kwargs.length > 0) throw new EvalError(`${fn}: unexpected keyword arguments`);
  if (args.length < min) {
    throw new EvalError(`${fn}: got ${args.length} arguments, want ${min < max ? "at least " : ""}${min}`);
  }
  if (args.length > max) {
    throw new EvalError(`${fn}: got ${args.length} arguments, want ${max > min ? "at most " : ""}${max}`);
  }
}

function convert<T>(fn: string, param: string | number, v: Value, unpack: Unpacker<T>): T {
  try {
    return unpack(v);
  } catch (e) {
    if (e instanceof ArgConversionError) throw new EvalError(`${fn}: for parameter ${param}: ${e.message}`);
    throw e;
  }
}

/**
 * Unpacks positional-only arguments (the reference's `UnpackPositionalArgs`): at least `min` and at
 * most `unpackers.length` arguments, no keywords. Absent optional arguments come back `undefined`.
 */
export function unpackPositional<const U extends readonly Unpacker<unknown>[]>(
  fn: string,
  args: Value[],
  kwargs: Kwargs,
  min: number,
  ...unpackers: U
): Unpacked<U> {
  checkPositional(fn, args, kwargs, min, unpackers.length);
  const out: unknown[] = new Array(unpackers.length);
  for (let i = 0; i < args.length; i++) {
    const u = unpackers[i];
    out[i] = u === anyArg ? args[i] : convert(fn, i + 1, args[i], u);
  }
  for (let i = args.length; i < unpackers.length; i++) out[i] = undefined;
  return out as Unpacked<U>;
}

function paramName(spec: string): [name: string, skipNone: boolean] {
  if (spec.endsWith("??")) return [spec.slice(0, -2), true];
  if (spec.endsWith("?")) return [spec.slice(0, -1), false];
  return [spec, false];
}

/** Whether the parameter described by `spec` is named `name` (no slicing: this runs on every call). */
function specNamed(spec: string, name: string): boolean {
  const d = spec.length - name.length;
  if (d === 0) return spec === name;
  if (d < 0 || d > 2 || !spec.startsWith(name)) return false;
  return d === 1 ? spec.charCodeAt(name.length) === 0x3f : spec.endsWith("??");
}

/**
 * Unpacks positional and keyword arguments by parameter name (the reference's `UnpackArgs`).
 * A name ending in `?` makes it and every later parameter optional; `??` also treats None as absent.
 * Absent arguments come back `undefined`.
 */
export function unpackArgs<const S extends readonly ParamSpec[]>(
  fn: string,
  args: Value[],
  kwargs: Kwargs,
  ...specs: S
): UnpackedNamed<S> {
  const n = specs.length;
  if (args.length > n) throw new EvalError(`${fn}: got ${args.length} arguments, want at most ${n}`);
  const out: unknown[] = new Array(n).fill(undefined);
  const defined: boolean[] = new Array(n).fill(false);
  for (let i = 0; i < args.length; i++) {
    defined[i] = true;
    const [spec, unpack] = specs[i];
    const v = args[i];
    if (v === null && spec.endsWith("??")) continue;
    if (unpack === anyArg) out[i] = v;
    else {
      try {
        out[i] = unpack(v);
      } catch (e) {
        if (e instanceof ArgConversionError) {
          throw new EvalError(`${fn}: for parameter ${paramName(spec)[0]}: ${e.message}`);
        }
        throw e;
      }
    }
  }
  kwloop: for (const [kname, kval] of kwargs) {
    for (let i = 0; i < n; i++) {
      const spec = specs[i][0];
      if (!specNamed(spec, kname)) continue;
      if (defined[i]) {
        throw new EvalError(`${fn}: got multiple values for keyword argument ${quoteName(kname)}`);
      }
      defined[i] = true;
      if (!(kval === null && spec.endsWith("??"))) out[i] = convert(fn, quoteName(kname), kval, specs[i][1]);
      continue kwloop;
    }
    let msg = `${fn}: unexpected keyword argument ${quoteName(kname)}`;
    // The reference only offers the first half of the parameter names as suggestions; we match it.
    const candidates: string[] = [];
    for (let i = 0; i < n; i += 2) candidates.push(paramName(specs[i / 2][0])[0]);
    const near = nearest(kname, candidates);
    if (near !== undefined) msg += ` (did you mean ${near}?)`;
    throw new EvalError(msg);
  }
  for (let i = 0; i < n; i++) {
    const spec = specs[i][0];
    if (spec.endsWith("?")) break;
    if (i < args.length) continue;
    if (!defined[i]) throw new EvalError(`${fn}: missing argument for ${spec}`);
  }
  return out as UnpackedNamed<S>;
}

// ---------------------------------------------------------------------------
// Index helpers

/**
 * Resolves optional `start`/`end` arguments (None or absent allowed; negative counts from the end) to a
 * clamped `[start, end]` range of a sequence of length `len`, like the reference's `indices`.
 * @throws {EvalError} `invalid start index: ...` / `invalid end index: ...` (without a function prefix).
 */
export function sliceIndices(
  start: Value | undefined,
  end: Value | undefined,
  len: number,
): [number, number] {
  let s = 0;
  if (start !== undefined && start !== null) {
    try {
      s = asInt32(start);
    } catch (e) {
      if (e instanceof ArgConversionError) throw new EvalError(`invalid start index: ${e.message}`);
      throw e;
    }
    if (s < 0) s += len;
  }
  s = s < 0 ? 0 : s > len ? len : s;
  let t = len;
  if (end !== undefined && end !== null) {
    try {
      t = asInt32(end);
    } catch (e) {
      if (e instanceof ArgConversionError) throw new EvalError(`invalid end index: ${e.message}`);
      throw e;
    }
    if (t < 0) t += len;
  }
  t = t < 0 ? 0 : t > len ? len : t;
  return [s, t];
}
