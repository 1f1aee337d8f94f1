/**
 * Capability definitions and the per-capability registration rules of the seed: dotted names, reserved
 * roots, IDs, summary/description/search-term metadata, handlers, and input/output type descriptors.
 * Cross-capability rules (duplicates, namespace collisions, ceilings, fit) live in `catalog.ts`.
 *
 * @module
 */
import type { Subject } from "../../authz.ts";
import { CodeModeError } from "../errors.ts";
import type { StructField, TypeSchema } from "../schema.ts";
import { UNIVERSE } from "../starlark/mod.ts";
import { hasSurroundingSpace, isIdentifier, quote, utf8Length } from "../text.ts";
import type { Infer, InferOutput, StructSchema } from "./types.ts";

/** The identity of a capability as handlers and authorizers see it. */
export interface CapabilityIdentity {
  /** Stable policy identity (defaults to the name). */
  readonly id: string;
  /** Dotted Starlark name. */
  readonly name: string;
}

/** What a handler receives besides its input. */
export interface HandlerContext {
  /** The trusted subject passed to `execute`. */
  readonly subject: Subject;
  /** Aborted when the execution is cancelled or its deadline passes. */
  readonly signal: AbortSignal;
  /** The capability being called. */
  readonly capability: CapabilityIdentity;
}

/**
 * A capability handler. Its input has been bound against the input schema and authorized. Throw a
 * {@link CapabilityError} (or any `Error`) for a failure: it becomes `capability_failure`. JavaScript
 * programming errors (`TypeError`, `ReferenceError`, `RangeError`, `SyntaxError`, `EvalError`,
 * `URIError`) are this library's analog of a Go panic and become `internal`; catch I/O failures that
 * surface as `TypeError` (such as `fetch`) and rethrow them as a `CapabilityError`.
 */
export type Handler<I extends StructSchema = StructSchema, O extends StructSchema = StructSchema> = (
  input: Infer<I>,
  ctx: HandlerContext,
) => InferOutput<O> | Promise<InferOutput<O>>;

/** A handler with its types erased, as the dispatcher calls it. */
export type ErasedHandler = (input: Record<string, unknown>, ctx: HandlerContext) => unknown;

/** An empty input struct: a capability without parameters. */
export type NoInput = StructSchema<Record<never, never>>;

/** One capability as a host registers it. */
export interface CapabilityDefinition<
  I extends StructSchema = NoInput,
  O extends StructSchema = StructSchema,
> {
  /**
   * Stable deployment and policy identity. Empty or absent defaults to `name`; an explicit ID must have
   * no surrounding whitespace and be unique.
   */
  readonly id?: string;
  /** Unique dotted name with at least two identifier segments whose first is not a reserved root. */
  readonly name: string;
  /** Non-empty compact text for search and discovery, without surrounding whitespace. */
  readonly summary: string;
  /** Detail for describe and search; empty or absent defaults to `summary`. */
  readonly description?: string;
  /**
   * Up to 16 alternative task or resource phrases (≤ 1,024 bytes together) used only by search. Do not
   * put secrets, credentials, policy facts or tenant identifiers here.
   */
  readonly searchTerms?: readonly string[];
  /** Keyword parameters (a struct). Absent means no parameters. */
  readonly input?: I;
  /** Result shape (a struct). */
  readonly output: O;
  /** Called after binding and authorization. */
  readonly handler: Handler<NoInfer<I>, NoInfer<O>>;
}

/** A registration that passed every per-capability rule, in canonical frozen form. */
export interface CapabilitySpec {
  /** Registration order (0-based). */
  readonly index: number;
  /** Stable ID (defaulted). */
  readonly id: string;
  /** Dotted name. */
  readonly name: string;
  /** Summary. */
  readonly summary: string;
  /** Description (defaulted). */
  readonly description: string;
  /** Cloned search terms. */
  readonly searchTerms: readonly string[];
  /** Canonical input struct. */
  readonly input: StructSchema;
  /** Canonical output struct. */
  readonly output: StructSchema;
  /** The handler. */
  readonly handler: ErasedHandler;
}

