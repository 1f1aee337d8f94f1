/**
 * Byte-bounded packing of search results. The compact JSON of a response is
 * `{"results":[` (12 bytes) + results joined by commas + `],"truncated":false}` (20 bytes); the packer
 * walks the ranked list and stops at the first result that would exceed the result count or the byte
 * cap, never skipping ahead to a smaller one.
 *
 * @module
 */
import { utf8Length } from "../text.ts";

/** One search result. */
export interface SearchResult {
  /** Exact enabled dotted name. */
  readonly name: string;
  /** Invocation-only keyword signature, such as `records.lookup(*, key: str, limit: int | None)`. */
  readonly signature: string;
  /** Registered summary. */
  readonly summary: string;
}

/** A search response. */
export interface SearchResponse {
  /** The highest-ranked results that fit (never null). */
  readonly results: SearchResult[];
  /** Whether a bound omitted at least one eligible capability. */
  readonly truncated: boolean;
}

/** Internal cap on the compact JSON of one search response (not configurable). */
export const RESPONSE_BYTE_CAP = 65_536;
/** Bytes of `{"results":[`. */
export const RESPONSE_OPEN_BYTES = 12;
/** Bytes of `],"truncated":false}`. */
export const RESPONSE_CLOSE_BYTES = 20;

/** UTF-8 bytes of a result's compact JSON. */
export function resultJSONBytes(result: SearchResult): number {
  return utf8Length(
    JSON.stringify({ name: result.name, signature: result.signature, summary: result.summary }),
  );
}

/** Whether a single result fits the response cap on its own. */
export function fitsAlone(bytes: number): boolean {
  return RESPONSE_OPEN_BYTES + bytes + RESPONSE_CLOSE_BYTES <= RESPONSE_BYTE_CAP;
}

/**
 * Packs ranked results. `ranked` is the best-first head of `eligible` results; `bytes(i)` is the JSON
 * size of `ranked[i]`.
 */
export function pack(
  ranked: readonly SearchResult[],
  bytes: (i: number) => number,
  eligible: number,
  maxResults: number,
  cap: number = RESPONSE_BYTE_CAP,
): SearchResponse {
  const results: SearchResult[] = [];
  let total = RESPONSE_OPEN_BYTES + RESPONSE_CLOSE_BYTES;
  for (let i = 0; i < ranked.length; i++) {
    if (results.length >= maxResults) break;
    const add = bytes(i) + (results.length > 0 ? 1 : 0);
    if (total + add > cap) break;
    total += add;
    results.push(ranked[i]);
  }
  return { results, truncated: results.length < eligible };
}
