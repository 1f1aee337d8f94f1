/**
 * JSON Schema → CodeMode types, shared by the gateway's code mode (the tools a downstream lists) and the
 * OpenAPI subsystem (the operations a document describes).
 *
 * Exact mappings: `string` → `str` (an `enum` of strings too, its values listed in the description),
 * `integer` → `int`, `number` → `float`, `boolean` → `bool`, `array` with `items` → `list[T]`, an
 * `object` with `properties` → a struct (required properties required, the others optional, defaults
 * listed in the description), an `object` whose only member schema is `additionalProperties: S` →
 * `dict[str, T]`, and `[T, null]` / `anyOf: [T, {type: null}]` → `T | None`. A `format` never changes
 * the type (`int32`/`int64` stay `int`, `date-time`/`uuid`/`byte` stay `str`).
 *
 * Everything that cannot be typed exactly — other unions (`anyOf`, `oneOf`, several types), objects
 * mixing `properties` with `additionalProperties`, `{type: object}` without properties, `const` of a
 * non-scalar, untyped values (`{}`) and nesting past {@link MAX_MAPPED_DEPTH} — becomes `json`: any JSON
 * value, passed through unchanged. Nothing is dropped.
 *
 * Without a {@link SchemaContext} (the gateway: a tool's schema stands alone) `$ref` and `allOf` are
 * `json` too. With one (OpenAPI: schemas point into `components`) a local `$ref` is resolved through the
 * context — each target mapped once and reused, a reference back into a schema still being mapped (a
 * cycle) becoming `json` — `allOf` of object schemas becomes one struct of all their properties, and
 * OpenAPI 3.0's `nullable: true` makes `T | None`.
 *
 * Property names that are not Starlark identifiers are renamed like tool names (`x-id` → `x_id`); the
 * mapping keeps the way back, so a call's arguments reach the downstream under their own names and a
 * structured result reaches the program under the mapped ones. A root whose property names collide
 * once mapped is refused (the tool is left out, with a diagnostic); a nested object whose names collide
 * becomes `json`.
 *
 * @module
 */
import type { TypeSchema } from "../schema.ts";
import { type StructSchema, t } from "../core/mod.ts";
import { identifierFor } from "./names.ts";

/** Any JSON value, as a schema document holds it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  /** Its members. */
  [key: string]: JsonValue;
}

/** Deepest nesting mapped to exact types; deeper values are `json`. */
export const MAX_MAPPED_DEPTH = 16;

/** How keys translate between the program's names and the downstream's, below one value. */
export interface Rename {
  /** Struct fields by Starlark name. */
  readonly fields?: ReadonlyMap<string, { readonly key: string; readonly rename?: Rename }>;
  /** Struct fields by downstream key. */
  readonly keys?: ReadonlyMap<string, { readonly name: string; readonly rename?: Rename }>;
  /** The elements of a list or the values of a dict. */
  readonly items?: Rename;
}

/** One mapped schema. */
export interface Mapped {
  /** The CodeMode type. */
  readonly type: TypeSchema;
  /** Renames beneath it, when any name changed. */
  readonly rename?: Rename;
}

/** One documented parameter of a mapped input. */
export interface ParameterNote {
  /** The Starlark name. */
  readonly name: string;
  /** Enum values, default and description, as one line. */
  readonly text: string;
}

/** A mapped input struct. */
export interface MappedRoot {
  /** The struct. */
  readonly type: StructSchema;
  /** Renames beneath it. */
  readonly rename?: Rename;
  /** Per-parameter notes for the capability's description. */
  readonly notes: readonly ParameterNote[];
}

const JSON_VALUE: Mapped = Object.freeze({ type: t.json() });

function isObject(v: JsonValue | undefined): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function scalarOf(v: JsonValue): TypeSchema | undefined {
  if (typeof v === "string") return t.str();
  if (typeof v === "boolean") return t.bool();
  if (typeof v === "number") return Number.isInteger(v) ? t.int() : t.float();
  return undefined;
}

function isNullSchema(s: JsonValue): boolean {
  return isObject(s) && (s.type === "null" || s.const === null);
}

