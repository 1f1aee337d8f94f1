/**
 * Bit-exact re-implementations of the Go `math` functions that the reference Starlark `math` module
 * wraps (Go on amd64, the reference's usual platform): exponential, logarithms, power, rounding and
 * remainders. Trigonometric and hyperbolic functions and `gamma` live in `gomath_trig.ts`.
 *
 * Why not `Math.*`: V8's `Math.exp`, `Math.pow`, `Math.sinh`... are more accurate than Go's (fdlibm vs
 * Cephes-style polynomials) and differ from the reference in the last bit for 2–30% of arguments, which
 * `str()` makes visible. The algorithms below follow Go's published ones step by step, with the same
 * constants and the same order of floating-point operations, so that results are identical bit for bit.
 * `Math.sqrt`, `Math.floor`, `Math.ceil`, `Math.trunc`, `Math.abs` and `%` are exact (correctly rounded
 * or error-free) and therefore safe to use.
 *
 * @module
 */

// ---------------------------------------------------------------------------
// IEEE-754 bit access

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const HI = LITTLE ? 1 : 0;
const LO = LITTLE ? 0 : 1;

/** High 32 bits (sign, exponent, top 20 mantissa bits) of a double. */
export function hiWord(x: number): number {
  f64[0] = x;
  return u32[HI];
}

/** Low 32 bits of a double's mantissa. */
export function loWord(x: number): number {
  f64[0] = x;
  return u32[LO];
}

/** Builds a double from its high and low 32-bit words. */
export function fromWords(hi: number, lo: number): number {
  u32[HI] = hi >>> 0;
  u32[LO] = lo >>> 0;
  return f64[0];
}

/** Whether the sign bit of `x` is set (distinguishes -0; reads the bit of NaNs too). */
export function signbit(x: number): boolean {
  return (hiWord(x) & 0x80000000) !== 0;
}

/** Go's `math.Copysign`: |x| with the sign bit of `y`. */
export function copysign(x: number, y: number): number {
  const hx = hiWord(x);
  const lx = u32[LO];
  const sign = hiWord(y) & 0x80000000;
  return fromWords((hx & 0x7fffffff) | sign, lx);
}

/** 2^n for integer n in [-1022, 1023], exactly. */
function pow2(n: number): number {
  return fromWords((n + 1023) << 20, 0);
}

// ---------------------------------------------------------------------------
// Fused multiply-add (the reference's amd64 `Exp` uses FMA instructions when the CPU has them)

const TWO52 = 4503599627370496;

/** Splits a finite non-zero double into an integer mantissa and a power-of-two exponent: x = m·2^e. */
function decompose(x: number): [bigint, number] {
  const hi = hiWord(x);
  const lo = u32[LO];
  const be = (hi >>> 20) & 0x7ff;
  let m = (hi & 0xfffff) * 4294967296 + lo;
  let e: number;
  if (be === 0) {
    e = -1074; // subnormal: no implicit bit
  } else {
    m += TWO52;
    e = be - 1075;
  }
  const bm = BigInt(m);
  return [x < 0 ? -bm : bm, e];
}

function bitLength(n: bigint): number {
  return n.toString(2).length;
}

/** Rounds the exact value s·2^e (s a positive BigInt) to the nearest double, ties to even. */
function roundScaled(s: bigint, e: number): number {
  const bl = bitLength(s);
  const top = e + bl - 1; // exponent of the leading bit
  if (top > 1023) return Infinity;
  // Precision available at this magnitude: 53 bits for normals, fewer for subnormals.
  const lsb = Math.max(top - 52, -1074);
  const shift = lsb - e;
  if (shift <= 0) return Number(s) * (e >= -1022 ? pow2(e) : pow2(e + 1000) * pow2(-1000));
  const bs = BigInt(shift);
  let q = s >> bs;
  const rem = s - (q << bs);
  const half = 1n << (bs - 1n);
  if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
  return lsb >= -1022 ? Number(q) * pow2(lsb) : Number(q) * pow2(lsb + 1000) * pow2(-1000);
}

const SPLITTER = 134217729; // 2^27 + 1, Veltkamp's constant
const FAST_MAX = 2 ** 900;
const FAST_MIN = 2 ** -900;

/**
 * Fused multiply-add `a*b + c` with a single rounding (IEEE-754 `fusedMultiplyAdd`).
 *
 * Fast path: error-free transformations (Dekker's product, Knuth's sum) give a*b + c exactly as
 * r + re + ue; r is the correctly rounded result unless re + ue could reach half an ulp of r, which we
 * detect conservatively and then redo the computation exactly with BigInts ({@link fmaExact}).
 */
