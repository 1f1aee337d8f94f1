/**
 * Sorts that poll: a native `sort()` of millions of values is one call that cannot be interrupted
 * (1.3 s for 3 million floats), so the long sorts of `sorted` go through these instead. Both are stable
 * bottom-up merge sorts whose passes poll every {@link MOVES_PER_POLL} moves:
 * - {@link sortIndicesByNumber} orders indices by a Float64Array of values, in JS from the start (it must
 *   carry the index with each value, which a native sort of the values cannot);
 * - {@link sortStrings} sorts runs of {@link NATIVE_RUN} strings natively (a native string compare is
 *   cheaper than a JS one) and merges the runs in JS.
 *
 * @module
 */

/** Moves made between two polls (a few milliseconds at most). */
const MOVES_PER_POLL = 1 << 16;
/** Strings sorted by one native call before the merges. */
const NATIVE_RUN = 1 << 14;
/** Runs sorted by insertion before the first merge pass. */
const INSERTION_RUN = 16;

/**
 * `idx` reordered so that `vals[idx[k]]` ascends; indices of equal values keep their order in `idx`.
 * `vals` holds no NaN. May return `idx` itself or a new array.
 */
export function sortIndicesByNumber(vals: Float64Array, idx: Int32Array, poll: () => void): Int32Array {
  const n = idx.length;
  // Each index moves with its value: reading values through the indices would miss the cache per step.
  let srcV = new Float64Array(n), srcI: Int32Array = idx;
  for (let k = 0; k < n; k++) srcV[k] = vals[idx[k]];
  for (let lo = 0; lo < n; lo += INSERTION_RUN) {
    const hi = Math.min(lo + INSERTION_RUN, n);
    for (let i = lo + 1; i < hi; i++) {
      const x = srcI[i], v = srcV[i];
      let j = i - 1;
      while (j >= lo && srcV[j] > v) {
        srcI[j + 1] = srcI[j];
        srcV[j + 1] = srcV[j];
        j--;
      }
      srcI[j + 1] = x;
      srcV[j + 1] = v;
    }
    if ((lo & (MOVES_PER_POLL - 1)) === 0) poll();
  }
  let dstV = new Float64Array(n), dstI: Int32Array = new Int32Array(n);
  let left = MOVES_PER_POLL;
  for (let width = INSERTION_RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n), hi = Math.min(lo + 2 * width, n);
      let i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if (--left === 0) {
          left = MOVES_PER_POLL;
          poll();
        }
        // The right run's value moves first only when strictly before: stability.
        if (srcV[j] < srcV[i]) {
          dstV[k] = srcV[j];
          dstI[k++] = srcI[j++];
        } else {
          dstV[k] = srcV[i];
          dstI[k++] = srcI[i++];
        }
      }
      dstV.set(srcV.subarray(i, mid), k);
      dstI.set(srcI.subarray(i, mid), k);
      k += mid - i;
      dstV.set(srcV.subarray(j, hi), k);
      dstI.set(srcI.subarray(j, hi), k);
    }
    [srcV, dstV] = [dstV, srcV];
    [srcI, dstI] = [dstI, srcI];
  }
  return srcI;
}

/** `values` sorted by code unit (the default order of `Array.prototype.sort`), as a new array. */
export function sortStrings(values: readonly string[], poll: () => void): string[] {
  const n = values.length;
  if (n <= NATIVE_RUN) return values.slice().sort();
  let src: string[] = [];
  for (let lo = 0; lo < n; lo += NATIVE_RUN) {
    const run = values.slice(lo, lo + NATIVE_RUN).sort();
    for (let i = 0; i < run.length; i++) src.push(run[i]);
    poll();
  }
  let dst: string[] = src.slice();
  let left = MOVES_PER_POLL;
  for (let width = NATIVE_RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n), hi = Math.min(lo + 2 * width, n);
      let i = lo, j = mid, k = lo;
      while (i < mid || j < hi) {
        if (--left === 0) {
          left = MOVES_PER_POLL;
          poll();
        }
        // Stable: the right run's string moves first only when strictly before.
        dst[k++] = j < hi && (i >= mid || src[j] < src[i]) ? src[j++] : src[i++];
      }
    }
    const t = src;
    src = dst;
    dst = t;
  }
  return src;
}
