/**
 * The host side of the wire encoding ({@link ./codec.ts}): plain JS values in and out. Handler results
 * are encoded guided by the capability's output schema (so `2` declared as a float crosses as `2.0`);
 * argument maps from the untrusted worker are decoded and checked against the input schema.
 *
 * Engine strings are byte strings and may hold invalid UTF-8. Read as text, each byte that does not
 * begin a valid sequence becomes one U+FFFD ({@link decodeUtf8}). When that makes two distinct keys of
 * one dict the same text, decoding fails with a {@link WireTypeError} naming both keys (the program's
 * mistake: `invalid_arguments` for arguments, `invalid_program` for the final value); the same bytes
 * twice stay a {@link WireFormatError} (a protocol violation). In the other direction a host string
 * with a lone surrogate is written with U+FFFD in its place, and two keys that become equal that way
 * are a {@link WireTypeError}.
 *
 * @module
 */
import { isPlainRecord, setOwn } from "../plain.ts";
import type { TypeSchema } from "../schema.ts";
import type { CapabilityStub } from "./contract.ts";
import {
  bytesToText,
  invalidUtf8Index,
  quoteBytes,
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

const encoder = new TextEncoder();

/**
 * The keys of one host dict in wire order, refusing two that are equal once made well-formed (only
 * possible when some key holds a lone surrogate, which the encoder writes as U+FFFD).
 */
function wireKeys(v: Record<string, unknown>): string[] {
  const keys = Object.keys(v);
  if (keys.every((k) => k.isWellFormed())) return keys;
  const seen = new Set<string>();
  for (const k of keys) {
    const text = k.toWellFormed();
    if (seen.has(text)) {
      throw new PathTypeError((p) =>
        `${p} has two keys that are the same once made well-formed: ${JSON.stringify(text)}`
      );
    }
    seen.add(text);
  }
  return keys;
}

/**
 * Reads the keys of one wire dict, telling a protocol violation (the same bytes twice: a Starlark dict
 * has no duplicate keys) from two distinct byte strings that decode to the same text.
 */
class KeyReader {
  #lossy: Map<string, Uint8Array> | undefined;

  /** Reads the next key of a dict whose entries so far are `taken`; `label` names the dict's path. */
  read(r: WireReader, taken: object, label: (path: string) => string): string {
    const raw = r.rawString();
    const key = bytesToText(raw);
    if (Object.hasOwn(taken, key)) {
      const first = this.#lossy?.get(key) ?? encoder.encode(key);
      if (sameBytes(first, raw)) throw new WireFormatError("duplicate dict key");
      throw new PathTypeError((p) =>
        `${label(p)} has two keys that are the same text once invalid UTF-8 is replaced by U+FFFD: ` +
        `${quoteBytes(first)} and ${quoteBytes(raw)}`
      );
    }
    // Only a key whose decoding replaced bytes can collide with a different byte string later.
    if (key.includes("\ufffd") && invalidUtf8Index(raw) < raw.length) {
      (this.#lossy ??= new Map()).set(key, raw);
    }
    return key;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * One step of the path to a failing value: a field name, a list index or a dict key. Type failures
 * collect their path while they unwind, so a value that encodes or decodes builds no path text.
 */
type Step = string | number | { readonly key: string };

/** A type failure whose message is rendered once its path is known (see {@link typeError}). */
class PathTypeError {
  /** Innermost step first. */
  readonly steps: Step[] = [];
  constructor(readonly render: (path: string) => string) {}
}

/** Adds `step` to a type failure unwinding through a container. */
function at(e: unknown, step: Step): unknown {
  if (e instanceof PathTypeError) e.steps.push(step);
  return e;
}

function renderPath(root: string, steps: readonly Step[]): string {
  let p = root;
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i];
    if (typeof s === "number") p += `[${s}]`;
    else if (typeof s === "string") p += p === "" ? s : `.${s}`;
    else p += `[${JSON.stringify(s.key)}]`;
  }
  return p;
}

/** Runs `f`, turning a {@link PathTypeError} into a {@link WireTypeError} with its path under `root`. */
function typeError<T>(root: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof PathTypeError) throw new WireTypeError(e.render(renderPath(root, e.steps)));
    throw e;
  }
}

