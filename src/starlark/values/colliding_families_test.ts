/**
 * Test support: families of Starlark keys that V8 would put in one bucket of a `Map` if they were its keys
 * as they are (see table_key.ts), each with a control family of the same kind, size and cost whose keys
 * spread. Generated from V8's public hash functions: its integer hashes are fixed bijections, so a target
 * bucket is inverted into a key.
 *
 * @module
 */
import { Bytes, Float, Tuple } from "./value.ts";
import type { Value } from "./value.ts";

/** A colliding family and its control. */
export interface KeyFamily {
  /** What the keys are. */
  readonly name: string;
  /** Keys V8 hashes alike (distinct as Starlark values). */
  readonly collide: Value[];
  /** Keys of the same kind and cost that V8 spreads. */
  readonly control: Value[];
}

const M32 = (1n << 32n) - 1n;
const M64 = (1n << 64n) - 1n;

/** The inverse of odd `a` modulo 2^bits. */
function inverse(a: bigint, bits: bigint): bigint {
  const mod = 1n << bits;
  let x = 1n;
  // Newton's iteration doubles the correct low bits each time.
  for (let i = 0; i < 7; i++) x = (x * (2n - a * x)) % mod;
  return ((x % mod) + mod) % mod;
}

/** Inverts `h = x ^ (x >> s)` on words of `mask`. */
function unXorShift(h: bigint, s: bigint, mask: bigint): bigint {
  let y = h;
  for (let i = 0n; i < 64n; i += s) y = h ^ (y >> s);
  return y & mask;
}

