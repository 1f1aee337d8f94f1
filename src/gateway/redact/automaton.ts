/**
 * An Aho–Corasick automaton compiled to a dense transition table, for finding every occurrence of many
 * literal strings in one left-to-right pass, overlapping occurrences included, with a q-gram skip filter
 * in front of it so that text far from any possible occurrence is not stepped through character by
 * character.
 *
 * Characters are UTF-16 code units. Units that occur in no pattern share class 0, from which every state
 * goes back to the root, so the table has one column per distinct pattern unit plus one.
 *
 * The skip filter: every occurrence is at least `minLength` units long, so among any `step =
 * minLength - Q + 1` consecutive start positions one is sampled; the Q-gram starting there lies inside the
 * occurrence. The filter samples the text every `step` units and looks the Q-gram up in a bit set of every
 * Q-gram of every pattern; only around a hit does the automaton run, over the window in which an
 * occurrence containing that gram can lie. A hostile text full of pattern grams merges the windows into
 * the whole text: the cost is then one plain automaton pass, never more.
 *
 * @module
 */

/** One entry per UTF-16 code unit. */
const UNITS = 0x10000;
/** Q-gram length of the skip filter. */
const Q = 3;
/** Bits of the gram hash (a 128 KiB bit set). */
const HASH_BITS = 20;

function gramHash(a: number, b: number, c: number): number {
  return (Math.imul((a * 31 + b) * 31 + c, 0x9e3779b1) >>> (32 - HASH_BITS));
}

/** A compiled multi-pattern matcher. Immutable once built. */
export class Automaton {
  readonly #classOf: Uint16Array;
  readonly #width: number;
  /** delta[state * width + class] = next state. */
  readonly #delta: Int32Array;
  /** Length of the longest pattern that ends at this state (0: none). */
  readonly #longest: Int32Array;
  readonly #minLength: number;
  readonly #maxLength: number;
  /** Bit set of the hashes of every Q-gram of every pattern; absent when patterns are shorter than Q. */
  readonly #grams: Uint32Array | undefined;
  /** How many distinct non-empty patterns were compiled. */
  readonly size: number;

  /** Compiles `patterns` (empty ones are ignored). */
  constructor(patterns: readonly string[]) {
    const list = [...new Set(patterns.filter((p) => p.length > 0))];
    const classOf = new Uint16Array(UNITS);
    let classes = 1;
    for (const p of list) {
      for (let i = 0; i < p.length; i++) {
        const u = p.charCodeAt(i);
        if (classOf[u] === 0) classOf[u] = classes++;
      }
    }
    // The trie with sparse children first; states are numbered in creation order.
    const children: Map<number, number>[] = [new Map()];
    const ownLength: number[] = [0];
    for (const p of list) {
      let s = 0;
      for (let i = 0; i < p.length; i++) {
        const c = classOf[p.charCodeAt(i)];
        let t = children[s].get(c);
        if (t === undefined) {
          t = children.length;
          children.push(new Map());
          ownLength.push(0);
          children[s].set(c, t);
        }
        s = t;
      }
      ownLength[s] = p.length;
    }
    const width = classes;
    const delta = new Int32Array(children.length * width);
    const fail = new Int32Array(children.length);
    const longest = new Int32Array(children.length);
    // Breadth-first: a state's suffix link is shallower, so its row is complete when we reach the state.
    const queue: number[] = [];
    for (const [c, t] of children[0]) {
      delta[c] = t;
      queue.push(t);
    }
    for (let head = 0; head < queue.length; head++) {
      const s = queue[head];
      const f = fail[s];
      longest[s] = Math.max(ownLength[s], longest[f]);
      const row = s * width;
      const failRow = f * width;
      for (let c = 1; c < width; c++) delta[row + c] = delta[failRow + c];
      for (const [c, t] of children[s]) {
        fail[t] = delta[failRow + c];
        delta[row + c] = t;
        queue.push(t);
      }
    }
    this.#classOf = classOf;
    this.#width = width;
    this.#delta = delta;
    this.#longest = longest;
    this.size = list.length;
    this.#minLength = list.length === 0 ? 0 : Math.min(...list.map((p) => p.length));
    this.#maxLength = list.length === 0 ? 0 : Math.max(...list.map((p) => p.length));
    if (this.#minLength >= Q + 1) {
      const grams = new Uint32Array((1 << HASH_BITS) >>> 5);
      for (const p of list) {
        for (let i = 0; i + Q <= p.length; i++) {
          const h = gramHash(p.charCodeAt(i), p.charCodeAt(i + 1), p.charCodeAt(i + 2));
          grams[h >>> 5] |= 1 << (h & 31);
        }
      }
      this.#grams = grams;
    }
  }

  /**
   * The merged intervals (flat `[start, end)` pairs, in order) covered by pattern occurrences in `text`:
   * overlapping and adjacent occurrences become one interval.
   */
  intervals(text: string): number[] {
    const out: number[] = [];
    if (this.size === 0) return out;
    const grams = this.#grams;
    if (grams === undefined || text.length < 4 * this.#maxLength) {
      this.#scan(text, 0, text.length, out);
      return out;
    }
    const step = this.#minLength - Q + 1;
    const before = this.#maxLength - Q;
    const after = this.#maxLength;
    let winStart = -1;
    let winEnd = -1;
    for (let j = 0; j + Q <= text.length; j += step) {
      const h = gramHash(text.charCodeAt(j), text.charCodeAt(j + 1), text.charCodeAt(j + 2));
      if ((grams[h >>> 5] & (1 << (h & 31))) === 0) continue;
      const s = Math.max(0, j - before);
      const e = Math.min(text.length, j + after);
      if (s <= winEnd) {
        winEnd = e;
        continue;
      }
      if (winEnd > winStart) this.#scan(text, winStart, winEnd, out);
      winStart = s;
      winEnd = e;
    }
    if (winEnd > winStart) this.#scan(text, winStart, winEnd, out);
    return out;
  }

  /** Runs the automaton from the root over `text[from, to)`, appending merged intervals to `out`. */
  #scan(text: string, from: number, to: number, out: number[]): void {
    const classOf = this.#classOf;
    const delta = this.#delta;
    const width = this.#width;
    const longest = this.#longest;
    let s = 0;
    for (let i = from; i < to; i++) {
      s = delta[s * width + classOf[text.charCodeAt(i)]];
      if (s === 0) continue;
      const len = longest[s];
      if (len === 0) continue;
      const end = i + 1;
      let start = end - len;
      // Merge with earlier intervals this one touches; a long match may swallow several.
      while (out.length > 0 && out[out.length - 1] >= start) {
        const prevStart = out[out.length - 2];
        out.length -= 2;
        if (prevStart < start) start = prevStart;
      }
      out.push(start, end);
    }
  }
}

/** Merges two sorted interval lists (flat `[start, end)` pairs), joining overlapping and adjacent ones. */
export function mergeIntervals(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let start: number;
    let end: number;
    if (j >= b.length || (i < a.length && a[i] <= b[j])) {
      start = a[i];
      end = a[i + 1];
      i += 2;
    } else {
      start = b[j];
      end = b[j + 1];
      j += 2;
    }
    if (out.length > 0 && out[out.length - 1] >= start) {
      if (end > out[out.length - 1]) out[out.length - 1] = end;
    } else {
      out.push(start, end);
    }
  }
  return out;
}
