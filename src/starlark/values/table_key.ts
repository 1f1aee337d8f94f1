/**
 * The keys under which dicts and sets store their entries in a JS `Map`, derived from {@link hashKey}'s
 * equality keys so that a program cannot choose keys that share a bucket of V8's hash table.
 *
 * V8 hashes a `Map` key without a secret for every kind but ordinary strings: a small int by a fixed,
 * invertible mix of its value, any other number by a fixed mix of its bits, a BigInt by its lowest
 * 64-bit digit only, a string that looks like an array index ("123") by its value, and a string of 16,384
 * characters or more by its length only. A program that picks its keys from one of these families puts
 * them all in one bucket, and every table operation walks the whole chain inside one native call, where
 * no step is charged and the deadline is not seen (12,000 such keys made one `dict(d)` take a second).
 *
 * {@link tableKey} maps each equality key, one to one, to a key V8 hashes with a per-process secret:
 * a small int through a keyed permutation of the small ints (it stays an unboxed int, as cheap as
 * before); other numbers and big ints to a short tagged string of their whole value (hashed with V8's
 * seeded string hash); index-like strings to a tagged copy; strings too long for V8 to hash to a tagged
 * 64-bit keyed digest of their whole content (HalfSipHash-1-3 with a random key). Ordinary strings, the
 * usual keys, are their own table keys. Probe lengths then depend on the secret, not on the program.
 * A tuple or bytes value keeps its digested table key ({@link valueTableKey}), as it keeps its hash key.
 *
 * The secret is per process (per isolate for workers): an adaptive attacker could only learn about it
 * by timing table operations, one probe at a time, with every operation charged.
 *
 * @module
 */
import { Bytes, Tuple, type Value } from "./object.ts";

/** Random words of this process's secret (fixed for its lifetime: tables of every dict agree). */
const secret = crypto.getRandomValues(new Uint32Array(8));
/** The odd multiplier and the addend of the small-int permutation (31-bit), from the secret. */
const M1 = secret[0] | 1, K1 = secret[1] & 0x7fffffff;
/** The key of the long-string digest. */
const SIP_K0 = secret[5] | 0, SIP_K1 = secret[6] | 0;

/** Low 31 bits. */
const MASK31 = 0x7fffffff;

/**
 * Strings of this length or more are keyed by their digest: V8 hashes a string of 16,384 characters or
 * more by its length alone. The margin keeps a tagged copy (two characters longer) below that too.
 */
export const DIGEST_KEY_LENGTH = 16_000;

/**
 * First character of every key this module makes. No equality key starts with it: a Starlark string's
 * characters are all below 0x100, the synthetic keys of `hashKey` start with other characters, and
 * `hashKey` escapes a host value's own key that does (see {@link escapeHostKey}).
 */
const TAG = "\u0105";
const TAG_CODE = 0x105;

/**
 * A keyed permutation of the 31-bit ints [-2^30, 2^30) onto themselves (so the result is still a small
 * int, stored unboxed): a secret addend and a secret odd multiplier mod 2^31, then a xor-shift that
 * brings the high bits down, each a bijection of 31-bit words. V8 then mixes the result with its own
 * fixed hash, so ints a program derived by inverting that hash land anywhere. One multiplication: this
 * runs for every int lookup in a table, and a second one cost 5% on int-keyed dict work.
 */
function permuteSmall(n: number): number {
  const x = Math.imul((n + K1) & MASK31, M1) & MASK31;
  return (x ^ (x >>> 16)) - 0x40000000;
}

/**
 * The table key of the equality key `hk` ({@link hashKey}'s result): equal for equal `hk`s and different
 * for different ones (for digests, but for a 2^-64 chance), and hashed by V8 in a way the program cannot
 * predict. Costs O(1) but for big ints (linear in their digits) and strings of {@link DIGEST_KEY_LENGTH}
 * characters or more (linear in their length), which the callers charge as key hashing.
 */
export function tableKey(hk: unknown): unknown {
  // `typeof x === "..."` compiles to a type check; a switch on `typeof` may call the Typeof builtin.
  if (typeof hk === "string") return stringTableKey(hk);
  // A 31-bit int (-0 included, as 0) stays a small int; any other number is a tagged decimal string.
  if (typeof hk === "number") return (hk << 1 >> 1) === hk ? permuteSmall(hk) : TAG + "n" + hk;
  if (typeof hk === "bigint") {
    // Hex is linear-time; a big int never equals a number key (ints outside the safe range only).
    const s = TAG + "b" + hk.toString(16);
    return s.length >= DIGEST_KEY_LENGTH ? digestKey(s) : s;
  }
  return hk; // booleans and None: three fixed values, nothing to collide
}

/**
 * The table key of a string: itself, unless V8 would hash it without its secret: an array-index-like
 * string (up to ten characters, the first a digit), or a string of {@link DIGEST_KEY_LENGTH} characters or
 * more. Checks its length, and its first character when short: the usual key costs two comparisons.
 */
export function stringTableKey(s: string): string {
  const n = s.length;
  if (n <= 10) {
    const c = s.charCodeAt(0);
    return c <= 0x39 && c >= 0x30 ? TAG + "s" + s : s;
  }
  return n < DIGEST_KEY_LENGTH ? s : digestKey(s);
}

