/**
 * Budgeted bulk work shared by operators, built-ins and methods: copying element slots, repeating them,
 * and the cost model that turns that work into steps and bytes.
 *
 * The rule every caller follows: charge the steps and the memory of an operation *before* doing it (so a
 * budget stops it before the work, and the interrupt poll inside `charge` runs first), and break any copy
 * longer than {@link POLL_CHUNK} elements into chunks with an interrupt poll between them, so that no single
 * operation runs unpolled for more than a few milliseconds.
 *
 * Calibration: a step is worth roughly one iteration of a plain `for` loop (10–15 ns on the reference
 * machine). Copying a slot of a large array costs 5–10 ns with the garbage collector's share, hence
 * {@link SLOTS_PER_STEP}.
 *
 * @module
 */
import { Bytes, hashKey, isKeyPrepared, LONG_KEY_LENGTH, prepareKey, ResourceError, Tuple } from "./value.ts";
import { DIGEST_KEY_LENGTH, isTableKeyKept } from "./table_key.ts";
import { intBits } from "./int_cost.ts";
import type { Dict, List, Thread, Value } from "./value.ts";

/** Bytes charged per element slot that an operation creates. */
export const SLOT_BYTES = 8;

/** Element slots copied per step. */
export const SLOTS_PER_STEP = 1;

/** Elements copied between two interrupt polls. */
export const POLL_CHUNK = 1 << 16;

/** Most elements one array may hold (a JS array's backing store cannot grow much beyond this). */
export const MAX_SLOTS = 1 << 27;

/**
 * Charges the creation of `n` element slots: steps, then `bytesPerSlot` bytes each.
 * @throws {ResourceError} when a budget is exhausted, or `n` exceeds {@link MAX_SLOTS}.
 */
export function chargeSlots(thread: Thread, n: number, bytesPerSlot: number = SLOT_BYTES): void {
  if (n <= 0) return;
  thread.charge(Math.ceil(n / SLOTS_PER_STEP));
  if (n > MAX_SLOTS) {
    throw new ResourceError("memory", `Starlark computation cancelled: ${n} elements exceed the size limit`);
  }
  thread.allocate(bytesPerSlot * n);
}

/**
 * Appends the first `n` elements of `src` to `dst` in place (`src` may be `dst` itself: the elements
 * appended are those present before the call). The caller has charged the work; this polls the
 * interrupt hook between chunks.
 */
export function appendElems(thread: Thread, dst: Value[], src: readonly Value[], n: number): void {
  for (let i = 0; i < n;) {
    const end = n - i > POLL_CHUNK ? i + POLL_CHUNK : n;
    for (; i < end; i++) dst.push(src[i]);
    if (i < n) thread.poll();
  }
}

/**
 * `l.extend(src)` for an array of elements (`src` may be `l.elems` itself), after the caller's
 * mutability checks: charges the copy and the list's growth first, then appends. A large extension
 * builds the new array in one native copy (faster than growing the old one step by step); a small one
 * appends in place.
 */
export function extendList(thread: Thread, l: List, src: readonly Value[]): void {
  const n = src.length;
  if (n === 0) return;
  chargeSlots(thread, n, 2 * SLOT_BYTES);
  if (n >= POLL_CHUNK && n >= l.elems.length >> 1) l.elems = l.elems.concat(src);
  else appendElems(thread, l.elems, src, n);
}

/** A fresh copy of `src` (charged by the caller), polling between chunks of a large copy. */
export function copyElems(thread: Thread, src: readonly Value[]): Value[] {
  if (src.length <= POLL_CHUNK) return src.slice();
  const out: Value[] = [];
  appendElems(thread, out, src, src.length);
  return out;
}

/**
 * `elems` repeated `times` times (the caller has checked the limits and charged the result), built by
 * doubling so that the result is a packed array, with an interrupt poll between large steps.
 */
export function repeatArray(thread: Thread, elems: readonly Value[], times: number): Value[] {
  const size = elems.length * times;
  let out = elems.slice();
  while (out.length * 2 <= size) {
    if (out.length >= POLL_CHUNK) thread.poll();
    out = out.concat(out);
  }
  if (out.length < size) {
    if (out.length >= POLL_CHUNK) thread.poll();
    out = out.concat(out.slice(0, size - out.length));
  }
  return out;
}

