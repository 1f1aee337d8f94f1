/**
 * Exact bit lengths of ints, the measure the big-integer cost model charges by (see int_cost.ts), in time
 * independent of the int's size in the usual case.
 *
 * V8 has no bit-length operation, and the linear ways to get one (`toString(16)`, `toString(2)`) cost ten
 * times an addition of the same int. Two O(1) facts help instead: `x >> s` for a shift `s` at or past the
 * top of `x` is `0n` (or `-1n`) without touching its digits, and a shift that leaves only the top few
 * hundred bits copies only those; `Number()` of such a remainder and comparisons of a bigint with a double
 * are exact and cheap. So the length is found by one shift to just below the expected top, given a guess
 * close to it. The guesses are the lengths last measured at the same call site ({@link BitSite}): successive
 * operations at one site of a program see ints of a few similar sizes. A wrong guess only costs more shifts
 * (a search that brackets the top), never a wrong answer; the guesses are process-wide, like the cached
 * powers of int_cost.ts, and change no result.
 *
 * @module
 */

/**
 * Where a bit length is measured; each site keeps its own guesses of the next length: 0 the result of a
 * linear operation (`+ - & | ^`, negation), 1 the left operand of a product or quotient, 2 the right
 * operand of a product or quotient, 3 the operand of a shift, 4 anything else (conversions, messages).
 */
export type BitSite = 0 | 1 | 2 | 3 | 4;

/** {@link BitSite} of linear results. */
export const SITE_RESULT: BitSite = 0;
/** {@link BitSite} of left operands. */
export const SITE_LEFT: BitSite = 1;
/** {@link BitSite} of right operands. */
export const SITE_RIGHT: BitSite = 2;
/** {@link BitSite} of shifted operands. */
export const SITE_SHIFT: BitSite = 3;
/** {@link BitSite} of everything else. */
export const SITE_OTHER: BitSite = 4;

/** Lengths remembered per site: a loop body often meets ints of a few different sizes at one site. */
const GUESSES = 4;

/**
 * The lengths remembered at each site (`GUESSES` from index `site · GUESSES`), largest first, 0 for none
 * yet, and when each was last measured (a tick of {@link clock}), to forget the stalest.
 */
const lengths: number[] = new Array((SITE_OTHER + 1) * GUESSES).fill(0);
const used: number[] = new Array((SITE_OTHER + 1) * GUESSES).fill(0);
let clock = 0;

/** Shifts made by probes and searches so far (what the guesses save; read by tests). */
let shifts = 0;

/** The number of probing shifts made so far in this process, for tests of the guesses' effect. */
export function probeCount(): number {
  return shifts;
}

/** Where a search without a usable guess looks first: the default integer-size cap. */
const SEARCH_FROM = 1 << 18;

/**
 * Bits kept below the guessed top by the first shift: the remainder then has ~this many bits (a few
 * digits to copy), and a length up to `1023 − GUESS_BELOW` bits above the guess is found by the same shift.
 */
const GUESS_BELOW = 768;

/** The largest remainder `Number()` converts to a finite double: below 2^1024 − 2^970, so 1023 bits. */
const FINITE_BITS = 1023;

/** The number of bits of a non-negative safe integer `v` (0 for 0), exactly. */
export function numberBits(v: number): number {
  if (v < 4294967296) return 32 - Math.clz32(v);
  return 64 - Math.clz32(Math.floor(v / 4294967296));
}

/** Scratch space to read a double's exponent and mantissa bits. */
const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
/** Index in {@link U32} of a double's high word (sign, exponent, top of the mantissa). */
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/**
 * The number of bits of a positive bigint `t` below 2^1024 whose conversion to a double is `f`: one more
 * than the double's exponent, unless rounding reached a power of two from below (then `t < f`, exactly
 * compared).
 */
function smallBits(t: bigint, f: number): number {
  F64[0] = f;
  const high = U32[HIGH];
  const e = (high >>> 20) - 1023; // f ≥ 1: positive, normal, so the exponent is floor(log2(f))
  // A mantissa that is not zero means f > 2^e, and then t > 2^e too (it rounds to f).
  if ((high & 0xfffff) !== 0 || U32[1 - HIGH] !== 0) return e + 1;
  return t < f ? e : e + 1;
}

/**
 * The number of bits of `|x|` (0 for 0), exactly, for an int of any size. `site` names the call site
 * whose recent lengths are the guesses.
 */
export function bitLength(x: number | bigint, site: BitSite = SITE_OTHER): number {
  if (typeof x === "number") return numberBits(x < 0 ? -x : x);
  const f = Number(x);
  if (f !== Infinity && f !== -Infinity) {
    if (f === 0) return 0;
    return f > 0 ? smallBits(x, f) : smallBits(-x, -f);
  }
  return bigBits(x, site);
}

