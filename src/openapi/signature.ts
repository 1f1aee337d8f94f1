/**
 * An operation as a capability signature: its keyword arguments (path, query, header and cookie
 * parameters under identifier-safe names, then the JSON request body's properties, or `body=` when the
 * body is not an object or its names clash with a parameter), its result type (the first 2xx response's
 * JSON schema: a struct when it is an object with properties, else `{body: T}`; text responses give
 * `{body: str}`, empty ones `{body: json}` holding None), its summary, description and search terms —
 * and the plan the handler follows to put each argument back on the wire.
 *
 * @module
 */
import { type StructSchema, t } from "../core/mod.ts";
import type { TypeSchema } from "../schema.ts";
import {
  identifierFor,
  type JsonObject,
  type JsonValue,
  mapInput,
  mapOutput,
  mapSchema,
  type Rename,
  type SchemaContext,
} from "../jsonschema/mod.ts";
import type { Operation, ParameterPlace } from "./domain.ts";

/** Where one argument goes. */
export interface ArgumentPlan {
  /** The Starlark keyword. */
  readonly arg: string;
  /** A parameter's place, a property of the JSON body, or the whole body. */
  readonly place: ParameterPlace | "field" | "body";
  /** Its name on the wire (parameter name or body property; unused for the whole body). */
  readonly wire: string;
  /** Renames below the value, for values whose nested names changed. */
  readonly rename?: Rename;
}

/** How a response becomes the result. */
export interface ResultPlan {
  /** `struct`: the JSON object is the result; `body`: the result is `{body: value}`. */
  readonly shape: "struct" | "body";
  /** Renames of the struct's (or the body's) keys. */
  readonly rename?: Rename;
}

/** Everything a capability needs from its operation. */
export interface Signature {
  /** Keyword parameters. */
  readonly input: StructSchema;
  /** Result type. */
  readonly output: StructSchema;
  /** Per-argument wire plan. */
  readonly args: readonly ArgumentPlan[];
  /** Result plan. */
  readonly result: ResultPlan;
  /** Summary (one line). */
  readonly summary: string;
  /** Description. */
  readonly description: string;
  /** Search terms: tags and parameter names, within the core's limits. */
  readonly searchTerms: readonly string[];
}

const MAX_SUMMARY_CHARS = 200;
const MAX_DESCRIPTION_CHARS = 1500;
const MAX_TERMS = 16;
const MAX_TERM_BYTES = 1024;

