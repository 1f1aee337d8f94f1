/**
 * "Did you mean" suggestions for misspelled names, with the reference implementation's rules: names are
 * compared case-insensitively with underscores ignored, and a candidate is only suggested when it is
 * within an edit distance of half the (folded) name's length. The resolver, attribute lookups and keyword
 * argument checks all share this one implementation, so it lives in the value layer that all of them
 * import.
 *
 * @module
 */

/**
 * Drops underscores and lowers ASCII letters only: names are binary strings (UTF-8 bytes), and a
 * Unicode-aware lowering of single bytes would rewrite UTF-8 lead bytes rather than letters.
 */
function fold(s: string): string {
  return s.replace(/_/g, "").replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/** Levenshtein distance between `x` and `y`, giving up (returning a value > max) once it exceeds `max`. */
function distance(x: string, y: string, max: number): number {
  if (x.length > y.length) [x, y] = [y, x];
  // A shared prefix does not change the distance; skipping it keeps the table small.
  let i = 0;
  while (i < x.length && x.charCodeAt(i) === y.charCodeAt(i)) i++;
  x = x.slice(i);
  y = y.slice(i);
  if (x === "") return y.length;
  if (y.length - x.length > max) return y.length - x.length;
  const row: number[] = [];
  for (let j = 0; j <= y.length; j++) row.push(j);
  for (let a = 1; a <= x.length; a++) {
    row[0] = a;
    let best = a;
    let prev = a - 1;
    for (let b = 1; b <= y.length; b++) {
      const sub = prev + (x.charCodeAt(a - 1) !== y.charCodeAt(b - 1) ? 1 : 0);
      const k = Math.min(sub, 1 + row[b - 1], 1 + row[b]);
      prev = row[b];
      row[b] = k;
      if (k < best) best = k;
    }
    if (best > max) return best;
  }
  return row[y.length];
}

/**
 * The candidate nearest to `name`, or `""` when none is close enough. Candidates are examined in the given
 * order and the first one at the smallest distance wins, so callers pass them sorted.
 */
export function nearest(name: string, candidates: readonly string[]): string {
  // A candidate is suggested within half the folded name's length, so never for a name whose folded
  // length is 2·longest + 1 or more: a long name (a program's megabyte-long attribute or keyword) is
  // turned down by counting its letters, without folding it (folding 20 MB of capitals took ~1 s).
  let longest = 0;
  for (const c of candidates) if (c.length > longest) longest = c.length;
  const x = name.length > 2 * longest ? foldShort(name, 2 * longest + 1) : fold(name);
  if (x === undefined) return "";
  let best = "";
  let bestD = Math.floor((x.length + 1) / 2);
  for (const c of candidates) {
    const d = distance(x, fold(c), bestD);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

/** `fold(s)` when it is shorter than `n`, else undefined: one pass that stops once `n` letters are seen. */
function foldShort(s: string, n: number): string | undefined {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 95) continue;
    if (out.length + 1 >= n) return undefined;
    out += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : s[i];
  }
  return out;
}