/**
 * Names a capability cannot use as its first segment: every name of the Starlark universe plus the
 * predeclared `sum`, `json` and `math`. Taken from the engine, so that a name it adds to its universe is
 * reserved too.
 */
export const RESERVED_ROOTS: ReadonlySet<string> = new Set([...UNIVERSE.keys(), "sum", "json", "math"]);

/** Most search-term phrases per capability. */
export const MAX_SEARCH_TERMS = 16;
/** Most combined UTF-8 bytes of one capability's search terms. */
export const MAX_SEARCH_TERM_BYTES = 1024;
/** Deepest nesting of a type descriptor (guards recursion; far beyond any useful shape). */
export const MAX_SCHEMA_DEPTH = 64;

/** Why `name` is not a valid capability name, or `undefined` when it is. */
export function nameProblem(name: string): string | undefined {
  const segments = name.split(".");
  if (segments.length < 2) return "must have at least two dot-separated segments, such as records.lookup";
  for (const segment of segments) {
    if (!isIdentifier(segment)) return `segment ${quote(segment)} is not a valid Starlark identifier`;
  }
  if (RESERVED_ROOTS.has(segments[0])) {
    return `root ${quote(segments[0])} is reserved (a Starlark built-in or predeclared module)`;
  }
  return undefined;
}

/** The result of checking one registration on its own. */
export interface RegistrationCheck {
  /** The canonical spec, when every rule passed. */
  readonly spec?: CapabilitySpec;
  /** Diagnostics, each naming the capability. */
  readonly diagnostics: readonly string[];
  /** The defaulted ID when it could be determined (for duplicate and disabled-ID checks). */
  readonly id?: string;
  /** The name when it is a string (for duplicate and collision checks). */
  readonly name?: string;
  /** Raw UTF-8 bytes of name, summary, description and search terms (the aggregate budget). */
  readonly metadataBytes: number;
}

/** A label that names a registration in diagnostics. */
export function registrationLabel(index: number, name: unknown): string {
  return typeof name === "string" && name !== ""
    ? `capability ${quote(name)} (registration ${index + 1})`
    : `capability registration ${index + 1}`;
}

function textProblem(value: string): string | undefined {
  if (!value.isWellFormed()) return "is not well-formed Unicode (lone surrogate)";
  if (hasSurroundingSpace(value)) return "must not have surrounding whitespace";
  return undefined;
}

