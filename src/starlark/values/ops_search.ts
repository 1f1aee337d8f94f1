/**
 * Budgeted substring search over binary strings, shared by `in`, `find`, `count`, `replace`, `split` and
 * their relatives.
 *
 * V8's native search is very fast on ordinary text but has costly cases: a short needle whose first byte is
 * everywhere in the text costs a few nanoseconds per byte, a forward needle longer than 250 bytes can cost
 * O(text × needle), and `lastIndexOf` is always O(text × needle). So:
 * - the text is searched in windows of {@link SEARCH_WINDOW} bytes, each charged before it is searched, so
 *   that the interrupt poll runs between windows and no native call runs long;
 * - needles for which the native search can go quadratic use a linear-time search (Knuth–Morris–Pratt)
 *   written here, charged per byte.
 *
 * Every function takes byte offsets `from`/`end` (0 ≤ from ≤ end ≤ s.length) and only reports occurrences
 * lying entirely inside `[from, end)`.
 *
 * @module
 */
import type { Thread } from "./value.ts";

/** Bytes of text per window of a native search. */
export const SEARCH_WINDOW = 1 << 16;

/** Text bytes per step when searching for one byte (a `memchr`). */
const BYTE_SCAN_PER_STEP = 64;
/** Text bytes per step of a native search for a longer needle (worst cases are a few ns per byte). */
const NATIVE_SCAN_PER_STEP = 8;
/** Text bytes per step of the search written here (under 10 ns per byte, whatever the input). */
const LOOP_SCAN_PER_STEP = 2;
/** Longest needle searched forward natively (V8 uses only the last 250 bytes for its skip tables). */
const MAX_NATIVE_NEEDLE = 250;
/** Longest needle searched backward natively (`lastIndexOf` compares naively). */
const MAX_NATIVE_RNEEDLE = 8;

/** Charges the scan of `bytes` bytes of text at `perStep` bytes per step (at least one step). */
function chargeScan(thread: Thread, bytes: number, perStep: number): void {
  thread.charge(1 + Math.floor(bytes / perStep));
}

/** The bytes of `p` as an array (reversed when `reverse`): faster to index than a string. */
function needleCodes(p: string, reverse: boolean): Uint8Array {
  const m = p.length;
  const a = new Uint8Array(m);
  for (let i = 0; i < m; i++) a[i] = p.charCodeAt(reverse ? m - 1 - i : i);
  return a;
}

/** Knuth–Morris–Pratt failure table of the needle `p`. */
function failureTable(thread: Thread, p: Uint8Array): Int32Array {
  const m = p.length;
  chargeScan(thread, m, LOOP_SCAN_PER_STEP);
  const f = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    const c = p[i];
    while (k > 0 && p[k] !== c) k = f[k - 1];
    if (p[k] === c) k++;
    f[i] = k;
  }
  return f;
}

/**
 * Calls `onMatch(i)` for each non-overlapping occurrence of `sub` (non-empty) in `s[from:end]`, left to
 * right (the occurrences `String.prototype.split` would cut at), until it returns `true` or `limit`
 * occurrences were reported. Charges the scan and one step per occurrence.
 */
