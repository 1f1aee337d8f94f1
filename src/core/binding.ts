/**
 * Host-side binding of capability arguments. The host never trusts the worker: it re-binds the worker's
 * keyword map against the registered input schema (building a fresh handler input and a separate, frozen
 * canonical authorization map). Handler outputs are converted back in `output.ts`.
 *
 * Both projections of the arguments are built from null-prototype objects (`Object.create(null)`): a
 * program's keys such as `__proto__`, `constructor` or `toString` are plain data there and never reach
 * or shadow a prototype. Handlers and authorizers should test keys with `Object.hasOwn` or `in`.
 *
 * Ints are JS safe integers (|n| ≤ 2^53−1): outside that range an input is `invalid_arguments` and an
 * output is `capability_failure` — a documented deviation from the seed's signed 64-bit range.
 *
 * Strings are made well-formed (a lone surrogate becomes U+FFFD). When that makes two keys of one dict
 * equal, binding fails with `invalid_arguments` and conversion with `capability_failure`: two keys never
 * merge silently.
 *
 * @module
 */
import { budgetDetail } from "../budgets.ts";
import { CodeModeError } from "../errors.ts";
import { isPlainRecord, nullRecord, setOwn } from "../plain.ts";
import { kindWord, type TypeSchema } from "../schema.ts";
import { escapeModelText } from "../text.ts";
import { unexpectedNameHint } from "../suggest/mod.ts";
import type { StructSchema } from "./types.ts";
import { at, exactFloat, FLOAT, INT, PathFailure, renderPath } from "./value_path.ts";

/** The two fresh projections of one bound argument map. */
export interface BoundArguments {
  /** The handler's input (absent optionals absent); its maps have a null prototype. */
  readonly input: Record<string, unknown>;
  /** The canonical authorization map: a separate deep copy with null-prototype maps, frozen. */
  readonly canonical: Readonly<Record<string, unknown>>;
}