/**
 * How schemas that point elsewhere are resolved (OpenAPI). One context serves one document: a resolved
 * target is mapped once and its mapping reused by every schema that points to it.
 */
export class SchemaContext {
  readonly #resolve: (ref: string) => JsonValue | undefined;
  readonly #done = new Map<string, Mapped>();
  readonly #active = new Set<string>();

  /** `resolve` returns the schema a `$ref` names, or undefined when it names nothing it may read. */
  constructor(resolve: (ref: string) => JsonValue | undefined) {
    this.#resolve = resolve;
  }

  /** The mapping of the schema `ref` names; `json` for a cycle or a reference that resolves to nothing. */
  mapRef(ref: string, depth: number): Mapped {
    const done = this.#done.get(ref);
    if (done !== undefined) return done;
    // A reference back into a schema being mapped: recursive data has no finite struct type.
    if (this.#active.has(ref)) return JSON_VALUE;
    const target = this.#resolve(ref);
    if (target === undefined) return JSON_VALUE;
    this.#active.add(ref);
    try {
      const mapped = mapSchema(target, depth, this);
      this.#done.set(ref, mapped);
      return mapped;
    } finally {
      this.#active.delete(ref);
    }
  }

  /** The schema `ref` names with every reference on its way followed (bounded); undefined if none. */
  target(schema: JsonValue | undefined): JsonValue | undefined {
    for (let hops = 0; hops <= MAX_MAPPED_DEPTH; hops++) {
      if (!isObject(schema) || typeof schema.$ref !== "string") return schema;
      schema = this.#resolve(schema.$ref);
    }
    return undefined;
  }
}

/** Maps a schema that is `T` or null to `T | None`; undefined when it is another union. */
function nullableUnion(
  branches: JsonValue | undefined,
  depth: number,
  ctx?: SchemaContext,
): Mapped | undefined {
  if (!Array.isArray(branches) || branches.length !== 2) return undefined;
  const rest = branches.filter((b) => !isNullSchema(ctx?.target(b) ?? b));
  if (rest.length !== 1) return undefined;
  const inner = mapSchema(rest[0], depth, ctx);
  if (inner.type.kind === "json") return inner;
  return { type: t.nullable(inner.type), rename: inner.rename };
}

/**
 * `allOf` of object schemas as one object schema: properties and required names of every branch
 * together. Undefined when a branch is not an object schema or two branches declare one property.
 */
function mergeAllOf(schema: JsonObject, ctx: SchemaContext, level = 0): JsonObject | undefined {
  const branches = schema.allOf;
  // The level bounds `allOf` chains through references, cycles among them included.
  if (!Array.isArray(branches) || branches.length === 0 || level > MAX_MAPPED_DEPTH) return undefined;
  const properties: JsonObject = {};
  const required: JsonValue[] = [];
  for (const branch of branches) {
    let b = ctx.target(branch);
    if (isObject(b) && b.allOf !== undefined) b = mergeAllOf(b, ctx, level + 1);
    if (!isObject(b) || (b.type !== undefined && b.type !== "object") || !isObject(b.properties)) {
      return undefined;
    }
    for (const [k, v] of Object.entries(b.properties)) {
      if (Object.hasOwn(properties, k)) return undefined;
      properties[k] = v;
    }
    if (Array.isArray(b.required)) required.push(...b.required);
  }
  return { type: "object", properties, required };
}

/**
 * Maps one JSON Schema (anything JSON) to a CodeMode type. Never fails: the fallback is `json`. With a
 * `ctx`, `$ref`, `allOf` and `nullable` are understood (see the module documentation).
 */
export function mapSchema(schema: JsonValue | undefined, depth = 0, ctx?: SchemaContext): Mapped {
  if (!isObject(schema) || depth > MAX_MAPPED_DEPTH) return JSON_VALUE;
  if (ctx !== undefined) {
    if (typeof schema.$ref === "string") return ctx.mapRef(schema.$ref, depth);
    if (schema.allOf !== undefined) {
      const merged = mergeAllOf(schema, ctx);
      return merged === undefined ? JSON_VALUE : mapSchema(merged, depth, ctx);
    }
    if (schema.nullable === true) {
      const inner = mapSchema({ ...schema, nullable: false }, depth, ctx);
      if (inner.type.kind === "json" || inner.type.kind === "nullable") return inner;
      return { type: t.nullable(inner.type), rename: inner.rename };
    }
  }
  if (schema.$ref !== undefined || schema.allOf !== undefined || schema.not !== undefined) return JSON_VALUE;
  for (const key of ["anyOf", "oneOf"]) {
    if (schema[key] !== undefined) return nullableUnion(schema[key], depth, ctx) ?? JSON_VALUE;
  }
  if (schema.const !== undefined) {
    const type = scalarOf(schema.const);
    return type === undefined ? JSON_VALUE : { type };
  }
  let type = schema.type;
  if (Array.isArray(type)) {
    const rest = type.filter((x) => x !== "null");
    if (rest.length !== 1) return JSON_VALUE;
    const inner = mapSchema({ ...schema, type: rest[0] }, depth, ctx);
    if (inner.type.kind === "json" || rest.length === type.length) return inner;
    return { type: t.nullable(inner.type), rename: inner.rename };
  }
  if (type === undefined && Array.isArray(schema.enum)) {
    const kinds = new Set(schema.enum.map((v) => typeof v));
    if (kinds.size === 1 && kinds.has("string")) type = "string";
    else return JSON_VALUE;
  }
  switch (type) {
    case "string":
      return { type: t.str() };
    case "integer":
      return { type: t.int() };
    case "number":
      return { type: t.float() };
    case "boolean":
      return { type: t.bool() };
    case "array": {
      // Tuple-form items (an array of schemas) type each position differently: not one list type.
      if (!isObject(schema.items)) return { type: t.list(t.json()) };
      const of = mapSchema(schema.items, depth + 1, ctx);
      return { type: t.list(of.type), rename: of.rename === undefined ? undefined : { items: of.rename } };
    }
    case "object":
      return mapObject(schema, depth, ctx);
  }
  return JSON_VALUE;
}

function mapObject(schema: JsonObject, depth: number, ctx?: SchemaContext): Mapped {
  const props = schema.properties;
  const extra = schema.additionalProperties;
  const hasProps = isObject(props) && Object.keys(props).length > 0;
  if (!hasProps) {
    if (isObject(extra) && Object.keys(extra).length > 0) {
      const of = mapSchema(extra, depth + 1, ctx);
      return { type: t.dict(of.type), rename: of.rename === undefined ? undefined : { items: of.rename } };
    }
    // `{type: object}` (or with `properties: {}` but open): any keys, so any JSON object.
    return isObject(props) && extra === false ? { type: t.struct({}) } : JSON_VALUE;
  }
  // Declared properties plus more keys: a struct would refuse the extra ones.
  if (extra !== undefined && extra !== false) return JSON_VALUE;
  return mapStruct(schema, depth, ctx) ?? JSON_VALUE;
}

/** A struct of the schema's properties, or undefined when two names collide once mapped. */
function mapStruct(schema: JsonObject, depth: number, ctx?: SchemaContext): Mapped | undefined {
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [],
  );
  const shape: Record<string, TypeSchema> = {};
  const fields = new Map<string, { key: string; rename?: Rename }>();
  const keys = new Map<string, { name: string; rename?: Rename }>();
  let renamed = false;
  for (const [key, sub] of Object.entries(props)) {
    const name = identifierFor(key);
    if (Object.hasOwn(shape, name)) return undefined;
    const mapped = mapSchema(sub, depth + 1, ctx);
    shape[name] = required.has(key) ? mapped.type : t.optional(mapped.type);
    fields.set(name, { key, rename: mapped.rename });
    keys.set(key, { name, rename: mapped.rename });
    if (name !== key || mapped.rename !== undefined) renamed = true;
  }
  return { type: t.struct(shape), rename: renamed ? { fields, keys } : undefined };
}

