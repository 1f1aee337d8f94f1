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
  /**
   * Only on an answer with no results to a query that had words: what the catalog does hold (its
   * top-level namespaces), so the model can search again with better words. At most
   * {@link MAX_HINT_BYTES}, so the response stays far inside {@link RESPONSE_BYTE_CAP}.
   */
  readonly hint?: string;
}

/** Most UTF-8 bytes of a {@link SearchResponse.hint}. */
export const MAX_HINT_BYTES = 1_024;

/**
 * The hint of an empty answer: the distinct top-level namespaces of `names` (the part before the first
 * dot, or the whole undotted name) in code-point order, listed while they fit {@link MAX_HINT_BYTES},
 * then how many more there are. `undefined` for an empty catalog (there is nothing to point to).
 */
export function namespaceHint(names: readonly string[]): string | undefined {
  const roots = [...new Set(names.map((n) => n.split(".", 1)[0]))].sort((
    a,
    b,
  ) => (a < b ? -1 : a > b ? 1 : 0));
  if (roots.length === 0) return undefined;
  const head = "nothing matched; the catalog's namespaces are: ";
  const tail = " (search again with words from their area, or a capability name)";
  let text = head;
  for (let i = 0; i < roots.length; i++) {
    const sep = i === 0 ? "" : ", ";
    const more = ` and ${roots.length - i} more`;
    // Keep room for "and N more" and the closing words whenever a namespace is left out.
    if (utf8Length(text + sep + roots[i]) + utf8Length(more + tail) > MAX_HINT_BYTES) {
      return text + more + tail;
    }
    text += sep + roots[i];
  }
  return text + tail;
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
