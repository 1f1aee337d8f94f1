/**
 * `fromOpenAPI`: one capability per operation of a document, registered on a {@link Builder}. Reads and
 * validates the document, keeps the operations the filters select, names them, types them through the
 * shared JSON Schema converter and gives each a fetch handler bound to the configured origin.
 *
 * @module
 */
import { type Builder, defaultLimits, RegistrationError, type StructSchema } from "../core/mod.ts";
import { CodeModeError } from "../errors.ts";
import { type JsonValue, SchemaContext } from "../jsonschema/mod.ts";
import {
  globMatcher,
  type OpenAPISettings,
  type Operation,
  operationLabel,
  READ_ONLY_METHODS,
} from "./domain.ts";
import { loadDocument, readOperations, resolvePointer } from "./document.ts";
import { capabilityName, nameOperations } from "./naming.ts";
import { callConfig, DEFAULT_TIMEOUT_MS, makeHandler } from "./handler.ts";
import { signatureOf } from "./signature.ts";

/** An operation the document holds but no capability serves, and why. */
export interface SkippedOperation {
  /** `GET /pets (listPets)` or the operation's JSON pointer. */
  readonly operation: string;
  /** Why it was left out. */
  readonly reason: string;
}

/** What {@link fromOpenAPI} registered. */
export interface OpenAPIRegistration {
  /** The document's title (`info.title`). */
  readonly title: string;
  /** The capability names registered, in document order. */
  readonly capabilities: readonly string[];
  /** Operations the document describes that could not be served (non-JSON bodies, clashing arguments). */
  readonly skipped: readonly SkippedOperation[];
  /** Operations the filters (`readOnly`, `include`, `exclude`) left out. */
  readonly filtered: number;
}

/** Options of {@link fromOpenAPI}: the builder to register on, and the API's settings. */
export interface OpenAPIOptions extends OpenAPISettings {
  /** Receives one capability per served operation; call its `build()` afterwards. */
  readonly builder: Builder;
}

function selected(op: Operation, name: string, globs: readonly ((s: string) => boolean)[]): boolean {
  const texts = [op.path, name, ...op.tags, ...(op.operationId === undefined ? [] : [op.operationId])];
  return globs.some((g) => texts.some(g));
}

function baseUrlOf(value: unknown): URL {
  let url: URL;
  try {
    url = new URL(value as string);
  } catch {
    throw new CodeModeError("invalid_registration", "options.baseUrl must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CodeModeError("invalid_registration", "options.baseUrl must be an http(s) URL");
  }
  if (url.username !== "" || url.password !== "") {
    throw new CodeModeError(
      "invalid_registration",
      "options.baseUrl must not hold credentials; use basicAuth",
    );
  }
  return url;
}

/**
 * Registers one capability per operation of an OpenAPI 3.0 or 3.1 document on `options.builder`.
 *
 * `document` is a file path, an http(s) URL or the parsed document. Rejects with
 * `invalid_registration` when the document cannot be read or is invalid (every problem with its JSON
 * pointer), is Swagger 2.0, references anything outside itself, or when operation names collide or use
 * a reserved root (each diagnostic naming both operations); nothing is registered then.
 */
export async function fromOpenAPI(
  document: string | URL | Record<string, unknown>,
  options: OpenAPIOptions,
): Promise<OpenAPIRegistration> {
  if (options === null || typeof options !== "object") {
    throw new CodeModeError("invalid_registration", "options must be an object with a builder and a baseUrl");
  }
  const builder = options.builder;
  if (builder === null || typeof builder !== "object" || typeof builder.register !== "function") {
    throw new CodeModeError("invalid_registration", "options.builder must be a Builder");
  }
  const base = baseUrlOf(options.baseUrl);
  const fetcher = options.fetch ?? fetch;
  const maxResponseBytes = options.maxResponseBytes ?? defaultLimits().maxValueBytes;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(Number.isSafeInteger(maxResponseBytes) && maxResponseBytes > 0)) {
    throw new CodeModeError("invalid_registration", "options.maxResponseBytes must be a positive integer");
  }
  if (!(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) {
    throw new CodeModeError("invalid_registration", "options.timeoutMs must be a positive integer");
  }
  const config = callConfig(base, options, options.env ?? ((name) => Deno.env.get(name)), {
    maxResponseBytes,
    timeoutMs,
    fetch: fetcher,
  });
  const { document: doc } = await loadDocument(document, fetcher);

  const skipped: SkippedOperation[] = [];
  const operations: Operation[] = [];
  for (const read of readOperations(doc)) {
    if ("operation" in read) operations.push(read.operation);
    else skipped.push({ operation: read.pointer, reason: read.reason });
  }
  const include = (options.include ?? []).map(globMatcher);
  const exclude = (options.exclude ?? []).map(globMatcher);
  // Filters first, so leaving an operation out also settles the name collision it was part of.
  const wanted = operations.filter((op) => {
    if (options.readOnly === true && !READ_ONLY_METHODS.has(op.method)) return false;
    const name = capabilityName(op);
    return (include.length === 0 || selected(op, name, include)) && !selected(op, name, exclude);
  });
  const filtered = operations.length - wanted.length;
  const { named: kept, diagnostics } = nameOperations(wanted);
  if (diagnostics.length > 0) throw new RegistrationError(diagnostics);

  const ctx = new SchemaContext((ref) => resolvePointer(doc, ref) as JsonValue | undefined);
  const capabilities: string[] = [];
  for (const { name, operation } of kept) {
    const sig = signatureOf(operation, ctx);
    if (typeof sig === "string") {
      skipped.push({ operation: operationLabel(operation), reason: sig });
      continue;
    }
    const handler = makeHandler(operation, sig, config);
    builder.register<StructSchema, StructSchema>({
      name,
      summary: sig.summary,
      description: sig.description,
      searchTerms: sig.searchTerms,
      input: sig.input,
      output: sig.output,
      handler: handler as never,
    });
    capabilities.push(name);
  }
  const info = doc.info as { title?: unknown } | undefined;
  return {
    title: typeof info?.title === "string" ? info.title : "",
    capabilities,
    skipped,
    filtered,
  };
}
