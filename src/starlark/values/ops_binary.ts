/**
 * Binary operators (everything but the short-circuit `and`/`or`) with the reference implementation's
 * semantics and error messages, and with the work they do charged to the thread's budgets.
 *
 * @module
 */
import { chargeStringCompare, compare, comparePrimitive, equals, truth } from "./ops_compare.ts";
import { interpolate } from "./percent_format.ts";
import { isTooDeepKey, tooDeepError } from "./dict.ts";
import {
  int32Error,
  intAdd,
  intAnd,
  intFloorDiv,
  intLsh,
  intMod,
  intMul,
  intOr,
  intRsh,
  intSub,
  intToFloat,
  intXor,
  numberToInt,
} from "./int.ts";
import type { Int } from "./int.ts";
import { chargeDiv, chargeMul, chargeRightShift, chargeShift, linearResult } from "./int_cost.ts";
import type { BinaryOp } from "./operators.ts";
import {
  Bytes,
  Dict,
  EvalError,
  Float,
  List,
  Range,
  ResourceError,
  StarSet,
  Tuple,
  typeName,
} from "./value.ts";
import type { DictEntry, Thread, Value } from "./value.ts";
import {
  chargeCompactKeys,
  chargeInserts,
  chargeKeyHash,
  chargeSlots,
  copyMap,
  eachEntry,
  ENTRY_BYTES,
  lookupSteps,
  POLL_CHUNK,
  repeatArray,
  SET_ENTRY_BYTES,
  SLOTS_PER_STEP,
} from "./ops_bulk.ts";
import { countMatches, findIndex } from "./ops_search.ts";
import { intBounded } from "./quote_bounded.ts";

/** Largest repetition result the reference allows (`maxAlloc`, in elements or bytes). */
const MAX_ALLOC = 1 << 30;
/** V8's maximum string length (one-byte strings), rounded down. */
export const MAX_STRING_LENGTH = (1 << 29) - 24;

function isInt(v: Value): v is Int {
  return typeof v === "number" || typeof v === "bigint";
}

function unknown(op: BinaryOp, x: Value, y: Value): EvalError {
  const o = op === "not in" ? "in" : op;
  return new EvalError(`unknown binary op: ${typeName(x)} ${o} ${typeName(y)}`);
}

/**
 * Implemented by host values that define binary operators (the reference's `HasBinary`). `side` tells
 * whether the value is the left or the right operand. Return `undefined` when the operation is not
 * supported, so that the other operand gets its chance and the usual error follows.
 */
export interface StarlarkHasBinary {
  /** `this op y` (side "left") or `y op this` (side "right"). */
  starlarkBinary(op: BinaryOp, y: Value, side: "left" | "right"): Value | undefined;
}

function binaryHook(v: Value): StarlarkHasBinary["starlarkBinary"] | undefined {
  const h = (v as Partial<StarlarkHasBinary> | null)?.starlarkBinary;
  return typeof h === "function" ? h : undefined;
}

/** Gives host values a chance to implement an operator the built-in types do not support. */
function hostBinary(op: BinaryOp, x: Value, y: Value): Value {
  const hx = binaryHook(x);
  if (hx !== undefined) {
    const z = hx.call(x, op, y, "left");
    if (z !== undefined) return z;
  }
  const hy = binaryHook(y);
  if (hy !== undefined) {
    const z = hy.call(y, op, x, "right");
    if (z !== undefined) return z;
  }
  throw unknown(op, x, y);
}

/** The memory error for a string result of `n` bytes, beyond what a JS string can hold. */
export function tooLongString(n: number): ResourceError {
  return new ResourceError("memory", `Starlark computation cancelled: string of ${n} bytes is too large`);
}

/** Charges the copying of `n` bytes (1 step per 64 bytes). */
function chargeBytes(thread: Thread, n: number): void {
  if (n >= 64) thread.charge(n >>> 6);
}

