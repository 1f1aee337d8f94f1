/**
 * The immutable catalog of a built server: cross-capability registration rules (ceiling, aggregate
 * metadata budget, duplicate IDs and names, namespace collisions, disabled IDs, single-result fit),
 * then the enabled capabilities with their descriptions, search index and worker stubs.
 *
 * @module
 */
import type { CapabilityStub } from "../executor/mod.ts";
import { type CapabilitySpec, nameProblem, type RegistrationCheck, registrationLabel } from "./capability.ts";
import { describeCapability, type Description } from "./describe.ts";
import {
  fitsAlone,
  RESPONSE_BYTE_CAP,
  type SearchBounds,
  Searcher,
  type SearchResponse,
} from "../search/mod.ts";
import { CodeModeError } from "../errors.ts";
import type { TypeSchema } from "../schema.ts";
import { quote } from "../text.ts";

/** Most capabilities one builder may register. */
export const MAX_REGISTRATIONS = 4096;

/**
 * Aggregate budget for the raw UTF-8 bytes of every registered capability's name, summary, explicit
 * description and search terms (4 MiB), counted before static filtering. It keeps build time, memory
 * and the search index bounded: 4,096 capabilities average 1 KiB of discovery text each.
 */
export const METADATA_BUDGET_BYTES = 4 * 1024 * 1024;

/** A worker stub, extended with the output schema so the executor can encode ints and floats exactly. */
export interface CatalogStub extends CapabilityStub {
  /** Output shape (a struct descriptor). */
  readonly output: TypeSchema & { readonly kind: "struct" };
}

/** One enabled capability of a built catalog. */
export interface CatalogEntry extends CapabilitySpec {
  /** Its precomputed description. */
  readonly describe: Description;
}

/** The result of building a catalog. */
export type CatalogResult = { readonly catalog: Catalog; readonly diagnostics: readonly [] } | {
  readonly catalog?: undefined;
  readonly diagnostics: readonly string[];
};

/** The enabled capabilities of a server (immutable). */
export class Catalog {
  /** Enabled capabilities in registration order; position = capability index for the executor. */
  readonly entries: readonly CatalogEntry[];
  /** Worker stubs parallel to {@link Catalog.entries}. */
  readonly stubs: readonly CatalogStub[];
  readonly #byName: ReadonlyMap<string, number>;
  readonly #searcher: Searcher;

  /** Creates a catalog from validated specs (use {@link buildCatalog}). */
  constructor(specs: readonly CapabilitySpec[], searcher?: Searcher) {
    this.entries = Object.freeze(specs.map((s) => Object.freeze({ ...s, describe: describeCapability(s) })));
    this.stubs = Object.freeze(
      this.entries.map((e) => Object.freeze({ name: e.name, input: e.input, output: e.output })),
    );
    this.#byName = new Map(this.entries.map((e, i) => [e.name, i]));
    this.#searcher = searcher ??
      new Searcher(this.entries.map((e) => ({ ...e, signature: e.describe.signature })));
  }

  /** The index of the enabled capability with this exact name, if any. */
  indexOf(name: string): number | undefined {
    return this.#byName.get(name);
  }

  /** Exact lookup of an enabled name (no trimming, no case folding); `not_found` otherwise. */
  describe(name: string): Description {
    const i = typeof name === "string" ? this.#byName.get(name) : undefined;
    if (i === undefined) {
      throw new CodeModeError("not_found", `no enabled capability is named ${quote(String(name))}`);
    }
    return this.entries[i].describe;
  }

  /** Runs a search query. */
  search(query: string, bounds: SearchBounds): SearchResponse {
    return this.#searcher.search(query, bounds);
  }

  /** The compact JSON bytes of each entry's search result. */
  get resultBytes(): Int32Array {
    return this.#searcher.resultBytes;
  }
}

/**
 * Checks the catalog-wide rules over per-registration results (see `checkRegistration`), and builds the catalog when everything passes.
 * All problems are returned together, each naming the capability (or option) it concerns.
 */
export function buildCatalog(checks: readonly RegistrationCheck[], disabled: unknown): CatalogResult {
  const diagnostics: string[] = [];
  if (checks.length > MAX_REGISTRATIONS) {
    diagnostics.push(
      `${checks.length} capabilities registered; at most ${MAX_REGISTRATIONS} are allowed ` +
        "(split them across servers)",
    );
  }
  let metadata = 0;
  for (const check of checks) {
    diagnostics.push(...check.diagnostics);
    metadata += check.metadataBytes;
  }
  if (metadata > METADATA_BUDGET_BYTES) {
    diagnostics.push(
      `discovery metadata (names, summaries, descriptions, search terms) totals ${metadata} bytes; ` +
        `the build budget is ${METADATA_BUDGET_BYTES} (shorten metadata or split the capabilities across servers)`,
    );
  }

  const byId = new Map<string, number>();
  const byName = new Map<string, number>();
  checks.forEach((check, i) => {
    const label = registrationLabel(i, check.name);
    if (check.id !== undefined) {
      const first = byId.get(check.id);
      if (first === undefined) byId.set(check.id, i);
      else {
        diagnostics.push(
          `${label}: id ${quote(check.id)} is already used by ${
            registrationLabel(first, checks[first].name)
          }`,
        );
      }
    }
    if (check.name !== undefined && nameProblem(check.name) === undefined) {
      const first = byName.get(check.name);
      if (first === undefined) byName.set(check.name, i);
      else {diagnostics.push(
          `${label}: name is already registered by ${registrationLabel(first, check.name)}`,
        );}
    }
  });
  for (const [name, i] of byName) {
    const segments = name.split(".");
    for (let k = 1; k < segments.length; k++) {
      const prefix = segments.slice(0, k).join(".");
      const owner = byName.get(prefix);
      if (owner !== undefined) {
        diagnostics.push(
          `${registrationLabel(owner, prefix)}: name is also the namespace of ${registrationLabel(i, name)}`,
        );
      }
    }
  }

  const disabledIds = new Set<string>();
  if (disabled !== undefined) {
    if (!Array.isArray(disabled)) {
      diagnostics.push("disabledCapabilities must be an array of capability IDs");
    } else {
      for (const id of disabled) {
        if (typeof id !== "string") {
          diagnostics.push(`disabledCapabilities: ${String(id)} is not a string`);
        } else if (disabledIds.has(id)) {
          diagnostics.push(`disabledCapabilities: ${quote(id)} is listed more than once`);
        } else {
          disabledIds.add(id);
          if (!byId.has(id)) {
            diagnostics.push(`disabledCapabilities: ${quote(id)} does not match a registered capability ID`);
          }
        }
      }
    }
  }
  if (diagnostics.length > 0) return { diagnostics };

  const enabled = checks.map((c) => c.spec!).filter((spec) => !disabledIds.has(spec.id));
  const catalog = new Catalog(enabled);
  catalog.resultBytes.forEach((bytes, i) => {
    if (!fitsAlone(bytes)) {
      const e = catalog.entries[i];
      diagnostics.push(
        `${registrationLabel(e.index, e.name)}: its search result is ${bytes} bytes of JSON and cannot fit ` +
          `the ${RESPONSE_BYTE_CAP}-byte response cap (shorten its name, summary or input field names)`,
      );
    }
  });
  if (diagnostics.length > 0) return { diagnostics };
  return { catalog, diagnostics: [] };
}
