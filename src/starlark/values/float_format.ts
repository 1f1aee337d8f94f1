/**
 * Float formatting identical to the reference implementation, which uses Go's `strconv.FormatFloat`:
 *
 * - {@link formatFloat}`(x)` is `str(x)`: the shortest digits that round-trip, in exponent form when the
 *   decimal exponent is below −4 or at least 6 (`1e+06`, `1e-05`, `123456.0`), with `.0` appended when
 *   the result has neither a point nor an exponent; `+inf`, `-inf`, `nan` for non-finite values.
 * - {@link formatFloatConv} implements the `%e %f %g %E %F %G` conversions (`%e`/`%f` use 6 digits after
 *   the point with round-half-to-even on the exact binary value, like Go; `%F` is not a Go verb and
 *   formats as the literal `%F`).
 *
 * JS's `toFixed`/`toExponential` round exact ties up instead of to even, and `String(x)` switches to
 * exponent form at other thresholds, so neither can be used directly.
 *
 * @module
 */

/** `str(x)` for a float `x`. */
export function formatFloat(x: number): string {
  const a = x < 0 ? -x : x;
  if (a >= 1e-4 && a < 1e6) {
    // Decimal exponent in [-4, 5]: Go prints plain notation, which is what JS prints in this range.
    // There, JS writes a point exactly when `x` has a fractional part.
    return Number.isInteger(x) ? String(x) + ".0" : String(x);
  }
  if (!Number.isFinite(x)) return x !== x ? "nan" : x > 0 ? "+inf" : "-inf";
  return shortestG(x, "e");
}

/**
 * Formats `x` for a `%`-conversion: `g`/`G` (shortest, as `str`), `e`/`E`/`f` (6 digits after the point).
 * Any other conversion letter yields `%` followed by the letter, as Go's `FormatFloat` does.
 */
export function formatFloatConv(x: number, conv: string): string {
  if (!Number.isFinite(x)) return x !== x ? "nan" : x > 0 ? "+inf" : "-inf";
  switch (conv) {
    case "g":
      return shortestG(x, "e");
    case "G":
      return shortestG(x, "E");
    case "e":
    case "E":
      return fixedE(x, 6, conv);
    case "f":
      return fixedF(x, 6);
    default:
      return "%" + conv;
  }
}

function shortestG(x: number, e: string): string {
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  // toExponential() without an argument yields the shortest round-trip digits: "d.ddde±x".
  const s = x.toExponential();
  const neg = s.charCodeAt(0) === 45;
  const ePos = s.indexOf("e");
  const mant = s.slice(neg ? 1 : 0, ePos);
  const exp = +s.slice(ePos + 1);
  const digits = mant.length > 1 ? mant[0] + mant.slice(2) : mant;
  const sign = neg ? "-" : "";
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    return sign + m + e + expSuffix(exp);
  }
  // Plain notation; `.0` is appended when there is no fractional part.
  if (exp < 0) return sign + "0." + "0".repeat(-exp - 1) + digits;
  const intLen = exp + 1;
  if (digits.length <= intLen) return sign + digits + "0".repeat(intLen - digits.length) + ".0";
  return sign + digits.slice(0, intLen) + "." + digits.slice(intLen);
}

function expSuffix(exp: number): string {
  const a = exp < 0 ? -exp : exp;
  return (exp < 0 ? "-" : "+") + (a < 10 ? "0" + a : String(a));
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The exact decimal expansion of a finite, non-zero |x|: `digits` (no leading zeros, no trailing
 * zeros) and `dp` such that |x| = 0.digits × 10^dp.
 */
function exactDecimal(x: number): { digits: string; dp: number } {
  f64[0] = x;
  const hi = u32[LITTLE_ENDIAN ? 1 : 0], lo = u32[LITTLE_ENDIAN ? 0 : 1];
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (bexp === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = bexp - 1075;
  }
  let digits: string;
  let dp: number;
  if (e >= 0) {
    digits = (mant << BigInt(e)).toString();
    dp = digits.length;
  } else {
    // mant / 2^-e = mant * 5^-e / 10^-e
    digits = (mant * 5n ** BigInt(-e)).toString();
    dp = digits.length + e;
  }
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 48) end--;
  return { digits: digits.slice(0, end), dp };
}

/**
 * Rounds the decimal digit string to `nd` digits (nd ≥ 0) with round-half-to-even on the exact value.
 * Returns the kept digits (possibly one longer after a carry, e.g. "99" → "100") and whether a carry
 * added a leading digit.
 */