/** Concatenation of two binary strings, charged to the budgets. */
export function concatStrings(thread: Thread, x: string, y: string): string {
  const n = x.length + y.length;
  if (n > MAX_STRING_LENGTH) throw tooLongString(n);
  // V8 builds a rope in O(1), but the first access that needs flat text (indexing, hashing, a method)
  // copies the whole result: so the whole result is charged now, as the reference copies it.
  if (n >= 64) {
    thread.allocate(n);
    thread.charge(n >>> 6);
  }
  return x + y;
}

/**
 * `s * n` for a binary string (string or bytes content), with the reference's limits and messages.
 * The memory is charged before the result is built.
 */
export function repeatString(thread: Thread, s: string, n: Int): string {
  if (s.length === 0) return "";
  const err = int32Error(n);
  if (err !== undefined) throw new EvalError(`repeat count ${intBounded(n)} too large`);
  const i = n as number;
  if (i < 1) return "";
  const size = s.length * i;
  if (size >= MAX_ALLOC) throw new EvalError(`excessive repeat (${s.length} * ${i} elements)`);
  thread.allocate(size);
  chargeBytes(thread, size);
  if (size > MAX_STRING_LENGTH) throw tooLongString(size);
  return s.repeat(i);
}

/** `elems * n` for lists and tuples, with the reference's limits and messages. Returns a new array. */
export function repeatElems(thread: Thread, elems: Value[], n: Int): Value[] {
  if (elems.length === 0) return [];
  const err = int32Error(n);
  if (err !== undefined) throw new EvalError(`repeat count ${intBounded(n)} too large`);
  const i = n as number;
  if (i < 1) return [];
  const size = elems.length * i;
  if (size >= MAX_ALLOC) throw new EvalError(`excessive repeat (${elems.length} * ${i} elements)`);
  chargeSlots(thread, size);
  return repeatArray(thread, elems, i);
}

function concatElems(thread: Thread, x: Value[], y: Value[]): Value[] {
  chargeSlots(thread, x.length + y.length);
  return x.concat(y);
}

function floatOf(v: Int | Float): number {
  return v instanceof Float ? v.value : intToFloat(v);
}

function floatMod(x: number, y: number): number {
  let z = x % y;
  if ((x < 0) !== (y < 0) && z !== 0) z += y;
  return z;
}

/** Binary operator other than `and`/`or`. */
export function binary(thread: Thread, op: BinaryOp, x: Value, y: Value): Value {
  // Fast paths: small ints and strings.
  if (typeof x === "number" && typeof y === "number") {
    switch (op) {
      case "+": {
        const r = x + y;
        if (Number.isSafeInteger(r)) return r;
        return intAdd(x, y);
      }
      case "-": {
        const r = x - y;
        if (Number.isSafeInteger(r)) return r;
        return intSub(x, y);
      }
      case "*": {
        const r = x * y;
        if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
        return intMul(x, y);
      }
      case "//":
        if (y !== 0) return intFloorDiv(x, y);
        break;
      case "%":
        if (y !== 0) return intMod(x, y);
        break;
      case "<":
      case "<=":
      case ">":
      case ">=":
        return comparePrimitive(op, x, y);
      case "==":
        return x === y;
      case "!=":
        return x !== y;
    }
  } else if (typeof x === "string" && typeof y === "string") {
    switch (op) {
      case "+":
        return x.length + y.length < 64 ? x + y : concatStrings(thread, x, y);
      case "==":
        // Long strings of equal length may be read in full.
        if (x.length === y.length) chargeStringCompare(thread, x, y);
        return x === y;
      case "!=":
        if (x.length === y.length) chargeStringCompare(thread, x, y);
        return x !== y;
      case "in":
      case "not in":
        return (findIndex(thread, y, x) >= 0) === (op === "in");
    }
  }
  switch (op) {
    case "==":
      return equals(x, y, thread);
    case "!=":
      return !equals(x, y, thread);
    case "<":
    case "<=":
    case ">":
    case ">=":
      return compare(op, x, y, thread);
    case "in":
      return contains(thread, y, x);
    case "not in":
      return !contains(thread, y, x);
    case "or":
      return truth(x) ? x : y;
    case "and":
      return truth(x) ? y : x;
    case "+":
      return plus(thread, x, y);
    case "-":
      return minus(thread, x, y);
    case "*":
      return star(thread, x, y);
    case "/":
      return slash(x, y);
    case "//":
      return floorDiv(thread, x, y);
    case "%":
      return percent(thread, x, y);
    case "|":
      return pipe(thread, x, y);
    case "&":
      return amp(thread, x, y);
    case "^":
      return circumflex(thread, x, y);
    case "<<":
    case ">>":
      return shift(thread, op, x, y);
  }
  return hostBinary(op, x, y);
}

