/**
 * Host-side binding and conversion. The host never trusts the worker: it re-binds the worker's keyword
 * map against the registered input schema (building a fresh handler input and a separate, frozen
 * canonical authorization map), and converts each handler output against the output schema.
 *
 * Ints are JS safe integers (|n| ≤ 2^53−1): outside that range an input is `invalid_arguments` and an
 * output is `capability_failure` — a documented deviation from the seed's signed 64-bit range.
 *
 * @module
 */
import { CodeModeError } from "./errors.ts";
import { isPlainRecord, setOwn } from "./plain.ts";
import { kindWord, type TypeSchema } from "./schema.ts";
import type { StructSchema } from "./types.ts";

/** The two fresh projections of one bound argument map. */
export interface BoundArguments {
  /** The handler's input (absent optionals absent). */
  readonly input: Record<string, unknown>;
  /** The canonical authorization map: a separate deep copy, frozen. */
  readonly canonical: Readonly<Record<string, unknown>>;
}

const UNPRINTABLE_GLOBAL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}]/gu;

/** Quotes model-provided text for a model-safe detail: short, escaped, printable. */
export function safeQuote(s: string, max = 40): string {
  const chars = Array.from(s.toWellFormed());
  const short = chars.length > max ? chars.slice(0, max).join("") + "..." : s.toWellFormed();
  return JSON.stringify(short).replace(
    UNPRINTABLE_GLOBAL,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The Starlark type name of a decoded JS value (for messages). */
export function valueTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  switch (typeof v) {
    case "boolean":
      return "bool";
    case "string":
      return "str";
    case "bigint":
      return "int";
    case "number":
      return Number.isInteger(v) ? "int" : "float";
    case "object":
      return Array.isArray(v) ? "list" : "dict";
    default:
      return typeof v;
  }
}

class BindFailure {
  constructor(readonly code: "invalid_arguments" | "resource_limit", readonly message: string) {}
}

function bindValue(
  schema: TypeSchema,
  v: unknown,
  path: string,
  level: number,
  maxDepth: number,
  noneOk = false,
): unknown {
  if (level > maxDepth) {
    throw new BindFailure("resource_limit", `argument ${path} is nested deeper than ${maxDepth} levels`);
  }
  const wrong = () =>
    new BindFailure(
      "invalid_arguments",
      `argument ${path} must be ${kindWord(schema)}${noneOk ? " or None" : ""}, not ${valueTypeName(v)}`,
    );
  switch (schema.kind) {
    case "str":
      if (typeof v !== "string") throw wrong();
      return v.toWellFormed();
    case "int":
      if (typeof v === "bigint") {
        if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
        throw new BindFailure(
          "invalid_arguments",
          `argument ${path} is out of range (ints must be within ±9007199254740991)`,
        );
      }
      if (typeof v !== "number" || !Number.isInteger(v)) throw wrong();
      if (!Number.isSafeInteger(v)) {
        throw new BindFailure(
          "invalid_arguments",
          `argument ${path} is out of range (ints must be within ±9007199254740991)`,
        );
      }
      return v === 0 ? 0 : v; // -0 is not an int
    case "float":
      if (typeof v !== "number") throw wrong();
      if (!Number.isFinite(v)) {
        throw new BindFailure("invalid_arguments", `argument ${path} must be a finite float`);
      }
      return v;
    case "bool":
      if (typeof v !== "boolean") throw wrong();
      return v;
    case "optional":
    case "nullable":
      return v === null ? null : bindValue(schema.of, v, path, level, maxDepth, true);
    case "list":
      if (!Array.isArray(v)) throw wrong();
      return v.map((e, i) => bindValue(schema.of, e, `${path}[${i}]`, level + 1, maxDepth));
    case "dict": {
      if (!isPlainRecord(v)) throw wrong();
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v)) {
        setOwn(out, key, bindValue(schema.of, v[key], `${path}[${safeQuote(key)}]`, level + 1, maxDepth));
      }
      return out;
    }
    case "struct":
      if (!isPlainRecord(v)) throw wrong();
      return bindStruct(schema, v, `${path}.`, level, maxDepth);
  }
}

