/**
 * Redaction of tool metadata: a downstream chooses its tools' names, titles, descriptions, schemas and
 * annotations, and every one of them reaches clients (`tools/list`, code mode's `search_api` and
 * `describe_api`). The catalog is redacted once as it is built, so every view of it is clean.
 *
 * @module
 */
import { Catalog, type JsonObject, type JsonValue, type Tool } from "../domain/mod.ts";
import type { RedactionOutcome } from "./redactor.ts";

/** What catalog redaction needs of a redactor (the pipeline's redactor port has exactly this). */
export interface TextRedactor {
  /** Redacts one text. */
  redactText(text: string): RedactionOutcome<string>;
  /** Redacts every string and object key inside a value. */
  redactValue<T extends JsonValue>(value: T): RedactionOutcome<T>;
}

/** The outcome of {@link redactCatalog}. */
export interface RedactedCatalog {
  /** The catalog with every metadata text redacted, without the tools whose names carry a secret. */
  readonly catalog: Catalog;
  /** One line per tool left out; never the secret (the tool is named by downstream and position). */
  readonly dropped: readonly string[];
}

function redactTool(tool: Tool, redactor: TextRedactor): Tool {
  let changed = false;
  const text = (s: string | undefined) => {
    if (s === undefined) return undefined;
    const r = redactor.redactText(s);
    if (r.count > 0) changed = true;
    return r.value;
  };
  const value = <T extends JsonValue>(v: T | undefined): T | undefined => {
    if (v === undefined) return undefined;
    const r = redactor.redactValue(v);
    if (r.count > 0) changed = true;
    return r.value;
  };
  const title = text(tool.title);
  const description = text(tool.description);
  const inputSchema = value(tool.inputSchema)!;
  const outputSchema = value(tool.outputSchema);
  const annotations = value(tool.annotations);
  const icons = value(tool.icons);
  if (!changed) return tool;
  return Object.freeze({
    ref: tool.ref,
    name: tool.name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    inputSchema: inputSchema as JsonObject,
    ...(outputSchema === undefined ? {} : { outputSchema: outputSchema as JsonObject }),
    ...(annotations === undefined ? {} : { annotations: annotations as JsonObject }),
    ...(icons === undefined ? {} : { icons }),
  });
}

/**
 * Redacts every text of every tool of `catalog`: title, description, input and output schemas (keys
 * included), annotations and icons. A tool whose name carries a secret is left out (a renamed tool could
 * not be called): clients never see it and calling it is answered like any missing tool.
 */
export function redactCatalog(catalog: Catalog, redactor: TextRedactor): RedactedCatalog {
  const dropped: string[] = [];
  const kept: Tool[] = [];
  let changed = false;
  const position = new Map<string, number>();
  for (const tool of catalog.tools) {
    const n = (position.get(tool.ref.downstream) ?? 0) + 1;
    position.set(tool.ref.downstream, n);
    if (redactor.redactText(tool.name).count > 0) {
      const downstream = redactor.redactText(tool.ref.downstream).value;
      dropped.push(`tool #${n} of downstream ${downstream} left out: its name contains a secret`);
      changed = true;
      continue;
    }
    const clean = redactTool(tool, redactor);
    if (clean !== tool) changed = true;
    kept.push(clean);
  }
  return { catalog: changed ? new Catalog(kept) : catalog, dropped };
}

/**
 * The redacted view of a changing catalog under a changing redactor (a reload replaces it), computed
 * once per (catalog, redactor) pair; `log` hears about each tool left out when a view is computed.
 */
export class CatalogRedaction {
  #source: Catalog | undefined;
  #redactor: TextRedactor | undefined;
  #view: Catalog = Catalog.EMPTY;
  readonly #log: (line: string) => void;

  /** Creates the view; nothing is computed before the first {@link CatalogRedaction.of}. */
  constructor(log: (line: string) => void = () => {}) {
    this.#log = log;
  }

  /** The redacted `source` under `redactor`. */
  of(source: Catalog, redactor: TextRedactor): Catalog {
    if (source === this.#source && redactor === this.#redactor) return this.#view;
    const { catalog, dropped } = redactCatalog(source, redactor);
    for (const line of dropped) this.#log(`gateway: ${line}`);
    this.#source = source;
    this.#redactor = redactor;
    this.#view = catalog;
    return catalog;
  }
}
