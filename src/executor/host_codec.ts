/**
 * The host side of the wire encoding ({@link ./codec.ts}): plain JS values in and out. Handler results
 * are encoded guided by the capability's output schema (so `2` declared as a float crosses as `2.0`);
 * argument maps from the untrusted worker are decoded and checked against the input schema.
 *
 * @module
 */
import { isPlainRecord, setOwn } from "../plain.ts";
import type { TypeSchema } from "../schema.ts";
import type { CapabilityStub } from "./contract.ts";
import {
  TAG_DICT,
  TAG_FALSE,
  TAG_FLOAT,
  TAG_INT,
  TAG_LIST,
  TAG_NEG_INT,
  TAG_NONE,
  TAG_STR,
  TAG_TRUE,
  WireFormatError,
  type WireLimits,
  WireReader,
  WireTypeError,
  WireWriter,
} from "./codec.ts";

function describe(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return "non-finite number";
    if (Number.isInteger(v) && !Number.isSafeInteger(v)) return "unsafe integer";
  }
  return typeof v;
}

function encodeHost(w: WireWriter, v: unknown, schema: TypeSchema | undefined, level: number, path: string) {
  w.depth(level);
  if (schema !== undefined) {
    switch (schema.kind) {
      case "optional":
      case "nullable":
        if (v === null || v === undefined) return w.byte(TAG_NONE);
        return encodeHost(w, v, schema.of, level, path);
      case "str":
        if (typeof v !== "string") break;
        w.byte(TAG_STR);
        return w.jsString(v);
      case "int":
        if (typeof v !== "number" || !Number.isSafeInteger(v)) break;
        return w.int(v);
      case "float":
        if (typeof v !== "number" || !Number.isFinite(v)) break;
        return w.float(v);
      case "bool":
        if (typeof v !== "boolean") break;
        return w.byte(v ? TAG_TRUE : TAG_FALSE);
      case "list":
        // The seed: nil slices and maps become None even though their notation is list[T]/dict[str, T].
        if (v === null || v === undefined) return w.byte(TAG_NONE);
        if (!Array.isArray(v)) break;
        w.byte(TAG_LIST);
        w.varint(v.length);
        for (let i = 0; i < v.length; i++) encodeHost(w, v[i], schema.of, level + 1, `${path}[${i}]`);
        return;
      case "dict": {
        if (v === null || v === undefined) return w.byte(TAG_NONE);
        if (!isPlainRecord(v)) break;
        const keys = Object.keys(v);
        w.byte(TAG_DICT);
        w.varint(keys.length);
        for (const k of keys) {
          w.jsString(k);
          encodeHost(w, v[k], schema.of, level + 1, `${path}[${JSON.stringify(k)}]`);
        }
        return;
      }
      case "struct": {
        if (!isPlainRecord(v)) break;
        // Absent optional fields (and optional fields set to null) are omitted, as the output contract
        // says; a nullable field is always present.
        const present: { name: string; type: TypeSchema; value: unknown }[] = [];
        for (const f of schema.fields) {
          const x = Object.hasOwn(v, f.name) ? v[f.name] : undefined;
          if (f.type.kind === "optional") {
            if (x !== undefined && x !== null) present.push({ name: f.name, type: f.type, value: x });
          } else if (x === undefined && f.type.kind !== "nullable") {
            throw new WireTypeError(`${path}.${f.name} is missing`);
          } else {
            present.push({ name: f.name, type: f.type, value: x ?? null });
          }
        }
        w.byte(TAG_DICT);
        w.varint(present.length);
        for (const f of present) {
          w.jsString(f.name);
          encodeHost(w, f.value, f.type, level + 1, `${path}.${f.name}`);
        }
        return;
      }
    }
    throw new WireTypeError(`${path} must be ${schema.kind}, not ${describe(v)}`);
  }
  switch (typeof v) {
    case "boolean":
      return w.byte(v ? TAG_TRUE : TAG_FALSE);
    case "number":
      if (Number.isSafeInteger(v)) return w.int(v);
      // Without a schema an integral number beyond the safe range can only be a float.
      if (Number.isFinite(v)) return w.float(v);
      throw new WireTypeError(`${path} is a ${describe(v)}`);
    case "string":
      w.byte(TAG_STR);
      return w.jsString(v);
    case "undefined":
      return w.byte(TAG_NONE);
    case "object": {
      if (v === null) return w.byte(TAG_NONE);
      if (Array.isArray(v)) {
        w.byte(TAG_LIST);
        w.varint(v.length);
        for (let i = 0; i < v.length; i++) encodeHost(w, v[i], undefined, level + 1, `${path}[${i}]`);
        return;
      }
      if (isPlainRecord(v)) {
        const keys = Object.keys(v);
        w.byte(TAG_DICT);
        w.varint(keys.length);
        for (const k of keys) {
          w.jsString(k);
          encodeHost(w, v[k], undefined, level + 1, `${path}[${JSON.stringify(k)}]`);
        }
        return;
      }
    }
  }
  throw new WireTypeError(`${path} has unsupported type ${describe(v)}`);
}

/**
 * Encodes a plain JS value. With a schema, numbers become ints or floats as the schema says, struct
 * fields are written in schema order and absent optional fields are skipped; without one, a safe
 * integer is an int and any other finite number a float.
 *
 * @throws {WireLimitError} when the value is too large or too deep.
 * @throws {WireTypeError} when the value does not match the schema or cannot be encoded.
 */
