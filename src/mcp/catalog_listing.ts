/**
 * The catalog listed up front: when every capability a client may call fits a small byte budget, the
 * `execute` description lists their signatures, output fields and summaries, so a model can write its
 * program without a `search_api` and `describe_api` round trip first. A large catalog is left to search.
 *
 * @module
 */
import type { FieldShape } from "../core/mod.ts";

/** The default budget of the listing: UTF-8 bytes of its lines (4 KiB). */
export const DEFAULT_CATALOG_LISTING_BYTES = 4096;

/** Most capabilities listed, whatever the budget: beyond that a model is better served by search. */
export const MAX_LISTED_CAPABILITIES = 64;

/** What one listed line is made of (a `Description`, as `describe_api` answers it). */
export interface ListedCapability {
  /** Exact dotted name. */
  readonly name: string;
  /** Keyword-only call signature, e.g. `crm.customer(*, id: str)`. */
  readonly signature: string;
  /** One-line summary. */
  readonly summary: string;
  /** Output fields (the dict a call returns), in order. */
  readonly output: readonly FieldShape[];
}

const encoder = new TextEncoder();

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function outputNotation(fields: readonly FieldShape[]): string {
  return `{${fields.map((f) => `${f.name}${f.required ? "" : "?"}: ${f.type}`).join(", ")}}`;
}

function bytesOf(lines: readonly string[]): number {
  return lines.reduce((n, line) => n + encoder.encode(line).length + 1, 0);
}

/**
 * Resolves the listing budget option: `undefined` or `0` is the default, `false` (or a negative number)
 * turns the listing off, a positive number is the budget in bytes.
 */
export function listingBudget(option: number | false | undefined): number {
  if (option === false) return 0;
  if (option === undefined || option === 0 || !Number.isFinite(option)) return DEFAULT_CATALOG_LISTING_BYTES;
  return option < 0 ? 0 : Math.floor(option);
}

/** A listing of the whole catalog. */
export interface CatalogListing {
  /** One line per capability. */
  readonly lines: string;
  /** Whether the lines show each capability's output fields (else only signatures and summaries). */
  readonly outputs: boolean;
}

/**
 * The lines listing `capabilities` when they fit `budgetBytes`: each `- signature -> {output}: summary`
 * when all of those fit, else each `- signature: summary` when those fit, else `undefined` (the catalog
 * is too large, empty, or the budget is 0). Sorted by name, so a listing does not depend on order.
 */
export function catalogListing(
  capabilities: readonly ListedCapability[],
  budgetBytes: number,
): CatalogListing | undefined {
  if (budgetBytes <= 0 || capabilities.length === 0 || capabilities.length > MAX_LISTED_CAPABILITIES) {
    return undefined;
  }
  const sorted = [...capabilities].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const summary = (c: ListedCapability) => {
    const s = oneLine(c.summary);
    return s === "" ? "" : `: ${s}`;
  };
  const full = sorted.map((c) => `- ${c.signature} -> ${outputNotation(c.output)}${summary(c)}`);
  if (bytesOf(full) <= budgetBytes) return { lines: full.join("\n"), outputs: true };
  const short = sorted.map((c) => `- ${c.signature}${summary(c)}`);
  return bytesOf(short) <= budgetBytes ? { lines: short.join("\n"), outputs: false } : undefined;
}

/**
 * The paragraph the `execute` description shows before its example when the catalog is listed: the
 * whole catalog, so the model may call these directly. Ends with a newline.
 */
export function listingSection(listing: CatalogListing): string {
  const how = listing.outputs
    ? `"-> {...}" is the dict a call returns, "?" marks a field that may be absent; call them directly, \
no search_api or describe_api needed`
    : "call them directly; describe_api shows the fields a call returns";
  return `Capabilities (the whole catalog you may call; ${how}):
${listing.lines}
`;
}
