/**
 * The `json` module of the reference implementation (starlark-go's `lib/json`): `json.encode`,
 * `json.decode`, `json.indent` and `json.encode_indent`, with the same output and error messages.
 *
 * Encoding: None/True/False → `null`/`true`/`false`; ints in decimal, however large; floats as `str()`
 * formats them (`1.0`, `1e+20`; non-finite floats are an error); strings as JSON strings (printable ASCII
 * through Go's `strconv.Quote`, anything else through Go's HTML-safe `json.Marshal`, quirks included);
 * dicts as objects with string keys in sorted (byte) order; lists, tuples, sets, ranges and other iterables
 * as arrays; modules and other values with attributes as objects of their sorted attributes. Cycles are
 * an error (`cycle in JSON structure`).
 *
 * Decoding: numbers with `.`, `e`, `E`, `+` or `-` after the first character are floats, others are ints
 * (arbitrary precision); objects become new dicts (a repeated key keeps its first position and its last
 * value), arrays new lists. `default`, when given, is returned instead of failing on invalid JSON.
 *
 * Deliberate differences from the reference, for safety:
 * - `json.decode` refuses documents nested more than {@link MAX_DECODE_NESTING} arrays/objects deep with a
 *   {@link ResourceError} of kind `depth` (not caught by `default`); the reference would recurse.
 * - All four functions charge the thread's step budget in proportion to their input/output size
 *   (one step per {@link BYTES_PER_STEP} bytes, quadratic for huge number literals) and its memory budget
 *   for what they build; the output of one call is capped at {@link MAX_OUTPUT_BYTES}.
 *
 * Every function is iterative, so no input can exhaust the JS stack.
 *
 * @module
 */
import { anyArg, stringArg, unpackArgs, unpackPositional } from "../args.ts";
import { formatFloat } from "../float_format.ts";
import { attrNames, getAttr, quote, tryIterate } from "../ops.ts";
import type { ValueIterator } from "../ops.ts";
import {
  Builtin,
  Dict,
  EvalError,
  Float,
  List,
  Module,
  Range,
  ResourceError,
  StarSet,
  Tuple,
  typeName,
} from "../value.ts";
import type { DictEntry, Kwargs, StarObject, Thread, Value } from "../value.ts";
import { chargeBigDigits, DecodeFailure, Decoder, MAX_DECODE_NESTING } from "./json_decode.ts";
import { indentJSON, JSONSyntaxError } from "./json_scan.ts";
import { marshalJSONString } from "./json_strings.ts";

export { MAX_DECODE_NESTING };

/** Each function charges one step per this many bytes of input or output. */
export const BYTES_PER_STEP = 32;

/** Hard cap on the size of one result string, whatever the memory budget (JS strings have a size limit). */
export const MAX_OUTPUT_BYTES: number = 1 << 28;

// ---------------------------------------------------------------------------
// Encoding

/** An encoding error, before the function name and path prefixes are added. */
class EncodeError extends Error {}

/**
 * Builds the output, charging budgets as it grows. Small pieces are concatenated into chunks of a few
 * kilobytes, which are joined at the end: fewer objects than one part per piece or one growing string.
 */
class Output {
  private readonly chunks: string[] = [];
  private cur = "";
  private size = 0;
  constructor(private readonly thread: Thread, private readonly fn: string) {}

  add(s: string): void {
    if (this.size + this.cur.length + s.length > MAX_OUTPUT_BYTES) {
      throw new ResourceError("memory", `${this.fn}: output exceeds ${MAX_OUTPUT_BYTES} bytes`);
    }
    this.cur += s;
    if (this.cur.length >= 4096) this.flush();
  }

  private flush(): void {
    const n = this.cur.length;
    this.size += n;
    this.thread.allocate(n);
    this.thread.charge(Math.ceil(n / BYTES_PER_STEP));
    this.chunks.push(this.cur);
    this.cur = "";
  }

  /** The output so far, as one string. */
  text(): string {
    this.flush();
    return this.chunks.length === 1 ? this.chunks[0] : this.chunks.join("");
  }
}

