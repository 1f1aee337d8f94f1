/**
 * Bit-exact re-implementations of Go's trigonometric and hyperbolic functions and `math.Gamma` (pure Go
 * on amd64),
 * for the reference-compatible Starlark `math` module. See `gomath.ts` for why `Math.*` is not used.
 *
 * @module
 */
import { copysign, exp, fromWords, hiWord, log, log1p, loWord, pow, signbit } from "./gomath.ts";

const PI = 3.141592653589793;
const PI_2 = 1.5707963267948966;
const PI_4 = 0.7853981633974483;
const PI3_4 = 2.356194490192345;
const FOUR_OVER_PI = 1.2732395447351628;

// Pi/4 split into three parts for the extended-precision reduction of moderate arguments.
const PI4A = 7.85398125648498535156e-1;
const PI4B = 3.77489470793079817668e-8;
const PI4C = 2.69515142907905952645e-15;

const SIN = [
  1.58962301576546568060e-10,
  -2.50507477628578072866e-8,
  2.75573136213857245213e-6,
  -1.98412698295895385996e-4,
  8.33333333332211858878e-3,
  -1.66666666666666307295e-1,
] as const;
const COS = [
  -1.13585365213876817300e-11,
  2.08757008419747316778e-9,
  -2.75573141792967388112e-7,
  2.48015872888517045348e-5,
  -1.38888888888730564116e-3,
  4.16666666666665929218e-2,
] as const;

const REDUCE_THRESHOLD = 1 << 29;

// The binary expansion of 4/π (integer part in the first 64-bit word), 1280 bits: enough for the
// Payne–Hanek reduction of any finite double.
const FOUR_OVER_PI_BITS = BigInt(
  "0x0000000000000001" + "45f306dc9c882a53" + "f84eafa3ea69bb81" + "b6c52b3278872083" + "fca2c757bd778ac3" +
    "6e48dc74849ba5c0" + "0c925dd413a32439" + "fc3bd63962534e7d" + "d1046bea5d768909" + "d338e04d68befc82" +
    "7323ac7306a673e9" + "3908bf177bf25076" + "3ff12fffbc0b301f" + "de5e2316b414da3e" + "da6cfd9e4f96136e" +
    "9e8c7ecd3cbfd45a" + "ea4f758fd7cbe2f6" + "7a0e73ef14a525d4" + "d7f6bf623f1aba10" + "ac06608df8f6d757",
);
const TABLE_BITS = 1280;
const M64 = (1n << 64n) - 1n;

/**
 * Go's `trigReduce` (Payne–Hanek): for x ≥ 2^29 returns the octant j and the reduced argument z, by
 * multiplying the mantissa with a 192-bit window of 4/π. It reproduces Go's 64-bit word arithmetic,
 * including the way the low word refills the mantissa after normalisation.
 */
function trigReduce(x: number): [number, number] {
  if (x < PI_4) return [0, x];
  const hi = hiWord(x);
  const e = ((hi >>> 20) & 0x7ff) - 1023 - 52;
  const ix = BigInt((hi & 0xfffff) * 4294967296 + loWord(x)) | (1n << 52n);
  const start = e + 61; // bit offset of the window from the top of the table
  const window = (FOUR_OVER_PI_BITS >> BigInt(TABLE_BITS - start - 192)) & ((1n << 192n) - 1n);
  const prod = ((window * ix) >> 64n) & ((1n << 128n) - 1n);
  let whi = prod >> 64n;
  const wlo = prod & M64;
  let j = Number(whi >> 61n);
  whi = ((whi << 3n) | (wlo >> 61n)) & M64;
  const lz = whi === 0n ? 64 : 64 - whi.toString(2).length;
  const sh = lz + 1;
  const ex = BigInt(1023 - sh);
  const left = sh >= 64 ? 0n : (whi << BigInt(sh)) & M64;
  const right = sh > 64 ? 0n : wlo >> BigInt(64 - sh);
  let bits = (left | right) >> 12n;
  bits |= (ex & 0x7ffn) << 52n;
  let z = fromWords(Number(bits >> 32n), Number(bits & 0xffffffffn));
  if (j & 1) {
    j = (j + 1) & 7;
    z--;
  }
  return [j, z * PI_4];
}

