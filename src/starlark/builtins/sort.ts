/**
 * Error reporting for `sorted` when elements are not mutually comparable.
 *
 * The reference sorts with Go's `sort.Stable` (insertion-sorted blocks of 20, then SymMerge) and
 * reports the error of the *last* failing comparison, treating failed comparisons as "not less".
 * Which pair fails last depends on that exact comparison sequence, so to reproduce the reference's
 * message we replay the same algorithm. This only runs after the fast native sort has failed.
 *
 * @module
 */
import { compare } from "../ops.ts";
import { EvalError } from "../value.ts";
import type { Thread, Value } from "../value.ts";

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
