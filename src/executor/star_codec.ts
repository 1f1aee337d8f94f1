/**
 * The engine side of the wire encoding ({@link ./codec.ts}): Starlark values in and out, and the
 * worker-side binding of a native call's keyword arguments against the capability's input schema.
 *
 * Binding rules (the seed's): keyword arguments only, exact names, every required field present, and
 * exact types — a bool is not an int, ints within ±(2^53−1), floats finite, `None` only where the field
 * is optional or nullable — with one widening: an int is accepted for a float when the float holds it
 * exactly (models write `amount=100`, and `sum([])` is the int `0`); it crosses as that float. An omitted optional and an explicit `None` are the
 * same: the key is left out of the encoded map.
 *
 * @module
 */
import { kindWord, type StructField, type TypeSchema } from "../schema.ts";
import { unexpectedNameHint } from "../suggest/mod.ts";
import {
  Dict,
  Float,
  intBounded,
  type Kwargs,
  List,
  type Thread,
  Tuple,
  typeName,
  type Value,
} from "../starlark/mod.ts";
import {
  decodeUtf8,
  TAG_DICT,
  TAG_FALSE,
  TAG_FLOAT,
  TAG_LIST,
  TAG_NONE,
  TAG_STR,
  TAG_TRUE,
  WireFormatError,
  WireLimitError,
  type WireLimits,
  WireReader,
  WireTypeError,
  WireWriter,
} from "./codec.ts";

/** A native call's arguments do not bind; the message is model-safe. */
export class BindError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "BindError";
  }
}

/**
 * Renders engine text (a binary string of UTF-8 bytes, or already a JS string) for messages. Invalid
 * UTF-8 follows the boundary's one rule ({@link decodeUtf8}): each byte that does not begin a valid
 * sequence becomes one U+FFFD.
 */
export function displayText(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0xff) return s;
    if (c >= 0x80) ascii = false;
  }
  if (ascii) return s;
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return decodeUtf8(bytes);
}

/**
 * Names (keyword arguments, dict keys) longer than this many bytes are shown by their first bytes and how
 * many more: a program may pass a key of megabytes, and a message or argument path that copied it whole
 * would be built outside every budget (20 MB of control bytes took the host thread ~500 ms).
 */
const SHOWN_NAME_BYTES = 256;

/** The first `n` bytes of a long name, cut before a UTF-8 rune or surrogate pair it would split. */
function nameHead(name: string, n: number): string {
  let end = n;
  // A rune has at most 3 continuation bytes; more in a row are invalid bytes, each shown on its own.
  for (let k = 0; k < 3 && end > 0 && (name.charCodeAt(end) & 0xffc0) === 0x80; k++) end--;
  const last = name.charCodeAt(end - 1);
  if (last >= 0xd800 && last < 0xdc00) end--;
  return name.slice(0, end);
}

function quote(name: string): string {
  if (name.length <= SHOWN_NAME_BYTES) return JSON.stringify(displayText(name));
  // The longest head whose quoted text (escapes make it up to 6× longer) fits in SHOWN_NAME_BYTES
  // characters, found by bisection over heads of at most that many bytes; then, like the engine's
  // bounded quoting, that text left open and how many bytes are left out.
  let lo = 0, hi = SHOWN_NAME_BYTES;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    const q = JSON.stringify(displayText(nameHead(name, mid)));
    if (q.length - 1 <= SHOWN_NAME_BYTES) lo = mid;
    else hi = mid - 1;
  }
  const head = nameHead(name, lo);
  return JSON.stringify(displayText(head)).slice(0, -1) + `... (${name.length - head.length} more bytes)`;
}

/** {@link displayText} of a name, bounded like {@link quote}. */
function shownName(name: string): string {
  if (name.length <= SHOWN_NAME_BYTES) return displayText(name);
  const head = nameHead(name, SHOWN_NAME_BYTES);
  return displayText(head) + `... (${name.length - head.length} more bytes)`;
}

/**
 * How many more values the argument check may visit. Each encodes to at least one byte, so a walk past
 * `maxBytes` values is over the byte limit already; counting them bounds the check of values that share
 * their parts (30 lists of `[x, x]` are 2^31 values when walked), which would otherwise run for minutes.
 */
