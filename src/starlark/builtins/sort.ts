/**
 * Sorting for `sorted`: a fast stable sort of precomputed keys, and the reproduction of the reference's
 * error message when keys are not mutually comparable.
 *
 * Fast path: when every key is an int, a float, a string, or a tuple of those with one kind per position,
 * each key position is turned into dense integer ranks (ints in a narrow range are their own ranks; other
 * numbers and strings are ranked by the polling merge sorts of `merge_sort.ts`), and the order is found by
 * stable counting-sort passes over the ranks, last position first. Any other keys use
 * `Array.prototype.sort` (stable) with the generic three-way comparison, polled from its comparator. Every
 * linear pass over the keys polls too, so sorting millions of values never holds the thread for long.
 *
 * Errors: the reference sorts with Go's `sort.Stable` (insertion-sorted blocks of 20, then SymMerge) and
 * reports the error of the *last* failing comparison, treating failed comparisons as "not less".
 * Which pair fails last depends on that exact comparison sequence, so to reproduce the reference's
 * message we replay the same algorithm. This only runs after the fast sort has failed.
 *
 * @module
 */
import {
  type Callback,
  callOne,
  compare,
  compareValues,
  EvalError,
  Float,
  HASH_POLL_MASK,
  SLOT_BYTES,
  stringTableKey,
  type Thread,
  Tuple,
  type Value,
} from "../values/mod.ts";
import { sortIndicesByNumber, sortStrings } from "./merge_sort.ts";

/**
 * The sort keys of `values`: `key(v)` for each value, in order, charged as one slot per value. One-
 * parameter Starlark functions and lambdas (the usual key) are called without an argument array.
 *
 * @throws {EvalError} an error of the key function.
 */
export function sortKeys(thread: Thread, values: readonly Value[], key: Value): Value[] {
  thread.allocate(SLOT_BYTES * values.length);
  const keys: Value[] = [];
  for (let i = 0; i < values.length; i++) keys.push(callOne(thread, key, values[i]));
  return keys;
}

/** {@link sortKeys} as a generator: each key call is yielded to the evaluator (see `BuiltinGen`). */
export function* sortKeysGen(
  thread: Thread,
  values: readonly Value[],
  key: Value,
): Generator<Callback, Value[], Value> {
  thread.allocate(SLOT_BYTES * values.length);
  const keys: Value[] = [];
  for (let i = 0; i < values.length; i++) keys.push(yield { fn: key, arg: values[i] });
  return keys;
}

/**
 * Returns `values` reordered by `keys` (same length, `keys[i]` is the key of `values[i]`), ascending or,
 * with `reverse`, descending; equal keys keep their original order. The caller charges the n·log n
 * comparisons; comparisons of long strings or containers are charged here.
 *
 * @throws {EvalError} the reference's error when two keys that must be compared are not ordered.
 */
export function sortByKeys(
  thread: Thread,
  values: readonly Value[],
  keys: readonly Value[],
  reverse: boolean,
): Value[] {
  const n = keys.length;
  if (keys === values && n >= 2) {
    const sorted = sortShortStrings(thread, values);
    if (sorted !== undefined) return reverse ? sorted.reverse() : sorted;
  }
  const order = n < 2 ? null : rankOrder(thread, keys, reverse) ?? comparatorOrder(thread, keys, reverse);
  if (order === null) return values.slice();
  const out: Value[] = [];
  for (let i = 0; i < n; i++) {
    if ((i & LOOP_POLL_MASK) === LOOP_POLL_MASK) thread.poll();
    out.push(values[order[i]]);
  }
  return out;
}

/** The linear passes over millions of keys poll once per this many keys, plus one. */
const LOOP_POLL_MASK = 0xffff;

/** Strings shorter than this are sorted directly by {@link sortShortStrings}. */
const SHORT_STRING = 64;

/**
 * `values` sorted, when they are all strings shorter than {@link SHORT_STRING} (`sorted(names)`,
 * `sorted(d.keys())`); undefined otherwise. Equal strings cannot be told apart, so the native sort of the
 * values themselves (byte order, as JS compares binary strings by code unit) is the stable sort, with no
 * ranks to compute; and strings that short are charged nothing beyond the caller's n·log n, by either path.
 */
function sortShortStrings(thread: Thread, values: readonly Value[]): Value[] | undefined {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== "string" || v.length >= SHORT_STRING) return undefined;
  }
  return sortStrings(values as readonly string[], () => thread.poll());
}

/** The generic path: a stable comparison sort of indices; a failure is replayed for the reference's error. */
function comparatorOrder(thread: Thread, keys: readonly Value[], reverse: boolean): number[] {
  const n = keys.length;
  const order: number[] = [];
  for (let i = 0; i < n; i++) order.push(i);
  const sign = reverse ? -1 : 1;
  let comparisons = 0;
  try {
    order.sort((i, j) => {
      // The comparisons were charged by the caller; poll the interrupt hook while a long sort runs.
      if ((++comparisons & HASH_POLL_MASK) === 0) thread.poll();
      return sign * compareValues(keys[i], keys[j], thread);
    });
  } catch (e) {
    // Report the same comparison error as the reference, whose sequence of comparisons differs.
    if (e instanceof EvalError) throw lastSortError(thread, keys, reverse) ?? e;
    throw e;
  }
  return order;
}