export function encodeHostValue(
  value: unknown,
  limits: WireLimits,
  schema?: TypeSchema,
  path = "value",
): Uint8Array {
  const w = new WireWriter(limits);
  encodeHost(w, value, schema, 1, path);
  return w.finish();
}

function decodeHost(r: WireReader, level: number): unknown {
  r.depth(level);
  const tag = r.byte();
  switch (tag) {
    case TAG_FLOAT:
      return r.float();
    case TAG_STR:
      return r.jsString();
    case TAG_LIST: {
      const n = r.count(1);
      const out = new Array(n);
      for (let i = 0; i < n; i++) out[i] = decodeHost(r, level + 1);
      return out;
    }
    case TAG_DICT: {
      const n = r.count(2);
      const out: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const k = r.jsString();
        if (Object.hasOwn(out, k)) throw new WireFormatError("duplicate dict key");
        setOwn(out, k, decodeHost(r, level + 1));
      }
      return out;
    }
  }
  return r.scalar(tag);
}

/**
 * Decodes bytes to plain JS: ints and floats become numbers, lists arrays, dicts plain objects.
 *
 * @throws {WireLimitError} when the bytes exceed `maxBytes` or the value `maxDepth`.
 * @throws {WireFormatError} when the bytes are malformed.
 */
export function decodeHostValue(bytes: Uint8Array, limits: WireLimits): unknown {
  const r = new WireReader(bytes, limits);
  const v = decodeHost(r, 1);
  r.end();
  return v;
}

function checkSchema(r: WireReader, schema: TypeSchema, level: number, path: string): unknown {
  r.depth(level);
  const start = r.pos;
  const tag = r.byte();
  const wrong = (): never => {
    throw new WireTypeError(`argument ${path} does not match its declared type ${schema.kind} (tag ${tag})`);
  };
  switch (schema.kind) {
    case "optional":
    case "nullable":
      if (tag === TAG_NONE) return null;
      r.pos = start;
      return checkSchema(r, schema.of, level, path);
    case "str":
      return tag === TAG_STR ? r.jsString() : wrong();
    case "int":
      return tag === TAG_INT || tag === TAG_NEG_INT ? r.scalar(tag) : wrong();
    case "float": {
      if (tag !== TAG_FLOAT) return wrong();
      const x = r.float();
      if (!Number.isFinite(x)) throw new WireTypeError(`argument ${path} must be a finite float`);
      return x;
    }
    case "bool":
      return tag === TAG_TRUE ? true : tag === TAG_FALSE ? false : wrong();
    case "list": {
      if (tag !== TAG_LIST) return wrong();
      const n = r.count(1);
      const out = new Array(n);
      for (let i = 0; i < n; i++) out[i] = checkSchema(r, schema.of, level + 1, `${path}[${i}]`);
      return out;
    }
    case "dict": {
      if (tag !== TAG_DICT) return wrong();
      const n = r.count(2);
      const out: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const k = r.jsString();
        if (Object.hasOwn(out, k)) throw new WireFormatError("duplicate dict key");
        setOwn(out, k, checkSchema(r, schema.of, level + 1, `${path}[${JSON.stringify(k)}]`));
      }
      return out;
    }
    case "struct": {
      if (tag !== TAG_DICT) return wrong();
      return checkStruct(r, schema.fields, level, `${path}.`);
    }
  }
}

function checkStruct(
  r: WireReader,
  fields: readonly { readonly name: string; readonly type: TypeSchema }[],
  level: number,
  prefix: string,
): Record<string, unknown> {
  const n = r.count(2);
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const k = r.jsString();
    const f = fields.find((x) => x.name === k);
    if (f === undefined) {
      throw new WireTypeError(
        prefix === "" ? `unexpected keyword argument ${JSON.stringify(k)}` : `unexpected field ${prefix}${k}`,
      );
    }
    if (Object.hasOwn(out, k)) throw new WireFormatError("duplicate dict key");
    setOwn(out, k, checkSchema(r, f.type, level + 1, prefix + k));
  }
  for (const f of fields) {
    if (f.type.kind !== "optional" && !Object.hasOwn(out, f.name)) {
      throw new WireTypeError(
        prefix === "" ? `missing required argument "${f.name}"` : `missing required field ${prefix}${f.name}`,
      );
    }
  }
  return out;
}

/**
 * Decodes a native call's argument map and checks it against the capability's input struct: exact
 * keyword names, required fields present, and each value's wire type exactly as declared (an int is
 * never accepted for a float, a bool never for an int). This is the host's own validation of what the
 * untrusted worker sent.
 *
 * @throws {WireLimitError} when the bytes exceed `maxBytes` or the map `maxDepth` (the map is level 1).
 * @throws {WireTypeError} when the arguments do not match the schema.
 * @throws {WireFormatError} when the bytes are malformed.
 */
export function decodeArguments(
  bytes: Uint8Array,
  schema: TypeSchema & { readonly kind: "struct" },
  limits: WireLimits,
): Record<string, unknown> {
  const r = new WireReader(bytes, limits);
  r.depth(1);
  if (r.byte() !== TAG_DICT) throw new WireFormatError("arguments must be encoded as a dict");
  const out = checkStruct(r, schema.fields, 1, "");
  r.end();
  return out;
}

/** The output schema of a stub, when the host supplied one (the core's stubs carry it). */
export function outputSchema(stub: CapabilityStub): TypeSchema | undefined {
  return stub.output;
}