/**
 * The bit length of an int of at least ~2^1024 in magnitude. For a negative `x` it measures
 * `v = |x| − 1 = ~x` (because `~(x >> s)` is exactly `v >> s`, while `x >> s` rounds toward −∞) and adds
 * the one bit `|x|` has more when it is a power of two.
 */
function bigBits(x: bigint, site: BitSite): number {
  const neg = x < 0n;
  const base = site * GUESSES;
  // The guesses from the largest down: a probe above the top costs nothing, and the first that is not
  // above it either measures v or shows that v is above every guess left (then a search).
  let b = ABOVE;
  for (let j = base; j < base + GUESSES && lengths[j] !== 0; j++) {
    b = probe(x, neg, lengths[j]);
    if (b !== ABOVE) break;
  }
  if (b < 0) b = search(x, neg);
  // The length replaces the guess it is near (sizes drift slowly), else an empty or the stalest one:
  // a guess whose window merely covered it stands for another size.
  let slot = base;
  for (let j = base + 1; j < base + GUESSES; j++) if (used[j] < used[slot]) slot = j;
  for (let j = base; j < base + GUESSES; j++) {
    const d = lengths[j] - b;
    if (d <= NEAR && d >= -NEAR) {
      slot = j;
      break;
    }
  }
  lengths[slot] = b;
  used[slot] = ++clock;
  reorder(base, slot);
  // v's top bits all ones: |x| may be the power of two 2^b, one bit longer (a rare, linear check).
  if (neg && ~(x >> BigInt(b - 52)) === ALL_ONES_52 && x === -(1n << BigInt(b))) return b + 1;
  return b;
}

/** Moves the guess at `slot` to its place in the site's list from the largest to the smallest. */
function reorder(base: number, slot: number): void {
  while (slot > base && lengths[slot] > lengths[slot - 1]) swap(slot, --slot);
  while (slot < base + GUESSES - 1 && lengths[slot] < lengths[slot + 1]) swap(slot, ++slot);
}

function swap(i: number, j: number): void {
  const l = lengths[i], u = used[i];
  lengths[i] = lengths[j];
  used[i] = used[j];
  lengths[j] = l;
  used[j] = u;
}

/** How far a length may drift from a guess and still update it rather than take a slot of its own. */
const NEAR = 64;

/** {@link probe}'s answer when v is below its window (nothing left after the shift). */
const ABOVE = -1;
/** {@link probe}'s answer when v is above its window (more than 1023 bits left). */
const BELOW = -2;

/**
 * The length of `v` (`x`, or `~x` when `neg`) if it lies within the window of one shift just below
 * `guess` (`guess − 767` to `guess + 255`); else {@link ABOVE} when the guess is above it, {@link BELOW}
 * when below.
 */
function probe(x: bigint, neg: boolean, guess: number): number {
  const s = guess - GUESS_BELOW > FINITE_BITS ? guess - GUESS_BELOW : FINITE_BITS;
  shifts++;
  let t = x >> BigInt(s);
  if (neg) t = ~t;
  if (t === 0n) return ABOVE;
  const f = Number(t);
  return f === Infinity ? BELOW : s + smallBits(t, f);
}

/** The length of `v` (`x`, or `~x` when `neg`) found by bracketing its top, with no guess. */
function search(x: bigint, neg: boolean): number {
  // The length b of v lies in [lo, hi]. A probe shifts v right by s: nothing left means b ≤ s (found
  // without copying a digit); a remainder below 2^1023 gives b exactly; a larger one means b > s + 1023.
  let lo = FINITE_BITS + 1, hi = Infinity;
  let s = SEARCH_FROM;
  let step = SEARCH_FROM;
  for (;;) {
    shifts++;
    let t = x >> BigInt(s);
    if (neg) t = ~t;
    if (t === 0n) {
      hi = s;
    } else {
      const f = Number(t);
      if (f !== Infinity) return s + smallBits(t, f);
      lo = s + FINITE_BITS + 1;
    }
    if (hi === Infinity) {
      // Above everything seen so far: gallop up (an overshoot costs nothing, an undershoot one copy).
      s = lo + step;
      step *= 4;
    } else if (hi - lo < FINITE_BITS) {
      s = lo - 1; // the last probe: its window (s, s + 1023] covers [lo, hi]
    } else {
      s = Math.floor((lo + hi) / 2) - (FINITE_BITS >>> 1);
    }
  }
}

const ALL_ONES_52 = (1n << 52n) - 1n;