/** Kinds of the values found at one key position. */
const K_NONE = 0, K_INT = 1, K_NUM = 2, K_STR = 4, K_OTHER = 8;

function kindOf(v: Value): number {
  if (typeof v === "number") return K_INT;
  if (typeof v === "string") return K_STR;
  if (v instanceof Float) return Number.isNaN(v.value) ? K_OTHER : K_NUM;
  return K_OTHER;
}

/** Whether one position holds values of a single comparable kind (ints and floats compare together). */
function singleKind(kind: number): boolean {
  return kind === K_STR || (kind !== K_NONE && kind === (kind & (K_INT | K_NUM)));
}

/**
 * The sorted order by ranks, or `null` when the keys do not qualify (mixed kinds at one position,
 * NaN, big ints, nested containers...): the generic path then sorts them or reports the error.
 */
function rankOrder(thread: Thread, keys: readonly Value[], reverse: boolean): Int32Array | null {
  const n = keys.length;
  const first = keys[0];
  if (!(first instanceof Tuple)) {
    let kind = K_NONE;
    for (let i = 0; i < n; i++) kind |= kindOf(keys[i]);
    thread.poll();
    if (!singleKind(kind)) return null;
    return countingPass(thread, null, rankColumn(thread, keys, -1, kind, reverse));
  }
  let width = 0;
  for (let i = 0; i < n; i++) {
    if ((i & LOOP_POLL_MASK) === LOOP_POLL_MASK) thread.poll();
    const k = keys[i];
    if (!(k instanceof Tuple)) return null;
    if (k.elems.length > width) width = k.elems.length;
  }
  // Check every position first: no sorting work is wasted on keys that will fall back.
  const kinds: number[] = [];
  for (let c = 0; c < width; c++) {
    let kind = K_NONE;
    for (let i = 0; i < n; i++) {
      if ((i & LOOP_POLL_MASK) === LOOP_POLL_MASK) thread.poll();
      const e = (keys[i] as Tuple).elems;
      if (c < e.length) kind |= kindOf(e[c]);
    }
    if (!singleKind(kind)) return null;
    kinds.push(kind);
  }
  // Least significant position first; each pass is stable, so earlier positions take precedence.
  let order: Int32Array | null = null; // all tuples empty (width 0): the generic path keeps them in order
  for (let c = width - 1; c >= 0; c--) {
    order = countingPass(thread, order, rankColumn(thread, keys, c, kinds[c], reverse));
  }
  return order;
}

/**
 * The values at position `c` of every key (the keys themselves when `c < 0`); `undefined` where a tuple
 * is too short.
 */
function column(thread: Thread, keys: readonly Value[], c: number): readonly (Value | undefined)[] {
  if (c < 0) return keys;
  const out: (Value | undefined)[] = [];
  for (let i = 0; i < keys.length; i++) {
    if ((i & LOOP_POLL_MASK) === LOOP_POLL_MASK) thread.poll();
    const e = (keys[i] as Tuple).elems;
    out.push(c < e.length ? e[c] : undefined);
  }
  return out;
}

/** Ranks of the keys at one position: equal values have equal ranks, in the values' order; 0..max. */
interface Ranks {
  r: Int32Array;
  max: number;
}

/**
 * Ranks of position `c` of every key. A tuple too short to have position `c` ranks 0, below every
 * value (a proper prefix sorts first). With `reverse` the ranks are mirrored (max - rank).
 */
function rankColumn(
  thread: Thread,
  keys: readonly Value[],
  c: number,
  kind: number,
  reverse: boolean,
): Ranks {
  const col = column(thread, keys, c);
  const ranks = kind === K_STR
    ? rankStrings(thread, col as readonly (string | undefined)[])
    : kind === K_INT
    ? rankInts(thread, col as readonly (number | undefined)[])
    : rankNumbers(thread, col as readonly (number | Float | undefined)[]);
  if (reverse) {
    const r = ranks.r, max = ranks.max;
    for (let i = 0; i < r.length; i++) r[i] = max - r[i];
  }
  return ranks;
}

function rankInts(thread: Thread, col: readonly (number | undefined)[]): Ranks {
  const n = col.length;
  let min = Infinity, max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = col[i];
    if (v === undefined) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  // Ints in a narrow range: the offset from the minimum is already a rank.
  if (max - min > 2 * n + 1024) return rankNumbers(thread, col);
  const r = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = col[i];
    r[i] = v === undefined ? 0 : v - min + 1;
  }
  return { r, max: max - min + 1 };
}

