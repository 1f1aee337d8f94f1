/**
 * The cost model of big integers: what an operation on bigints charges to a thread's budgets before it
 * runs, the integer-size cap ({@link ThreadOptions.maxIntBits}), and decimal conversion in both directions
 * split into pieces with an interrupt poll between them.
 *
 * Why up front: one V8 BigInt operation cannot be interrupted, and its time grows faster than its input
 * (a product of two 2^20-bit ints takes ~5 ms, `toString()` of one ~50 ms). So the size of a product, a
 * shift or a conversion is predicted from the operands, refused when over the cap, and its steps and
 * bytes are charged before it is computed. Linear operations (`+ - & | ^`, negation) are charged just
 * after: their result has at most one bit more than an operand, and checking it once is cheaper than
 * checking both operands. With the default cap (2^18 bits, 32 KiB, 78,913 decimal digits) the slowest single BigInt
 * operation takes about a millisecond; the decimal conversions, which would take far longer in one call,
 * are split into sub-millisecond pieces (see {@link intToDecimal}).
 *
 * Calibration (Deno 2.9, V8 14, one core of the reference machine; a step is ~12 ns): a linear pass
 * (add, compare, measuring the length) over an n-limb int takes ~n ns; an n×m-limb product (n ≥ m)
 * ~n·√m·6 ns (Karatsuba and beyond); an n-by-m-limb division ~(n−m)·m·0.06 ns + n ns. The figures and
 * the table are in `docs/cost_model.md`.
 *
 * Ints below 2^256 are charged nothing beyond their operation's step: their size is bounded by that of
 * the operands like any other small allocation per step.
 *
 * @module
 */
import type { Int } from "./int.ts";
import { ResourceError } from "./errors.ts";
import type { Thread } from "./thread.ts";

/** Default of {@link ThreadOptions.maxIntBits}: 2^18 bits (32 KiB, 78,913 decimal digits). */
export const DEFAULT_MAX_INT_BITS = 1 << 18;

/** Ints below this in magnitude are charged nothing extra (2^256). */
const FREE_LIMIT = 1n << 256n;
const MINUS_FREE_LIMIT = -FREE_LIMIT;

/** Bytes of a bigint beyond its digits (the heap object's header). */
const BIGINT_HEADER_BYTES = 16;

/** Whether `x` is small enough to be charged nothing extra. */
function isFree(x: Int): boolean {
  // Two comparisons (~15 ns; V8 compares lengths first) are half the cost of Number(x).
  return typeof x === "number" || (x < FREE_LIMIT && x > MINUS_FREE_LIMIT);
}

/** The number of bits of `|x|` (0 for 0). Linear in the size of `x` only beyond 2^1024. */
export function intBits(x: Int): number {
  if (typeof x === "number") return x === 0 ? 0 : Math.floor(Math.log2(x < 0 ? -x : x)) + 1;
  const f = Number(x);
  if (f !== Infinity && f !== -Infinity) return Math.floor(Math.log2(f < 0 ? -f : f)) + 1;
  // No native bit length: hex digits are produced in one linear pass (≈1 ns per bit/64 limb... see docs).
  const hex = x.toString(16);
  const neg = hex.charCodeAt(0) === 45;
  const first = parseInt(hex[neg ? 1 : 0], 16);
  return (hex.length - (neg ? 2 : 1)) * 4 + (32 - Math.clz32(first));
}

function limbs(bits: number): number {
  return (bits + 63) >>> 6;
}

/** The error for an int of `bits` bits over the thread's cap. */
export function intTooLarge(thread: Thread, bits: number): ResourceError {
  return new ResourceError(
    "memory",
    `Starlark computation cancelled: an int of ${bits} bits exceeds the integer-size limit ` +
      `(maxIntBits = ${thread.maxIntBits})`,
  );
}

/**
 * Charges the creation of an int result of (at most) `bits` bits: refuses it over the cap, then charges
 * its memory and the steps of a linear pass over it.
 */
export function chargeIntResult(thread: Thread, bits: number): void {
  if (bits > thread.maxIntBits) throw intTooLarge(thread, bits);
  const n = limbs(bits);
  thread.charge(n);
  thread.allocate(BIGINT_HEADER_BYTES + 8 * n);
}