/** A host value's own hash key, escaped when it starts with the character table keys start with. */
export function escapeHostKey(k: string): string {
  return k.charCodeAt(0) === TAG_CODE ? "\u0103" + k : k;
}

/**
 * Whether the table key `tk` stands for an equality key starting with the character `code`: the key
 * itself starts with it, or it is the digest of a long key that does (a digest keeps the first character).
 */
export function tableKeyStartsWith(tk: string, code: number): boolean {
  const c = tk.charCodeAt(0);
  return c === code || (c === TAG_CODE && tk.charCodeAt(1) === 0x68 && tk.charCodeAt(2) === code);
}

/** `TAG h <first char of s> <64-bit digest of s, in 11 base-36 digits at most per half>`. */
function digestKey(s: string): string {
  halfSip(s);
  return TAG + "h" + s[0] + (digestHi >>> 0).toString(36) + ":" + (digestLo >>> 0).toString(36);
}

let digestHi = 0, digestLo = 0;

/**
 * HalfSipHash-1-3 (one compression round per word, three finalisation rounds) of the UTF-16 code units
 * of `s`, two per 32-bit word, keyed with the process secret, with a 64-bit result in
 * {@link digestHi}/{@link digestLo}. A keyed PRF built for hash tables: without the key, a program can find
 * no two strings with equal digests other than by chance.
 */
function halfSip(s: string): void {
  let v0 = SIP_K0, v1 = SIP_K1 ^ 0xee, v2 = SIP_K0 ^ 0x6c796765, v3 = SIP_K1 ^ 0x74656462;
  const n = s.length, end = n & ~1;
  for (let i = 0; i < end; i += 2) {
    const m = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
    v3 ^= m;
    // One SipRound on 32-bit words.
    v0 = (v0 + v1) | 0;
    v1 = (v1 << 5) | (v1 >>> 27);
    v1 ^= v0;
    v0 = (v0 << 16) | (v0 >>> 16);
    v2 = (v2 + v3) | 0;
    v3 = (v3 << 8) | (v3 >>> 24);
    v3 ^= v2;
    v0 = (v0 + v3) | 0;
    v3 = (v3 << 7) | (v3 >>> 25);
    v3 ^= v0;
    v2 = (v2 + v1) | 0;
    v1 = (v1 << 13) | (v1 >>> 19);
    v1 ^= v2;
    v2 = (v2 << 16) | (v2 >>> 16);
    v0 ^= m;
  }
  // The last word: the odd code unit, if any, and the length.
  const last = ((n & 1) === 1 ? s.charCodeAt(n - 1) : 0) | ((n & 0xffff) << 16);
  v3 ^= last;
  [v0, v1, v2, v3] = rounds(v0, v1, v2, v3, 1);
  v0 ^= last;
  v2 ^= 0xee;
  [v0, v1, v2, v3] = rounds(v0, v1, v2, v3, 3);
  digestHi = v1 ^ v3;
  v1 ^= 0xdd;
  [v0, v1, v2, v3] = rounds(v0, v1, v2, v3, 3);
  digestLo = v1 ^ v3;
}

/** `count` SipRounds on 32-bit words (finalisation only: the hot loop has its round inline). */
function rounds(v0: number, v1: number, v2: number, v3: number, count: number): number[] {
  for (let r = 0; r < count; r++) {
    v0 = (v0 + v1) | 0;
    v1 = (v1 << 5) | (v1 >>> 27);
    v1 ^= v0;
    v0 = (v0 << 16) | (v0 >>> 16);
    v2 = (v2 + v3) | 0;
    v3 = (v3 << 8) | (v3 >>> 24);
    v3 ^= v2;
    v0 = (v0 + v3) | 0;
    v3 = (v3 << 7) | (v3 >>> 25);
    v3 ^= v0;
    v2 = (v2 + v1) | 0;
    v1 = (v1 << 13) | (v1 >>> 19);
    v1 ^= v2;
    v2 = (v2 << 16) | (v2 >>> 16);
  }
  return [v0, v1, v2, v3];
}

/**
 * Table keys of tuples and bytes whose key is long enough to be digested (see {@link tableKey}): made
 * once per value, as their keys are, rather than once per lookup.
 */
const digestKeys = new WeakMap<Tuple | Bytes, string>();

/** Whether the digested table key of `v` is kept (a lookup does not digest its key again). */
export function isTableKeyKept(v: Tuple | Bytes): boolean {
  return digestKeys.has(v);
}

/**
 * The table key of `v`, whose hash key is `hk`: kept with the value when it is a digest of a tuple or
 * bytes value's key.
 */
export function valueTableKey(v: Value, hk: unknown): unknown {
  if (
    typeof hk !== "string" || hk.length < DIGEST_KEY_LENGTH || !(v instanceof Tuple || v instanceof Bytes)
  ) {
    return tableKey(hk);
  }
  let tk = digestKeys.get(v);
  if (tk === undefined) {
    tk = tableKey(hk) as string;
    digestKeys.set(v, tk);
  }
  return tk;
}

/** Keeps the table key of `v`, whose long hash key `hk` was just built (see `prepareKey`). */
export function keepTableKey(v: Tuple | Bytes, hk: string): void {
  digestKeys.set(v, tableKey(hk) as string);
}