interface CheckBudget {
  left: number;
  readonly maxBytes: number;
}

function visit(budget: CheckBudget): void {
  if (--budget.left < 0) {
    throw new WireLimitError("bytes", `value encodes to more than ${budget.maxBytes} bytes`);
  }
}

function checkValue(schema: TypeSchema, v: Value, path: string, noneOk: boolean, budget: CheckBudget): void {
  visit(budget);
  const wrong = (): never => {
    throw new BindError(
      `argument ${path} must be ${kindWord(schema)}${noneOk ? " or None" : ""}, not ${typeName(v)}`,
    );
  };
  switch (schema.kind) {
    case "optional":
    case "nullable":
      if (v === null) return;
      return checkValue(schema.of, v, path, true, budget);
    case "str":
      if (typeof v !== "string") wrong();
      return;
    case "int":
      if (typeof v === "bigint") {
        throw new BindError(`argument ${path} is out of range (ints must be within ±9007199254740991)`);
      }
      if (typeof v !== "number") wrong();
      return;
    case "float":
      if (typeof v === "number" || typeof v === "bigint") {
        if (exactFloat(v) === undefined) {
          throw new BindError(
            `argument ${path} must be a float; the int ${intBounded(v)} has no exact float value`,
          );
        }
        return;
      }
      if (!(v instanceof Float)) return wrong();
      if (!Number.isFinite(v.value)) throw new BindError(`argument ${path} must be a finite float`);
      return;
    case "bool":
      if (typeof v !== "boolean") wrong();
      return;
    case "list": {
      if (!(v instanceof List) && !(v instanceof Tuple)) return wrong();
      const elems = v.elems;
      for (let i = 0; i < elems.length; i++) checkValue(schema.of, elems[i], `${path}[${i}]`, false, budget);
      return;
    }
    case "dict":
      if (!(v instanceof Dict)) return wrong();
      for (const { key, value } of v.map.values()) {
        if (typeof key !== "string") {
          throw new BindError(`argument ${path} must have string keys, not ${typeName(key)}`);
        }
        checkValue(schema.of, value, `${path}[${quote(key)}]`, false, budget);
      }
      return;
    case "json":
      return checkJson(v, path, 0, budget);
    case "struct": {
      if (!(v instanceof Dict)) return wrong();
      const fields = new Map<string, Value>();
      for (const { key, value } of v.map.values()) {
        if (typeof key !== "string") {
          throw new BindError(`argument ${path} must have string keys, not ${typeName(key)}`);
        }
        fields.set(key, value);
      }
      checkFields(schema.fields, fields, `${path}.`, budget);
      return;
    }
  }
}

/**
 * Deepest JSON value checked here. The encoder's `maxValueDepth` refuses deep values as a resource limit;
 * this bound only keeps a self-containing list (`x.append(x)`) from recursing without end.
 */
const MAX_JSON_CHECK_DEPTH = 1_000;

function checkJson(v: Value, path: string, depth: number, budget: CheckBudget): void {
  visit(budget);
  if (depth > MAX_JSON_CHECK_DEPTH) {
    throw new BindError(`argument ${path} is nested deeper than ${MAX_JSON_CHECK_DEPTH} levels`);
  }
  if (v === null || typeof v === "boolean" || typeof v === "string" || typeof v === "number") return;
  if (typeof v === "bigint") {
    throw new BindError(`argument ${path} is out of range (ints must be within ±9007199254740991)`);
  }
  if (v instanceof Float) {
    if (!Number.isFinite(v.value)) throw new BindError(`argument ${path} must be a finite float`);
    return;
  }
  if (v instanceof List || v instanceof Tuple) {
    const elems = v.elems;
    for (let i = 0; i < elems.length; i++) checkJson(elems[i], `${path}[${i}]`, depth + 1, budget);
    return;
  }
  if (v instanceof Dict) {
    for (const { key, value } of v.map.values()) {
      if (typeof key !== "string") {
        throw new BindError(`argument ${path} must have string keys, not ${typeName(key)}`);
      }
      checkJson(value, `${path}[${quote(key)}]`, depth + 1, budget);
    }
    return;
  }
  throw new BindError(
    `argument ${path} must be a JSON value (None, bool, int, float, str, list or dict), not ${typeName(v)}`,
  );
}