/** `text` as one well-formed line of at most `max` characters (a document may hold lone surrogates). */
function oneLine(text: string, max: number): string {
  const line = text.toWellFormed().replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1).toWellFormed().trimEnd()}…` : line;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function searchTermsOf(op: Operation, args: readonly ArgumentPlan[]): string[] {
  const terms: string[] = [];
  let bytes = 0;
  const add = (term: string) => {
    const clean = oneLine(term, 80);
    const size = new TextEncoder().encode(clean).length;
    if (clean === "" || terms.includes(clean) || terms.length >= MAX_TERMS || bytes + size > MAX_TERM_BYTES) {
      return;
    }
    terms.push(clean);
    bytes += size;
  };
  op.tags.forEach(add);
  args.forEach((a) => add(a.wire === "" ? a.arg : a.wire));
  return terms;
}

/** The signature of `op`, or the reason it cannot be one. */
export function signatureOf(op: Operation, ctx: SchemaContext): Signature | string {
  const shape: Record<string, TypeSchema> = {};
  const args: ArgumentPlan[] = [];
  const notes: string[] = [];
  for (const p of op.parameters) {
    const arg = identifierFor(p.name);
    if (Object.hasOwn(shape, arg)) {
      const other = args.find((a) => a.arg === arg)!;
      return `its parameters ${JSON.stringify(other.wire)} (${other.place}) and ${
        JSON.stringify(p.name)
      } (${p.in}) both map to ${arg}`;
    }
    const mapped = mapSchema(p.schema as JsonValue | undefined, 1, ctx);
    shape[arg] = p.required ? mapped.type : t.optional(mapped.type);
    args.push({ arg, place: p.in, wire: p.name, rename: mapped.rename });
    const target = ctx.target(p.schema as JsonValue | undefined);
    const bits: string[] = [];
    if (isObject(target) && Array.isArray(target.enum) && target.enum.length > 0) {
      bits.push(`one of ${oneLine(target.enum.slice(0, 32).map((v) => JSON.stringify(v)).join(", "), 160)}`);
    }
    if (p.description !== undefined) bits.push(oneLine(p.description, 200));
    notes.push(
      `- ${arg} (${p.in}${arg === p.name ? "" : ` ${JSON.stringify(p.name)}`})${bits.length ? ": " : ""}${
        bits.join("; ")
      }`,
    );
  }
  if (op.body !== undefined) {
    const target = ctx.target(op.body.schema as JsonValue | undefined);
    let spread = false;
    if (isObject(target) && isObject(target.properties) && Object.keys(target.properties).length > 0) {
      const mapped = mapInput(target, ctx);
      if (typeof mapped !== "string" && mapped.type.fields.every((f) => !Object.hasOwn(shape, f.name))) {
        spread = true;
        for (const f of mapped.type.fields) {
          const field = mapped.rename?.fields?.get(f.name);
          // An optional body makes every property optional: sending none of them sends no body.
          const type = op.body.required || f.type.kind === "optional" ? f.type : t.optional(f.type);
          shape[f.name] = type;
          args.push({ arg: f.name, place: "field", wire: field?.key ?? f.name, rename: field?.rename });
        }
        for (const n of mapped.notes) notes.push(`- ${n.name} (body): ${n.text}`);
      }
    }
    if (!spread) {
      if (Object.hasOwn(shape, "body")) {
        return 'its request body cannot be passed as body= because a parameter is named "body"';
      }
      const mapped = mapSchema(op.body.schema as JsonValue | undefined, 1, ctx);
      shape.body = op.body.required ? mapped.type : t.optional(mapped.type);
      args.push({ arg: "body", place: "body", wire: "", rename: mapped.rename });
      notes.push(`- body: the JSON request body (${op.body.mediaType})`);
    }
  }

  let output: StructSchema;
  let result: ResultPlan;
  const response = op.response;
  const structured =
    response.kind === "json" && isObject(ctx.target(response.schema as JsonValue | undefined))
      ? mapOutput(ctx.target(response.schema as JsonValue | undefined) as JsonObject, ctx)
      : undefined;
  if (structured !== undefined && structured.type.kind === "struct") {
    output = structured.type as StructSchema;
    result = { shape: "struct", rename: structured.rename };
  } else if (response.kind === "json") {
    const mapped = mapSchema(response.schema as JsonValue | undefined, 1, ctx);
    output = t.struct({ body: mapped.type });
    result = { shape: "body", rename: mapped.rename };
  } else {
    output = t.struct({ body: response.kind === "text" ? t.str() : t.json() });
    result = { shape: "body" };
  }

  const http = `${op.method.toUpperCase()} ${op.path}`;
  const summary = op.summary !== undefined && op.summary.trim() !== ""
    ? oneLine(op.summary, MAX_SUMMARY_CHARS)
    : op.description !== undefined && op.description.trim() !== ""
    ? oneLine(op.description.trim().split("\n")[0], MAX_SUMMARY_CHARS)
    : http;
  const about = op.description !== undefined && op.description.trim() !== ""
    ? op.description.trim().slice(0, MAX_DESCRIPTION_CHARS).toWellFormed().trim()
    : summary;
  const description = [about, `HTTP: ${http}`, ...(notes.length ? ["Arguments:", ...notes] : [])].join("\n")
    .toWellFormed();
  return {
    input: t.struct(shape),
    output,
    args,
    result,
    summary,
    description,
    searchTerms: searchTermsOf(op, args),
  };
}
