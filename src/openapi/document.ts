/**
 * The document reader: loads an OpenAPI document (a file, an http(s) URL or an object), refuses what it
 * cannot serve (Swagger 2.0, other versions, references outside the document), validates it against the
 * OpenAPI 3.0/3.1 schema with `@apidevtools/swagger-parser` — every problem reported with its JSON
 * pointer — and reads its operations out of the original (never dereferenced) document.
 *
 * Only the document itself is ever loaded: the validator runs with every resolver but the internal one
 * switched off, and an external `$ref` is refused before it runs, so nothing else is fetched or read.
 *
 * @module
 */
import SwaggerParser from "@apidevtools/swagger-parser";
import { parse as parseYaml } from "yaml";
import { CodeModeError } from "../errors.ts";
import {
  HTTP_METHODS,
  type Json,
  type JsonMap,
  type Operation,
  type OperationParameter,
  type ParameterPlace,
} from "./domain.ts";

/** One problem of a document, at a JSON pointer (`#/paths/~1pets/get/responses`). */
export interface DocumentProblem {
  /** Where it is. */
  readonly pointer: string;
  /** What is wrong. */
  readonly message: string;
}

/** At most this many problems are listed (a broken document can have thousands). */
export const MAX_LISTED_PROBLEMS = 50;

/** A document that cannot be served (`invalid_registration`), with every problem and its pointer. */
export class OpenAPIDocumentError extends CodeModeError {
  /** The problems (at most {@link MAX_LISTED_PROBLEMS}). */
  readonly problems: readonly DocumentProblem[];
  /** Creates the error for `problems` of the document named `source`. */
  constructor(source: string, problems: readonly DocumentProblem[]) {
    const listed = Object.freeze(problems.slice(0, MAX_LISTED_PROBLEMS));
    const more = problems.length > listed.length ? `\n- … and ${problems.length - listed.length} more` : "";
    super(
      "invalid_registration",
      `OpenAPI document ${source} is not usable:\n- ${
        listed.map((p) => `${p.pointer}: ${p.message}`).join("\n- ")
      }${more}`,
    );
    this.problems = listed;
  }
}

/** A document and the name it is reported under. */
export interface LoadedDocument {
  /** The document, as parsed (not dereferenced). */
  readonly document: JsonMap;
  /** Its file path, URL or `(object)`. */
  readonly source: string;
}