export function fma(a: number, b: number, c: number): number {
  const p = a * b;
  const ap = Math.abs(p);
  if (
    !(ap < FAST_MAX && ap > FAST_MIN && Math.abs(a) < FAST_MAX && Math.abs(b) < FAST_MAX &&
      Math.abs(c) < FAST_MAX)
  ) {
    return fmaExact(a, b, c);
  }
  if (c === 0) return p;
  // p + pe == a*b exactly.
  let t = SPLITTER * a;
  const ahi = t - (t - a);
  const alo = a - ahi;
  t = SPLITTER * b;
  const bhi = t - (t - b);
  const blo = b - bhi;
  const pe = ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo;
  // s + se == p + c exactly.
  const s = p + c;
  let bb = s - p;
  const se = (p - (s - bb)) + (c - bb);
  // u + ue == se + pe exactly.
  const u = se + pe;
  bb = u - se;
  const ue = (se - (u - bb)) + (pe - bb);
  // r + re == s + u exactly; the exact result is r + re + ue.
  const r = s + u;
  if (ue === 0) return r; // the exact result is s + u, which r rounds correctly
  bb = r - s;
  const re = (s - (r - bb)) + (u - bb);
  const ar = Math.abs(r);
  if (!(ar > FAST_MIN)) return fmaExact(a, b, c);
  // Smallest half-spacing around r: a quarter ulp when r is a power of two (the spacing halves below it).
  const hr = hiWord(r);
  const ulp = pow2(((hr >>> 20) & 0x7ff) - 1075);
  const half = (hr & 0xfffff) === 0 && u32[LO] === 0 ? ulp / 4 : ulp / 2;
  if (Math.abs(re) + Math.abs(ue) < half) return r;
  return fmaExact(a, b, c);
}

/** {@link fma} computed exactly with BigInt arithmetic, then rounded once. */
export function fmaExact(a: number, b: number, c: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b) || !Number.isFinite(c) || a === 0 || b === 0) {
    return a * b + c;
  }
  if (c === 0) return a * b;
  const [ma, ea] = decompose(a);
  const [mb, eb] = decompose(b);
  const [mc, ec] = decompose(c);
  const ep = ea + eb;
  const e = Math.min(ep, ec);
  const s = ((ma * mb) << BigInt(ep - e)) + (mc << BigInt(ec - e));
  if (s === 0n) return 0;
  return s < 0n ? -roundScaled(-s, e) : roundScaled(s, e);
}

// ---------------------------------------------------------------------------
// Exponential and logarithms

const EXP_OVERFLOW = 7.09782712893384e+02;
const LOG2E = 1.4426950408889634073599246810018920;
const LN2U = 0.69314718055966295651160180568695068359375;
const LN2L = 0.28235290563031577122588448175013436025525412068e-12;

/** Round-half-even to int32 like the CVTSD2SL instruction; out-of-range values give -2^31. */
function cvtsd2sl(v: number): number {
  let r = Math.round(v);
  if (r - v === 0.5 && r % 2 !== 0) r -= 1;
  return r >= -2147483648 && r <= 2147483647 ? r : -2147483648;
}

/**
 * Go's `math.Exp` on amd64 (assembly, FMA variant): argument reduction by ln 2, a Taylor polynomial of
 * x/16 and four squaring steps, then scaling by 2^k. Go picks the FMA variant at run time on CPUs with
 * AVX and FMA (every x86-64 server CPU of the last decade); on older CPUs the reference's last bit may differ.
 */
export function exp(x: number): number {
  if (x !== x || x === Infinity) return x;
  if (x === -Infinity) return 0;
  if (x > EXP_OVERFLOW) return Infinity;
  const k = cvtsd2sl(LOG2E * x);
  let r = fma(-LN2U, k, x);
  r = fma(-LN2L, k, r);
  r *= 0.0625;
  let p = 2.4801587301587301587e-5;
  p = fma(p, r, 1.9841269841269841270e-4);
  p = fma(p, r, 1.3888888888888888889e-3);
  p = fma(p, r, 8.3333333333333333333e-3);
  p = fma(p, r, 4.1666666666666666667e-2);
  p = fma(p, r, 1.6666666666666666667e-1);
  p = fma(p, r, 0.5);
  p = fma(p, r, 1.0);
  r = r * p;
  r = r * (r + 2.0);
  r = r * (r + 2.0);
  r = r * (r + 2.0);
  r = fma(r, r + 2.0, 1.0);
  let bx = k + 1023;
  if (bx <= 0) {
    if (bx < -52) return 0;
    r *= pow2(bx - 1); // two steps, so that the final scaling rounds once into the subnormals
    bx = 1;
  } else if (bx >= 0x7ff) {
    return Infinity;
  }
  return r * pow2(bx - 1023);
}

