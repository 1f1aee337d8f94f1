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
import type { DictEntry, Value } from "./value.ts";
import { intBounded } from "./quote_bounded.ts";

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
  return fromJSRec(v, options.numbers ?? "auto", options.arrays ?? "list", new Set(), 0);
}

function fromJSRec(
  v: unknown,
  numbers: "auto" | "float",
  arrays: "list" | "tuple",
  active: Set<object>,
  depth: number,
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
  if (depth >= RECURSIVE_DEPTH) return fromJSDeep(v, numbers, arrays, active);
  if (active.has(v)) throw new ConversionError("cannot convert a cyclic JS structure to a Starlark value");
  active.add(v);
  const d1 = depth + 1;
  try {
    if (Array.isArray(v)) {
      const elems = v.map((e) => fromJSRec(e, numbers, arrays, active, d1));
      return arrays === "tuple" ? new Tuple(elems) : new List(elems);
    }
    if (v instanceof Map) {
      const d = new Dict();
      for (const [k, e] of v) {
        setKey(d, fromJSRec(k, numbers, arrays, active, d1), fromJSRec(e, numbers, arrays, active, d1));
      }
      return d;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) {
      const d = new Dict();
      for (const k of Object.keys(v)) {
        d.setUnchecked(
          fromJSString(k),
          fromJSRec((v as Record<string, unknown>)[k], numbers, arrays, active, d1),
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
  return toJSRec(v, options.bigints ?? "bigint", new Set(), 0);
}

/** Nesting converted by recursion; deeper containers are converted by an explicit-stack loop. */
const RECURSIVE_DEPTH = 200;

function toJSRec(v: Value, bigints: "bigint" | "error", active: Set<object>, depth: number): unknown {
  switch (typeof v) {
    case "boolean":
    case "number":
      return v;
    case "bigint":
      if (bigints === "error") {
        throw new ConversionError(`int ${intBounded(v)} is outside the JS safe-integer range`);
      }
      return v;
    case "string":
      return toJSString(v);
  }
  if (v === null) return null;
  if (v instanceof Float) return v.value;
  if (v instanceof Bytes) return binaryToBytes(v.data);
  if (v instanceof List || v instanceof Tuple || v instanceof Dict) {
    if (depth >= RECURSIVE_DEPTH) return toJSDeep(v, bigints, active);
    if (active.has(v)) throw new ConversionError(`cannot convert a cyclic ${v.typeName} to JS`);
    active.add(v);
    try {
      if (!(v instanceof Dict)) return v.elems.map((e) => toJSRec(e, bigints, active, depth + 1));
      const out: Record<string, unknown> = {};
      for (const e of v.map.values()) {
        if (typeof e.key !== "string") {
          throw new ConversionError(`cannot convert dict with ${typeName(e.key)} key to a JS object`);
        }
        // defineProperty, so that a key like "__proto__" stays an ordinary property.
        Object.defineProperty(out, toJSString(e.key), {
          value: toJSRec(e.value, bigints, active, depth + 1),
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

/** A container being converted by {@link toJSDeep}: its result so far and the next item to convert. */
interface ToJSFrame {
  readonly v: List | Tuple | Dict;
  readonly out: unknown[] | Record<string, unknown>;
  readonly items: readonly Value[] | readonly DictEntry[];
  i: number;
}

function setProp(out: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty, so that a key like "__proto__" stays an ordinary property.
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** {@link toJSRec} for containers of any depth: the same results and errors, in the same order. */
function toJSDeep(root: List | Tuple | Dict, bigints: "bigint" | "error", active: Set<object>): unknown {
  const stack: ToJSFrame[] = [];
  const open = (v: List | Tuple | Dict) => {
    if (active.has(v)) throw new ConversionError(`cannot convert a cyclic ${v.typeName} to JS`);
    active.add(v);
    const dict = v instanceof Dict;
    stack.push({ v, out: dict ? {} : [], items: dict ? [...v.map.values()] : v.elems, i: 0 });
  };
  const put = (f: ToJSFrame, value: unknown) => {
    if (f.v instanceof Dict) {
      setProp(f.out as Record<string, unknown>, toJSString((f.items[f.i] as DictEntry).key as string), value);
    } else (f.out as unknown[]).push(value);
    f.i++;
  };
  try {
    open(root);
    for (;;) {
      const f = stack[stack.length - 1];
      if (f.i === f.items.length) {
        stack.pop();
        active.delete(f.v);
        if (stack.length === 0) return f.out;
        put(stack[stack.length - 1], f.out);
        continue;
      }
      let x: Value;
      if (f.v instanceof Dict) {
        const e = f.items[f.i] as DictEntry;
        if (typeof e.key !== "string") {
          throw new ConversionError(`cannot convert dict with ${typeName(e.key)} key to a JS object`);
        }
        x = e.value;
      } else {
        x = f.items[f.i] as Value;
      }
      if (x instanceof List || x instanceof Tuple || x instanceof Dict) open(x);
      else put(f, toJSRec(x, bigints, active, 0));
    }
  } finally {
    for (const f of stack) active.delete(f.v);
  }
}

/** A JS container being converted by {@link fromJSDeep}. */
interface FromJSFrame {
  readonly src: object;
  /** Array elements, Map entries or an object's own keys. */
  readonly items: readonly unknown[];
  readonly kind: "array" | "map" | "object";
  readonly out: Value[] | Dict;
  i: number;
  /** A Map entry's converted key, while its value is converted. */
  key: Value;
}

/** Whether `v` is converted as a container (arrays, Maps, plain objects, and what fromJSRec refuses). */
function isJSContainer(v: unknown): v is object {
  return typeof v === "object" && v !== null && !(v instanceof StarObject) && !(v instanceof Uint8Array);
}

/** {@link fromJSRec} for containers of any depth: the same results and errors, in the same order. */
function fromJSDeep(
  root: object,
  numbers: "auto" | "float",
  arrays: "list" | "tuple",
  active: Set<object>,
): Value {
  const stack: FromJSFrame[] = [];
  const open = (v: object) => {
    if (active.has(v)) throw new ConversionError("cannot convert a cyclic JS structure to a Starlark value");
    active.add(v);
    const push = (kind: FromJSFrame["kind"], items: readonly unknown[], out: Value[] | Dict) =>
      stack.push({ src: v, items, kind, out, i: 0, key: null });
    if (Array.isArray(v)) return push("array", v, []);
    if (v instanceof Map) return push("map", [...v], new Dict());
    const proto = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) return push("object", Object.keys(v), new Dict());
    active.delete(v);
    const ctor = (proto as { constructor?: { name?: string } }).constructor?.name ?? "object";
    throw new ConversionError(`cannot convert JS ${ctor} to a Starlark value`);
  };
  const put = (f: FromJSFrame, value: Value) => {
    if (f.kind === "array") (f.out as Value[]).push(value);
    else if (f.kind === "map") setKey(f.out as Dict, f.key, value);
    else (f.out as Dict).setUnchecked(fromJSString(f.items[f.i] as string), value);
    f.i++;
  };
  try {
    open(root);
    for (;;) {
      const f = stack[stack.length - 1];
      if (f.i === f.items.length) {
        stack.pop();
        active.delete(f.src);
        const v = f.kind !== "array"
          ? f.out as Dict
          : arrays === "tuple"
          ? new Tuple(f.out as Value[])
          : new List(f.out as Value[]);
        if (stack.length === 0) return v;
        put(stack[stack.length - 1], v);
        continue;
      }
      let x: unknown;
      if (f.kind === "array") {
        x = f.items[f.i];
      } else if (f.kind === "map") {
        const [k, e] = f.items[f.i] as [unknown, unknown];
        f.key = fromJSRec(k, numbers, arrays, active, 0);
        x = e;
      } else {
        x = (f.src as Record<string, unknown>)[f.items[f.i] as string];
      }
      if (isJSContainer(x)) open(x);
      else put(f, fromJSRec(x, numbers, arrays, active, 0));
    }
  } finally {
    for (const f of stack) active.delete(f.src);
  }
}