/**
 * Bytes (or elements) a loop written in JS over text handles between two interrupt polls: such loops
 * take 2–30 ns a byte, so a chunk is at most about a millisecond of work.
 */
export const TEXT_POLL_CHUNK = 1 << 15;

/**
 * Bytes charged per dict entry: the entry object and its hash-table slot, 70–93 bytes live (measured with
 * int keys, 0.6–1.6 million entries). Charging their upper end also keeps a table under the default 64 MiB
 * budget below 2^20 entries, where V8 would double it in one ~40 ms native call (docs/cost_model.md).
 */
export const ENTRY_BYTES = 96;

/** Bytes charged per set element: 37–53 bytes live, plus the same margin as {@link ENTRY_BYTES}. */
export const SET_ENTRY_BYTES = 72;

/** Hash-table operations between two interrupt polls in a loop that was charged up front. */
export const HASH_POLL_MASK = 4095;

/**
 * Steps per insertion into a hash table of `size` entries. Insertions cost 30 ns in a small table and
 * up to 250 ns in a table of a million entries, which no longer fits the caches.
 */
export function insertSteps(size: number): number {
  return size <= 1 << 12 ? 3 : size <= 1 << 16 ? 6 : size <= 1 << 19 ? 12 : 24;
}

/** Steps per lookup in a hash table of `size` entries (4 ns small, 40 ns at a million entries). */
export function lookupSteps(size: number): number {
  return size <= 1 << 12 ? 1 : size <= 1 << 16 ? 2 : size <= 1 << 19 ? 3 : 4;
}

/** Charges `n` insertions into a hash table that will hold up to `size` entries, and their memory. */
export function chargeInserts(thread: Thread, n: number, size: number, bytesPerEntry: number): void {
  if (n <= 0) return;
  thread.charge(n * insertSteps(size));
  thread.allocate(n * bytesPerEntry);
}

/**
 * Copies every entry of `src` into `dst` (an insertion-ordered copy), polling the interrupt hook between
 * chunks; the caller has charged the work.
 */
export function copyMap<K, V>(thread: Thread, dst: Map<K, V>, src: ReadonlyMap<K, V>): void {
  eachEntry(thread, src, (k, v) => dst.set(k, v));
}

/**
 * Calls `f` on every entry of `src` in order, polling the interrupt hook between chunks; the caller has
 * charged the work.
 */
export function eachEntry<K, V>(thread: Thread, src: ReadonlyMap<K, V>, f: (k: K, v: V) => void): void {
  let i = 0;
  for (const [k, v] of src) {
    chargeKeyCompare(thread, k);
    f(k, v);
    if ((++i & HASH_POLL_MASK) === 0) thread.poll();
  }
}

/**
 * Charges a lookup of the key `hk` (as {@link hashKey} makes it) in a table that may hold an equal key:
 * the two are compared whole, n/64 steps for a long one. A string's own key is itself; a bytes value's or a
 * tuple's is a wide string built from its content.
 */
export function chargeKeyCompare(thread: Thread, hk: unknown): void {
  if (typeof hk === "string" && hk.length > LONG_KEY_LENGTH) thread.charge(hk.length >>> 6);
}

/**
 * Charges the key comparisons of copying a compact dict `src` into a table that may hold equal keys (a
 * dict in hash table form is charged per entry as {@link eachEntry} walks it).
 */
export function chargeCompactKeys(thread: Thread, src: Dict): void {
  const triples = src.compactTriples();
  if (triples === null) return;
  for (let i = 0; i < triples.length; i += 3) chargeKeyCompare(thread, triples[i]);
}

/**
 * Steps for the keyed digest of a table key of `chars` characters (see table_key.ts): V8 does not hash a
 * string that long by content, so a dict or set digests it for every lookup (1–2 ns a character: a step per 8).
 */
function digestSteps(chars: number): number {
  return chars >>> 3;
}