function bindStruct(
  schema: StructSchema,
  v: Record<string, unknown>,
  prefix: string,
  level: number,
  maxDepth: number,
): Record<string, unknown> {
  const declared = new Set<string>();
  for (const f of schema.fields) declared.add(f.name);
  for (const key of Object.keys(v)) {
    if (!declared.has(key)) {
      throw new BindFailure(
        "invalid_arguments",
        prefix === ""
          ? `unexpected keyword argument ${safeQuote(key)}`
          : `unexpected field ${prefix}${safeQuote(key)}`,
      );
    }
  }
  const out: Record<string, unknown> = {};
  for (const f of schema.fields) {
    const present = Object.hasOwn(v, f.name) && v[f.name] !== undefined;
    if (f.type.kind === "optional") {
      // An omitted optional and an explicit None are the same: absent.
      if (!present || v[f.name] === null) continue;
      setOwn(out, f.name, bindValue(f.type.of, v[f.name], `${prefix}${f.name}`, level + 1, maxDepth, true));
      continue;
    }
    if (!present) {
      throw new BindFailure(
        "invalid_arguments",
        prefix === "" ? `missing required argument "${f.name}"` : `missing required field ${prefix}${f.name}`,
      );
    }
    setOwn(out, f.name, bindValue(f.type, v[f.name], `${prefix}${f.name}`, level + 1, maxDepth));
  }
  return out;
}

function cloneFrozen(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return Object.freeze(v.map(cloneFrozen));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) setOwn(out, key, cloneFrozen((v as Record<string, unknown>)[key]));
  return Object.freeze(out);
}

/**
 * Re-binds the worker's keyword map for capability `name` against its input struct. Throws
 * `invalid_arguments` (positional, unknown, missing, mistyped or out-of-range arguments; the message is
 * model-safe and is also the error's `detail`) or `resource_limit` (deeper than `maxDepth`, where the
 * argument map itself is level 1).
 */
export function bindArguments(
  name: string,
  schema: StructSchema,
  args: unknown,
  maxDepth: number,
): BoundArguments {
  try {
    if (Array.isArray(args)) {
      throw new BindFailure("invalid_arguments", "positional arguments are not accepted");
    }
    if (!isPlainRecord(args)) {
      throw new BindFailure("invalid_arguments", "arguments must be keyword arguments");
    }
    if (maxDepth < 1) {
      throw new BindFailure("resource_limit", `arguments are nested deeper than ${maxDepth} levels`);
    }
    const input = bindStruct(schema, args, "", 1, maxDepth);
    return { input, canonical: cloneFrozen(input) as Readonly<Record<string, unknown>> };
  } catch (err) {
    if (!(err instanceof BindFailure)) throw err;
    const message = `${name}: ${err.message}`;
    throw new CodeModeError(err.code, message, err.code === "invalid_arguments" ? { detail: message } : {});
  }
}

class OutputFailure {
  constructor(readonly code: "capability_failure" | "resource_limit", readonly message: string) {}
}

function describeJS(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "NaN";
    if (!Number.isFinite(v)) return "infinity";
    if (!Number.isInteger(v)) return "non-integer number";
    if (!Number.isSafeInteger(v)) return "unsafe integer";
    return "number";
  }
  return typeof v;
}

