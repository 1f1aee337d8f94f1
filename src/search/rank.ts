/**
 * Scoring, eligibility and ordering (DESIGN §5, the reference's internal numbers).
 *
 * A query token matches a document token exactly (quality 100) or, when it has at least three runes, as
 * a proper prefix (quality 72). Within one field the best match wins by quality, then rarity; the
 * token's contribution is the best over fields of weight × rarity × quality (name 12, search terms 10,
 * summary 5, description 2). Score = Σ contributions × matched ÷ q (integer division); a capability is
 * eligible with 1 match for q = 1, 2 for q = 2 and ceil(2q/3) for q ≥ 3. Order: an eligible capability
 * whose name equals the trimmed query case-insensitively first, then score descending, then name.
 *
 * @module
 */
import { FIELD_COUNT, type SearchIndex } from "./index.ts";
import { runeCount } from "./tokenize.ts";

/** Field weights: name, search terms, summary, description. */
export const FIELD_WEIGHTS: readonly number[] = Object.freeze([12, 10, 5, 2]);
/** Quality of an exact token match. */
export const EXACT_QUALITY = 100;
/** Quality of a prefix match. */
export const PREFIX_QUALITY = 72;
/** Shortest query token (in runes) that may match as a prefix. */
export const MIN_PREFIX_RUNES = 3;

/** Matched tokens a capability needs for a query of `q` distinct tokens. */
export function requiredMatches(q: number): number {
  return q <= 2 ? q : Math.ceil((2 * q) / 3);
}

/** The ranked head of a query's eligible capabilities. */
export interface Ranking {
  /** Up to `limit` capability numbers, best first. */
  readonly top: readonly number[];
  /** Number of eligible capabilities (≥ `top.length`). */
  readonly eligible: number;
  /** Scores of eligible capabilities by number, when asked for (tests and diagnostics). */
  readonly scores?: ReadonlyMap<number, number>;
}

// Per-index scratch space, reused by every query: a search is synchronous, so no two queries overlap.
// Allocating these per query made garbage collection dominate the run time.
interface Scratch {
  best: Uint16Array;
  tokenMark: Int32Array;
  sum: Float64Array;
  matched: Uint8Array;
  score: Float64Array;
  exactFirst: Uint8Array;
  /** Capabilities touched by the current query token (a stack of `touchedCount` entries). */
  touched: Int32Array;
  /** Capabilities matched by any query token so far. */
  anyDocs: Int32Array;
  /** Eligible capabilities and their order keys. */
  eligibleDocs: Int32Array;
  keys: Float64Array;
}

const scratchByIndex = new WeakMap<SearchIndex, Scratch>();

function scratchFor(index: SearchIndex): Scratch {
  let s = scratchByIndex.get(index);
  if (!s) {
    const n = index.size;
    s = {
      best: new Uint16Array(n * FIELD_COUNT),
      tokenMark: new Int32Array(n).fill(-1),
      sum: new Float64Array(n),
      matched: new Uint8Array(n),
      score: new Float64Array(n),
      exactFirst: new Uint8Array(n),
      touched: new Int32Array(n),
      anyDocs: new Int32Array(n),
      eligibleDocs: new Int32Array(n),
      keys: new Float64Array(n),
    };
    scratchByIndex.set(index, s);
  }
  return s;
}

/**
 * Scores `tokens` (distinct, normalized, non-empty) against the index and returns the first `limit`
 * eligible capabilities in order. `exactName` is the trimmed, lower-cased raw query.
 */