/** Checks one registration against every per-capability rule. */
export function checkRegistration(def: unknown, index: number): RegistrationCheck {
  if (def === null || typeof def !== "object") {
    return {
      diagnostics: [`${registrationLabel(index, undefined)}: definition must be an object`],
      metadataBytes: 0,
    };
  }
  const d = def as Record<string, unknown>;
  const label = registrationLabel(index, d.name);
  const diags: string[] = [];
  const fail = (msg: string) => diags.push(`${label}: ${msg}`);
  let metadataBytes = 0;

  let name: string | undefined;
  if (typeof d.name !== "string") {
    fail("name must be a string");
  } else {
    name = d.name;
    metadataBytes += utf8Length(name);
    const problem = nameProblem(name);
    if (problem) fail(`name ${problem}`);
  }

  let id: string | undefined;
  if (d.id === undefined || d.id === "") {
    id = name;
  } else if (typeof d.id !== "string") {
    fail("id must be a string");
  } else {
    const problem = textProblem(d.id);
    if (problem) fail(`id ${problem}`);
    id = d.id;
  }

  let summary = "";
  if (typeof d.summary !== "string") {
    fail("summary must be a string");
  } else {
    summary = d.summary;
    metadataBytes += utf8Length(summary);
    if (summary === "") fail("summary must not be empty");
    else {
      const problem = textProblem(summary);
      if (problem) fail(`summary ${problem}`);
    }
  }

  let description = summary;
  if (d.description !== undefined && d.description !== "") {
    if (typeof d.description !== "string") {
      fail("description must be a string");
    } else {
      description = d.description;
      metadataBytes += utf8Length(description);
      const problem = textProblem(description);
      if (problem) fail(`description ${problem}`);
    }
  }

  const searchTerms: string[] = [];
  if (d.searchTerms !== undefined) {
    if (!Array.isArray(d.searchTerms)) {
      fail("searchTerms must be an array of strings");
    } else {
      let bytes = 0;
      if (d.searchTerms.length > MAX_SEARCH_TERMS) {
        fail(`searchTerms has ${d.searchTerms.length} phrases; at most ${MAX_SEARCH_TERMS} are allowed`);
      }
      d.searchTerms.forEach((term: unknown, i: number) => {
        if (typeof term !== "string") {
          fail(`searchTerms[${i}] must be a string`);
          return;
        }
        bytes += utf8Length(term);
        searchTerms.push(term);
        if (term === "") fail(`searchTerms[${i}] must not be empty`);
        else {
          const problem = textProblem(term);
          if (problem) fail(`searchTerms[${i}] ${problem}`);
        }
      });
      metadataBytes += bytes;
      if (bytes > MAX_SEARCH_TERM_BYTES) {
        fail(`searchTerms total ${bytes} bytes; at most ${MAX_SEARCH_TERM_BYTES} are allowed`);
      }
    }
  }

  if (typeof d.handler !== "function") fail("handler must be a function");

  const schemaDiags: string[] = [];
  const input = d.input === undefined ? EMPTY_STRUCT : canonicalRoot(d.input, "input", schemaDiags);
  const output = d.output === undefined
    ? (schemaDiags.push("output is required (a struct)"), undefined)
    : canonicalRoot(d.output, "output", schemaDiags);
  for (const msg of schemaDiags) fail(msg);

  if (diags.length > 0 || name === undefined || id === undefined || !input || !output) {
    return { diagnostics: diags, id, name, metadataBytes };
  }
  const spec: CapabilitySpec = Object.freeze({
    index,
    id,
    name,
    summary,
    description,
    searchTerms: Object.freeze(searchTerms),
    input,
    output,
    handler: d.handler as ErasedHandler,
  });
  return { spec, diagnostics: diags, id, name, metadataBytes };
}

const EMPTY_STRUCT: StructSchema = Object.freeze({ kind: "struct", fields: Object.freeze([]) });

function canonicalRoot(value: unknown, path: string, diags: string[]): StructSchema | undefined {
  const schema = canonicalSchema(value, path, diags, 0, new Set());
  if (!schema) return undefined;
  if (schema.kind !== "struct") {
    diags.push(`${path} must be a struct (t.struct({...})), not ${schema.kind}`);
    return undefined;
  }
  return schema as StructSchema;
}

const SCALARS = new Set(["str", "int", "float", "bool", "json"]);
const WRAPPERS = new Set(["optional", "nullable", "list", "dict"]);

/**
 * Validates a type descriptor and returns a canonical frozen copy (only the contract's properties),
 * so later mutation of the host's objects cannot change a built server. Problems go to `diags`.
 */
export function canonicalSchema(
  value: unknown,
  path: string,
  diags: string[],
  depth: number,
  ancestors: Set<object>,
): TypeSchema | undefined {
  if (depth >= MAX_SCHEMA_DEPTH) {
    diags.push(`${path}: type nesting is deeper than ${MAX_SCHEMA_DEPTH} levels`);
    return undefined;
  }
  if (value === null || typeof value !== "object") {
    diags.push(`${path}: not a type descriptor (use the t builder)`);
    return undefined;
  }
  if (ancestors.has(value)) {
    diags.push(`${path}: cyclic type descriptor`);
    return undefined;
  }
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind === "string" && SCALARS.has(kind)) {
    return Object.freeze({ kind }) as TypeSchema;
  }
  ancestors.add(value);
  try {
    if (typeof kind === "string" && WRAPPERS.has(kind)) {
      const suffix = kind === "list" ? "[]" : kind === "dict" ? "{}" : "";
      const of = canonicalSchema((value as { of?: unknown }).of, path + suffix, diags, depth + 1, ancestors);
      return of ? Object.freeze({ kind, of }) as TypeSchema : undefined;
    }
    if (kind === "struct") return canonicalStruct(value, path, diags, depth, ancestors);
    diags.push(`${path}: unknown type kind ${typeof kind === "string" ? quote(kind) : String(kind)}`);
    return undefined;
  } finally {
    ancestors.delete(value);
  }
}