function checkFields(
  fields: readonly StructField[],
  given: Map<string, Value>,
  prefix: string,
  budget: CheckBudget,
): void {
  for (const key of given.keys()) {
    if (!fields.some((f) => f.name === key)) {
      const names = fields.map((f) => f.name);
      throw new BindError(
        prefix === ""
          ? `unexpected keyword argument ${quote(key)}${unexpectedNameHint(key, names)}`
          : `unexpected field ${prefix}${shownName(key)}${unexpectedNameHint(key, names, "fields")}`,
      );
    }
  }
  for (const f of fields) {
    const v = given.get(f.name);
    if (v === undefined) {
      if (f.type.kind === "optional") continue;
      throw new BindError(
        prefix === "" ? `missing required argument "${f.name}"` : `missing required field ${prefix}${f.name}`,
      );
    }
    checkValue(f.type, v, prefix + f.name, false, budget);
  }
}

/**
 * The float that holds the int `v` exactly, or `undefined`. Engine ints that are JS numbers are safe
 * integers, so always exact; a bigint is exact when converting it to a double and back is lossless
 * (`2**60` is, `2**53 + 1` is not).
 */
export function exactFloat(v: number | bigint): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  const x = Number(v);
  return Number.isFinite(x) && BigInt(x) === v ? x : undefined;
}

function encodeBound(w: WireWriter, schema: TypeSchema, v: Value, level: number): void {
  switch (schema.kind) {
    case "float":
      // An int bound to a float crosses as the float (checkValue proved it exact).
      if (typeof v === "number" || typeof v === "bigint") {
        w.depth(level);
        return w.float(exactFloat(v)!);
      }
      break;
    case "optional":
    case "nullable":
      if (v !== null) return encodeBound(w, schema.of, v, level);
      break;
    case "list": {
      w.depth(level);
      const elems = (v as List | Tuple).elems;
      w.byte(TAG_LIST);
      w.varint(elems.length);
      w.reserve(elems.length); // each item is at least one byte
      for (const e of elems) encodeBound(w, schema.of, e, level + 1);
      return;
    }
    case "dict": {
      w.depth(level);
      const d = v as Dict;
      w.byte(TAG_DICT);
      w.varint(d.size);
      for (const { key, value } of d.map.values()) {
        w.binaryString(key as string);
        encodeBound(w, schema.of, value, level + 1);
      }
      return;
    }
    case "struct": {
      w.depth(level);
      const given = new Map<string, Value>();
      for (const { key, value } of (v as Dict).map.values()) given.set(key as string, value);
      writeFields(w, schema.fields, given, level);
      return;
    }
  }
  encodeStar(w, v, level, "argument");
}

function writeFields(
  w: WireWriter,
  fields: readonly StructField[],
  given: Map<string, Value>,
  level: number,
) {
  const present = fields.filter((f) => {
    const v = given.get(f.name);
    return v !== undefined && !(v === null && f.type.kind === "optional");
  });
  w.byte(TAG_DICT);
  w.varint(present.length);
  for (const f of present) {
    w.binaryString(f.name);
    encodeBound(w, f.type, given.get(f.name)!, level + 1);
  }
}

/**
 * Binds a native call's arguments against `schema` and encodes the normalized keyword map (fields in
 * schema order, absent optionals left out). The map itself is level 1 for the depth limit.
 *
 * @throws {BindError} when the arguments do not bind (model-safe message).
 * @throws {WireLimitError} when the encoded map exceeds the byte or depth limit.
 */
export function bindArguments(
  schema: TypeSchema & { readonly kind: "struct" },
  args: readonly Value[],
  kwargs: Kwargs,
  limits: WireLimits,
): Uint8Array {
  if (args.length > 0) throw new BindError("positional arguments are not accepted (use keyword arguments)");
  const given = new Map<string, Value>();
  for (const [k, v] of kwargs) {
    if (given.has(k)) throw new BindError(`got multiple values for argument ${quote(k)}`);
    given.set(k, v);
  }
  checkFields(schema.fields, given, "", { left: limits.maxBytes, maxBytes: limits.maxBytes });
  const w = new WireWriter(limits);
  w.depth(1);
  writeFields(w, schema.fields, given, 1);
  return w.finish();
}

