/**
 * TypeScript equivalents of the application-defined values starlark-go's test driver predeclares
 * (`starlark/eval_test.go`): `hasfields()` (a value with settable fields), `fibonacci` (an infinite
 * iterable) and `struct` (from `go.starlark.net/starlarkstruct`), plus starlarkstruct's `module`
 * constructor used by `assert.star`.
 *
 * They are written against the engine's host-value protocols (`starlarkAttr`, `setField`,
 * `starlarkIterate`, `starlarkBinary`, ...), exactly as an embedding application would.
 *
 * @module
 */

import { stringArg, unpackPositional } from "../../../src/starlark/values/args.ts";
import { equals, freeze, repr } from "../../../src/starlark/values/ops.ts";
import type { ValueIterator } from "../../../src/starlark/values/ops.ts";
import type { BinaryOp } from "../../../src/starlark/syntax/ast.ts";
import {
  Builtin,
  type BuiltinFn,
  EvalError,
  hashKey,
  List,
  Module,
  NoSuchAttrError,
  StarObject,
  type Value,
} from "../../../src/starlark/values/value.ts";

/** `hasfields()`: any field may be set until the value is frozen; `list + hasfields` is 42. */
export class HasFields extends StarObject {
  /** The fields set so far. */
  readonly attrs: Map<string, Value> = new Map();
  /** Whether the value has been frozen. */
  frozen = false;
  /** Always `"hasfields"`. */
  get typeName(): string {
    return "hasfields";
  }
  /** The reference prints just the type name. */
  starlarkRepr(): string {
    return "hasfields";
  }
  /** Freezes the value and its fields. */
  freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const v of this.attrs.values()) freeze(v);
  }
  /** A field's value, if set. */
  starlarkAttr(name: string): Value | undefined {
    return this.attrs.get(name);
  }
  /** The names of the fields set, sorted. */
  starlarkAttrNames(): string[] {
    return [...this.attrs.keys()].sort();
  }
  /** `x.name = v`; names starting with `no` are refused as missing fields, to test spelling hints. */
  setField(name: string, v: Value): void {
    if (this.frozen) throw new EvalError("cannot set field on a frozen hasfields");
    if (name.startsWith("no")) throw new NoSuchAttrError(`no .${name} field`);
    this.attrs.set(name, v);
  }
  /** Exists so that `list += x` can be tested with a non-iterable `x` that defines `list + x`. */
  starlarkBinary(op: BinaryOp, y: Value, _side: "left" | "right"): Value | undefined {
    return op === "+" && y instanceof List ? 42 : undefined;
  }
}

/** The `hasfields` built-in: takes no arguments. */
export const hasfieldsBuiltin: Builtin = new Builtin("hasfields", (_t, args, kwargs, self) => {
  if (args.length + kwargs.length > 0) throw new EvalError(`${self.name}: unexpected arguments`);
  return new HasFields();
});

/** The infinite Fibonacci sequence 0, 1, 1, 2, 3, ... as an iterable value named `fib`. */
export class Fibonacci extends StarObject {
  /** Always `"fib"`. */
  get typeName(): string {
    return "fib";
  }
  /** Printed as `fib`. */
  starlarkRepr(): string {
    return "fib";
  }
  /** Unhashable, like the reference's `fib` (whose Hash fails). */
  hashKey(): string {
    throw new EvalError("fib is unhashable");
  }
  /** A fresh iteration from the start of the sequence; it never ends. */
  starlarkIterate(): ValueIterator {
    let x: number | bigint = 0, y: number | bigint = 1;
    return {
      next(): Value {
        const v = x;
        const sum = typeof x === "number" && typeof y === "number" && Number.isSafeInteger(x + y)
          ? x + y
          : BigInt(x) + BigInt(y);
        [x, y] = [y, sum];
        return v;
      },
      done(): void {},
    };
  }
}

/** The `fibonacci` value. */
export const fibonacci: Fibonacci = new Fibonacci();

