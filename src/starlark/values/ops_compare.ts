/**
 * Truth, equality and ordering with the reference implementation's rules:
 *
 * - ints and floats compare exactly with each other (also bigints against floats); floats are totally
 *   ordered with NaN above +Inf and equal to itself;
 * - strings and bytes compare bytewise (binary strings make JS `<` bytewise);
 * - lists and tuples compare lexicographically; dicts, ranges and other values support only `==`/`!=`;
 *   sets also support the subset/superset orderings;
 * - values of different types are unequal, and ordering them fails with `T < U not implemented`;
 * - recursive comparison is limited to depth 10 like the reference (`comparison exceeded maximum
 *   recursion depth`), which also stops cyclic values.
 *
 * @module
 */
import { intFloatCmp } from "./int.ts";
import { Bytes, Dict, EvalError, Float, hashKey, List, Range, StarSet, Tuple, typeName } from "./value.ts";
import type { Thread, Value } from "./value.ts";
import { chargeKeyCompare, lookupSteps, SLOTS_PER_STEP } from "./ops_bulk.ts";
import { isTooDeepKey } from "./dict.ts";

/** The reference's `CompareLimit`: maximum nesting depth of a recursive comparison. */
export const COMPARE_LIMIT = 10;

/** An ordered-comparison operator. */
export type CompareOp = "<" | "<=" | ">" | ">=";

/** Implemented by host values with their own equality (otherwise equality is identity). */
export interface StarlarkEquatable {
  /** Whether this value equals `y` (a value of the same type name). */
  starlarkEquals(y: Value): boolean;
}

/** `bool(x)`. */
export function truth(x: Value): boolean {
  switch (typeof x) {
    case "boolean":
      return x;
    case "number":
      return x !== 0;
    case "string":
      return x.length > 0;
    case "bigint":
      return true; // bigints are never zero (normalized)
  }
  if (x === null) return false;
  if (x instanceof List || x instanceof Tuple) return x.elems.length > 0;
  if (x instanceof Dict || x instanceof StarSet) return x.size > 0;
  if (x instanceof Float) return x.value !== 0;
  if (x instanceof Bytes) return x.data.length > 0;
  if (x instanceof Range) return x.length > 0;
  const t = (x as { starlarkTruth?: () => boolean }).starlarkTruth;
  return typeof t === "function" ? t.call(x) : true;
}

/** `x == y`. Throws EvalError on excessive recursion. The optional thread is charged for long comparisons. */
export function equals(x: Value, y: Value, thread?: Thread): boolean {
  if (typeof x === "string") {
    // Strings of different lengths compare in O(1); equal lengths may read both strings.
    if (thread !== undefined && typeof y === "string" && x.length === y.length) {
      chargeStringCompare(thread, x, y);
    }
    return x === y;
  }
  if (typeof x === "number") {
    if (typeof y === "number") return x === y;
    if (y instanceof Float) return x === y.value;
    return false;
  }
  if (typeof x !== "object" || x === null) {
    return x === y || (typeof x === "bigint" && y instanceof Float && intFloatCmp(x, y.value) === 0);
  }
  return equalsDepth(x, y, COMPARE_LIMIT, thread);
}

function depthError(): EvalError {
  return new EvalError("comparison exceeded maximum recursion depth");
}

function equalsDepth(x: Value, y: Value, depth: number, thread: Thread | undefined): boolean {
  if (depth < 1) throw depthError();
  switch (typeof x) {
    case "string":
      if (thread !== undefined && typeof y === "string" && x.length === y.length) {
        chargeStringCompare(thread, x, y);
      }
      return x === y;
    case "boolean":
      return x === y;
    case "number":
    case "bigint":
      if (typeof y === "number" || typeof y === "bigint") return x === y;
      return y instanceof Float && intFloatCmp(x, y.value) === 0;
  }
  if (x === null) return y === null;
  if (x instanceof Float) {
    if (y instanceof Float) return x.value === y.value || (x.value !== x.value && y.value !== y.value);
    if (typeof y === "number" || typeof y === "bigint") return intFloatCmp(y, x.value) === 0;
    return false;
  }
  if (x instanceof List) return y instanceof List && seqEqual(x.elems, y.elems, depth, thread);
  if (x instanceof Tuple) return y instanceof Tuple && seqEqual(x.elems, y.elems, depth, thread);
  if (x instanceof Dict) return y instanceof Dict && dictEqual(x, y, depth, thread);
  if (x instanceof Bytes) {
    if (!(y instanceof Bytes)) return false;
    if (thread !== undefined) chargeStringCompare(thread, x.data, y.data);
    return x.data === y.data;
  }
  if (x instanceof StarSet) return y instanceof StarSet && setEqual(x, y, thread);
  if (x instanceof Range) return y instanceof Range && rangeEqual(x, y);
  if (typeof y !== "object" || y === null || typeName(x) !== typeName(y)) return false;
  const eq = (x as Partial<StarlarkEquatable>).starlarkEquals;
  return typeof eq === "function" ? eq.call(x, y) : x === y;
}

