/**
 * Capability search: query limits, tokenizer, ranking and packing put together.
 *
 * @module
 */
import { budgetError, formatCount } from "../budgets.ts";
import { trimSpace, utf8Length } from "../text.ts";
import { type IndexInput, SearchIndex } from "./index.ts";
import { namespaceHint, pack, resultJSONBytes, type SearchResponse, type SearchResult } from "./pack.ts";
import { rank } from "./rank.ts";
import { tokenize } from "./tokenize.ts";

export { compareCodePoints, SearchIndex } from "./index.ts";
export type { IndexInput } from "./index.ts";
export {
  fitsAlone,
  MAX_HINT_BYTES,
  namespaceHint,
  pack,
  RESPONSE_BYTE_CAP,
  resultJSONBytes,
} from "./pack.ts";
export type { SearchResponse, SearchResult } from "./pack.ts";
export { rank, type Ranking, requiredMatches } from "./rank.ts";
export { CONNECTOR_WORDS, splitWords, tokenize } from "./tokenize.ts";

/** Most distinct normalized tokens a query may have. */
export const MAX_QUERY_TOKENS = 16;

/** A searchable capability: its index text and its result object. */
export interface SearchDocument extends IndexInput {
  /** The invocation signature shown in results. */
  readonly signature: string;
}

/** The search bounds taken from `Limits`. */
export interface SearchBounds {
  /** Raw query bytes. */
  readonly maxSearchQueryBytes: number;
  /** Results per response. */
  readonly maxSearchResults: number;
}

/** Immutable search over a fixed set of capabilities. */
export class Searcher {
  readonly #index: SearchIndex;
  readonly #results: readonly SearchResult[];
  readonly #bytes: Int32Array;
  readonly #hint: string | undefined;

  /** Indexes `docs`. */
  constructor(docs: readonly SearchDocument[]) {
    this.#index = new SearchIndex(docs);
    this.#results = docs.map((d) =>
      Object.freeze({ name: d.name, signature: d.signature, summary: d.summary })
    );
    this.#bytes = Int32Array.from(this.#results, resultJSONBytes);
    this.#hint = namespaceHint(docs.map((d) => d.name));
  }

  /** The compact JSON bytes of each capability's result, in document order. */
  get resultBytes(): Int32Array {
    return this.#bytes;
  }

  /**
   * Runs a query. Throws `resource_limit` when the raw query is longer than `maxSearchQueryBytes`
   * (UTF-8, padding counts) or has more than 16 distinct tokens.
   */
  search(query: string, bounds: SearchBounds): SearchResponse {
    const bytes = utf8Length(query);
    if (bytes > bounds.maxSearchQueryBytes) {
      throw budgetError(
        "maxSearchQueryBytes",
        bounds.maxSearchQueryBytes,
        `search query is ${bytes} bytes; the limit is ${bounds.maxSearchQueryBytes}`,
        { where: `the query is ${formatCount(bytes)} bytes` },
      );
    }
    const trimmed = trimSpace(query);
    const tokens = tokenize(trimmed);
    if (tokens.length > MAX_QUERY_TOKENS) {
      throw budgetError(
        "maxSearchQueryTokens",
        MAX_QUERY_TOKENS,
        `search query has ${tokens.length} distinct tokens; the limit is ${MAX_QUERY_TOKENS}`,
        { where: `the query has ${formatCount(tokens.length)} distinct words` },
      );
    }
    if (tokens.length === 0) return { results: [], truncated: false };
    const ranking = rank(this.#index, tokens, trimmed.toLowerCase(), bounds.maxSearchResults);
    const ranked = ranking.top.map((d) => this.#results[d]);
    const packed = pack(
      ranked,
      (i) => this.#bytes[ranking.top[i]],
      ranking.eligible,
      bounds.maxSearchResults,
    );
    // The ranking stays exact; only an answer with nothing in it says what else there is to search for.
    if (packed.results.length > 0 || packed.truncated || this.#hint === undefined) return packed;
    return { ...packed, hint: this.#hint };
  }
}