function encodeHost(w: WireWriter, v: unknown, schema: TypeSchema | undefined, level: number): void {
  w.depth(level);
  if (schema !== undefined) {
    switch (schema.kind) {
      case "optional":
      case "nullable":
        if (v === null || v === undefined) return w.byte(TAG_NONE);
        return encodeHost(w, v, schema.of, level);
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
        return encodeList(w, v, schema.of, level);
      case "dict":
        if (v === null || v === undefined) return w.byte(TAG_NONE);
        if (!isPlainRecord(v)) break;
        return encodeDict(w, v, schema.of, level);
      case "json":
        // Converted output holds only JSON data: it encodes as it is (a safe integer as an int).
        return encodeHost(w, v, undefined, level);
      case "struct": {
        if (!isPlainRecord(v)) break;
        // Absent optional fields (and optional fields set to null) are omitted, as the output contract
        // says; a nullable field is always present.
        // Each field is read once (a getter must not answer differently on a second read).
        const fields = schema.fields;
        const values = new Array<unknown>(fields.length);
        let present = 0;
        for (let i = 0; i < fields.length; i++) {
          const f = fields[i];
          const x = Object.hasOwn(v, f.name) ? v[f.name] : undefined;
          if (f.type.kind === "optional") {
            if (x === undefined || x === null) continue;
          } else if (x === undefined && f.type.kind !== "nullable") {
            const name = f.name;
            throw new PathTypeError((p) => `${p}.${name} is missing`);
          }
          values[i] = x ?? null;
          present++;
        }
        w.byte(TAG_DICT);
        w.varint(present);
        for (let i = 0; i < fields.length; i++) {
          const f = fields[i];
          if (f.type.kind === "optional" && values[i] === undefined) continue;
          w.jsString(f.name);
          try {
            encodeHost(w, values[i], f.type, level + 1);
          } catch (e) {
            throw at(e, f.name);
          }
        }
        return;
      }
    }
    const kind = schema.kind;
    throw new PathTypeError((p) => `${p} must be ${kind}, not ${describe(v)}`);
  }
  switch (typeof v) {
    case "boolean":
      return w.byte(v ? TAG_TRUE : TAG_FALSE);
    case "number":
      if (Number.isSafeInteger(v)) return w.int(v);
      // Without a schema an integral number beyond the safe range can only be a float.
      if (Number.isFinite(v)) return w.float(v);
      throw new PathTypeError((p) => `${p} is a ${describe(v)}`);
    case "string":
      w.byte(TAG_STR);
      return w.jsString(v);
    case "undefined":
      return w.byte(TAG_NONE);
    case "object": {
      if (v === null) return w.byte(TAG_NONE);
      if (Array.isArray(v)) return encodeList(w, v, undefined, level);
      if (isPlainRecord(v)) return encodeDict(w, v, undefined, level);
    }
  }
  throw new PathTypeError((p) => `${p} has unsupported type ${describe(v)}`);
}

function encodeList(w: WireWriter, v: unknown[], of: TypeSchema | undefined, level: number): void {
  w.byte(TAG_LIST);
  w.varint(v.length);
  w.reserve(v.length); // each item is at least one byte: refuse a huge list before walking it
  for (let i = 0; i < v.length; i++) {
    try {
      encodeHost(w, v[i], of, level + 1);
    } catch (e) {
      throw at(e, i);
    }
  }
}

function encodeDict(
  w: WireWriter,
  v: Record<string, unknown>,
  of: TypeSchema | undefined,
  level: number,
): void {
  const keys = wireKeys(v);
  w.byte(TAG_DICT);
  w.varint(keys.length);
  w.reserve(2 * keys.length); // a key length and a value tag at least
  for (const k of keys) {
    w.jsString(k);
    try {
      encodeHost(w, v[k], of, level + 1);
    } catch (e) {
      throw at(e, { key: k });
    }
  }
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
  typeError(path, () => encodeHost(w, value, schema, 1));
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
      const keys = new KeyReader();
      for (let i = 0; i < n; i++) setOwn(out, keys.read(r, out, (p) => p), decodeHost(r, level + 1));
      return out;
    }
  }
  return r.scalar(tag);
}

/**
 * Decodes bytes to plain JS: ints and floats become numbers, lists arrays, dicts plain objects (own
 * data properties only, a `__proto__` key included).
 *
 * @throws {WireLimitError} when the bytes exceed `maxBytes` or the value `maxDepth`.
 * @throws {WireTypeError} when two keys of a dict decode to the same text (invalid UTF-8).
 * @throws {WireFormatError} when the bytes are malformed.
 */