function canonicalStruct(
  value: object,
  path: string,
  diags: string[],
  depth: number,
  ancestors: Set<object>,
): TypeSchema | undefined {
  const fields = (value as { fields?: unknown }).fields;
  if (!Array.isArray(fields)) {
    diags.push(`${path}: struct fields must be an array`);
    return undefined;
  }
  const seen = new Set<string>();
  const out: StructField[] = [];
  let ok = true;
  fields.forEach((field: unknown, i: number) => {
    if (field === null || typeof field !== "object") {
      diags.push(`${path}: field ${i} is not an object`);
      ok = false;
      return;
    }
    const { name, type } = field as { name?: unknown; type?: unknown };
    if (typeof name !== "string" || !isIdentifier(name)) {
      diags.push(
        `${path}: field name ${
          typeof name === "string" ? quote(name) : String(name)
        } is not a valid Starlark identifier`,
      );
      ok = false;
      return;
    }
    if (seen.has(name)) {
      diags.push(`${path}: duplicate field name ${quote(name)}`);
      ok = false;
      return;
    }
    seen.add(name);
    const canonical = canonicalSchema(type, `${path}.${name}`, diags, depth + 1, ancestors);
    if (!canonical) {
      ok = false;
      return;
    }
    out.push(Object.freeze({ name, type: canonical }));
  });
  return ok ? Object.freeze({ kind: "struct", fields: Object.freeze(out) }) : undefined;
}

/** Options of a {@link CapabilityError}. */
export interface CapabilityErrorOptions {
  /**
   * The message may be shown to the model as the failure's detail. It must then be at most 256 UTF-8
   * bytes of printable text without secrets; a message that breaks those rules is never shown.
   */
  safeForModel?: boolean;
  /** Trusted cause, kept on the host side. */
  cause?: unknown;
}

/** A handler failure (`capability_failure`), optionally with a message approved for the model. */
export class CapabilityError extends Error {
  /** Whether the host approved the message for the model. */
  readonly safeForModel: boolean;
  /** Creates a handler failure. */
  constructor(message: string, options: CapabilityErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CapabilityError";
    this.safeForModel = options.safeForModel === true;
  }
}

/** The longest model-safe detail, in UTF-8 bytes. */
export const MAX_SAFE_DETAIL_BYTES = 256;

// Control, format, private-use, surrogate and unassigned code points are not "printable".
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}]/u;

/** Whether `text` may be shown to a model as a detail: non-empty, ≤ 256 bytes, printable. */
export function isModelSafeText(text: string): boolean {
  return text !== "" && text.isWellFormed() && utf8Length(text) <= MAX_SAFE_DETAIL_BYTES &&
    !UNPRINTABLE.test(text);
}

/** `invalid_registration` carrying every diagnostic of a failed build. */
export class RegistrationError extends CodeModeError {
  /** Each problem, naming its capability (or the option) it concerns. */
  readonly diagnostics: readonly string[];
  /** Creates the joined error. */
  constructor(diagnostics: readonly string[]) {
    const list = Object.freeze([...diagnostics]);
    super(
      "invalid_registration",
      list.length === 1 ? list[0] : `${list.length} registration problems:\n- ${list.join("\n- ")}`,
    );
    this.diagnostics = list;
  }
}