/** Quotes model-provided text for a model-safe detail: short, JSON-quoted, every unsafe code point escaped. */
export function safeQuote(s: string, max = 40): string {
  const chars = Array.from(s.toWellFormed());
  const short = chars.length > max ? chars.slice(0, max).join("") + "..." : s.toWellFormed();
  return escapeModelText(JSON.stringify(short));
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

type BindFailure = PathFailure<"invalid_arguments" | "resource_limit">;

function bindFailure(code: "invalid_arguments" | "resource_limit", render: (p: string) => string) {
  // The only budget binding enforces is the depth of the argument map.
  return new PathFailure(code, render, undefined, code === "resource_limit" ? "maxValueDepth" : undefined);
}

const OUT_OF_RANGE = "is out of range (ints must be within ±9007199254740991)";

function bindWrong(schema: TypeSchema, v: unknown, noneOk: boolean): BindFailure {
  return bindFailure(
    "invalid_arguments",
    (p) => `argument ${p} must be ${kindWord(schema)}${noneOk ? " or None" : ""}, not ${valueTypeName(v)}`,
  );
}

function bindValue(
  schema: TypeSchema,
  v: unknown,
  level: number,
  maxDepth: number,
  noneOk = false,
): unknown {
  if (level > maxDepth) {
    throw bindFailure("resource_limit", (p) => `argument ${p} is nested deeper than ${maxDepth} levels`);
  }
  switch (schema.kind) {
    case "str":
      if (typeof v !== "string") throw bindWrong(schema, v, noneOk);
      return v.toWellFormed();
    case "int":
      if (typeof v === "bigint") {
        if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
        throw bindFailure("invalid_arguments", (p) => `argument ${p} ${OUT_OF_RANGE}`);
      }
      if (typeof v !== "number" || !Number.isInteger(v)) throw bindWrong(schema, v, noneOk);
      if (!Number.isSafeInteger(v)) {
        throw bindFailure("invalid_arguments", (p) => `argument ${p} ${OUT_OF_RANGE}`);
      }
      return v === 0 ? 0 : v; // -0 is not an int
    case "float":
      // An int is a float wherever the float holds it exactly (a bigint such as 2n ** 60n included).
      if (typeof v === "bigint") {
        const x = exactFloat(v);
        if (x === undefined) {
          throw bindFailure(
            "invalid_arguments",
            (p) => `argument ${p} must be a float; the int ${v} has no exact float value`,
          );
        }
        return x;
      }
      if (typeof v !== "number") throw bindWrong(schema, v, noneOk);
      if (!Number.isFinite(v)) {
        throw bindFailure("invalid_arguments", (p) => `argument ${p} must be a finite float`);
      }
      return v;
    case "bool":
      if (typeof v !== "boolean") throw bindWrong(schema, v, noneOk);
      return v;
    case "optional":
    case "nullable":
      return v === null ? null : bindValue(schema.of, v, level, maxDepth, true);
    case "list": {
      if (!Array.isArray(v)) throw bindWrong(schema, v, noneOk);
      const out = new Array(v.length);
      for (let i = 0; i < v.length; i++) {
        try {
          out[i] = bindValue(schema.of, v[i], level + 1, maxDepth);
        } catch (e) {
          throw at(e, i);
        }
      }
      return out;
    }
    case "dict": {
      if (!isPlainRecord(v)) throw bindWrong(schema, v, noneOk);
      const out = nullRecord();
      for (const key of Object.keys(v)) {
        const k = key.toWellFormed();
        if (Object.hasOwn(out, k)) {
          throw bindFailure(
            "invalid_arguments",
            (p) => `argument ${p} has two keys that are the same once made well-formed: ${safeQuote(k)}`,
          );
        }
        try {
          setOwn(out, k, bindValue(schema.of, v[key], level + 1, maxDepth));
        } catch (e) {
          throw at(e, { key: k });
        }
      }
      return out;
    }
    case "struct":
      if (!isPlainRecord(v)) throw bindWrong(schema, v, noneOk);
      return bindStruct(schema, v, level, maxDepth);
    case "json":
      // A JSON value binds as the stricter kind it is: containers hold JSON values again.
      if (v === null || typeof v === "boolean") return v;
      if (typeof v === "string") return v.toWellFormed();
      if (typeof v === "bigint") return bindValue(INT, v, level, maxDepth);
      // Past the safe range an integral number can only be a float (wire ints beyond it are bigints).
      if (typeof v === "number") return bindValue(Number.isSafeInteger(v) ? INT : FLOAT, v, level, maxDepth);
      if (Array.isArray(v)) return bindValue({ kind: "list", of: schema }, v, level, maxDepth);
      if (isPlainRecord(v)) return bindValue({ kind: "dict", of: schema }, v, level, maxDepth);
      throw bindWrong(schema, v, noneOk);
  }
}

function bindStruct(
  schema: StructSchema,
  v: Record<string, unknown>,
  level: number,
  maxDepth: number,
): Record<string, unknown> {
  const declared = new Set<string>();
  for (const f of schema.fields) declared.add(f.name);
  for (const key of Object.keys(v)) {
    if (!declared.has(key)) {
      // The accepted names are the host's own declaration: listing them reveals nothing new.
      const names = schema.fields.map((f) => f.name);
      throw bindFailure(
        "invalid_arguments",
        (p) =>
          p === ""
            ? `unexpected keyword argument ${safeQuote(key)}${unexpectedNameHint(key, names)}`
            : `unexpected field ${p}.${safeQuote(key)}${unexpectedNameHint(key, names, "fields")}`,
      );
    }
  }
  const out = nullRecord();
  for (const f of schema.fields) {
    const present = Object.hasOwn(v, f.name) && v[f.name] !== undefined;
    try {
      if (f.type.kind === "optional") {
        // An omitted optional and an explicit None are the same: absent.
        if (!present || v[f.name] === null) continue;
        setOwn(out, f.name, bindValue(f.type.of, v[f.name], level + 1, maxDepth, true));
        continue;
      }
      if (!present) {
        throw bindFailure(
          "invalid_arguments",
          (p) => p === "" ? `missing required argument "${f.name}"` : `missing required field ${p}.${f.name}`,
        );
      }
      setOwn(out, f.name, bindValue(f.type, v[f.name], level + 1, maxDepth));
    } catch (e) {
      // A missing field names its struct, not itself.
      throw present ? at(e, f.name) : e;
    }
  }
  return out;
}

function cloneFrozen(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return Object.freeze(v.map(cloneFrozen));
  const out = nullRecord();
  for (const key of Object.keys(v)) setOwn(out, key, cloneFrozen((v as Record<string, unknown>)[key]));
  return Object.freeze(out);
}

/**
 * Re-binds the worker's keyword map for capability `name` against its input struct. Throws
 * `invalid_arguments` (positional, unknown, missing, mistyped or out-of-range arguments, or two dict
 * keys that become equal once made well-formed; the message is model-safe and is also the error's
 * `detail`) or `resource_limit` (deeper than `maxDepth`, where the argument map itself is level 1).
 * Both returned projections use null-prototype objects for the argument map, structs and dicts.
 */
export function bindArguments(
  name: string,
  schema: StructSchema,
  args: unknown,
  maxDepth: number,
): BoundArguments {
  try {
    if (Array.isArray(args)) {
      throw bindFailure("invalid_arguments", () => "positional arguments are not accepted");
    }
    if (!isPlainRecord(args)) {
      throw bindFailure("invalid_arguments", () => "arguments must be keyword arguments");
    }
    if (maxDepth < 1) {
      throw bindFailure("resource_limit", () => `arguments are nested deeper than ${maxDepth} levels`);
    }
    const input = bindStruct(schema, args, 1, maxDepth);
    return { input, canonical: cloneFrozen(input) as Readonly<Record<string, unknown>> };
  } catch (err) {
    if (!(err instanceof PathFailure)) throw err;
    const failure = err as BindFailure;
    const message = `${name}: ${failure.render(renderPath("", failure.steps))}`;
    const detail = failure.code === "invalid_arguments"
      ? escapeModelText(message)
      : budgetDetail("maxValueDepth", maxDepth, `${name} arguments`);
    throw new CodeModeError(failure.code, message, { detail });
  }
}