/** Octant and reduced argument of a non-negative finite x. */
function reduce(x: number, wrap: boolean): [number, number] {
  if (x >= REDUCE_THRESHOLD) return trigReduce(x);
  let j = Math.floor(x * FOUR_OVER_PI);
  let y = j;
  if (j & 1) {
    j++;
    y++;
  }
  if (wrap) j &= 7;
  return [j, ((x - y * PI4A) - y * PI4B) - y * PI4C];
}

function sinPoly(z: number, zz: number): number {
  return z +
    z * zz * ((((((SIN[0] * zz) + SIN[1]) * zz + SIN[2]) * zz + SIN[3]) * zz + SIN[4]) * zz + SIN[5]);
}

function cosPoly(zz: number): number {
  return 1.0 - 0.5 * zz +
    zz * zz * ((((((COS[0] * zz) + COS[1]) * zz + COS[2]) * zz + COS[3]) * zz + COS[4]) * zz + COS[5]);
}

/** Go's `math.Sin`. */
export function sin(x: number): number {
  if (x === 0 || x !== x) return x;
  if (!Number.isFinite(x)) return NaN;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let [j, z] = reduce(x, true);
  if (j > 3) {
    sign = !sign;
    j -= 4;
  }
  const zz = z * z;
  const y = j === 1 || j === 2 ? cosPoly(zz) : sinPoly(z, zz);
  return sign ? -y : y;
}

/** Go's `math.Cos`. */
export function cos(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  let sign = false;
  x = Math.abs(x);
  let [j, z] = reduce(x, true);
  if (j > 3) {
    j -= 4;
    sign = !sign;
  }
  if (j > 1) sign = !sign;
  const zz = z * z;
  const y = j === 1 || j === 2 ? sinPoly(z, zz) : cosPoly(zz);
  return sign ? -y : y;
}

const TAN_P = [-1.30936939181383777646e4, 1.15351664838587416140e6, -1.79565251976484877988e7] as const;
const TAN_Q = [
  1.00000000000000000000e0,
  1.36812963470692954678e4,
  -1.32089234440210967447e6,
  2.50083801823357915839e7,
  -5.38695755929454629881e7,
] as const;

/** Go's `math.Tan`. */
export function tan(x: number): number {
  if (x === 0 || x !== x) return x;
  if (!Number.isFinite(x)) return NaN;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  const [j, z] = reduce(x, false);
  const zz = z * z;
  let y: number;
  if (zz > 1e-14) {
    y = z +
      z * (zz * (((TAN_P[0] * zz) + TAN_P[1]) * zz + TAN_P[2]) /
          ((((zz + TAN_Q[1]) * zz + TAN_Q[2]) * zz + TAN_Q[3]) * zz + TAN_Q[4]));
  } else {
    y = z;
  }
  if (j & 2) y = -1 / y;
  return sign ? -y : y;
}

// ---------------------------------------------------------------------------
// Inverse trigonometric functions (Cephes atan with range reduction)

function xatan(x: number): number {
  const P0 = -8.750608600031904122785e-01;
  const P1 = -1.615753718733365076637e+01;
  const P2 = -7.500855792314704667340e+01;
  const P3 = -1.228866684490136173410e+02;
  const P4 = -6.485021904942025371773e+01;
  const Q0 = +2.485846490142306297962e+01;
  const Q1 = +1.650270098316988542046e+02;
  const Q2 = +4.328810604912902668951e+02;
  const Q3 = +4.853903996359136964868e+02;
  const Q4 = +1.945506571482613964425e+02;
  let z = x * x;
  z = z * ((((P0 * z + P1) * z + P2) * z + P3) * z + P4) /
    (((((z + Q0) * z + Q1) * z + Q2) * z + Q3) * z + Q4);
  return x * z + x;
}

const MOREBITS = 6.123233995736765886130e-17;
const TAN3PIO8 = 2.41421356237309504880;

function satan(x: number): number {
  if (x <= 0.66) return xatan(x);
  if (x > TAN3PIO8) return PI_2 - xatan(1 / x) + MOREBITS;
  return PI_4 + xatan((x - 1) / (x + 1)) + 0.5 * MOREBITS;
}

/** Go's `math.Atan`. */
export function atan(x: number): number {
  if (x === 0) return x;
  return x > 0 ? satan(x) : -satan(-x);
}