function short(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1).toWellFormed()}…` : one;
}

/** One line about a parameter: its allowed values, its default and its description. */
function noteFor(sub: JsonValue): string {
  if (!isObject(sub)) return "";
  const bits: string[] = [];
  if (Array.isArray(sub.enum) && sub.enum.length > 0) {
    // The note shows 200 characters at most: a huge enum is not serialized whole for it.
    bits.push(`one of ${short(sub.enum.slice(0, 64).map((v) => JSON.stringify(v)).join(", "), 200)}`);
  }
  if (sub.default !== undefined) bits.push(`default ${short(JSON.stringify(sub.default), 120)}`);
  const head = bits.length > 0 ? `(${bits.join("; ")})` : "";
  const description = typeof sub.description === "string" ? short(sub.description, 240) : "";
  return [head, description].filter((x) => x !== "").join(" ");
}

/**
 * Maps a tool's input schema to the capability's keyword parameters. The root is always a struct: a
 * schema that is not an object with properties means no parameters. Returns a problem text instead
 * when two property names collide once mapped.
 */
export function mapInput(schema: JsonObject, ctx?: SchemaContext): MappedRoot | string {
  const props = isObject(schema.properties) ? schema.properties : {};
  const mapped = mapStruct({ ...schema, properties: props }, 0, ctx);
  if (mapped === undefined) {
    const seen = new Map<string, string>();
    for (const key of Object.keys(props)) {
      const name = identifierFor(key);
      const other = seen.get(name);
      if (other !== undefined) {
        return `its parameters ${JSON.stringify(other)} and ${JSON.stringify(key)} both map to ${name}`;
      }
      seen.set(name, key);
    }
    return "its parameter names collide once mapped";
  }
  const notes: ParameterNote[] = [];
  for (const [key, sub] of Object.entries(props)) {
    const text = noteFor(ctx?.target(sub) ?? sub);
    if (text !== "") notes.push({ name: identifierFor(key), text });
  }
  return { type: mapped.type as StructSchema, rename: mapped.rename, notes };
}

/**
 * The documented generic result of a tool without an output schema: `text` (its text content items
 * joined by newlines), `content` (every content item as JSON) and `structured` (its structured content,
 * or None).
 */
export const GENERIC_OUTPUT: StructSchema = t.struct({
  text: t.str(),
  content: t.list(t.json()),
  structured: t.json(),
});

/**
 * Maps a tool's output schema to the capability's result type: a struct when the schema is an object
 * with properties (the program then receives the structured content), otherwise `undefined` (the
 * generic shape applies).
 */
export function mapOutput(schema: JsonObject | undefined, ctx?: SchemaContext): Mapped | undefined {
  if (schema === undefined || !isObject(schema.properties) || Object.keys(schema.properties).length === 0) {
    return undefined;
  }
  // The result is what the tool returns: extra keys a struct does not declare are dropped, not refused.
  return mapStruct(schema, 0, ctx);
}

/** The downstream's arguments for a program's bound input (Starlark names back to the tool's keys). */
export function toDownstream(value: unknown, rename: Rename | undefined): JsonValue {
  if (value === null || value === undefined) return null;
  if (rename === undefined || typeof value !== "object") return value as JsonValue;
  if (Array.isArray(value)) return value.map((v) => toDownstream(v, rename.items));
  const out: JsonObject = {};
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    const field = rename.fields?.get(k);
    if (field !== undefined) out[field.key] = toDownstream(v, field.rename);
    else out[k] = toDownstream(v, rename.items);
  }
  return out;
}

/** A structured result under the program's names (the tool's keys to Starlark names). */
export function fromDownstream(value: JsonValue | undefined, rename: Rename | undefined): unknown {
  if (value === null || value === undefined) return value;
  if (rename === undefined || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => fromDownstream(v, rename.items));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const field = rename.keys?.get(k);
    if (field !== undefined) out[field.name] = fromDownstream(v, field.rename);
    else if (rename.keys === undefined) out[k] = fromDownstream(v, rename.items);
    // An undeclared key of a struct is dropped here, as output conversion would drop it.
  }
  return out;
}