/** V8's `ComputeUnseededHash` (small ints and int32-valued numbers), before its 30-bit mask. */
export function v8IntHash(k: number): number {
  let h = k >>> 0;
  h = (~h + (h << 15)) >>> 0;
  h = (h ^ (h >>> 12)) >>> 0;
  h = (h + (h << 2)) >>> 0;
  h = (h ^ (h >>> 4)) >>> 0;
  h = Math.imul(h, 2057) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** The int32 whose {@link v8IntHash} is `h`. */
function v8IntHashInverse(h: bigint): number {
  let x = unXorShift(h, 16n, M32);
  x = (x * inverse(2057n, 32n)) & M32;
  x = unXorShift(x, 4n, M32);
  x = (x * inverse(5n, 32n)) & M32;
  x = unXorShift(x, 12n, M32);
  x = ((x + 1n) * inverse((1n << 15n) - 1n, 32n)) & M32;
  return Number(BigInt.asIntN(32, x));
}

/** V8's `ComputeLongHash` (other numbers, by their bits), before its 30-bit mask. */
export function v8LongHash(bits: bigint): bigint {
  let h = bits & M64;
  h = ((h << 18n) - h - 1n) & M64;
  h ^= h >> 31n;
  h = (h * 21n) & M64;
  h ^= h >> 11n;
  h = (h * 65n) & M64;
  return h ^ (h >> 22n);
}

/** The 64-bit word whose {@link v8LongHash} is `h`. */
function v8LongHashInverse(h: bigint): bigint {
  let x = unXorShift(h, 22n, M64);
  x = (x * inverse(65n, 64n)) & M64;
  x = unXorShift(x, 11n, M64);
  x = (x * inverse(21n, 64n)) & M64;
  x = unXorShift(x, 31n, M64);
  return ((x + 1n) * inverse((1n << 18n) - 1n, 64n)) & M64;
}

const view = new DataView(new ArrayBuffer(8));

/** The double with these bits. */
function fromBits(bits: bigint): number {
  view.setBigUint64(0, bits);
  return view.getFloat64(0);
}

/** The bits of a double. */
export function toBits(f: number): bigint {
  view.setFloat64(0, f);
  return view.getBigUint64(0);
}

/** `i` in six digits, so that every key of a family has the same length. */
const pad6 = (i: number) => String(i).padStart(6, "0");

/** Strings of 16,400 characters, past V8's hashing of strings by content. */
const LONG = "x".repeat(16_400);

/** Low bits every colliding hash shares: the bucket of any table of up to 2^14 buckets. */
const SHARED_BITS = 14n;

/** `n` ints V8 hashes alike: preimages of hashes whose low {@link SHARED_BITS} bits are zero. */
export function collidingSmallInts(n: number): number[] {
  return Array.from({ length: n }, (_, i) => v8IntHashInverse(BigInt(i + 1) << SHARED_BITS));
}

/** `n` non-integral floats V8 hashes alike (preimages, kept when finite and non-integral). */
export function collidingFractions(n: number): number[] {
  const out: number[] = [];
  for (let t = 1n; out.length < n; t++) {
    for (let high = 0n;; high++) {
      const f = fromBits(v8LongHashInverse((high << 30n) | (t << SHARED_BITS)));
      if (Number.isFinite(f) && !Number.isInteger(f)) {
        out.push(f);
        break;
      }
    }
  }
  return out;
}

/** Every family, `n` keys each (`n / 10` for the long ones, whose keys are 16 KB each). */
export function keyFamilies(n: number): KeyFamily[] {
  const range = (m: number) => Array.from({ length: m }, (_, i) => i + 1);
  const long = Math.max(20, Math.floor(n / 10));
  const big = (i: number) => BigInt(i) << 64n;
  return [
    {
      name: "big ints sharing their low 64 bits",
      collide: range(n).map(big),
      control: range(n).map((i) => big(i) + BigInt(i * 40503 + 17)),
    },
    {
      name: "small ints whose V8 hashes share their low bits",
      collide: collidingSmallInts(n),
      control: range(n).map((i) => i * 7919),
    },
    {
      name: "non-integral floats whose bits V8 hashes alike",
      collide: collidingFractions(n).map((f) => new Float(f)),
      control: range(n).map((i) => new Float(i + 0.5)),
    },
    {
      name: "floats of 2^64 and more, and the ints they equal",
      collide: range(n).map((i) => i % 2 === 0 ? big(i) : new Float(Number(big(i)))),
      control: range(n).map((i) => {
        const v = 2 ** 53 + 2 * i * 40503;
        return i % 2 === 0 ? BigInt(v) : new Float(v);
      }),
    },
    {
      name: "strings that look like array indices",
      collide: range(n).map((i) => String(i << Number(SHARED_BITS))),
      control: range(n).map((i) => String(i * 40503 + 1)),
    },
    {
      name: "long strings of one length",
      collide: range(long).map((i) => LONG + pad6(i)),
      control: range(long).map((i) => pad6(i) + LONG),
    },
    {
      name: "long bytes of one length",
      collide: range(long).map((i) => new Bytes(LONG + pad6(i))),
      control: range(long).map((i) => new Bytes(pad6(i) + LONG)),
    },
    {
      name: "tuples with a long string, of one key length",
      collide: range(long).map((i) => new Tuple([LONG, pad6(i)])),
      control: range(long).map((i) => new Tuple([pad6(i), LONG])),
    },
    {
      name: "every kind mixed: colliding ints, floats, nested tuples of them, None and bools",
      collide: [
        ...range(n / 2).map(big),
        ...range(n / 4).map((i) => new Float(Number(big(i + n)))),
        ...range(n / 4).map((i) => new Tuple([big(i), new Tuple([null, true, big(i + 1)])])),
        null,
        true,
        false,
      ],
      control: [
        ...range(n / 2).map((i) => big(i) + BigInt(i * 40503 + 17)),
        ...range(n / 4).map((i) => new Float(2 ** 53 + 2 * i * 40503)),
        ...range(n / 4).map((i) => new Tuple([big(i), new Tuple([null, true, big(i + 1)])])),
        null,
        true,
        false,
      ],
    },
  ];
}