const HSQRT2 = 7.07106781186547524401e-01;
const LN2HI = 6.93147180369123816490e-01;
const LN2LO = 1.90821492927058770002e-10;
const L1 = 6.666666666666735130e-01;
const L2 = 3.999999999940941908e-01;
const L3 = 2.857142874366239149e-01;
const L4 = 2.222219843214978396e-01;
const L5 = 1.818357216161805012e-01;
const L6 = 1.531383769920937332e-01;
const L7 = 1.479819860511658591e-01;

/**
 * Go's `math.Log` on amd64 (assembly). Like the reference, subnormal inputs are not normalised first,
 * which makes their results slightly inaccurate — we keep that for bit-exactness.
 */
export function log(x: number): number {
  const hi = hiWord(x);
  const lo = u32[LO];
  if ((hi & 0x7fffffff) === 0 && lo === 0) return -Infinity;
  if (hi & 0x80000000) return NaN;
  if (hi >= 0x7ff00000) return x; // +Inf or NaN
  let f1 = fromWords((hi & 0x000fffff) | 0x3fe00000, lo);
  let k = ((hi >>> 20) & 0x7ff) - 0x3fe;
  if (!(HSQRT2 < f1)) {
    k -= 1;
    f1 *= 2;
  }
  const f = f1 - 1;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (((L7 * s4 + L5) * s4 + L3) * s4 + L1);
  const t2 = s4 * ((L6 * s4 + L4) * s4 + L2);
  const R = t1 + t2;
  const hfsq = 0.5 * f * f;
  return k * LN2HI - ((hfsq - (s * (hfsq + R) + k * LN2LO)) - f);
}

const SQRT2M1 = 4.142135623730950488017e-01;
const SQRT2HALFM1 = -2.928932188134524755992e-01;
const SMALL = 1.0 / (1 << 29);
const TINY = 1.0 / 18014398509481984; // 2^-54
const TWO53 = 9007199254740992;
const LP = [
  6.666666666666735130e-01,
  3.999999999940941908e-01,
  2.857142874366239149e-01,
  2.222219843214978396e-01,
  1.818357216161805012e-01,
  1.531383769920937332e-01,
  1.479819860511658591e-01,
] as const;
const SQRT2_MANT = 0x6a09e667f3bcd; // mantissa bits of √2

/** Go's `math.Log1p` (pure Go, from FreeBSD's s_log1p.c). */
export function log1p(x: number): number {
  if (x < -1 || x !== x) return NaN;
  if (x === -1) return -Infinity;
  if (x === Infinity) return Infinity;
  const absx = Math.abs(x);
  let f = 0;
  let iu = 0;
  let k = 1;
  if (absx < SQRT2M1) {
    if (absx < SMALL) {
      if (absx < TINY) return x;
      return x - x * x * 0.5;
    }
    if (x > SQRT2HALFM1) {
      k = 0;
      f = x;
      iu = 1;
    }
  }
  let c = 0;
  if (k !== 0) {
    let u: number;
    if (absx < TWO53) {
      u = 1.0 + x;
      k = ((hiWord(u) >>> 20) & 0x7ff) - 1023;
      c = k > 0 ? 1.0 - (u - x) : x - (u - 1.0);
      c /= u;
    } else {
      u = x;
      k = ((hiWord(u) >>> 20) & 0x7ff) - 1023;
      c = 0;
    }
    const m = (hiWord(u) & 0xfffff) * 4294967296 + u32[LO];
    if (m < SQRT2_MANT) {
      iu = m;
      u = 1 + m / TWO52; // mantissa with exponent 0x3ff
    } else {
      k++;
      u = 0.5 + m / TWO53; // mantissa with exponent 0x3fe
      iu = Math.floor((TWO52 - m) / 4);
    }
    f = u - 1.0;
  }
  const hfsq = 0.5 * f * f;
  if (iu === 0) {
    if (f === 0) {
      if (k === 0) return 0;
      c += k * LN2LO;
      return k * LN2HI + c;
    }
    const R = hfsq * (1.0 - 0.66666666666666666 * f);
    if (k === 0) return f - R;
    return k * LN2HI - ((R - (k * LN2LO + c)) - f);
  }
  const s = f / (2.0 + f);
  const z = s * s;
  const R = z * (LP[0] + z * (LP[1] + z * (LP[2] + z * (LP[3] + z * (LP[4] + z * (LP[5] + z * LP[6]))))));
  if (k === 0) return f - (hfsq - s * (hfsq + R));
  return k * LN2HI - ((hfsq - (s * (hfsq + R) + (k * LN2LO + c))) - f);
}

// ---------------------------------------------------------------------------
// frexp / ldexp / pow

/** Go's `math.Frexp`: x = frac·2^exp with |frac| in [0.5, 1). */
export function frexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let e = 0;
  if (Math.abs(x) < 2.2250738585072014e-308) {
    x *= TWO52;
    e = -52;
  }
  const hi = hiWord(x);
  const lo = u32[LO];
  e += ((hi >>> 20) & 0x7ff) - 1022;
  return [fromWords((hi & 0x800fffff) | 0x3fe00000, lo), e];
}

