/**
 * Operations on Starlark values: truth, equality, ordering, arithmetic, indexing, attributes,
 * iteration, repr/str and freezing. The interpreter and the built-ins share these.
 *
 * The semantics and error messages are those of the reference implementation (starlark-go). The
 * implementation is split over `ops_*.ts`; this module is the stable entry point.
 *
 * Host-defined values (subclasses of `StarObject` outside this module, e.g. the interpreter's
 * functions) can take part through optional methods, all documented interfaces exported here:
 * `starlarkRepr()` ({@link StarlarkReprable}), `starlarkEquals(y)` ({@link StarlarkEquatable}),
 * `starlarkTruth()`, `starlarkCompare(y)`, `starlarkIterate()` ({@link StarlarkIterable}),
 * `starlarkLen()` ({@link StarlarkSized}), `starlarkIndex(i)` ({@link StarlarkIndexable}),
 * `starlarkSetIndex(i, v)`, `starlarkBinary(op, y, side)` ({@link StarlarkHasBinary}),
 * `starlarkUnary(op)` ({@link StarlarkHasUnary}), `freeze()` ({@link Freezable}) and
 * `starlarkAttr(name)`/`starlarkAttrNames()` ({@link StarlarkHasAttrs}).
 *
 * @module
 */
import { lookupMethod, methodNames } from "../methods/mod.ts";
import { nearest as nearestName } from "../resolve/spell.ts";
import {
  Builtin,
  Dict,
  EvalError,
  List,
  Module,
  NoSuchAttrError,
  StarSet,
  Tuple,
  typeName,
} from "./value.ts";
import type { Thread, Value } from "./value.ts";

export { binary, concatStrings, repeatElems, repeatString } from "./ops_binary.ts";
export type { StarlarkHasBinary } from "./ops_binary.ts";
export { compare, COMPARE_LIMIT, compareValues, equals, truth } from "./ops_compare.ts";
export type { CompareOp, StarlarkEquatable } from "./ops_compare.ts";
export { getIndex, isHashable, iterate, len, setIndex, slice, tryIterate } from "./ops_index.ts";
export type { StarlarkIndexable, StarlarkIterable, StarlarkSized, ValueIterator } from "./ops_index.ts";
export { quote, repr, str } from "./ops_repr.ts";
export type { StarlarkReprable } from "./ops_repr.ts";
export { unary } from "./ops_unary.ts";
export type { StarlarkHasUnary } from "./ops_unary.ts";

/** A host value with fields (`x.name`). */
export interface StarlarkHasAttrs {
  /** The attribute's value, or `undefined` when there is none. */
  starlarkAttr(name: string): Value | undefined;
  /** All attribute names. */
  starlarkAttrNames(): string[];
}

/** A host value that has mutable state to freeze. */
export interface Freezable {
  /** Freezes the value and what it references. */
  freeze(): void;
}

/** `x.name`: fields, module members and bound methods. */
export function getAttr(_thread: Thread, x: Value, name: string): Value {
  if (x instanceof Module) {
    const v = x.members.get(name);
    if (v !== undefined) return v;
  } else {
    const fn = lookupMethod(x, name);
    if (fn !== undefined) return new Builtin(name, (t, a, k) => fn(t, x, a, k), x);
    const attr = (x as Partial<StarlarkHasAttrs> | null)?.starlarkAttr;
    if (typeof attr === "function") {
      let v: Value | undefined;
      try {
        v = attr.call(x, name);
      } catch (e) {
        // A host value's own "no such field" message still gets the spelling hint, like the reference.
        if (!(e instanceof NoSuchAttrError)) throw e;
        throw new EvalError(withSpellingHint(e.message, name, x));
      }
      if (v !== undefined) return v;
    }
  }
  throw new EvalError(withSpellingHint(`${typeName(x)} has no .${name} field or method`, name, x));
}

/** Appends the reference's `(did you mean .x?)` hint for a missing attribute `name` of `x`. */
export function withSpellingHint(msg: string, name: string, x: Value): string {
  const near = nearest(name, attrNames(x));
  return near === undefined ? msg : `${msg} (did you mean .${near}?)`;
}

/** Names of `x`'s attributes, sorted (`dir(x)`). */
export function attrNames(x: Value): string[] {
  if (x instanceof Module) return [...x.members.keys()].sort();
  const names = methodNames(x);
  const own = (x as Partial<StarlarkHasAttrs> | null)?.starlarkAttrNames;
  if (typeof own === "function") {
    const all = new Set([...names, ...own.call(x)]);
    return [...all].sort();
  }
  return names;
}

/** Freezes `x` and everything reachable from it. */
export function freeze(x: Value): void {
  // Iterative, so that deeply nested values cannot exhaust the JS stack.
  const stack: Value[] = [x];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (v instanceof List) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const e of v.elems) if (typeof e === "object" && e !== null) stack.push(e);
    } else if (v instanceof Tuple) {
      for (const e of v.elems) if (typeof e === "object" && e !== null) stack.push(e);
    } else if (v instanceof Dict) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const e of v.map.values()) stack.push(e.key, e.value);
    } else if (v instanceof StarSet) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const e of v.map.values()) if (typeof e === "object" && e !== null) stack.push(e);
    } else if (v instanceof Builtin) {
      if (v.receiver !== undefined) stack.push(v.receiver);
    } else {
      const f = (v as Partial<Freezable>).freeze;
      if (typeof f === "function") f.call(v);
    }
  }
}

/**
 * The candidate closest to `x` for a "did you mean" hint, like the reference: case and underscores are
 * ignored, and at most half of the name may differ. `undefined` when none is close enough.
 */
export function nearest(x: string, candidates: readonly string[]): string | undefined {
  return nearestName(x, candidates) || undefined;
}