/** Steps per element of a tuple used as a hash key (its key string is built from every element). */
const STEPS_PER_KEY_ELEMENT = 4;
/** Steps per element of a big tuple's key (built piece by piece, ~250 ns an element at a million). */
const STEPS_PER_BIG_KEY_ELEMENT = 16;
/** Elements (nested ones included) from which a tuple's key is built with polls and kept with the tuple. */
const BIG_KEY_ELEMENTS = 4096;
/** Key bytes up to which a tuple's key is not charged as memory: a bounded amount per lookup. */
const FREE_KEY_BYTES = 512;
/** Estimated key characters per non-string element (a tag, digits, a separator). */
const KEY_CHARS_PER_ELEMENT = 24;
/** Transient bytes per element while a big key is built (its piece, and the piece's slot). */
const BIG_KEY_PIECE_BYTES = 32;

/**
 * Charges the hashing of `key` before a lookup or insertion. A string is its own key, and V8 keeps its
 * hash, but a table holding an equal string compares the two whole: n/64 steps for a long one. A bytes
 * value's key is a copy of its data behind a wide character (two bytes a character): built once per value
 * (n/16 steps and its memory) and compared like a string's. A tuple's key is built from every element
 * (nested tuples and string bytes included): 4 steps an element, and its memory when it is more than a
 * few hundred bytes, since a table keeps it with the entry. A big tuple's key is built here, with polls,
 * and kept with the tuple (see {@link prepareKey}).
 */
export function chargeKeyHash(thread: Thread, key: Value): void {
  if (typeof key === "string") {
    if (key.length > LONG_KEY_LENGTH) thread.charge(key.length >>> 6);
    if (key.length >= DIGEST_KEY_LENGTH) thread.charge(digestSteps(key.length));
    return;
  }
  if (typeof key === "bigint") {
    // Its table key is its hex text (a digest of it beyond DIGEST_KEY_LENGTH), made for each lookup.
    const chars = intBits(key) >>> 2;
    thread.charge((chars >>> 4) + (chars >= DIGEST_KEY_LENGTH ? digestSteps(chars) : 0));
    return;
  }
  if (key instanceof Bytes) {
    const n = key.data.length;
    if (n <= LONG_KEY_LENGTH) return;
    if (!isKeyPrepared(key)) {
      thread.charge(n >>> 4);
      thread.allocate(2 * n + 32);
      prepareKey(key, () => thread.poll());
    }
    thread.charge(n >>> 6);
    if (n >= DIGEST_KEY_LENGTH && !isTableKeyKept(key)) thread.charge(digestSteps(n));
    return;
  }
  if (!(key instanceof Tuple)) return;
  if (isKeyPrepared(key)) {
    // Built and kept already: only the comparison with an equal key is left (a step per 32 chars), and
    // the digest of a long key.
    const n = (hashKey(key) as string).length;
    thread.charge((n >>> 5) + (n >= DIGEST_KEY_LENGTH && !isTableKeyKept(key) ? digestSteps(n) : 0));
    return;
  }
  let elements = 0, text = 0;
  // The walk itself is charged (a step an element, per 4,096), so a tuple sharing its halves at every
  // level (2^30 leaves in 30 tuples) stops at the step budget or the deadline instead of being counted.
  let walkedUncharged = 0;
  const stack: Tuple[] = [key];
  while (stack.length > 0) {
    const t = stack.pop()!;
    elements += t.elems.length;
    walkedUncharged += t.elems.length;
    if (walkedUncharged >= BIG_KEY_ELEMENTS) {
      thread.charge(walkedUncharged);
      walkedUncharged = 0;
    }
    for (const e of t.elems) {
      if (e instanceof Tuple) stack.push(e);
      else if (typeof e === "string") text += e.length;
      else if (e instanceof Bytes) text += e.data.length;
    }
  }
  const chars = text + KEY_CHARS_PER_ELEMENT * elements;
  if (chars >= DIGEST_KEY_LENGTH && !isTableKeyKept(key)) thread.charge(digestSteps(chars));
  if (elements < BIG_KEY_ELEMENTS) {
    thread.charge(STEPS_PER_KEY_ELEMENT * elements + (text >>> 4));
    if (2 * chars > FREE_KEY_BYTES) thread.allocate(2 * chars);
    return;
  }
  thread.charge(STEPS_PER_BIG_KEY_ELEMENT * elements + (text >>> 4));
  thread.allocate(2 * chars + BIG_KEY_PIECE_BYTES * elements);
  prepareKey(key, () => thread.poll());
}