/**
 * After `x + y`, `x - y`, `x & y`, `x | y`, `x ^ y`, `-x`, `~x` or `abs(x)`: charges the result `z`
 * (refused over the cap) and returns it. These operations are linear and their result has at most one
 * bit more than an operand that exists already, so they are charged once done: one check of the result
 * is cheaper than two of the operands, and the cap is exact.
 */
export function linearResult(thread: Thread, z: Int): Int {
  if (typeof z === "bigint" && (z > FREE_LIMIT || z < MINUS_FREE_LIMIT)) chargeIntResult(thread, intBits(z));
  return z;
}

/** Steps of an n×m-limb product (n ≥ m): ~n·√m·6 ns, plus the passes that measure the operands. */
export function mulSteps(n: number, m: number): number {
  if (n < m) [n, m] = [m, n];
  return Math.ceil((n * Math.sqrt(m)) / 2) + n + m;
}

/**
 * Before `x * y` when either operand is a bigint: refuses a product that is certainly over the cap before
 * computing it. The product has `bx + by` or `bx + by − 1` bits; returns true when only the result can
 * tell (its largest size is one bit over the cap), and the caller then checks the result with
 * {@link linearResult}, so the cap is exact.
 */
export function chargeMul(thread: Thread, x: Int, y: Int): boolean {
  if (isFree(x) && isFree(y)) return false;
  const bx = intBits(x), by = intBits(y);
  if (bx === 0 || by === 0) return false;
  const bits = bx + by;
  if (bits - 1 > thread.maxIntBits) throw intTooLarge(thread, bits - 1);
  thread.charge(mulSteps(limbs(bx), limbs(by)));
  thread.allocate(BIGINT_HEADER_BYTES + 8 * limbs(bits));
  return bits > thread.maxIntBits;
}

/** Steps of dividing an n-limb int by an m-limb one (schoolbook, Burnikel–Ziegler only at huge sizes). */
export function divSteps(n: number, m: number): number {
  return n <= m ? n + m : Math.ceil(((n - m + 1) * m) / 40) + n + m;
}

/** Before `x // y` or `x % y` when either operand is a bigint (the result is no larger than `x`, or `y`). */
export function chargeDiv(thread: Thread, x: Int, y: Int): void {
  if (isFree(x) && isFree(y)) return;
  const bx = intBits(x), by = intBits(y);
  thread.charge(divSteps(limbs(bx), limbs(by)));
  thread.allocate(BIGINT_HEADER_BYTES + 8 * limbs(bx > by ? bx : by));
}

/** Before `x << n` (0 ≤ n < 512): the result has `bits(x) + n` bits. */
export function chargeShift(thread: Thread, x: Int, n: number): void {
  if (typeof x === "number" && n < 64) return;
  if (x === 0) return;
  const bits = intBits(x) + n;
  if (bits <= 256) return;
  chargeIntResult(thread, bits);
}

/** Before `x >> n` on a bigint: a linear pass, and a result no larger than `x`. */
export function chargeRightShift(thread: Thread, x: Int, n: number): void {
  if (isFree(x)) return;
  const bits = intBits(x) - n;
  chargeIntResult(thread, bits > 0 ? bits : 1);
}

/** log2(10): bits per decimal digit. */
const BITS_PER_DIGIT = Math.log2(10);

/** Decimal digits per leaf of the split conversions (V8's own conversion is fast at this size). */
const LEAF_DIGITS = 1200;

/** Bits below which V8's own decimal conversion is used as it is (it takes ≤ ~20 µs there). */
const DIRECT_BITS = 4096;

/**
 * Steps of converting an n-limb int to or from decimal in pieces: each level of the split divides
 * (or multiplies) by a power of ten of half the size, a geometric series dominated by the top level.
 */
export function decimalSteps(n: number): number {
  return Math.ceil(n * Math.sqrt(n) * 1.5) + 4 * n;
}

/** 10^(LEAF_DIGITS · 2^i), computed once and shared: immutable values, never visible to programs. */
const POW10: bigint[] = [];

/** Levels of POW10 kept in the shared cache (up to 10^(1200·2^12), about 16 million bits). */
const MAX_CACHED_LEVEL = 12;