function isMap(v: unknown): v is JsonMap {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A JSON pointer segment, escaped. */
export function pointerSegment(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Reads a file path or an http(s) URL and parses it as YAML (JSON is YAML). */
async function readSource(source: string | URL, fetcher: typeof fetch): Promise<unknown> {
  const url = source instanceof URL ? source : /^https?:\/\//i.test(source) ? new URL(source) : undefined;
  let text: string;
  const label = String(source);
  try {
    if (url !== undefined && url.protocol !== "file:") {
      const response = await fetcher(url, { redirect: "follow" });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status}`);
      }
      text = await response.text();
    } else {
      text = await Deno.readTextFile(url ?? source);
    }
  } catch (err) {
    throw new CodeModeError(
      "invalid_registration",
      `cannot read the OpenAPI document ${label}: ${(err as Error).message}`,
    );
  }
  try {
    // Aliases are capped so a small YAML file cannot expand into a huge document.
    return parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new OpenAPIDocumentError(label, [{
      pointer: "#",
      message: `not YAML or JSON: ${(err as Error).message}`,
    }]);
  }
}

/** Every `$ref` that leaves the document, with its pointer. */
function externalRefs(doc: Json, pointer: string, out: DocumentProblem[]): void {
  if (out.length >= MAX_LISTED_PROBLEMS) return;
  if (Array.isArray(doc)) {
    doc.forEach((v, i) => externalRefs(v, `${pointer}/${i}`, out));
  } else if (isMap(doc)) {
    const ref = doc.$ref;
    if (typeof ref === "string" && !ref.startsWith("#")) {
      out.push({
        pointer: `${pointer}/$ref`,
        message: `references ${
          JSON.stringify(ref.slice(0, 120))
        } outside the document; only "#/..." references are followed`,
      });
    }
    for (const [k, v] of Object.entries(doc)) externalRefs(v, `${pointer}/${pointerSegment(k)}`, out);
  }
}

/** The problems swagger-parser reports, with their pointers. */
function validatorProblems(err: unknown): DocumentProblem[] {
  const e = err as { details?: unknown; message?: unknown };
  if (Array.isArray(e.details) && e.details.length > 0) {
    const seen = new Set<string>();
    const out: DocumentProblem[] = [];
    for (const d of e.details as { instancePath?: unknown; message?: unknown; params?: unknown }[]) {
      const pointer = `#${typeof d.instancePath === "string" ? d.instancePath : ""}`;
      let message = typeof d.message === "string" ? d.message : "is invalid";
      const params = d.params as Record<string, unknown> | undefined;
      if (params && typeof params.additionalProperty === "string") {
        message += ` (${JSON.stringify(params.additionalProperty)})`;
      }
      const key = `${pointer} ${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ pointer, message });
    }
    return out;
  }
  const message = typeof e.message === "string" ? e.message : String(err);
  // Reference errors name the pointer they could not resolve; others are about the whole document.
  const ref = /"(#[^"]*)"/.exec(message)?.[1];
  return [{ pointer: ref ?? "#", message: message.split("\n")[0].slice(0, 300) }];
}

/**
 * Loads and validates a document. A string is a file path or an http(s) URL; an object is used as is
 * (copied first: validation must not change the caller's object). `fetcher` loads an http(s) document.
 */
export async function loadDocument(
  source: string | URL | Record<string, unknown>,
  fetcher: typeof fetch = fetch,
): Promise<LoadedDocument> {
  const isText = typeof source === "string" || source instanceof URL;
  const label = isText ? String(source) : "(object)";
  const raw = isText ? await readSource(source, fetcher) : structuredClone(source);
  if (!isMap(raw)) {
    throw new OpenAPIDocumentError(label, [{ pointer: "#", message: "the document must be an object" }]);
  }
  if (raw.swagger !== undefined) {
    throw new OpenAPIDocumentError(label, [{
      pointer: "#/swagger",
      message: `Swagger ${
        JSON.stringify(raw.swagger)
      } documents are not supported: convert the document to OpenAPI 3.0 or 3.1 first`,
    }]);
  }
  if (typeof raw.openapi !== "string" || !/^3\.[01]\.\d+/.test(raw.openapi)) {
    throw new OpenAPIDocumentError(label, [{
      pointer: "#/openapi",
      message: `OpenAPI 3.0.x or 3.1.x expected, found ${JSON.stringify(raw.openapi ?? null)}`,
    }]);
  }
  const external: DocumentProblem[] = [];
  externalRefs(raw, "#", external);
  if (external.length > 0) throw new OpenAPIDocumentError(label, external);
  try {
    await SwaggerParser.validate(structuredClone(raw) as never, {
      resolve: { external: false, file: false, http: false },
      dereference: { circular: "ignore" },
    } as never);
  } catch (err) {
    throw new OpenAPIDocumentError(label, validatorProblems(err));
  }
  return { document: raw, source: label };
}

/** Resolves a local `$ref` (`#/components/schemas/Pet`) in `doc`; undefined when it names nothing. */
export function resolvePointer(doc: JsonMap, ref: string): Json | undefined {
  if (ref === "#") return doc;
  if (!ref.startsWith("#/")) return undefined;
  let node: Json | undefined = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node)) node = /^\d+$/.test(key) ? node[Number(key)] : undefined;
    else if (isMap(node)) node = Object.hasOwn(node, key) ? node[key] : undefined;
    else return undefined;
  }
  return node;
}

/** `node` with its `$ref` chain followed (at most 32 hops, so a cycle of references ends). */
function deref(doc: JsonMap, node: Json | undefined): Json | undefined {
  for (let i = 0; i < 32; i++) {
    if (!isMap(node) || typeof node.$ref !== "string") return node;
    node = resolvePointer(doc, node.$ref);
  }
  return undefined;
}

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\b|^\*\/\*$/i;

/** The JSON media type of a `content` map, preferring `application/json`. */
function jsonMedia(content: Json | undefined): [string, JsonMap] | undefined {
  if (!isMap(content)) return undefined;
  const keys = Object.keys(content);
  const key = keys.find((k) => /^application\/json\b/i.test(k)) ?? keys.find((k) => JSON_MEDIA.test(k));
  const media = key === undefined ? undefined : content[key];
  return key === undefined || !isMap(media) ? undefined : [key, media];
}

function parametersOf(doc: JsonMap, list: Json | undefined): OperationParameter[] {
  if (!Array.isArray(list)) return [];
  const out: OperationParameter[] = [];
  for (const item of list) {
    const p = deref(doc, item);
    if (!isMap(p) || typeof p.name !== "string" || typeof p.in !== "string") continue;
    const place = p.in as ParameterPlace;
    if (!["path", "query", "header", "cookie"].includes(place)) continue;
    // Headers the HTTP layer owns are not parameters a program sets (OpenAPI says to ignore them).
    if (place === "header" && /^(accept|content-type|authorization)$/i.test(p.name)) continue;
    const schema = p.schema ?? jsonMedia(p.content)?.[1].schema;
    out.push({
      name: p.name,
      in: place,
      required: place === "path" || p.required === true,
      schema,
      description: typeof p.description === "string" ? p.description : undefined,
    });
  }
  return out;
}

function responseOf(doc: JsonMap, responses: Json | undefined): Operation["response"] {
  if (!isMap(responses)) return { kind: "none" };
  const codes = Object.keys(responses).filter((c) => /^2(?:\d\d|XX)$/i.test(c)).sort();
  for (const code of codes) {
    const r = deref(doc, responses[code]);
    if (!isMap(r)) continue;
    const json = jsonMedia(r.content);
    if (json !== undefined) return { kind: "json", schema: json[1].schema };
    if (isMap(r.content) && Object.keys(r.content).length > 0) return { kind: "text" };
    return { kind: "none" };
  }
  return { kind: "none" };
}

/** What an operation's request body is, or why it cannot be sent. */
function bodyOf(doc: JsonMap, requestBody: Json | undefined): Operation["body"] | string | undefined {
  const body = deref(doc, requestBody);
  if (!isMap(body)) return undefined;
  const json = jsonMedia(body.content);
  if (json === undefined) {
    const types = isMap(body.content) ? Object.keys(body.content).join(", ") : "none";
    return `its request body is not JSON (${types})`;
  }
  return { schema: json[1].schema, required: body.required === true, mediaType: json[0] };
}

/** One operation, or why it cannot be called. */
export type ReadOperation = { readonly operation: Operation } | {
  readonly pointer: string;
  readonly reason: string;
};

/** Every operation of a validated document, in document order. */
export function readOperations(doc: JsonMap): ReadOperation[] {
  const out: ReadOperation[] = [];
  const paths = isMap(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    if (!isMap(item)) continue;
    const shared = parametersOf(doc, item.parameters);
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isMap(op)) continue;
      const pointer = `#/paths/${pointerSegment(path)}/${method}`;
      const own = parametersOf(doc, op.parameters);
      // Operation-level parameters override path-level ones of the same name and place.
      const parameters = [
        ...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)),
        ...own,
      ];
      const body = bodyOf(doc, op.requestBody);
      if (typeof body === "string") {
        out.push({ pointer, reason: body });
        continue;
      }
      out.push({
        operation: {
          method,
          path,
          operationId: typeof op.operationId === "string" ? op.operationId : undefined,
          tags: Array.isArray(op.tags) ? op.tags.filter((x): x is string => typeof x === "string") : [],
          summary: typeof op.summary === "string" ? op.summary : undefined,
          description: typeof op.description === "string" ? op.description : undefined,
          parameters,
          body,
          response: responseOf(doc, op.responses),
          pointer,
        },
      });
    }
  }
  return out;
}
