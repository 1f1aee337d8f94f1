/**
 * The core of the Starlark value model: the {@link Value} type, the {@link StarObject} base class and the
 * simple value classes (float, bytes, list, tuple, builtin, module), plus the small helpers every
 * operation needs. Import these names from `value.ts`, which describes the representation.
 *
 * @module
 */

import type { Thread } from "./thread.ts";
import { EvalError, UnhashableError } from "./errors.ts";

/** Any Starlark value. */
export type Value = null | boolean | number | bigint | string | StarObject;

/** Keyword arguments as ordered `[name, value]` pairs (names are binary strings, i.e. ASCII identifiers). */
export type Kwargs = [string, Value][];

/** Base class of every non-primitive Starlark value. */
export abstract class StarObject {
  /** The Starlark type name, as returned by `type(x)`. */
  abstract get typeName(): string;
}

/** A Starlark float (IEEE-754 double). Wrapped so that `1` (int) and `1.0` (float) stay distinct. */
export class Float extends StarObject {
  /** The float value. */
  readonly value: number;
  /** Wraps a JS number as a Starlark float. */
  constructor(value: number) {
    super();
    this.value = value;
  }
  /** Always `"float"`. */
  get typeName(): string {
    return "float";
  }
}

/** A Starlark bytes value: an immutable byte sequence stored as a binary string. */
export class Bytes extends StarObject {
  /** The bytes, one char code (0..255) per byte. */
  readonly data: string;
  /** Wraps a binary string. */
  constructor(data: string) {
    super();
    this.data = data;
  }
  /** Always `"bytes"`. */
  get typeName(): string {
    return "bytes";
  }
}

/** Marker for containers that can be frozen and that track active iterators. */
export interface Mutable {
  /** Whether the value has been frozen. */
  frozen: boolean;
  /** Number of active iterations; mutation is an error while positive. */
  itercount: number;
}

/** A Starlark list. */
export class List extends StarObject implements Mutable {
  /** The elements (mutated in place by list operations; check {@link checkMutable} first). */
  elems: Value[];
  /** Whether the list has been frozen. */
  frozen = false;
  /** Number of active iterations. */
  itercount = 0;
  /** Creates a list that takes ownership of `elems`. */
  constructor(elems: Value[] = []) {
    super();
    this.elems = elems;
  }
  /** Always `"list"`. */
  get typeName(): string {
    return "list";
  }
}

/** A Starlark tuple (immutable). */
export class Tuple extends StarObject {
  /** The elements; never mutated after construction. */
  readonly elems: Value[];
  /** Creates a tuple that takes ownership of `elems`. */
  constructor(elems: Value[]) {
    super();
    this.elems = elems;
  }
  /** Always `"tuple"`. */
  get typeName(): string {
    return "tuple";
  }
}

/** The empty tuple, shared. */
export const EMPTY_TUPLE: Tuple = new Tuple([]);

/** Signature of a built-in function's implementation. `self` is the Builtin being called. */
export type BuiltinFn = (thread: Thread, args: Value[], kwargs: Kwargs, self: Builtin) => Value;

/** A call a built-in running as a generator ({@link BuiltinGen}) asks its caller to make: `fn(arg)`. */
export interface Callback {
  /** The callable (a Starlark function, lambda or built-in). */
  readonly fn: Value;
  /** Its one positional argument. */
  readonly arg: Value;
}

/**
 * A built-in that calls back into Starlark (a `key` function), written as a generator: it yields each
 * call it needs as a {@link Callback} and receives the result. The evaluator runs it on its explicit
 * stack, so that recursion through the built-in costs heap, not JS stack.
 */
export type BuiltinGen = (
  thread: Thread,
  args: Value[],
  kwargs: Kwargs,
  self: Builtin,
) => Generator<Callback, Value, Value>;

/** A built-in function, or a method bound to its receiver. */
export class Builtin extends StarObject {
  /** Name (for a method, just the method name, e.g. `append`). */
  readonly name: string;
  /** Implementation. */
  readonly fn: BuiltinFn;
  /** Bound receiver for methods; `undefined` for plain functions. */
  readonly receiver: Value | undefined;
  /**
   * For a built-in that calls back into Starlark: the same function as a generator, which deep
   * recursion runs instead of {@link fn} (the two must behave alike).
   */
  readonly gen: BuiltinGen | undefined;
  /** Creates a builtin. */
  constructor(name: string, fn: BuiltinFn, receiver?: Value, gen?: BuiltinGen) {
    super();
    this.name = name;
    this.fn = fn;
    this.receiver = receiver;
    this.gen = gen;
  }
  /** Always `"builtin_function_or_method"`. */
  get typeName(): string {
    return "builtin_function_or_method";
  }
}

/** A named collection of members accessed with `.`, such as `json`, `math` or a capability namespace. */
export class Module extends StarObject {
  /** Module name shown by `str()`. */
  readonly name: string;
  /** Members. */
  readonly members: ReadonlyMap<string, Value>;
  /** Creates a module; members are not copied. */
  constructor(name: string, members: ReadonlyMap<string, Value>) {
    super();
    this.name = name;
    this.members = members;
  }
  /** Always `"module"`. */
  get typeName(): string {
    return "module";
  }
  /**
   * Modules are unhashable, as in the reference (`unhashable: module`); an {@link UnhashableError}, so
   * that built-ins prefix it with their name as they do for lists (`set: unhashable: module`).
   */
  hashKey(): string {
    const e = new UnhashableError("module");
    e.message = "unhashable: module";
    throw e;
  }
}

/** Returns the Starlark type name of any value. */
export function typeName(v: Value): string {
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "int";
    case "boolean":
      return "bool";
    default:
      return v === null ? "NoneType" : v.typeName;
  }
}

/** Whether `v` is a Starlark int. */
export function isInt(v: Value): v is number | bigint {
  return typeof v === "number" || typeof v === "bigint";
}

/** Normalizes a bigint to the canonical int representation (a number when it is a safe integer). */
export function normInt(b: bigint): number | bigint {
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

/**
 * Checks that a container may be mutated; `what` names the operation for the message, e.g.
 * `"append to"` or `"insert into"`.
 * @throws {EvalError} "cannot <what> frozen <type>" or "cannot <what> <type> during iteration".
 */
export function checkMutable(v: Mutable & StarObject, what: string): void {
  if (v.frozen) throw new EvalError(`cannot ${what} frozen ${v.typeName}`);
  if (v.itercount > 0) throw new EvalError(`cannot ${what} ${v.typeName} during iteration`);
}