function rankNumbers(thread: Thread, col: readonly (number | Float | undefined)[]): Ranks {
  const n = col.length;
  const vals = new Float64Array(n);
  const present = new Int32Array(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const v = col[i];
    if (v === undefined) continue;
    vals[i] = typeof v === "number" ? v : v.value;
    present[m++] = i;
  }
  thread.poll();
  const order = sortIndicesByNumber(vals, present.subarray(0, m), () => thread.poll());
  // Equal values share a rank (-0 and 0 are one value, as they are equal).
  const r = new Int32Array(n);
  let rank = 0;
  for (let k = 0; k < m; k++) {
    if ((k & LOOP_POLL_MASK) === LOOP_POLL_MASK) thread.poll();
    const i = order[k];
    if (k === 0 || vals[i] !== vals[order[k - 1]]) rank++;
    r[i] = rank;
  }
  return { r, max: rank };
}

function rankStrings(thread: Thread, col: readonly (string | undefined)[]): Ranks {
  const n = col.length;
  // First pass: number the distinct strings in order of appearance. `ids` is keyed like a dict's table
  // (`stringTableKey`): V8 hashes index-like and very long strings without its secret, and a program
  // could put every one of its strings in one bucket.
  const ids = new Map<string, number>();
  const uniq: string[] = [];
  const r = new Int32Array(n);
  let longBytes = 0;
  for (let i = 0; i < n; i++) {
    if ((i & LOOP_POLL_MASK) === LOOP_POLL_MASK) thread.poll();
    const v = col[i];
    if (v === undefined) continue; // rank 0
    const tk = stringTableKey(v);
    let id = ids.get(tk);
    if (id === undefined) {
      id = uniq.length;
      ids.set(tk, id);
      uniq.push(v);
      if (v.length >= 64) longBytes += v.length >>> 6;
    }
    r[i] = id;
  }
  // Each distinct string takes part in about log2(d) comparisons; long ones cost a step per 64 bytes.
  if (longBytes > 0) thread.charge(longBytes * Math.ceil(Math.log2(uniq.length + 1)));
  // Binary strings: JS's default order (by UTF-16 code unit) is the byte order Starlark defines.
  const sorted = sortStrings(uniq, () => thread.poll());
  const rankOfId = new Int32Array(uniq.length);
  for (let j = 0; j < sorted.length; j++) {
    if ((j & LOOP_POLL_MASK) === LOOP_POLL_MASK) thread.poll();
    rankOfId[ids.get(stringTableKey(sorted[j]))!] = j + 1;
  }
  thread.poll();
  for (let i = 0; i < n; i++) if (col[i] !== undefined) r[i] = rankOfId[r[i]];
  return { r, max: uniq.length };
}

/**
 * One stable counting-sort pass: reorders `order` (key indices; null for 0, 1, ..., n-1) by rank,
 * keeping the order of equal ranks.
 */
function countingPass(thread: Thread, order: Int32Array | null, ranks: Ranks): Int32Array {
  const r = ranks.r, n = r.length;
  const next = new Int32Array(ranks.max + 2);
  for (let i = 0; i < n; i++) next[r[i] + 1]++;
  thread.poll();
  for (let k = 1; k < next.length; k++) next[k] += next[k - 1];
  thread.poll();
  const out = new Int32Array(n);
  for (let p = 0; p < n; p++) {
    // Scattered writes, a cache miss each: the slowest of the passes.
    if ((p & LOOP_POLL_MASK) === LOOP_POLL_MASK) thread.poll();
    const i = order === null ? p : order[p];
    out[next[r[i]]++] = i;
  }
  return out;
}

/**
 * Replays Go's stable sort over `keys` (reversed order when `reverse`) and returns the error of the
 * last comparison that failed, or `undefined` when every comparison succeeded.
 */
export function lastSortError(
  thread: Thread,
  keys: readonly Value[],
  reverse: boolean,
): EvalError | undefined {
  const data = keys.slice();
  let err: EvalError | undefined;
  const lessRaw = (x: Value, y: Value): boolean => {
    thread.charge(1);
    try {
      return compare("<", x, y);
    } catch (e) {
      if (e instanceof EvalError) {
        err = e;
        return false;
      }
      throw e;
    }
  };
  const less = (i: number, j: number): boolean =>
    reverse ? lessRaw(data[j], data[i]) : lessRaw(data[i], data[j]);
  const swap = (i: number, j: number): void => {
    const t = data[i];
    data[i] = data[j];
    data[j] = t;
  };

  const insertionSort = (a: number, b: number): void => {
    for (let i = a + 1; i < b; i++) {
      for (let j = i; j > a && less(j, j - 1); j--) swap(j, j - 1);
    }
  };

  const swapRange = (a: number, b: number, n: number): void => {
    for (let i = 0; i < n; i++) swap(a + i, b + i);
  };

  const rotate = (a: number, m: number, b: number): void => {
    let i = m - a, j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };

  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m, j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (less(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a, j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!less(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n = mid + m;
    let start: number, r: number;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!less(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };

  const n = data.length;
  let blockSize = 20;
  let a = 0, b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
  return err;
}