/** Go's `math.Asin`. */
export function asin(x: number): number {
  if (x === 0) return x;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (x > 1) return NaN;
  let temp = Math.sqrt(1 - x * x);
  temp = x > 0.7 ? PI_2 - satan(temp / x) : satan(x / temp);
  return sign ? -temp : temp;
}

/** Go's `math.Acos`. */
export function acos(x: number): number {
  return PI_2 - asin(x);
}

/** Go's `math.Atan2`. */
export function atan2(y: number, x: number): number {
  if (y !== y || x !== x) return NaN;
  if (y === 0) return x >= 0 && !signbit(x) ? copysign(0, y) : copysign(PI, y);
  if (x === 0) return copysign(PI_2, y);
  if (!Number.isFinite(x)) {
    if (x === Infinity) return Number.isFinite(y) ? copysign(0, y) : copysign(PI_4, y);
    return Number.isFinite(y) ? copysign(PI, y) : copysign(PI3_4, y);
  }
  if (!Number.isFinite(y)) return copysign(PI_2, y);
  const q = atan(y / x);
  if (x < 0) return q <= 0 ? q + PI : q - PI;
  return q;
}

// ---------------------------------------------------------------------------
// Gamma (Cephes: rational approximation on [2,3], Stirling's formula for large arguments)

const GAM_P = [
  1.60119522476751861407e-04,
  1.19135147006586384913e-03,
  1.04213797561761569935e-02,
  4.76367800457137231464e-02,
  2.07448227648435975150e-01,
  4.94214826801497100753e-01,
  9.99999999999999996796e-01,
] as const;
const GAM_Q = [
  -2.31581873324120129819e-05,
  5.39605580493303397842e-04,
  -4.45641913851797240494e-03,
  1.18139785222060435552e-02,
  3.58236398605498653373e-02,
  -2.34591795718243348568e-01,
  7.14304917030273074085e-02,
  1.00000000000000000320e+00,
] as const;
const GAM_S = [
  7.87311395793093628397e-04,
  -2.29549961613378126380e-04,
  -2.68132617805781232825e-03,
  3.47222221605458667310e-03,
  8.33333333333482257126e-02,
] as const;

function stirling(x: number): [number, number] {
  if (x > 200) return [Infinity, 1];
  const SQRT_TWO_PI = 2.506628274631000502417;
  const MAX_STIRLING = 143.01608;
  let w = 1 / x;
  w = 1 + w * ((((GAM_S[0] * w + GAM_S[1]) * w + GAM_S[2]) * w + GAM_S[3]) * w + GAM_S[4]);
  let y1 = exp(x);
  let y2 = 1.0;
  if (x > MAX_STIRLING) {
    const v = pow(x, 0.5 * x - 0.25);
    y2 = v / y1;
    y1 = v;
  } else {
    y1 = pow(x, x - 0.5) / y1;
  }
  return [y1, SQRT_TWO_PI * w * y2];
}

function isNegInt(x: number): boolean {
  return x < 0 && x - Math.trunc(x) === 0;
}

const EULER = 0.57721566490153286060651209008240243104215933593992;

/** Go's `math.Gamma`. */
export function gamma(x: number): number {
  if (isNegInt(x) || x === -Infinity || x !== x) return NaN;
  if (x === Infinity) return Infinity;
  if (x === 0) return signbit(x) ? -Infinity : Infinity;
  let q = Math.abs(x);
  let p = Math.floor(q);
  if (q > 33) {
    if (x >= 0) {
      const [y1, y2] = stirling(x);
      return y1 * y2;
    }
    const signgam = p % 2 === 0 ? -1 : 1;
    let z = q - p;
    if (z > 0.5) {
      p = p + 1;
      z = q - p;
    }
    z = q * sin(PI * z);
    if (z === 0) return signgam * Infinity;
    const [sq1, sq2] = stirling(q);
    const absz = Math.abs(z);
    const d = absz * sq1 * sq2;
    z = d === Infinity || d === -Infinity ? PI / absz / sq1 / sq2 : PI / d;
    return signgam * z;
  }
  let z = 1.0;
  while (x >= 3) {
    x = x - 1;
    z = z * x;
  }
  while (x < 0) {
    if (x > -1e-09) return small(x, z);
    z = z / x;
    x = x + 1;
  }
  while (x < 2) {
    if (x < 1e-09) return small(x, z);
    z = z / x;
    x = x + 1;
  }
  if (x === 2) return z;
  x = x - 2;
  p = (((((x * GAM_P[0] + GAM_P[1]) * x + GAM_P[2]) * x + GAM_P[3]) * x + GAM_P[4]) * x + GAM_P[5]) * x +
    GAM_P[6];
  q = ((((((x * GAM_Q[0] + GAM_Q[1]) * x + GAM_Q[2]) * x + GAM_Q[3]) * x + GAM_Q[4]) * x + GAM_Q[5]) * x +
        GAM_Q[6]) *
      x + GAM_Q[7];
  return z * p / q;
}

