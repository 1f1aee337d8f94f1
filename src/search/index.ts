/**
 * The search index: per enabled capability, the distinct tokens of each field (name, search terms,
 * summary, description), held as an inverted index with a sorted token list for prefix matching.
 *
 * @module
 */
import { tokenize } from "./tokenize.ts";

/** Searchable text of one capability. */
export interface IndexInput {
  /** Dotted name. */
  readonly name: string;
  /** Search-term phrases. */
  readonly searchTerms: readonly string[];
  /** Summary. */
  readonly summary: string;
  /** Description. */
  readonly description: string;
}

/** Field numbers, in weight order. */
export const FIELD_NAME = 0;
/** Search-terms field. */
export const FIELD_TERMS = 1;
/** Summary field. */
export const FIELD_SUMMARY = 2;
/** Description field. */
export const FIELD_DESCRIPTION = 3;
/** Number of indexed fields. */
export const FIELD_COUNT = 4;

/** Compares two strings by Unicode code point (the order of their UTF-8 bytes). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates encode code points above every BMP unit, so they sort after U+E000..U+FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** An immutable inverted index over enabled capabilities. */
export class SearchIndex {
  /** Number of indexed capabilities (N). */
  readonly size: number;
  /** Token → token number. */
  readonly tokenIds: ReadonlyMap<string, number>;
  /** Every distinct token, sorted by UTF-16 code units (for prefix ranges). */
  readonly sortedTokens: readonly string[];
  /** Token numbers parallel to {@link SearchIndex.sortedTokens}. */
  readonly sortedTokenIds: Int32Array;
  /** Per token: rarity `1 + floor((N − df) · 7 / N)`. */
  readonly rarity: Uint8Array;
  /** Per token: the capabilities holding it, ascending. */
  readonly postingDocs: readonly Int32Array[];
  /** Per token: parallel bit masks of the fields (bit f = field f) holding it. */
  readonly postingMasks: readonly Uint8Array[];
  /** Per capability: its position in name order (code point order). */
  readonly nameRank: Int32Array;
  /** Lower-cased name → capabilities (for the exact-name rule). */
  readonly byLowerName: ReadonlyMap<string, readonly number[]>;

  /** Indexes `docs` (their order defines capability numbers). */
  constructor(docs: readonly IndexInput[]) {
    const n = docs.length;
    this.size = n;
    const ids = new Map<string, number>();
    const docLists: number[][] = [];
    const maskLists: number[][] = [];
    const perDoc = new Map<string, number>();
    const byLower = new Map<string, number[]>();
    for (let d = 0; d < n; d++) {
      const doc = docs[d];
      perDoc.clear();
      const add = (text: string, field: number) => {
        for (const token of tokenize(text)) perDoc.set(token, (perDoc.get(token) ?? 0) | (1 << field));
      };
      add(doc.name, FIELD_NAME);
      for (const term of doc.searchTerms) add(term, FIELD_TERMS);
      add(doc.summary, FIELD_SUMMARY);
      add(doc.description, FIELD_DESCRIPTION);
      for (const [token, mask] of perDoc) {
        let id = ids.get(token);
        if (id === undefined) {
          id = docLists.length;
          ids.set(token, id);
          docLists.push([]);
          maskLists.push([]);
        }
        docLists[id].push(d);
        maskLists[id].push(mask);
      }
      const lower = doc.name.toLowerCase();
      const same = byLower.get(lower);
      if (same) same.push(d);
      else byLower.set(lower, [d]);
    }
    this.tokenIds = ids;
    this.postingDocs = docLists.map((l) => Int32Array.from(l));
    this.postingMasks = maskLists.map((l) => Uint8Array.from(l));
    this.rarity = Uint8Array.from(docLists, (l) => 1 + Math.floor((n - l.length) * 7 / n));
    const sorted = [...ids.keys()].sort();
    this.sortedTokens = sorted;
    this.sortedTokenIds = Int32Array.from(sorted, (t) => ids.get(t)!);
    const order = docs.map((_, i) => i).sort((a, b) => compareCodePoints(docs[a].name, docs[b].name));
    this.nameRank = new Int32Array(n);
    order.forEach((doc, rank) => (this.nameRank[doc] = rank));
    this.byLowerName = byLower;
  }

  /** Index of the first sorted token that is ≥ `token` (UTF-16 order). */
  lowerBound(token: string): number {
    let lo = 0;
    let hi = this.sortedTokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sortedTokens[mid] < token) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
