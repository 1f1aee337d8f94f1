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
 * (add, compare) over an n-limb int takes ~n ns, and measuring its length (int_bits.ts) ~0.3 µs at any
 * size; an n×m-limb product (n ≥ m) ~n·√m·6 ns (Karatsuba and beyond); an n-by-m-limb division
 * ~(n−m)·m·0.06 ns + n ns. The figures and the table are in `docs/cost_model.md`.
 *
 * Ints below 2^256 are charged nothing beyond their operation's step: their size is bounded by that of
 * the operands like any other small allocation per step.
 *
 * @module
 */
import type { Int } from "./int.ts";
import { ResourceError } from "./errors.ts";
import { bitLength, SITE_LEFT, SITE_OTHER, SITE_RESULT, SITE_RIGHT, SITE_SHIFT } from "./int_bits.ts";
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

/** The number of bits of `|x|` (0 for 0), exactly, in time independent of its size (see int_bits.ts). */
export function intBits(x: Int): number {
  return bitLength(x, SITE_OTHER);
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
  if (typeof z === "bigint" && (z > FREE_LIMIT || z < MINUS_FREE_LIMIT)) {
    chargeIntResult(thread, bitLength(z, SITE_RESULT));
  }
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
  const bx = bitLength(x, SITE_LEFT), by = bitLength(y, SITE_RIGHT);
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
  const bx = bitLength(x, SITE_LEFT), by = bitLength(y, SITE_RIGHT);
  thread.charge(divSteps(limbs(bx), limbs(by)));
  thread.allocate(BIGINT_HEADER_BYTES + 8 * limbs(bx > by ? bx : by));
}

/** Before `x << n` (0 ≤ n < 512): the result has `bits(x) + n` bits. */
export function chargeShift(thread: Thread, x: Int, n: number): void {
  if (typeof x === "number" && n < 64) return;
  if (x === 0) return;
  const bits = bitLength(x, SITE_SHIFT) + n;
  if (bits <= 256) return;
  chargeIntResult(thread, bits);
}

/** Before `x >> n` on a bigint: a linear pass, and a result no larger than `x`. */
export function chargeRightShift(thread: Thread, x: Int, n: number): void {
  if (isFree(x)) return;
  const bits = bitLength(x, SITE_SHIFT) - n;
  chargeIntResult(thread, bits > 0 ? bits : 1);
}

/** log2(10): bits per decimal digit. */
const BITS_PER_DIGIT = Math.log2(10);

/** Decimal digits per leaf of the split conversions (V8's own conversion is fast at this size). */
const LEAF_DIGITS = 150;

/**
 * Bits below which V8's own decimal conversion is used as it is (~2 µs there). V8's conversion and
 * division are quadratic, so above this the split with Barrett reductions below is faster.
 */
const DIRECT_BITS = 1000;

/** Digits below which V8 parses a decimal string by itself (a few µs); longer ones are split. */
const DIRECT_DIGITS = 1024;

/**
 * Steps of converting an n-limb int to or from decimal in pieces: each level of the split divides
 * (or multiplies) by a power of ten of half the size, a geometric series dominated by the top level.
 */
export function decimalSteps(n: number): number {
  return Math.ceil(n * Math.sqrt(n) * 1.5) + 4 * n;
}

/**
 * A power of ten of the split conversions, `p = 10^(LEAF_DIGITS · 2^i)`, with what a Barrett reduction
 * by it needs: its bit length `k` and `m = floor(2^(2k) / p)`.
 */
interface Pow10 {
  readonly p: bigint;
  readonly k: number;
  /** The digits of the power, `e = LEAF_DIGITS · 2^i`, and `5^e`: `p = 5^e · 2^e`. */
  readonly e: number;
  readonly p5: bigint;
  /** The reciprocal, computed on first use (`undefined` before). */
  m: bigint | undefined;
}

/** The powers 10^(LEAF_DIGITS · 2^i), computed once and shared: immutable, never visible to programs. */
const POW10: Pow10[] = [];