/** Go's `math.Ldexp`: frac·2^exp, with Go's single rounding for subnormal results. */
export function ldexp(frac: number, e: number): number {
  if (frac === 0 || !Number.isFinite(frac)) return frac;
  if (Math.abs(frac) < 2.2250738585072014e-308) {
    frac *= TWO52;
    e -= 52;
  }
  const hi = hiWord(frac);
  const lo = u32[LO];
  e += ((hi >>> 20) & 0x7ff) - 1023;
  if (e < -1075) return copysign(0, frac);
  if (e > 1023) return frac < 0 ? -Infinity : Infinity;
  let m = 1;
  if (e < -1022) {
    e += 53;
    m = 1 / TWO53;
  }
  return m * fromWords((hi & 0x800fffff) | ((e + 1023) << 20), lo);
}

function isOddInt(x: number): boolean {
  if (Math.abs(x) >= TWO53) return false;
  const xi = Math.trunc(x);
  return x - xi === 0 && Math.abs(xi) % 2 === 1;
}

/** Go's `math.Pow`: repeated squaring for the integer part of y, `Exp(yf·Log(x))` for the rest. */
export function pow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (x !== x || y !== y) return NaN;
  if (x === 0) {
    if (y < 0) return signbit(x) && isOddInt(y) ? -Infinity : Infinity;
    return signbit(x) && isOddInt(y) ? x : 0;
  }
  if (y === Infinity || y === -Infinity) {
    if (x === -1) return 1;
    return (Math.abs(x) < 1) === (y === Infinity) ? 0 : Infinity;
  }
  if (x === Infinity || x === -Infinity) {
    if (x === -Infinity) return pow(1 / x, -y);
    return y < 0 ? 0 : Infinity;
  }
  if (y === 0.5) return Math.sqrt(x);
  if (y === -0.5) return 1 / Math.sqrt(x);
  const ay = Math.abs(y);
  let yi = Math.trunc(ay);
  let yf = ay - yi;
  if (yf !== 0 && x < 0) return NaN;
  if (yi >= 9223372036854775808) {
    if (x === -1) return 1;
    return (Math.abs(x) < 1) === (y > 0) ? 0 : Infinity;
  }
  let a1 = 1.0;
  let ae = 0;
  if (yf !== 0) {
    if (yf > 0.5) {
      yf--;
      yi++;
    }
    a1 = exp(yf * log(x));
  }
  let [x1, xe] = frexp(x);
  for (let i = yi; i !== 0; i = Math.floor(i / 2)) {
    if (xe < -4096 || 4096 < xe) {
      ae += xe;
      break;
    }
    if (i % 2 === 1) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe *= 2;
    if (x1 < 0.5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return ldexp(a1, ae);
}

// ---------------------------------------------------------------------------
// Rounding, remainders, hypot

/** Go's `math.Round`: nearest integer, halves away from zero; keeps the sign of zero. */
export function round(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= TWO52) return x;
  const a = Math.abs(x);
  const t = Math.trunc(a);
  const r = a - t >= 0.5 ? t + 1 : t;
  return x < 0 || (x === 0 && signbit(x)) ? -r : r;
}

const REM_TINY = 4.45014771701440276618e-308;
const HALF_MAX = Number.MAX_VALUE / 2;

/** Go's `math.Remainder`: the IEEE-754 remainder x - n·y with n = x/y rounded half to even. */
export function remainder(x: number, y: number): number {
  if (x !== x || y !== y || !Number.isFinite(x) || y === 0) return NaN;
  if (!Number.isFinite(y)) return x;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (y < 0) y = -y;
  if (x === y) return sign ? -0 : 0;
  if (y <= HALF_MAX) x = x % (y + y);
  if (y < REM_TINY) {
    if (x + x > y) {
      x -= y;
      if (x + x >= y) x -= y;
    }
  } else {
    const yHalf = 0.5 * y;
    if (x > yHalf) {
      x -= y;
      if (x >= yHalf) x -= y;
    }
  }
  return sign ? -x : x;
}

/** Go's `math.Hypot` on amd64 (assembly): max·√(1 + (min/max)²). */
export function hypot(p: number, q: number): number {
  p = Math.abs(p);
  q = Math.abs(q);
  if (!Number.isFinite(p) || !Number.isFinite(q)) {
    return p === Infinity || q === Infinity ? Infinity : NaN;
  }
  if (p === 0 && q === 0) return 0;
  const hi = p > q ? p : q;
  let lo = p > q ? q : p;
  lo = lo / hi;
  return Math.sqrt(lo * lo + 1.0) * hi;
}