function plus(thread: Thread, x: Value, y: Value): Value {
  if (isInt(x)) {
    if (isInt(y)) return linearResult(thread, intAdd(x, y));
    if (y instanceof Float) return new Float(intToFloat(x) + y.value);
  } else if (x instanceof Float) {
    if (y instanceof Float) return new Float(x.value + y.value);
    if (isInt(y)) return new Float(x.value + intToFloat(y));
  } else if (typeof x === "string") {
    if (typeof y === "string") return concatStrings(thread, x, y);
  } else if (x instanceof List) {
    if (y instanceof List) return new List(concatElems(thread, x.elems, y.elems));
  } else if (x instanceof Tuple) {
    if (y instanceof Tuple) return new Tuple(concatElems(thread, x.elems, y.elems));
  } else if (x instanceof Bytes) {
    if (y instanceof Bytes) return new Bytes(concatStrings(thread, x.data, y.data));
  }
  return hostBinary("+", x, y);
}

function minus(thread: Thread, x: Value, y: Value): Value {
  if (isInt(x)) {
    if (isInt(y)) return linearResult(thread, intSub(x, y));
    if (y instanceof Float) return new Float(intToFloat(x) - y.value);
  } else if (x instanceof Float) {
    if (y instanceof Float) return new Float(x.value - y.value);
    if (isInt(y)) return new Float(x.value - intToFloat(y));
  } else if (x instanceof StarSet) {
    if (y instanceof StarSet) return setDifference(thread, x, y);
  }
  return hostBinary("-", x, y);
}

function star(thread: Thread, x: Value, y: Value): Value {
  if (isInt(x)) {
    if (isInt(y)) {
      return chargeMul(thread, x, y) ? linearResult(thread, intMul(x, y)) : intMul(x, y);
    }
    if (y instanceof Float) return new Float(intToFloat(x) * y.value);
    if (typeof y === "string") return repeatString(thread, y, x);
    if (y instanceof Bytes) return new Bytes(repeatString(thread, y.data, x));
    if (y instanceof List) return new List(repeatElems(thread, y.elems, x));
    if (y instanceof Tuple) return new Tuple(repeatElems(thread, y.elems, x));
  } else if (x instanceof Float) {
    if (y instanceof Float) return new Float(x.value * y.value);
    if (isInt(y)) return new Float(x.value * intToFloat(y));
  } else if (isInt(y)) {
    if (typeof x === "string") return repeatString(thread, x, y);
    if (x instanceof Bytes) return new Bytes(repeatString(thread, x.data, y));
    if (x instanceof List) return new List(repeatElems(thread, x.elems, y));
    if (x instanceof Tuple) return new Tuple(repeatElems(thread, x.elems, y));
  }
  return hostBinary("*", x, y);
}

function slash(x: Value, y: Value): Value {
  if ((isInt(x) || x instanceof Float) && (isInt(y) || y instanceof Float)) {
    const xf = floatOf(x), yf = floatOf(y);
    if (yf === 0) throw new EvalError("floating-point division by zero");
    return new Float(xf / yf);
  }
  return hostBinary("/", x, y);
}

function floorDiv(thread: Thread, x: Value, y: Value): Value {
  if (isInt(x) && isInt(y)) {
    if (y === 0) throw new EvalError("floored division by zero");
    chargeDiv(thread, x, y);
    return intFloorDiv(x, y);
  }
  if ((isInt(x) || x instanceof Float) && (isInt(y) || y instanceof Float)) {
    const xf = floatOf(x), yf = floatOf(y);
    if (yf === 0) throw new EvalError("floored division by zero");
    return new Float(Math.floor(xf / yf));
  }
  return hostBinary("//", x, y);
}