function roundDigits(digits: string, nd: number): { d: string; carry: boolean } {
  if (nd >= digits.length) return { d: digits + "0".repeat(nd - digits.length), carry: false };
  if (nd < 0) return { d: "", carry: false };
  const next = digits.charCodeAt(nd);
  let up: boolean;
  if (next > 53) up = true;
  else if (next < 53) up = false;
  else if (nd + 1 < digits.length) up = true; // more non-zero digits follow (digits has no trailing zeros)
  else up = nd > 0 && (digits.charCodeAt(nd - 1) & 1) === 1; // exact tie: round to even
  let kept = digits.slice(0, nd);
  if (!up) return { d: kept, carry: false };
  let i = nd - 1;
  while (i >= 0 && kept.charCodeAt(i) === 57) i--;
  if (i < 0) return { d: "1" + "0".repeat(nd), carry: true };
  kept = kept.slice(0, i) + String.fromCharCode(kept.charCodeAt(i) + 1) + "0".repeat(nd - 1 - i);
  return { d: kept, carry: false };
}

/**
 * Whether rounding |x| to `p` digits after the decimal point could meet an exact tie, where JS's
 * `toFixed`/`toExponential` (ties away from zero) and Go (ties to even) part ways. A tie means
 * x·10^p·2 is an odd integer. For p ≥ 0 that needs x·2^(p+1) = k to be an integer (scaling by a power of
 * two is exact), and then x·10^p·2 = k·5^p, checked exactly while it is a safe integer. For p < 0 it needs
 * x to be an integer whose remainder modulo 10^-p is half of it. Answers true when unsure.
 */
function mayTie(a: number, p: number): boolean {
  if (p >= 0) {
    if (p > 22) return true;
    const k = a * 2 ** (p + 1);
    if (!Number.isInteger(k)) return false;
    const t = k * 5 ** p;
    return !(t <= Number.MAX_SAFE_INTEGER) || t % 2 === 1;
  }
  if (!Number.isInteger(a)) return false;
  if (!(a <= Number.MAX_SAFE_INTEGER) || p < -15) return true;
  const q = 10 ** -p;
  return a % q === q / 2;
}

function fixedE(x: number, prec: number, e: string): string {
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return sign + "0." + "0".repeat(prec) + e + "+00";
  {
    // JS rounds on the exact binary value too, so away from ties its digits are Go's. The exponent of the
    // rounded form is the true one or one more (after a carry): both precisions are checked.
    const s = x.toExponential(prec);
    const ePos = s.indexOf("e");
    const exp = +s.slice(ePos + 1);
    const a = x < 0 ? -x : x;
    if (!mayTie(a, prec - exp) && !mayTie(a, prec - exp + 1)) {
      return s.slice(0, ePos) + e + expSuffix(exp);
    }
  }
  const { digits, dp } = exactDecimal(Math.abs(x));
  const r = roundDigits(digits, prec + 1);
  let d = r.d;
  let exp = dp - 1;
  if (r.carry) {
    d = d.slice(0, prec + 1);
    exp++;
  }
  const m = prec > 0 ? d[0] + "." + d.slice(1) : d[0];
  return sign + m + e + expSuffix(exp);
}

function fixedF(x: number, prec: number): string {
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return sign + "0" + (prec > 0 ? "." + "0".repeat(prec) : "");
  // Below 1e21 toFixed writes plain digits, rounded on the exact value: Go's, away from exact ties.
  const a = x < 0 ? -x : x;
  if (a < 1e21 && !mayTie(a, prec)) return x.toFixed(prec);
  const { digits, dp } = exactDecimal(Math.abs(x));
  // Keep dp integer digits plus prec fractional digits.
  const nd = dp + prec;
  let intPart: string, frac: string;
  if (nd < 0) {
    intPart = "0";
    frac = "0".repeat(prec);
  } else {
    const r = roundDigits(digits, nd);
    let d = r.d;
    let p = dp;
    if (r.carry) p++;
    if (p <= 0) {
      d = "0".repeat(-p) + d;
      p = 0;
    }
    intPart = p > 0 ? d.slice(0, p) : "0";
    frac = d.slice(p);
    if (frac.length < prec) frac += "0".repeat(prec - frac.length);
  }
  return sign + intPart + (prec > 0 ? "." + frac : "");
}