function seqEqual(x: Value[], y: Value[], depth: number, thread: Thread | undefined): boolean {
  const n = x.length;
  if (n !== y.length) return false;
  if (thread !== undefined && n > 64) thread.charge(Math.ceil(n / SLOTS_PER_STEP));
  for (let i = 0; i < n; i++) {
    const a = x[i], b = y[i];
    // Fast path for strings; at the last level the depth check must still fail like the reference.
    if (typeof a === "string" && depth > 1) {
      if (thread !== undefined && typeof b === "string" && a.length === b.length && a.length >= 64) {
        chargeStringCompare(thread, a, b);
      }
      if (a !== b) return false;
      continue;
    }
    if (!equalsDepth(a, b, depth - 1, thread)) return false;
  }
  return true;
}

/** Dicts up to this size are compared from copies of their entries (they may be in compact form). */
const SMALL_DICT = 8;

function dictEqual(x: Dict, y: Dict, depth: number, thread: Thread | undefined): boolean {
  if (x.size !== y.size) return false;
  // A lookup and a comparison of the values per entry.
  if (thread !== undefined && x.size > 64) thread.charge(x.size * (lookupSteps(x.size) + 2));
  if (x.size <= SMALL_DICT) {
    // Small dicts may be compact: by position and hash key, not through `map`, which would convert them.
    const ks = x.keys(), vs = x.valueList();
    for (let i = 0; i < ks.length; i++) {
      const hk = hashKey(ks[i]);
      if (thread !== undefined) chargeKeyCompare(thread, hk);
      const f = y.getByHash(hk);
      // The reference ignores a failed lookup (a key too deep to compare): not found, so not equal.
      if (f === undefined || isTooDeepKey(hk)) return false;
      if (!equalsDepth(vs[i], f, depth - 1, thread)) return false;
    }
    return true;
  }
  for (const [k, e] of x.map) {
    if (thread !== undefined) chargeKeyCompare(thread, k);
    const f = y.map.get(k);
    // The reference ignores a failed lookup (a key too deep to compare): not found, so not equal.
    if (f === undefined || isTooDeepKey(k)) return false;
    if (!equalsDepth(e.value, f.value, depth - 1, thread)) return false;
  }
  return true;
}

function setEqual(x: StarSet, y: StarSet, thread: Thread | undefined): boolean {
  if (x.size !== y.size) return false;
  if (thread !== undefined && x.size > 64) thread.charge(x.size * lookupSteps(x.size));
  // As for dicts, a lookup that fails (a key too deep to compare) is a key not found.
  for (const k of x.map.keys()) {
    if (thread !== undefined) chargeKeyCompare(thread, k);
    if (!y.map.has(k) || isTooDeepKey(k)) return false;
  }
  return true;
}

/** Two ranges are equal when they denote the same sequence. */
function rangeEqual(x: Range, y: Range): boolean {
  if (x.big === undefined && y.big === undefined) {
    if (x.length !== y.length) return false;
    if (x.length === 0) return true;
    if (x.start !== y.start) return false;
    return x.length === 1 || x.step === y.step;
  }
  const a = x.bounds(), b = y.bounds();
  if (a.length !== b.length) return false;
  if (a.length === 0n) return true;
  if (a.start !== b.start) return false;
  return a.length === 1n || a.step === b.step;
}

function notImplemented(op: string, x: Value, y: Value): EvalError {
  return new EvalError(`${typeName(x)} ${op} ${typeName(y)} not implemented`);
}

/** Evaluates a three-way result for an operator. */
function threeway(op: CompareOp, c: number): boolean {
  switch (op) {
    case "<":
      return c < 0;
    case "<=":
      return c <= 0;
    case ">":
      return c > 0;
    default:
      return c >= 0;
  }
}

function floatCmp(a: number, b: number): number {
  if (a > b) return 1;
  if (a < b) return -1;
  if (a === b) return 0;
  if (a === a) return -1; // b is NaN
  if (b === b) return 1; // a is NaN
  return 0;
}

/**
 * `x op y` for two small ints or two strings, where JS's own ordering is Starlark's: a number here is
 * never NaN (floats are boxed), and binary strings compare by UTF-8 byte like the reference.
 */
export function comparePrimitive<T extends number | string>(op: CompareOp, x: T, y: T): boolean {
  switch (op) {
    case "<":
      return x < y;
    case "<=":
      return x <= y;
    case ">":
      return x > y;
    default:
      return x >= y;
  }
}

/**
 * `x < y` etc. Throws EvalError `T < U not implemented` for unordered types and mixed types (other than
 * int/float), and on excessive recursion.
 */
