/**
 * Starlark int arithmetic over the shared representation: a JS `number` when the value is a safe
 * integer, otherwise a `bigint` (see {@link normInt}). Every function returns a normalized int and never
 * returns `-0`. Results are computed on numbers when exact and promoted to bigint only on overflow.
 *
 * Also holds the reference's int conversions with their exact error messages (`AsInt32`,
 * `NumberToInt`, int → float).
 *
 * @module
 */
import { EvalError, Float, normInt, typeName } from "./value.ts";
import type { Value } from "./value.ts";
import { intBounded } from "./quote_bounded.ts";

/** A Starlark int. */
export type Int = number | bigint;

const MIN_INT32 = -2147483648;
const MAX_INT32 = 2147483647;

/** `x + y`. */
export function intAdd(x: Int, y: Int): Int {
  if (typeof x === "number" && typeof y === "number") {
    const r = x + y;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(BigInt(x) + BigInt(y));
}

/** `x - y`. */
export function intSub(x: Int, y: Int): Int {
  if (typeof x === "number" && typeof y === "number") {
    const r = x - y;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(BigInt(x) - BigInt(y));
}

/** `x * y`. */
export function intMul(x: Int, y: Int): Int {
  if (typeof x === "number" && typeof y === "number") {
    const r = x * y;
    // Rounding is monotonic, so a true product outside the safe range never rounds into it.
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
  }
  return normInt(BigInt(x) * BigInt(y));
}

/** `x // y` (floored); `y` must be non-zero. */
export function intFloorDiv(x: Int, y: Int): Int {
  if (typeof x === "number" && typeof y === "number") {
    // `%` is exact on doubles, so (x - rem) / y is an exact integer division.
    const rem = x % y;
    let q = (x - rem) / y;
    if (rem !== 0 && (rem < 0) !== (y < 0)) q -= 1;
    if (Number.isSafeInteger(q)) return q === 0 ? 0 : q;
  }
  const bx = BigInt(x), by = BigInt(y);
  let q = bx / by;
  if ((bx % by !== 0n) && ((bx < 0n) !== (by < 0n))) q -= 1n;
  return normInt(q);
}

/** `x % y` with the sign of `y`; `y` must be non-zero. */
export function intMod(x: Int, y: Int): Int {
  if (typeof x === "number" && typeof y === "number") {
    let r = x % y;
    if (r !== 0 && (r < 0) !== (y < 0)) r += y;
    return r === 0 ? 0 : r;
  }
  const bx = BigInt(x), by = BigInt(y);
  let r = bx % by;
  if (r !== 0n && (r < 0n) !== (by < 0n)) r += by;
  return normInt(r);
}

/** `-x`. */
export function intNeg(x: Int): Int {
  if (typeof x === "number") return x === 0 ? 0 : -x; // the safe range is symmetric
  return normInt(-x);
}

/** `~x`. */
export function intNot(x: Int): Int {
  if (typeof x === "number") {
    const r = -x - 1;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(-BigInt(x) - 1n);
}

function isInt32(x: Int): x is number {
  return typeof x === "number" && (x | 0) === x;
}

/** `x & y`. */
export function intAnd(x: Int, y: Int): Int {
  if (isInt32(x) && isInt32(y)) return x & y;
  return normInt(BigInt(x) & BigInt(y));
}

/** `x | y`. */
export function intOr(x: Int, y: Int): Int {
  if (isInt32(x) && isInt32(y)) return x | y;
  return normInt(BigInt(x) | BigInt(y));
}

/** `x ^ y`. */
export function intXor(x: Int, y: Int): Int {
  if (isInt32(x) && isInt32(y)) return x ^ y;
  return normInt(BigInt(x) ^ BigInt(y));
}

/** `x << n` for 0 ≤ n < 512 (the caller checks the count). */
export function intLsh(x: Int, n: number): Int {
  if (typeof x === "number" && n < 53) {
    const r = x * 2 ** n; // scaling by a power of two is exact until it leaves the safe range
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(BigInt(x) << BigInt(n));
}

/** `x >> n` for n ≥ 0 (floored, like Python). */
export function intRsh(x: Int, n: number): Int {
  if (typeof x === "number") {
    if (n >= 53) return x < 0 ? -1 : 0;
    const r = Math.floor(x / 2 ** n);
    return r === 0 ? 0 : r;
  }
  return normInt(x >> BigInt(n));
}

/** Sign of an int: -1, 0 or 1. */
export function intSign(x: Int): number {
  return x > 0 ? 1 : x < 0 ? -1 : 0;
}

/** Three-way comparison of two ints. */
export function intCmp(x: Int, y: Int): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The nearest float to `x` (ties to even, like Go's `big.Float`).
 * @throws {EvalError} "int too large to convert to float" when it would be infinite.
 */
export function intToFloat(x: Int): number {
  if (typeof x === "number") return x;
  const f = Number(x);
  if (!Number.isFinite(f)) throw new EvalError("int too large to convert to float");
  return f;
}

/**
 * Three-way exact comparison of an int with a float, NaN being greater than everything (the reference
 * orders floats totally with NaN above +Inf).
 */
export function intFloatCmp(x: Int, f: number): number {
  if (f !== f) return -1;
  if (typeof x === "number") return x < f ? -1 : x > f ? 1 : 0; // safe ints convert exactly
  if (f === Infinity) return -1;
  if (f === -Infinity) return 1;
  if (Number.isInteger(f)) {
    const bf = BigInt(f);
    return x < bf ? -1 : x > bf ? 1 : 0;
  }
  // f is not integral, so it lies strictly between floor(f) and floor(f) + 1.
  const fl = BigInt(Math.floor(f));
  return x > fl ? 1 : -1;
}

/** Whether `v` is an int in the reference's small-int (int32) range. */
export function isSmallInt(v: Value): v is number {
  return typeof v === "number" && v >= MIN_INT32 && v <= MAX_INT32;
}

/**
 * The reference's `AsInt32` error message for `v`, or `undefined` when `v` is an int32.
 * Messages: "got T, want int" or "N out of range".
 */
export function int32Error(v: Value): string | undefined {
  if (typeof v === "number") return v >= MIN_INT32 && v <= MAX_INT32 ? undefined : `${v} out of range`;
  if (typeof v === "bigint") return `${intBounded(v)} out of range`;
  return `got ${typeName(v)}, want int`;
}

/**
 * `AsInt32`: the value of an int in the int32 range.
 * @throws {EvalError} "got T, want int" or "N out of range".
 */
export function asInt32(v: Value): number {
  if (typeof v === "number" && v >= MIN_INT32 && v <= MAX_INT32) return v;
  throw new EvalError(int32Error(v)!);
}

/**
 * `NumberToInt`: an int unchanged, a float truncated toward zero.
 * @throws {EvalError} "cannot convert float infinity to integer", "cannot convert float NaN to integer",
 *   "cannot convert T to int".
 */
export function numberToInt(v: Value): Int {
  if (typeof v === "number" || typeof v === "bigint") return v;
  if (v instanceof Float) return floatToInt(v.value);
  throw new EvalError(`cannot convert ${typeName(v)} to int`);
}

/**
 * Truncates a float toward zero.
 * @throws {EvalError} for infinities and NaN, with the reference's messages.
 */
export function floatToInt(f: number): Int {
  if (f !== f) throw new EvalError("cannot convert float NaN to integer");
  if (f === Infinity || f === -Infinity) throw new EvalError("cannot convert float infinity to integer");
  const t = Math.trunc(f);
  if (Number.isSafeInteger(t)) return t === 0 ? 0 : t;
  return normInt(BigInt(t));
}

/** Decimal text of an int (as the reference prints it). */
export function intToString(x: Int): string {
  return typeof x === "number" ? String(x) : x.toString();
}