function small(x: number, z: number): number {
  if (x === 0) return Infinity;
  return z / ((1 + EULER * x) * x);
}

// ---------------------------------------------------------------------------
// Hyperbolic functions

const SINH_P = [
  -0.6307673640497716991184787251e+6,
  -0.8991272022039509355398013511e+5,
  -0.2894211355989563807284660366e+4,
  -0.2630563213397497062819489e+2,
] as const;
const SINH_Q = [
  -0.6307673640497716991212077277e+6,
  0.1521517378790019070696485176e+5,
  -0.173678953558233699533450911e+3,
] as const;

/** Go's `math.Sinh`. */
export function sinh(x: number): number {
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x > 21) {
    temp = exp(x) * 0.5;
  } else if (x > 0.5) {
    const ex = exp(x);
    temp = (ex - 1 / ex) * 0.5;
  } else {
    const sq = x * x;
    temp = (((SINH_P[3] * sq + SINH_P[2]) * sq + SINH_P[1]) * sq + SINH_P[0]) * x;
    temp = temp / (((sq + SINH_Q[2]) * sq + SINH_Q[1]) * sq + SINH_Q[0]);
  }
  return sign ? -temp : temp;
}

/** Go's `math.Cosh`. */
export function cosh(x: number): number {
  x = Math.abs(x);
  if (x > 21) return exp(x) * 0.5;
  const ex = exp(x);
  return (ex + 1 / ex) * 0.5;
}

const TANH_P = [-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3] as const;
const TANH_Q = [1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3] as const;
const MAXLOG = 8.8029691931113054295988e+01;

/** Go's `math.Tanh`. */
export function tanh(x: number): number {
  let z = Math.abs(x);
  if (z > 0.5 * MAXLOG) return x < 0 ? -1 : 1;
  if (z >= 0.625) {
    const s = exp(2 * z);
    z = 1 - 2 / (s + 1);
    return x < 0 ? -z : z;
  }
  if (x === 0) return x;
  const s = x * x;
  return x + x * s * ((TANH_P[0] * s + TANH_P[1]) * s + TANH_P[2]) /
      (((s + TANH_Q[0]) * s + TANH_Q[1]) * s + TANH_Q[2]);
}

const LN2 = 6.93147180559945286227e-01;
const NEAR_ZERO = 1.0 / (1 << 28);
const LARGE = 1 << 28;

/** Go's `math.Asinh`. */
export function asinh(x: number): number {
  if (x !== x || !Number.isFinite(x)) return x;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x > LARGE) temp = log(x) + LN2;
  else if (x > 2) temp = log(2 * x + 1 / (Math.sqrt(x * x + 1) + x));
  else if (x < NEAR_ZERO) temp = x;
  else temp = log1p(x + x * x / (1 + Math.sqrt(1 + x * x)));
  return sign ? -temp : temp;
}

/** Go's `math.Acosh`. */
export function acosh(x: number): number {
  if (x < 1 || x !== x) return NaN;
  if (x === 1) return 0;
  if (x >= LARGE) return log(x) + LN2;
  if (x > 2) return log(2 * x - 1 / (x + Math.sqrt(x * x - 1)));
  const t = x - 1;
  return log1p(t + Math.sqrt(2 * t + t * t));
}

/** Go's `math.Atanh`. */
export function atanh(x: number): number {
  if (x < -1 || x > 1 || x !== x) return NaN;
  if (x === 1) return Infinity;
  if (x === -1) return -Infinity;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x < NEAR_ZERO) {
    temp = x;
  } else if (x < 0.5) {
    temp = x + x;
    temp = 0.5 * log1p(temp + temp * x / (1 - x));
  } else {
    temp = 0.5 * log1p((x + x) / (1 - x));
  }
  return sign ? -temp : temp;
}