/** Levels of POW10 kept in the shared cache (up to 10^(150·2^15), about 16 million bits). */
const MAX_CACHED_LEVEL = 15;

function pow10Entry(i: number): Pow10 {
  if (i < POW10.length) return POW10[i];
  const last = POW10.length === 0 ? undefined : POW10[POW10.length - 1];
  let p = last?.p ?? 10n ** BigInt(LEAF_DIGITS);
  let p5 = last?.p5 ?? 5n ** BigInt(LEAF_DIGITS);
  let entry: Pow10 | undefined;
  for (let k = POW10.length; k <= i; k++) {
    if (k > 0) {
      p = p * p;
      p5 = p5 * p5;
    }
    entry = { p, k: intBits(p), e: LEAF_DIGITS * 2 ** k, p5, m: undefined };
    if (k <= MAX_CACHED_LEVEL) POW10.push(entry);
  }
  return entry!;
}

function pow10(i: number): bigint {
  return pow10Entry(i).p;
}

/** Corrections of a Barrett estimate beyond which it is replaced by a division (it needs at most 4). */
const MAX_FIXES = 8;

/** Powers of ten from which a short quotient is estimated from the top of the reciprocal only. */
const TRUNCATE_BITS = 4096;

/** Bit lengths up to which a reciprocal is computed by one V8 division (at most ~10 µs). */
const DIRECT_RECIPROCAL_BITS = 4096;

/**
 * `floor(2^(2k) / p)` for a `p` of exactly `k` bits, by Newton's iteration on the reciprocal of its top
 * half: three products of its size instead of one quadratic division, with polls between them.
 */
export function reciprocal(p: bigint, k: number, thread?: Thread): bigint {
  const two2k = 1n << BigInt(2 * k);
  if (k <= DIRECT_RECIPROCAL_BITS) return two2k / p;
  // The top h bits of p give 2^(k+h)/top ≈ 2^(2k)/p to h − 1 bits; one Newton step doubles that to
  // more than k bits, and the last steps correct the remaining error of a unit or two.
  const h = (k >>> 1) + 64;
  const shift = BigInt(k - h);
  let m = reciprocal(p >> shift, h, thread) << shift;
  thread?.poll();
  m += (m * (two2k - p * m)) >> BigInt(2 * k);
  thread?.poll();
  let r = two2k - p * m;
  while (r < 0n) {
    m--;
    r += p;
  }
  while (r >= p) {
    m++;
    r -= p;
  }
  return m;
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
  const e = pow10Entry(level);
  const m = e.m ??= reciprocal(p, e.k, thread);
  // Barrett: v < p^2 < 2^(2k), so this estimate is at most 2 below the quotient (two products replace
  // a division, which V8 does in quadratic time).
  const q1 = v >> BigInt(e.k - 1);
  let q: bigint;
  const d = e.k < TRUNCATE_BITS ? 0 : e.k + 1 - bitLength(q1, SITE_OTHER);
  if (d < 64) {
    q = (q1 * m) >> BigInt(e.k + 1);
  } else {
    // A short quotient (v well below p^2, as at the top of a split) needs only the top bits of m: the
    // bits dropped weigh less than 1 in the estimate, which stays below the quotient by at most 4.
    q = (q1 * (m >> BigInt(d))) >> BigInt(e.k + 1 - d);
  }
  thread?.poll();
  // q·p as q·5^e·2^e: a product with a third fewer bits, and a shift.
  let r = v - ((q * e.p5) << BigInt(e.e));
  for (let fixes = 0; r >= p; fixes++) {
    if (fixes === MAX_FIXES) {
      // Unreachable by the bounds above; a division keeps the digits right whatever happens.
      q = v / p;
      r = v - q * p;
      break;
    }
    r -= p;
    q++;
  }
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
  if (digits.length <= DIRECT_DIGITS) return BigInt(digits);
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
  const e = pow10Entry(level);
  return ((hi * e.p5) << BigInt(e.e)) + lo; // hi · 10^e as hi · 5^e · 2^e: a smaller product
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