export function rank(
  index: SearchIndex,
  tokens: readonly string[],
  exactName: string,
  limit: number,
  collectScores = false,
): Ranking {
  const n = index.size;
  const q = tokens.length;
  if (n === 0 || q === 0) return { top: [], eligible: 0, scores: collectScores ? new Map() : undefined };
  // best[d * 4 + f] holds quality * 16 + rarity (rarity ≤ 8), so a larger key is a better match.
  const scratch = scratchFor(index);
  const { best, tokenMark, sum, matched, score, exactFirst, touched, anyDocs } = scratch;
  const sorted = index.sortedTokens;
  let anyCount = 0;
  let touchedCount = 0;

  try {
    for (let qi = 0; qi < q; qi++) {
      const token = tokens[qi];
      touchedCount = 0;
      const exact = index.tokenIds.get(token);
      if (exact !== undefined) touchedCount = visit(index, exact, EXACT_QUALITY, qi, scratch, touchedCount);
      if (runeCount(token) >= MIN_PREFIX_RUNES) {
        for (let i = index.lowerBound(token); i < sorted.length && sorted[i].startsWith(token); i++) {
          if (sorted[i].length !== token.length) {
            touchedCount = visit(index, index.sortedTokenIds[i], PREFIX_QUALITY, qi, scratch, touchedCount);
          }
        }
      }
      for (let k = 0; k < touchedCount; k++) {
        const d = touched[k];
        const base = d * FIELD_COUNT;
        let contribution = 0;
        for (let f = 0; f < FIELD_COUNT; f++) {
          const key = best[base + f];
          if (key === 0) continue;
          best[base + f] = 0;
          const value = WEIGHTS[f] * (key & 15) * (key >> 4);
          if (value > contribution) contribution = value;
        }
        if (matched[d] === 0) anyDocs[anyCount++] = d;
        matched[d]++;
        sum[d] += contribution;
      }
      touchedCount = 0;
    }

    const need = requiredMatches(q);
    // One number orders a capability: exact-name flag, then score, then reversed name rank. Scores are
    // below 2^18 (16 tokens × 12 × 8 × 100 × 16 ÷ 16), so the flag at 2^20 dominates, and the name rank
    // fits below `nameBase`; the key stays an exact integer under 2^53.
    const nameBase = 2 ** Math.ceil(Math.log2(n + 1));
    const exactDocs = index.byLowerName.get(exactName) ?? [];
    for (const d of exactDocs) exactFirst[d] = 1;
    const nameRank = index.nameRank;
    const { eligibleDocs, keys } = scratch;
    let eligible = 0;
    for (let k = 0; k < anyCount; k++) {
      const d = anyDocs[k];
      if (matched[d] < need) continue;
      const value = Math.floor((sum[d] * matched[d]) / q);
      score[d] = value;
      eligibleDocs[eligible] = d;
      keys[eligible++] = (exactFirst[d] * 2 ** 20 + value) * nameBase + (nameBase - 1 - nameRank[d]);
    }
    for (const d of exactDocs) exactFirst[d] = 0;
    const top = selectTop(eligibleDocs, keys, eligible, limit);
    const scores = collectScores
      ? new Map(Array.from(eligibleDocs.subarray(0, eligible), (d) => [d, score[d]]))
      : undefined;
    return { top, eligible, scores };
  } finally {
    for (let k = 0; k < anyCount; k++) {
      const d = anyDocs[k];
      sum[d] = 0;
      matched[d] = 0;
      score[d] = 0;
    }
    tokenMark.fill(-1);
    // Only an exception in the middle of a token leaves per-field bests behind.
    for (let k = 0; k < touchedCount; k++) {
      best.fill(0, touched[k] * FIELD_COUNT, (touched[k] + 1) * FIELD_COUNT);
    }
  }
}

const WEIGHTS = Int32Array.from(FIELD_WEIGHTS);

// Records the matches of one document token; returns the new size of the touched stack.
function visit(
  index: SearchIndex,
  tokenId: number,
  quality: number,
  qi: number,
  scratch: Scratch,
  touchedCount: number,
): number {
  const { best, tokenMark, touched } = scratch;
  const docs = index.postingDocs[tokenId];
  const masks = index.postingMasks[tokenId];
  const key = quality * 16 + index.rarity[tokenId];
  for (let k = 0; k < docs.length; k++) {
    const d = docs[k];
    if (tokenMark[d] !== qi) {
      tokenMark[d] = qi;
      touched[touchedCount++] = d;
    }
    const mask = masks[k];
    const base = d * FIELD_COUNT;
    if ((mask & 1) !== 0 && best[base] < key) best[base] = key;
    if ((mask & 2) !== 0 && best[base + 1] < key) best[base + 1] = key;
    if ((mask & 4) !== 0 && best[base + 2] < key) best[base + 2] = key;
    if ((mask & 8) !== 0 && best[base + 3] < key) best[base + 3] = key;
  }
  return touchedCount;
}

// The `limit` items with the largest keys (all distinct), largest first, without sorting everything.
function selectTop(items: Int32Array, keys: Float64Array, n: number, limit: number): number[] {
  if (n <= limit || limit > 64) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[b] - keys[a]);
    return order.slice(0, limit).map((i) => items[i]);
  }
  const topKeys = new Float64Array(limit);
  const topItems = new Int32Array(limit);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const key = keys[i];
    if (size === limit && key <= topKeys[limit - 1]) continue;
    let j = size < limit ? size++ : limit - 1;
    while (j > 0 && topKeys[j - 1] < key) {
      topKeys[j] = topKeys[j - 1];
      topItems[j] = topItems[j - 1];
      j--;
    }
    topKeys[j] = key;
    topItems[j] = items[i];
  }
  return Array.from(topItems.subarray(0, size));
}