/** The default constructor of a struct, the string `"struct"`. */
const DEFAULT_CONSTRUCTOR = "struct";

/** A starlarkstruct `Struct`: an immutable record with fields sorted by name. */
export class Struct extends StarObject {
  /** The constructor (a string for plain `struct(...)`). */
  readonly constructorValue: Value;
  /** Fields sorted by name. */
  readonly entries: readonly [string, Value][];
  private frozen = false;
  /** Builds a struct; the entries are sorted here. */
  constructor(constructorValue: Value, entries: [string, Value][]) {
    super();
    this.constructorValue = constructorValue;
    this.entries = entries.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  }
  /** Always `"struct"`. */
  get typeName(): string {
    return "struct";
  }
  /** `struct(a = 1, b = "x")`; a string constructor is printed without quotes. */
  starlarkRepr(): string {
    // Field values print as by Go's String(), which quotes strings; only a string constructor is bare.
    const ctor = typeof this.constructorValue === "string"
      ? this.constructorValue
      : repr(this.constructorValue);
    return `${ctor}(${this.entries.map(([k, v]) => `${k} = ${repr(v)}`).join(", ")})`;
  }
  /** Structs are true even when empty. */
  starlarkTruth(): boolean {
    return true;
  }
  /** Hashable when every field value is. */
  hashKey(): string {
    let s = "\u0104struct(" + String(hashKey(this.constructorValue));
    for (const [name, v] of this.entries) {
      const k = hashKey(v); // equal values (1 and 1.0) have equal keys; the key's type keeps 1 and "1" apart
      s += `;${name}=${typeof k}:${String(k)}`;
    }
    return s + ")";
  }
  /** Freezes the field values. */
  freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const [, v] of this.entries) freeze(v);
  }
  /** A field's value; a missing field is a "no such attribute" error (the engine adds a spelling hint). */
  starlarkAttr(name: string): Value | undefined {
    for (const [k, v] of this.entries) if (k === name) return v;
    const ctor = this.constructorValue === DEFAULT_CONSTRUCTOR ? "" : `${repr(this.constructorValue)} `;
    throw new NoSuchAttrError(`${ctor}struct has no .${name} attribute`);
  }
  /** Field names, sorted. */
  starlarkAttrNames(): string[] {
    return this.entries.map(([k]) => k);
  }
  /** Same constructor, same fields, equal values. */
  starlarkEquals(y: Value): boolean {
    if (!(y instanceof Struct) || y.entries.length !== this.entries.length) return false;
    if (!equals(this.constructorValue, y.constructorValue)) return false;
    return this.entries.every(([k, v], i) => y.entries[i][0] === k && equals(v, y.entries[i][1]));
  }
  /** `struct + struct` merges the fields (the right operand wins); constructors must be equal. */
  starlarkBinary(op: BinaryOp, y: Value, side: "left" | "right"): Value | undefined {
    if (op !== "+" || !(y instanceof Struct)) return undefined;
    const [a, b]: [Struct, Struct] = side === "left" ? [this, y] : [y, this];
    if (!equals(a.constructorValue, b.constructorValue)) {
      throw new EvalError(
        `cannot add structs of different constructors: ${repr(a.constructorValue)} + ${
          repr(b.constructorValue)
        }`,
      );
    }
    const merged = new Map<string, Value>(a.entries);
    for (const [k, v] of b.entries) merged.set(k, v);
    return new Struct(a.constructorValue, [...merged]);
  }
}

/** `struct(**kwargs)`. */
export const structBuiltin: Builtin = new Builtin("struct", (_t, args, kwargs) => {
  if (args.length > 0) throw new EvalError("struct: unexpected positional arguments");
  return new Struct(DEFAULT_CONSTRUCTOR, kwargs.map(([k, v]) => [k, v]));
});

/** starlarkstruct's `module(name, **members)`. */
export const moduleBuiltin: BuiltinFn = (_t, args, kwargs, self) => {
  const [name] = unpackPositional(self.name, args, [], 1, stringArg);
  return new Module(name!, new Map(kwargs));
};
