/**
 * The namespaced tool catalog a client is shown, and the filter that reduces it per client.
 *
 * @module
 */
import type { Identity } from "./decision.ts";
import { formatToolRef, type ToolRef } from "./names.ts";

/** A JSON value as decoded by `JSON.parse`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  /** Any member. */
  [key: string]: JsonValue;
}

/**
 * One callable tool as presented in the gateway's namespaced catalog. The metadata beyond `ref` and
 * `name` is carried verbatim from the downstream's listing and never interpreted; like every domain
 * value it is immutable (the catalog freezes it).
 */
export interface Tool {
  /** The downstream and tool this entry routes to. */
  readonly ref: ToolRef;
  /** The namespaced name clients call (`downstream__tool`). */
  readonly name: string;
  /** Optional human-readable display name. */
  readonly title?: string;
  /** The description shown to a client that may call the tool. */
  readonly description?: string;
  /** The JSON Schema of the arguments. */
  readonly inputSchema: JsonObject;
  /** The JSON Schema of a structured result, if the downstream advertised one. */
  readonly outputSchema?: JsonObject;
  /** Display and behaviour hints, verbatim. */
  readonly annotations?: JsonObject;
  /** Icons, verbatim. */
  readonly icons?: JsonValue;
}

/** The fields of a {@link Tool} as a downstream lists them (the name is derived from the ref). */
export type ToolListing = Omit<Tool, "name">;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

/** Creates a frozen catalog entry; throws `invalid_tool_name` if the ref does not format. */
export function makeTool(listing: ToolListing): Tool {
  const name = formatToolRef(listing.ref);
  return deepFreeze({ ...structuredClone(listing), ref: Object.freeze({ ...listing.ref }), name });
}

/** An immutable set of tools with lookup by namespaced name, in listing order. */
export class Catalog {
  readonly #tools: readonly Tool[];
  readonly #byName: ReadonlyMap<string, Tool>;

  /** Builds a catalog; a later tool with an already-present name is ignored (first listing wins). */
  constructor(tools: Iterable<Tool> = []) {
    const byName = new Map<string, Tool>();
    for (const t of tools) if (!byName.has(t.name)) byName.set(t.name, deepFreeze(t));
    this.#byName = byName;
    this.#tools = Object.freeze([...byName.values()]);
  }

  /** The empty catalog. */
  static readonly EMPTY: Catalog = new Catalog();

  /** Every tool, in listing order. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** How many tools. */
  get size(): number {
    return this.#tools.length;
  }

  /** The tool with this namespaced name, if any. */
  lookup(namespaced: string): Tool | undefined {
    return this.#byName.get(namespaced);
  }

  /** The tools for which `keep` holds, as a new catalog. */
  filter(keep: (tool: Tool) => boolean): Catalog {
    return new Catalog(this.#tools.filter(keep));
  }

  /** This catalog with every tool of `downstream` replaced by `tools` (a refreshed listing). */
  replaceDownstream(downstream: string, tools: Iterable<Tool>): Catalog {
    const fresh = [...tools].filter((t) => t.ref.downstream === downstream);
    return new Catalog([...this.#tools.filter((t) => t.ref.downstream !== downstream), ...fresh]);
  }

  /**
   * One page of tools after `cursor` (a namespaced name, exclusive) for paginated `tools/list`. The next
   * cursor is the last name of the page when more remain.
   */
  page(cursor: string | undefined, size: number): { tools: readonly Tool[]; nextCursor?: string } {
    let start = 0;
    if (cursor !== undefined) {
      const at = this.#tools.findIndex((t) => t.name === cursor);
      start = at < 0 ? this.#tools.length : at + 1;
    }
    const tools = this.#tools.slice(start, start + Math.max(1, size));
    const more = start + tools.length < this.#tools.length;
    return more ? { tools, nextCursor: tools[tools.length - 1].name } : { tools };
  }
}

/**
 * Reduces the full catalog to the subset a client may call. Security-load-bearing: a client never sees
 * the schema or description of a tool it may not call.
 */
export interface CatalogFilter {
  /** The tools `client` may call. */
  filter(client: Identity, full: Catalog): Catalog;
}
