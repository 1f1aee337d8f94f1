/**
 * Conversions between plain JS data and Starlark values, for hosts that exchange JSON-like data with
 * programs.
 *
 * {@link fromJS} (JS → Starlark):
 *
 * | JS | Starlark |
 * |---|---|
 * | `null`, `undefined` | `None` |
 * | `boolean` | `bool` |
 * | `number` | `int` when it is a safe integer, otherwise `float` (with `numbers: "float"`, always `float`) |
 * | `bigint` | `int` |
 * | `string` | `string` (UTF-16 → UTF-8 binary string, see `fromJSString`) |
 * | `Uint8Array` | `bytes` |
 * | array | `list` (or `tuple` with `arrays: "tuple"`) |
 * | `Map` | `dict` (keys converted too; they must be hashable) |
 * | plain object (prototype `Object.prototype` or `null`) | `dict` with string keys, in property order |
 * | a Starlark value (`StarObject`, e.g. a `Float`) | itself |
 *
 * Anything else (functions, symbols, class instances, cyclic structures) throws {@link ConversionError}.
 *
 * {@link toJS} (Starlark → JS) is the inverse: `None` → `null`, `bool` → `boolean`, `int` → `number`
 * (a `bigint` outside the safe range, or an error with `bigints: "error"`), `float` → `number`,
 * `string` → JS string (invalid UTF-8 becomes U+FFFD), `bytes` → `Uint8Array`, `list`/`tuple` → array,
 * `dict` with string keys → plain object. Other values (sets, functions, dicts with non-string keys,
 * cyclic values) throw {@link ConversionError}.
 *
 * @module
 */
import {
  binaryToBytes,
  Bytes,
  bytesToBinary,
  Dict,
  Float,
  fromJSString,
  List,
  normInt,
  StarlarkError,
  StarObject,
  toJSString,
  Tuple,
  typeName,
  UnhashableError,
} from "./value.ts";
import type { Value } from "./value.ts";

/** A value cannot be converted between JS and Starlark. */
export class ConversionError extends StarlarkError {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "ConversionError";
  }
}

/** Options of {@link fromJS}. */
export interface FromJSOptions {
  /**
   * How JS numbers convert: `"auto"` (default) makes safe integers Starlark ints and every other number
   * a float; `"float"` makes every number a float.
   */
  numbers?: "auto" | "float";
  /** Whether JS arrays become lists (default) or tuples. */
  arrays?: "list" | "tuple";
}

/** Options of {@link toJS}. */
export interface ToJSOptions {
  /**
   * What happens to ints outside the safe-integer range: `"bigint"` (default) returns a JS bigint,
   * `"error"` throws {@link ConversionError}.
   */
  bigints?: "bigint" | "error";
}

/** Converts plain JS data to a Starlark value (see the module documentation for the mapping). */
export function fromJS(v: unknown, options: FromJSOptions = {}): Value {
  return fromJSRec(v, options.numbers ?? "auto", options.arrays ?? "list", new Set());
}

function fromJSRec(
  v: unknown,
  numbers: "auto" | "float",
  arrays: "list" | "tuple",
  active: Set<object>,
): Value {
  switch (typeof v) {
    case "undefined":
      return null;
    case "boolean":
      return v;
    case "number":
      if (numbers === "auto" && Number.isSafeInteger(v)) return v === 0 ? 0 : v;
      return new Float(v);
    case "bigint":
      return normInt(v);
    case "string":
      return fromJSString(v);
    case "object":
      break;
    default:
      throw new ConversionError(`cannot convert JS ${typeof v} to a Starlark value`);
  }
  if (v === null) return null;
  if (v instanceof StarObject) return v;
  if (v instanceof Uint8Array) return new Bytes(bytesToBinary(v));
  if (active.has(v)) throw new ConversionError("cannot convert a cyclic JS structure to a Starlark value");
  active.add(v);
  try {
    if (Array.isArray(v)) {
      const elems = v.map((e) => fromJSRec(e, numbers, arrays, active));
      return arrays === "tuple" ? new Tuple(elems) : new List(elems);
    }
    if (v instanceof Map) {
      const d = new Dict();
      for (const [k, e] of v) {
        setKey(d, fromJSRec(k, numbers, arrays, active), fromJSRec(e, numbers, arrays, active));
      }
      return d;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) {
      const d = new Dict();
      for (const k of Object.keys(v)) {
        d.setUnchecked(
          fromJSString(k),
          fromJSRec((v as Record<string, unknown>)[k], numbers, arrays, active),
        );
      }
      return d;
    }
    const ctor = (proto as { constructor?: { name?: string } }).constructor?.name ?? "object";
    throw new ConversionError(`cannot convert JS ${ctor} to a Starlark value`);
  } finally {
    active.delete(v);
  }
}

function setKey(d: Dict, k: Value, v: Value): void {
  try {
    d.setUnchecked(k, v);
  } catch (e) {
    if (e instanceof UnhashableError) throw new ConversionError(`cannot use ${e.message} as a dict key`);
    throw e;
  }
}

/** Converts a Starlark value to plain JS data (see the module documentation for the mapping). */
export function toJS(v: Value, options: ToJSOptions = {}): unknown {
  return toJSRec(v, options.bigints ?? "bigint", new Set());
}

function toJSRec(v: Value, bigints: "bigint" | "error", active: Set<object>): unknown {
  switch (typeof v) {
    case "boolean":
    case "number":
      return v;
    case "bigint":
      if (bigints === "error") throw new ConversionError(`int ${v} is outside the JS safe-integer range`);
      return v;
    case "string":
      return toJSString(v);
  }
  if (v === null) return null;
  if (v instanceof Float) return v.value;
  if (v instanceof Bytes) return binaryToBytes(v.data);
  if (v instanceof List || v instanceof Tuple || v instanceof Dict) {
    if (active.has(v)) throw new ConversionError(`cannot convert a cyclic ${v.typeName} to JS`);
    active.add(v);
    try {
      if (!(v instanceof Dict)) return v.elems.map((e) => toJSRec(e, bigints, active));
      const out: Record<string, unknown> = {};
      for (const e of v.map.values()) {
        if (typeof e.key !== "string") {
          throw new ConversionError(`cannot convert dict with ${typeName(e.key)} key to a JS object`);
        }
        // defineProperty, so that a key like "__proto__" stays an ordinary property.
        Object.defineProperty(out, toJSString(e.key), {
          value: toJSRec(e.value, bigints, active),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    } finally {
      active.delete(v);
    }
  }
  throw new ConversionError(`cannot convert Starlark ${typeName(v)} to JS`);
}