function convertValue(
  schema: TypeSchema,
  v: unknown,
  path: string,
  level: number,
  maxDepth: number,
): unknown {
  if (level > maxDepth) {
    throw new OutputFailure("resource_limit", `${path} is nested deeper than ${maxDepth} levels`);
  }
  const wrong = (what = schema.kind as string) =>
    new OutputFailure("capability_failure", `${path} must be ${what}, got ${describeJS(v)}`);
  switch (schema.kind) {
    case "str":
      if (typeof v !== "string") throw wrong();
      return v.toWellFormed();
    case "int":
      if (typeof v === "bigint") {
        if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
        throw new OutputFailure("capability_failure", `${path} is outside the safe integer range`);
      }
      if (typeof v !== "number" || !Number.isSafeInteger(v)) throw wrong("a safe integer");
      return v === 0 ? 0 : v;
    case "float":
      if (typeof v !== "number" || !Number.isFinite(v)) throw wrong("a finite float");
      return v;
    case "bool":
      if (typeof v !== "boolean") throw wrong();
      return v;
    case "optional":
    case "nullable":
      return v === null || v === undefined ? null : convertValue(schema.of, v, path, level, maxDepth);
    case "list": {
      // A missing list is None, as a nil slice is in the seed.
      if (v === null || v === undefined) return null;
      let items: ArrayLike<unknown>;
      if (Array.isArray(v)) items = v;
      else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) items = v as unknown as ArrayLike<unknown>;
      else throw wrong("a list");
      const out = new Array(items.length);
      for (let i = 0; i < items.length; i++) {
        out[i] = convertValue(schema.of, items[i], `${path}[${i}]`, level + 1, maxDepth);
      }
      return out;
    }
    case "dict": {
      if (v === null || v === undefined) return null;
      const out: Record<string, unknown> = {};
      if (v instanceof Map) {
        for (const [key, value] of v) {
          if (typeof key !== "string") {
            throw new OutputFailure("capability_failure", `${path} has a non-string key`);
          }
          setOwn(
            out,
            key,
            convertValue(schema.of, value, `${path}[${JSON.stringify(key)}]`, level + 1, maxDepth),
          );
        }
        return out;
      }
      if (typeof v !== "object" || Array.isArray(v)) throw wrong("a dict");
      const record = v as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        setOwn(
          out,
          key,
          convertValue(schema.of, record[key], `${path}[${JSON.stringify(key)}]`, level + 1, maxDepth),
        );
      }
      return out;
    }
    case "struct": {
      if (v === null || typeof v !== "object" || Array.isArray(v)) throw wrong("an object");
      const record = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const f of schema.fields) {
        const value = record[f.name];
        const fieldPath = `${path}.${f.name}`;
        if (f.type.kind === "optional") {
          // An omitted optional field is absent, never None.
          if (value === null || value === undefined) continue;
          setOwn(out, f.name, convertValue(f.type.of, value, fieldPath, level + 1, maxDepth));
          continue;
        }
        if (
          value === undefined && (f.type.kind === "str" || f.type.kind === "int" ||
            f.type.kind === "float" || f.type.kind === "bool" || f.type.kind === "struct")
        ) {
          throw new OutputFailure("capability_failure", `${fieldPath} is missing`);
        }
        setOwn(out, f.name, convertValue(f.type, value, fieldPath, level + 1, maxDepth));
      }
      return out;
    }
  }
}

/**
 * Converts a handler's output for capability `name` to a fresh plain value that follows the output
 * struct exactly (undeclared properties are dropped). Throws `capability_failure` for a value of the
 * wrong type, a non-finite float or an unsafe integer, and `resource_limit` for a value nested deeper
 * than `maxDepth` (the result struct is level 1). Messages are host-facing; there is no model detail.
 */
export function convertOutput(
  name: string,
  schema: StructSchema,
  value: unknown,
  maxDepth: number,
): Record<string, unknown> {
  try {
    if (maxDepth < 1) {
      throw new OutputFailure("resource_limit", `result is nested deeper than ${maxDepth} levels`);
    }
    return convertValue(schema, value, "result", 1, maxDepth) as Record<string, unknown>;
  } catch (err) {
    if (!(err instanceof OutputFailure)) throw err;
    throw new CodeModeError(err.code, `${name}: invalid handler output: ${err.message}`);
  }
}