function pow10(i: number): bigint {
  if (i < POW10.length) return POW10[i];
  let p = POW10.length === 0 ? 10n ** BigInt(LEAF_DIGITS) : POW10[POW10.length - 1];
  for (let k = POW10.length; k <= i; k++) {
    if (k > 0) p = p * p;
    if (k <= MAX_CACHED_LEVEL) POW10.push(p);
  }
  return p;
}

/**
 * Decimal text of an int, as the reference prints it. With a thread, a large int is charged before the
 * conversion (refused over the cap) and converted in pieces: a divide-and-conquer by cached powers of
 * ten, with an interrupt poll between pieces, so no single step of it runs for more than ~1 ms.
 */
export function intToDecimal(x: Int, thread?: Thread): string {
  if (typeof x === "number" || isFree(x)) return x.toString();
  const bits = intBits(x);
  if (thread !== undefined) {
    if (bits > thread.maxIntBits) throw intTooLarge(thread, bits);
    thread.charge(decimalSteps(limbs(bits)));
    thread.allocate(Math.ceil(bits / BITS_PER_DIGIT) + 2);
  }
  if (bits <= DIRECT_BITS) return x.toString();
  const neg = x < 0n;
  const v = neg ? -x : x;
  // The top level: the smallest i with v < (10^(LEAF·2^i))^2.
  let top = 0;
  while ((LEAF_DIGITS << (top + 1)) * BITS_PER_DIGIT < bits + 8) top++;
  const parts: string[] = [];
  splitDecimal(v, top, false, parts, thread);
  return (neg ? "-" : "") + parts.join("");
}

/** Appends the digits of `v` (< (10^(LEAF·2^level))^2) to `out`, padded to full width unless leading. */
function splitDecimal(v: bigint, level: number, pad: boolean, out: string[], thread?: Thread): void {
  if (level < 0) {
    const s = v.toString();
    out.push(pad ? s.padStart(LEAF_DIGITS, "0") : s);
    return;
  }
  const p = pow10(level);
  if (!pad && v < p) {
    splitDecimal(v, level - 1, false, out, thread);
    return;
  }
  thread?.poll();
  const q = v / p;
  thread?.poll();
  const r = v - q * p; // a product is ~3× faster than a second division
  splitDecimal(q, level - 1, pad, out, thread);
  splitDecimal(r, level - 1, true, out, thread);
}

/**
 * Parses a string of decimal digits (no sign, all valid) as a bigint. With a thread, a long string is
 * refused when its value would exceed the cap, charged, and parsed in pieces with interrupt polls.
 */
export function parseDecimal(digits: string, thread?: Thread): bigint {
  if (thread !== undefined && digits.length > 300) {
    let start = 0;
    while (start < digits.length - 1 && digits.charCodeAt(start) === 48) start++;
    const bits = Math.ceil((digits.length - start - 1) * BITS_PER_DIGIT) + 1; // at least this many
    if (bits > thread.maxIntBits) throw intTooLarge(thread, bits);
    thread.charge(decimalSteps(limbs(bits)));
    thread.allocate(BIGINT_HEADER_BYTES + 8 * limbs(bits));
  }
  if (digits.length <= DIRECT_BITS / 4) return BigInt(digits);
  return joinDecimal(digits, 0, digits.length, thread);
}

/** The value of `digits[from, to)`, split at a multiple of the leaf size so cached powers apply. */
function joinDecimal(digits: string, from: number, to: number, thread?: Thread): bigint {
  const n = to - from;
  if (n <= LEAF_DIGITS) return BigInt(digits.slice(from, to));
  let level = 0;
  while ((LEAF_DIGITS << (level + 1)) < n) level++;
  const low = LEAF_DIGITS << level; // the low part has exactly this many digits
  thread?.poll();
  const hi = joinDecimal(digits, from, to - low, thread);
  const lo = joinDecimal(digits, to - low, to, thread);
  thread?.poll();
  return hi * pow10(level) + lo;
}

/**
 * Charges a conversion of an int to text in a power-of-two base (`%x`, `%o`, `hex`-like output): one
 * linear pass; refuses nothing (the int exists already).
 */
export function chargeRadixText(thread: Thread, x: Int): void {
  if (isFree(x)) return;
  const bits = intBits(x);
  thread.charge(limbs(bits));
  thread.allocate(Math.ceil(bits / 3) + 2);
}