/** Steps per `%` conversion of a format string (a conversion and a concatenation). */
const STEPS_PER_CONVERSION = 6;

/** `format % args`, charged per conversion before it runs (and by `interpolate` for its result). */
function formatPercent(thread: Thread, format: string, args: Value): string {
  if (format.length >= 64) thread.charge(STEPS_PER_CONVERSION * countMatches(thread, format, "%"));
  else thread.charge(STEPS_PER_CONVERSION);
  return interpolate(format, args, thread);
}

function percent(thread: Thread, x: Value, y: Value): Value {
  if (typeof x === "string") return formatPercent(thread, x, y);
  if (isInt(x)) {
    if (isInt(y)) {
      if (y === 0) throw new EvalError("integer modulo by zero");
      chargeDiv(thread, x, y);
      return intMod(x, y);
    }
    if (y instanceof Float) {
      const xf = intToFloat(x);
      if (y.value === 0) throw new EvalError("floating-point modulo by zero");
      return new Float(floatMod(xf, y.value));
    }
  } else if (x instanceof Float) {
    if (y instanceof Float) {
      if (y.value === 0) throw new EvalError("floating-point modulo by zero");
      return new Float(floatMod(x.value, y.value));
    }
    if (isInt(y)) {
      if (y === 0) throw new EvalError("floating-point modulo by zero");
      return new Float(floatMod(x.value, intToFloat(y)));
    }
  }
  return hostBinary("%", x, y);
}

function copyDictInto(thread: Thread, z: Dict, src: Dict): void {
  chargeInserts(thread, src.size, z.size + src.size, ENTRY_BYTES);
  if (z.size > 0) chargeCompactKeys(thread, src);
  if (z.assignCompact(src, "stop")) return;
  // The reference ignores the error of an insertion whose key comparison fails (a key too deep to
  // compare), and that insertion ends the copy.
  let failed = false;
  eachEntry(thread, src.map, (k, e) => {
    if (failed) return;
    const cur = z.map.get(k);
    if (cur === undefined) z.map.set(k, { key: e.key, value: e.value } as DictEntry);
    else if (isTooDeepKey(k)) failed = true;
    else cur.value = e.value;
  });
}

function cloneSet(thread: Thread, s: StarSet, extra: number): StarSet {
  const z = new StarSet();
  chargeInserts(thread, s.size, s.size + extra, SET_ENTRY_BYTES);
  copyMap(thread, z.map, s.map);
  return z;
}

function pipe(thread: Thread, x: Value, y: Value): Value {
  if (isInt(x)) {
    if (isInt(y)) return linearResult(thread, intOr(x, y));
  } else if (x instanceof Dict) {
    if (y instanceof Dict) {
      const z = new Dict();
      copyDictInto(thread, z, x);
      copyDictInto(thread, z, y);
      return z;
    }
  } else if (x instanceof StarSet) {
    if (y instanceof StarSet) {
      const z = cloneSet(thread, x, y.size);
      chargeInserts(thread, y.size, z.size + y.size, SET_ENTRY_BYTES);
      eachEntry(thread, y.map, (k, v) => {
        if (!z.map.has(k)) z.map.set(k, v);
        else if (isTooDeepKey(k)) throw tooDeepError();
      });
      return z;
    }
  }
  return hostBinary("|", x, y);
}

function amp(thread: Thread, x: Value, y: Value): Value {
  if (isInt(x)) {
    if (isInt(y)) return linearResult(thread, intAnd(x, y));
  } else if (x instanceof StarSet) {
    if (y instanceof StarSet) {
      // The reference iterates the right operand, so the result follows its order.
      const z = new StarSet();
      thread.charge(y.size * lookupSteps(x.size));
      chargeInserts(thread, Math.min(x.size, y.size), Math.min(x.size, y.size), SET_ENTRY_BYTES);
      eachEntry(thread, y.map, (k, v) => {
        if (!x.map.has(k)) return;
        if (isTooDeepKey(k)) throw tooDeepError();
        z.map.set(k, v);
      });
      return z;
    }
  }
  return hostBinary("&", x, y);
}