export function compare(op: CompareOp, x: Value, y: Value, thread?: Thread): boolean {
  if (typeof x === "number" && typeof y === "number") return comparePrimitive(op, x, y);
  if (x instanceof Tuple && y instanceof Tuple) {
    // `(priority, item)` pairs (a heap, a sort key) usually differ in a leading int: decided there,
    // as seqCmp decides it (it charges nothing for tuples this short).
    const a = x.elems, b = y.elems;
    if (a.length > 0 && b.length > 0 && (a.length <= 64 || b.length <= 64)) {
      const p = a[0], q = b[0];
      if (typeof p === "number" && typeof q === "number" && p !== q) return comparePrimitive(op, p, q);
    }
  }
  if (typeof x === "string" && typeof y === "string") {
    if (thread !== undefined) chargeStringCompare(thread, x, y);
    return comparePrimitive(op, x, y);
  }
  if (x instanceof StarSet && y instanceof StarSet) {
    if (thread !== undefined) thread.charge(Math.min(x.size, y.size) * lookupSteps(Math.max(x.size, y.size)));
    return setCompare(op, x, y, thread);
  }
  return threeway(op, cmpDepth(op, x, y, COMPARE_LIMIT, thread));
}

/**
 * Charges the comparison of two long strings: the bytes of their common length (one step per 64), which
 * bounds what the comparison reads.
 */
export function chargeStringCompare(thread: Thread, x: string, y: string): void {
  const n = x.length < y.length ? x.length : y.length;
  if (n >= 64) thread.charge(n >>> 6);
}

function setCompare(op: CompareOp, x: StarSet, y: StarSet, thread: Thread | undefined): boolean {
  switch (op) {
    case "<":
      return x.size < y.size && isSubset(x, y, thread);
    case "<=":
      return x.size <= y.size && isSubset(x, y, thread);
    case ">":
      return x.size > y.size && isSubset(y, x, thread);
    default:
      return x.size >= y.size && isSubset(y, x, thread);
  }
}

function isSubset(x: StarSet, y: StarSet, thread: Thread | undefined): boolean {
  for (const k of x.map.keys()) {
    if (thread !== undefined) chargeKeyCompare(thread, k);
    if (!y.map.has(k)) return false;
    // The reference's lookup compares the keys, which fails for keys too deep to compare.
    if (isTooDeepKey(k)) throw depthError();
  }
  return true;
}

/**
 * Three-way comparison (negative, zero, positive) for `sorted`, `min` and `max`. Sets are ordered by
 * strict inclusion (0 when neither is a proper subset of the other).
 * Throws EvalError `T < U not implemented` when the values are not ordered.
 */
export function compareValues(x: Value, y: Value, thread?: Thread): number {
  if (typeof x === "number" && typeof y === "number") return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === "string" && typeof y === "string") {
    if (thread !== undefined) chargeStringCompare(thread, x, y);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (x instanceof StarSet && y instanceof StarSet) {
    return setCompare("<", x, y, thread) ? -1 : setCompare("<", y, x, thread) ? 1 : 0;
  }
  return cmpDepth("<", x, y, COMPARE_LIMIT, thread);
}

/** Three-way comparison; `op` names the operator in error messages. */
function cmpDepth(op: CompareOp, x: Value, y: Value, depth: number, thread: Thread | undefined): number {
  if (depth < 1) throw depthError();
  switch (typeof x) {
    case "number":
    case "bigint":
      if (typeof y === "number" || typeof y === "bigint") return x < y ? -1 : x > y ? 1 : 0;
      if (y instanceof Float) return intFloatCmp(x, y.value);
      throw notImplemented(op, x, y);
    case "string":
      if (typeof y === "string") {
        if (thread !== undefined) chargeStringCompare(thread, x, y);
        return x < y ? -1 : x > y ? 1 : 0;
      }
      throw notImplemented(op, x, y);
    case "boolean":
      if (typeof y === "boolean") return (x ? 1 : 0) - (y ? 1 : 0);
      throw notImplemented(op, x, y);
  }
  if (x instanceof Float) {
    if (y instanceof Float) return floatCmp(x.value, y.value);
    if (typeof y === "number" || typeof y === "bigint") return -intFloatCmp(y, x.value);
    throw notImplemented(op, x, y);
  }
  if (x instanceof List && y instanceof List) return seqCmp(op, x.elems, y.elems, depth, thread);
  if (x instanceof Tuple && y instanceof Tuple) return seqCmp(op, x.elems, y.elems, depth, thread);
  if (x instanceof Bytes && y instanceof Bytes) {
    if (thread !== undefined) chargeStringCompare(thread, x.data, y.data);
    return x.data < y.data ? -1 : x.data > y.data ? 1 : 0;
  }
  if (x instanceof StarSet && y instanceof StarSet) {
    return setCompare("<", x, y, thread) ? -1 : setCompare("<", y, x, thread) ? 1 : 0;
  }
  const cmp = (x as { starlarkCompare?: (y: Value) => number } | null)?.starlarkCompare;
  if (typeof cmp === "function" && y !== null && typeof y === "object" && typeName(x) === typeName(y)) {
    return cmp.call(x, y);
  }
  throw notImplemented(op, x, y);
}

function seqCmp(op: CompareOp, x: Value[], y: Value[], depth: number, thread: Thread | undefined): number {
  const n = Math.min(x.length, y.length);
  if (thread !== undefined && n > 64) thread.charge(Math.ceil(n / SLOTS_PER_STEP));
  for (let i = 0; i < n; i++) {
    if (!equalsDepth(x[i], y[i], depth - 1, thread)) return cmpDepth(op, x[i], y[i], depth - 1, thread);
  }
  return x.length - y.length;
}