export function decodeHostValue(bytes: Uint8Array, limits: WireLimits): unknown {
  const r = new WireReader(bytes, limits);
  const v = typeError("a dict", () => decodeHost(r, 1));
  r.end();
  return v;
}

function checkSchema(r: WireReader, schema: TypeSchema, level: number): unknown {
  r.depth(level);
  const start = r.pos;
  const tag = r.byte();
  const wrong = (): never => {
    const kind = schema.kind;
    throw new PathTypeError((p) => `argument ${p} does not match its declared type ${kind} (tag ${tag})`);
  };
  switch (schema.kind) {
    case "optional":
    case "nullable":
      if (tag === TAG_NONE) return null;
      r.pos = start;
      return checkSchema(r, schema.of, level);
    case "str":
      return tag === TAG_STR ? r.jsString() : wrong();
    case "int":
      return tag === TAG_INT || tag === TAG_NEG_INT ? r.scalar(tag) : wrong();
    case "float": {
      if (tag !== TAG_FLOAT) return wrong();
      const x = r.float();
      if (!Number.isFinite(x)) throw new PathTypeError((p) => `argument ${p} must be a finite float`);
      return x;
    }
    case "bool":
      return tag === TAG_TRUE ? true : tag === TAG_FALSE ? false : wrong();
    case "list": {
      if (tag !== TAG_LIST) return wrong();
      const n = r.count(1);
      const out = new Array(n);
      for (let i = 0; i < n; i++) {
        try {
          out[i] = checkSchema(r, schema.of, level + 1);
        } catch (e) {
          throw at(e, i);
        }
      }
      return out;
    }
    case "dict": {
      if (tag !== TAG_DICT) return wrong();
      const n = r.count(2);
      const out: Record<string, unknown> = {};
      const keys = new KeyReader();
      for (let i = 0; i < n; i++) {
        const k = keys.read(r, out, (p) => `argument ${p}`);
        try {
          setOwn(out, k, checkSchema(r, schema.of, level + 1));
        } catch (e) {
          throw at(e, { key: k });
        }
      }
      return out;
    }
    case "struct": {
      if (tag !== TAG_DICT) return wrong();
      return checkStruct(r, schema.fields, level);
    }
    case "json":
      // Any wire value is JSON-shaped; the core's binding refuses non-finite floats.
      r.pos = start;
      return decodeHost(r, level);
  }
}

function checkStruct(
  r: WireReader,
  fields: readonly { readonly name: string; readonly type: TypeSchema }[],
  level: number,
): Record<string, unknown> {
  const n = r.count(2);
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const k = r.jsString();
    const f = fields.find((x) => x.name === k);
    if (f === undefined) {
      throw new PathTypeError((p) =>
        p === "" ? `unexpected keyword argument ${JSON.stringify(k)}` : `unexpected field ${p}.${k}`
      );
    }
    if (Object.hasOwn(out, k)) throw new WireFormatError("duplicate dict key");
    try {
      setOwn(out, k, checkSchema(r, f.type, level + 1));
    } catch (e) {
      throw at(e, k);
    }
  }
  for (const f of fields) {
    if (f.type.kind !== "optional" && !Object.hasOwn(out, f.name)) {
      const name = f.name;
      throw new PathTypeError((p) =>
        p === "" ? `missing required argument "${name}"` : `missing required field ${p}.${name}`
      );
    }
  }
  return out;
}

/**
 * Decodes a native call's argument map and checks it against the capability's input struct: exact
 * keyword names, required fields present, and each value's wire type exactly as declared (an int is
 * never accepted for a float, a bool never for an int). This is the host's own validation of what the
 * untrusted worker sent. Maps are plain objects holding own data properties only (a `__proto__` key
 * included); the core's binding then builds the null-prototype handler input from them.
 *
 * @throws {WireLimitError} when the bytes exceed `maxBytes` or the map `maxDepth` (the map is level 1).
 * @throws {WireTypeError} when the arguments do not match the schema, or two keys of a dict decode to
 *   the same text (invalid UTF-8).
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
  const out = typeError("", () => checkStruct(r, schema.fields, 1));
  r.end();
  return out;
}

/** The output schema of a stub, when the host supplied one (the core's stubs carry it). */
export function outputSchema(stub: CapabilityStub): TypeSchema | undefined {
  return stub.output;
}