/** Encodes a string like the reference: `strconv.Quote` for printable ASCII, `json.Marshal` otherwise. */
function quoteJSON(s: string): string {
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7f) return marshalJSONString(s);
    if (c === 0x22 || c === 0x5c || c === 0x7f) plain = false;
  }
  if (plain) return '"' + s + '"';
  // Printable ASCII per the reference's test, which admits DEL, that strconv.Quote then escapes.
  return '"' + s.replace(/["\\\x7f]/g, (c) => (c === "\x7f" ? "\\x7f" : "\\" + c)) + '"';
}

/** An array, object or attribute container being written. */
interface Frame {
  /** `[`-`]` frames report `at T index i`, `{`-`}` frames `in dict key K` or `in field .f`. */
  kind: "array" | "dict" | "attrs";
  /** The container (for cycle detection). */
  obj: object;
  /** Type name used in error prefixes. */
  type: string;
  /** Number of children: elements, entries or attributes. */
  n: number;
  /** Index of the next child. */
  i: number;
  /** Child accessors (one of them is set according to `kind`). */
  elems?: Value[];
  range?: Range;
  iter?: ValueIterator;
  entries?: DictEntry[];
  names?: string[];
}

/** Orders dict entries by their (string) keys, bytewise like Go's string comparison. */
function byKey(a: DictEntry, b: DictEntry): number {
  const x = a.key as string, y = b.key as string;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether `x` is encoded as an object of its attributes (the reference's `HasAttrs` case). */
function isHasAttrs(x: StarObject): boolean {
  if (x instanceof Module) return true;
  if (typeof (x as { starlarkAttrNames?: unknown }).starlarkAttrNames === "function") return true;
  return attrNames(x).length > 0;
}

/**
 * Encodes `x` as compact JSON exactly like the reference's `json.encode`. Errors are EvalErrors whose
 * message starts with `fn: ` (the reference prefixes the builtin's name).
 */
export function encodeJSON(thread: Thread, x: Value, fn = "json.encode"): string {
  const out = new Output(thread, fn);
  const stack: Frame[] = [];
  const path = new Set<object>();
  // Objects usually repeat their keys: quote each short key once per call.
  const keyCache = new Map<string, string>();
  const keyText = (k: string): string => {
    let t = keyCache.get(k);
    if (t === undefined) {
      t = quoteJSON(k) + ":";
      if (k.length <= 64 && keyCache.size < 4096) keyCache.set(k, t);
    }
    return t;
  };

  // Writes a scalar, or opens a container frame (its children are written by the loop below).
  const open = (v: Value): void => {
    switch (typeof v) {
      case "boolean":
        out.add(v ? "true" : "false");
        return;
      case "number":
        out.add(String(v));
        return;
      case "bigint": {
        const s = v.toString();
        chargeBigDigits(thread, s.length);
        out.add(s);
        return;
      }
      case "string":
        out.add(quoteJSON(v));
        return;
    }
    if (v === null) {
      out.add("null");
      return;
    }
    if (v instanceof Float) {
      if (!Number.isFinite(v.value)) {
        throw new EncodeError(`cannot encode non-finite float ${formatFloat(v.value)}`);
      }
      out.add(formatFloat(v.value));
      return;
    }
    if (path.has(v)) throw new EncodeError("cycle in JSON structure");
    thread.charge(1);
    let f: Frame;
    if (v instanceof Dict) {
      const entries = Array.from(v.map.values());
      for (const e of entries) {
        if (typeof e.key !== "string") throw new EncodeError(`dict has ${typeName(e.key)} key, want string`);
      }
      const n = entries.length;
      if (n > 1) thread.charge(Math.ceil((n * Math.log2(n)) / 8));
      entries.sort(byKey);
      f = { kind: "dict", obj: v, type: "dict", n, i: 0, entries };
    } else if (v instanceof List || v instanceof Tuple) {
      f = { kind: "array", obj: v, type: v.typeName, n: v.elems.length, i: 0, elems: v.elems };
    } else if (v instanceof StarSet) {
      f = { kind: "array", obj: v, type: "set", n: v.size, i: 0, elems: v.elems() };
    } else if (v instanceof Range) {
      f = { kind: "array", obj: v, type: "range", n: v.length, i: 0, range: v };
    } else {
      const iter = v instanceof Builtin ? undefined : tryIterate(v);
      if (iter !== undefined) {
        f = { kind: "array", obj: v, type: v.typeName, n: Infinity, i: 0, iter };
      } else if (isHasAttrs(v)) {
        const names = attrNames(v).slice().sort();
        f = { kind: "attrs", obj: v, type: v.typeName, n: names.length, i: 0, names };
      } else {
        throw new EncodeError(`cannot encode ${v.typeName} as JSON`);
      }
    }
    path.add(v);
    out.add(f.kind === "array" ? "[" : "{");
    stack.push(f);
  };

  try {
    open(x);
    while (stack.length > 0) {
      const f = stack[stack.length - 1];
      let child: Value | undefined;
      if (f.i < f.n) {
        if (f.elems !== undefined) child = f.elems[f.i];
        else if (f.range !== undefined) child = f.range.at(f.i);
        else if (f.iter !== undefined) child = f.iter.next();
        else if (f.entries !== undefined) child = f.entries[f.i].value;
        else {
          try {
            child = attribute(thread, f.obj as StarObject, f.names![f.i]);
          } catch (e) {
            // The reference reports this error for the object itself, not for one of its fields.
            stack.pop();
            throw e;
          }
        }
      }
      if (child === undefined) {
        f.iter?.done();
        out.add(f.kind === "array" ? "]" : "}");
        stack.pop();
        path.delete(f.obj);
        continue;
      }
      if (f.i > 0) out.add(",");
      if (f.kind === "dict") out.add(keyText(f.entries![f.i].key as string));
      else if (f.kind === "attrs") out.add(keyText(f.names![f.i]));
      f.i++;
      open(child);
    }
    return out.text();
  } catch (e) {
    for (const f of stack) f.iter?.done();
    if (e instanceof EncodeError) {
      let prefix = "";
      for (const f of stack) {
        const k = f.i - 1;
        if (f.kind === "array") prefix += `at ${f.type} index ${k}: `;
        else if (f.kind === "dict") prefix += `in ${f.type} key ${quote(f.entries![k].key as string)}: `;
        else prefix += `in field .${f.names![k]}: `;
      }
      throw new EvalError(`${fn}: ${prefix}${e.message}`);
    }
    throw e;
  }
}

function attribute(thread: Thread, obj: StarObject, name: string): Value {
  try {
    return getAttr(thread, obj, name);
  } catch (e) {
    if (e instanceof EvalError) {
      throw new EncodeError(`cannot access attribute ${obj.typeName}.${name}: ${e.message}`);
    }
    throw e;
  }
}

// ---------------------------------------------------------------------------
// Builtins

function encodeFn(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("json.encode", args, kwargs, 1, anyArg);
  return encodeJSON(thread, x as Value, "json.encode");
}

function decodeFn(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [s, dflt] = unpackArgs("json.decode", args, kwargs, ["x", stringArg], ["default?", anyArg]);
  if (args.length < 1) {
    // x is positional-only, which the unpacking rules cannot express (the reference checks it the same way).
    throw new EvalError("json.decode: unexpected keyword argument x");
  }
  const text = s as string;
  thread.charge(1 + Math.floor(text.length / BYTES_PER_STEP));
  try {
    return new Decoder(thread, text).decode();
  } catch (e) {
    if (e instanceof DecodeFailure) {
      if (dflt !== undefined) return dflt;
      throw new EvalError(`json.decode: at offset ${e.offset}, ${e.message}`);
    }
    throw e;
  }
}

function indentOptions(fn: string, kwargs: Kwargs): [string, string] {
  const [prefix, indent] = unpackArgs(fn, [], kwargs, ["prefix?", stringArg], ["indent?", stringArg]);
  return [prefix ?? "", indent ?? "\t"];
}

function reindent(thread: Thread, fn: string, src: string, prefix: string, indent: string): string {
  thread.charge(1 + Math.floor(src.length / BYTES_PER_STEP));
  let total = 0;
  const charge = (bytes: number): void => {
    total += bytes;
    if (total > MAX_OUTPUT_BYTES) {
      throw new ResourceError("memory", `${fn}: output exceeds ${MAX_OUTPUT_BYTES} bytes`);
    }
    thread.allocate(bytes);
    thread.charge(Math.ceil(bytes / BYTES_PER_STEP));
  };
  try {
    return indentJSON(src, prefix, indent, charge);
  } catch (e) {
    if (e instanceof JSONSyntaxError) throw new EvalError(`${fn}: ${e.message}`);
    throw e;
  }
}

function indentFn(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [prefix, indent] = indentOptions("json.indent", kwargs);
  const [s] = unpackPositional("json.indent", args, [], 1, stringArg);
  return reindent(thread, "json.indent", s as string, prefix, indent);
}

function encodeIndentFn(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [prefix, indent] = indentOptions("json.encode_indent", kwargs);
  const [x] = unpackPositional("json.encode_indent", args, [], 1, anyArg);
  const compact = encodeJSON(thread, x as Value, "json.encode_indent");
  return reindent(thread, "json.encode_indent", compact, prefix, indent);
}

/** The `json` module: `encode`, `decode`, `indent`, `encode_indent`. */
export const json: Module = new Module(
  "json",
  new Map<string, Value>([
    ["encode", new Builtin("json.encode", encodeFn)],
    ["decode", new Builtin("json.decode", decodeFn)],
    ["indent", new Builtin("json.indent", indentFn)],
    ["encode_indent", new Builtin("json.encode_indent", encodeIndentFn)],
  ]),
);