export function forEachMatch(
  thread: Thread,
  s: string,
  sub: string,
  from: number,
  end: number,
  limit: number,
  onMatch: (i: number) => boolean | void,
): void {
  const m = sub.length;
  if (limit <= 0 || end - from < m) return;
  let count = 0;
  if (m > MAX_NATIVE_NEEDLE) {
    const p = needleCodes(sub, false);
    const f = failureTable(thread, p);
    let k = 0, charged = from;
    for (let i = from; i < end; i++) {
      if (i >= charged) {
        chargeScan(thread, Math.min(SEARCH_WINDOW, end - i), LOOP_SCAN_PER_STEP);
        charged = i + SEARCH_WINDOW;
      }
      const c = s.charCodeAt(i);
      while (k > 0 && p[k] !== c) k = f[k - 1];
      if (p[k] === c) k++;
      if (k === m) {
        thread.charge(1);
        if (onMatch(i - m + 1) === true || ++count >= limit) return;
        k = 0; // non-overlapping: restart after the occurrence
      }
    }
    return;
  }
  const perStep = m === 1 ? BYTE_SCAN_PER_STEP : NATIVE_SCAN_PER_STEP;
  let pos = from;
  while (end - pos >= m) {
    const wend = end - pos > SEARCH_WINDOW + m - 1 ? pos + SEARCH_WINDOW + m - 1 : end;
    chargeScan(thread, wend - pos, perStep);
    const hay = pos === 0 && wend === s.length ? s : s.slice(pos, wend);
    let next = wend - m + 1; // where the next window starts when this one has no further occurrence
    for (let i = hay.indexOf(sub); i >= 0; i = hay.indexOf(sub, i + m)) {
      thread.charge(1);
      if (onMatch(pos + i) === true || ++count >= limit) return;
      if (pos + i + m > next) next = pos + i + m;
    }
    pos = next;
  }
}

/** Index of the first occurrence of `sub` in `s[from:end]`, or -1. */
export function findIndex(thread: Thread, s: string, sub: string, from = 0, end: number = s.length): number {
  const m = sub.length;
  if (m === 0) return from <= end ? from : -1;
  if (m <= MAX_NATIVE_NEEDLE && end - from <= SEARCH_WINDOW + m - 1) {
    // One window of forEachMatch (the usual `c in "..."` or `find` on a short text), charged as it
    // charges it, without a callback or a slice.
    if (end - from < m) return -1;
    chargeScan(thread, end - from, m === 1 ? BYTE_SCAN_PER_STEP : NATIVE_SCAN_PER_STEP);
    const i = s.indexOf(sub, from);
    if (i < 0 || i + m > end) return -1;
    thread.charge(1);
    return i;
  }
  let found = -1;
  forEachMatch(thread, s, sub, from, end, 1, (i) => {
    found = i;
    return true;
  });
  return found;
}

/** Index of the last occurrence of `sub` in `s[from:end]`, or -1. */
export function findLastIndex(
  thread: Thread,
  s: string,
  sub: string,
  from = 0,
  end: number = s.length,
): number {
  const m = sub.length;
  if (m === 0) return from <= end ? end : -1;
  if (end - from < m) return -1;
  if (m > MAX_NATIVE_RNEEDLE) {
    // Knuth–Morris–Pratt on the reversed text and needle.
    const p = needleCodes(sub, true);
    const f = failureTable(thread, p);
    let k = 0, charged = end;
    for (let i = end - 1; i >= from; i--) {
      if (i < charged) {
        chargeScan(thread, Math.min(SEARCH_WINDOW, i - from + 1), LOOP_SCAN_PER_STEP);
        charged = i - SEARCH_WINDOW;
      }
      const c = s.charCodeAt(i);
      while (k > 0 && p[k] !== c) k = f[k - 1];
      if (p[k] === c) k++;
      if (k === m) return i;
    }
    return -1;
  }
  let wend = end;
  while (wend - from >= m) {
    const wstart = wend - from > SEARCH_WINDOW + m - 1 ? wend - SEARCH_WINDOW - m + 1 : from;
    chargeScan(thread, wend - wstart, m === 1 ? BYTE_SCAN_PER_STEP : NATIVE_SCAN_PER_STEP);
    const i = s.slice(wstart, wend).lastIndexOf(sub);
    if (i >= 0) return wstart + i;
    wend = wstart + m - 1;
  }
  return -1;
}

/** Number of non-overlapping occurrences of `sub` (non-empty) in `s[from:end]`, at most `limit`. */
export function countMatches(
  thread: Thread,
  s: string,
  sub: string,
  from = 0,
  end: number = s.length,
  limit = Infinity,
): number {
  let n = 0;
  forEachMatch(thread, s, sub, from, end, limit, () => {
    n++;
  });
  return n;
}