function circumflex(thread: Thread, x: Value, y: Value): Value {
  if (isInt(x)) {
    if (isInt(y)) return linearResult(thread, intXor(x, y));
  } else if (x instanceof StarSet) {
    if (y instanceof StarSet) {
      const z = cloneSet(thread, x, y.size);
      chargeInserts(thread, y.size, z.size + y.size, SET_ENTRY_BYTES);
      eachEntry(thread, y.map, (k, v) => {
        if (!z.map.has(k)) z.map.set(k, v);
        else if (isTooDeepKey(k)) throw tooDeepError();
        else z.map.delete(k);
      });
      return z;
    }
  }
  return hostBinary("^", x, y);
}

/** `x - y` for sets. */
function setDifference(thread: Thread, x: StarSet, y: StarSet): StarSet {
  const z = cloneSet(thread, x, 0);
  thread.charge(y.size * lookupSteps(z.size));
  eachEntry(thread, y.map, (k) => {
    if (z.map.has(k) && isTooDeepKey(k)) throw tooDeepError();
    z.map.delete(k);
  });
  return z;
}

function shift(thread: Thread, op: "<<" | ">>", x: Value, y: Value): Value {
  if (!isInt(x)) return hostBinary(op, x, y);
  const err = int32Error(y);
  if (err !== undefined) throw new EvalError(err);
  const n = y as number;
  if (n < 0) throw new EvalError(`negative shift count: ${n}`);
  if (op === "<<") {
    if (n >= 512) throw new EvalError(`shift count too large: ${n}`);
    chargeShift(thread, x, n);
    return intLsh(x, n);
  }
  chargeRightShift(thread, x, n);
  return intRsh(x, n);
}

/** `needle in container` (`not in` negates the result). */
function contains(thread: Thread, container: Value, needle: Value): boolean {
  if (typeof container === "string") {
    if (typeof needle !== "string") {
      throw new EvalError(`'in <string>' requires string as left operand, not ${typeName(needle)}`);
    }
    return findIndex(thread, container, needle) >= 0;
  }
  if (container instanceof List || container instanceof Tuple) {
    const elems = container.elems;
    for (let i = 0; i < elems.length; i += POLL_CHUNK) {
      const end = Math.min(elems.length, i + POLL_CHUNK);
      thread.charge(Math.ceil((end - i) / SLOTS_PER_STEP));
      for (let j = i; j < end; j++) if (equals(elems[j], needle, thread)) return true;
    }
    return false;
  }
  if (container instanceof Dict) {
    chargeKeyHash(thread, needle);
    try {
      return container.get(needle) !== undefined;
    } catch {
      return false; // the reference ignores lookup errors (unhashable keys) here
    }
  }
  if (container instanceof StarSet) {
    chargeKeyHash(thread, needle);
    try {
      return container.has(needle);
    } catch (e) {
      throw e instanceof EvalError ? e : new EvalError((e as Error).message);
    }
  }
  if (container instanceof Bytes) {
    if (needle instanceof Bytes) return findIndex(thread, container.data, needle.data) >= 0;
    if (isInt(needle)) {
      if (typeof needle !== "number" || needle < 0 || needle > 255) {
        throw new EvalError(
          `int in bytes: ${intBounded(needle)} out of range (want value in unsigned 8-bit range)`,
        );
      }
      return findIndex(thread, container.data, String.fromCharCode(needle)) >= 0;
    }
    throw new EvalError(`'in bytes' requires bytes or int as left operand, not ${typeName(needle)}`);
  }
  if (container instanceof Range) {
    let i: Int;
    try {
      i = numberToInt(needle);
    } catch {
      throw new EvalError(`'in <range>' requires integer as left operand, not ${typeName(needle)}`);
    }
    return container.contains(i);
  }
  return truth(hostBinary("in", needle, container));
}