function encodeStar(w: WireWriter, v: Value, level: number, path: string): void {
  w.depth(level);
  switch (typeof v) {
    case "boolean":
      return w.byte(v ? TAG_TRUE : TAG_FALSE);
    case "number":
      return w.int(v);
    case "string":
      w.byte(TAG_STR);
      return w.binaryString(v);
    case "bigint":
      throw new WireTypeError(
        `${path}: int ${intBounded(v)} is out of range (ints must be within ±9007199254740991)`,
      );
    case "object":
      if (v === null) return w.byte(TAG_NONE);
      if (v instanceof Float) {
        if (!Number.isFinite(v.value)) throw new WireTypeError(`${path}: float ${v.value} is not finite`);
        return w.float(v.value);
      }
      if (v instanceof List || v instanceof Tuple) {
        const elems = v.elems;
        w.byte(TAG_LIST);
        w.varint(elems.length);
        w.reserve(elems.length);
        for (let i = 0; i < elems.length; i++) encodeStar(w, elems[i], level + 1, path);
        return;
      }
      if (v instanceof Dict) {
        w.byte(TAG_DICT);
        w.varint(v.size);
        w.reserve(2 * v.size);
        for (const { key, value } of v.map.values()) {
          if (typeof key !== "string") {
            throw new WireTypeError(`${path}: dict key of type ${typeName(key)} (want string)`);
          }
          w.binaryString(key);
          encodeStar(w, value, level + 1, path);
        }
        return;
      }
  }
  throw new WireTypeError(`${path}: unsupported type ${typeName(v)}`);
}

/**
 * Encodes `main()`'s result: None, bool, string, int (safe range), finite float, and lists, tuples and
 * string-keyed dicts of those.
 *
 * @throws {WireTypeError} for any other value (an invalid program).
 * @throws {WireLimitError} when the value exceeds the byte or depth limit.
 */
export function encodeFinalValue(v: Value, limits: WireLimits): Uint8Array {
  const w = new WireWriter(limits);
  encodeStar(w, v, 1, "final value");
  return w.finish();
}

// Approximate per-object cost charged to the engine's memory budget for decoded containers.
const OBJECT_BYTES = 32;

function decodeStar(r: WireReader, level: number, thread: Thread | undefined): Value {
  r.depth(level);
  const tag = r.byte();
  switch (tag) {
    case TAG_FLOAT:
      return new Float(r.float());
    case TAG_STR:
      return r.binaryString();
    case TAG_LIST: {
      const n = r.count(1);
      thread?.allocate(OBJECT_BYTES + 8 * n);
      const elems: Value[] = new Array(n);
      for (let i = 0; i < n; i++) elems[i] = decodeStar(r, level + 1, thread);
      return new List(elems);
    }
    case TAG_DICT: {
      const n = r.count(2);
      thread?.allocate(OBJECT_BYTES + 3 * OBJECT_BYTES * n);
      const d = new Dict();
      for (let i = 0; i < n; i++) {
        const k = r.binaryString();
        if (d.get(k) !== undefined) throw new WireFormatError("duplicate dict key");
        d.setUnchecked(k, decodeStar(r, level + 1, thread));
      }
      return d;
    }
  }
  return r.scalar(tag);
}

/**
 * Decodes a native result into fresh Starlark values (lists, dicts and floats as their engine types),
 * charging the thread's memory budget when one is given.
 *
 * @throws {WireFormatError} when the bytes are malformed.
 * @throws {WireLimitError} when they exceed the limits.
 */
export function decodeStarValue(bytes: Uint8Array, limits: WireLimits, thread?: Thread): Value {
  thread?.allocate(bytes.length);
  const r = new WireReader(bytes, limits);
  const v = decodeStar(r, 1, thread);
  r.end();
  return v;
}
