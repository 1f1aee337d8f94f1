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
 * - All four functions charge the thread's step budget in proportion to their work (a few steps per value
 *   encoded or decoded, plus one step per {@link BYTES_PER_STEP} bytes of text, two per input byte for
 *   `indent`, quadratic for huge number literals) and its memory budget for what they build; the output of
 *   one call is capped at {@link MAX_OUTPUT_BYTES}.
 *
 * No input can exhaust the JS stack: decoding is iterative, and encoding recurses only while the nesting
 * is shallow.
 *
 * @module
 */
import {
  anyArg,
  Builtin,
  EvalError,
  type Kwargs,
  Module,
  ResourceError,
  stringArg,
  type Thread,
  unpackArgs,
  unpackPositional,
  type Value,
} from "../values/mod.ts";
import { DecodeFailure, decodeJSON } from "./json_decode.ts";
import { encodeJSON, MAX_OUTPUT_BYTES } from "./json_encode.ts";
import { indentJSON, JSONSyntaxError } from "./json_scan.ts";

/** Each function charges one step per this many bytes of input or output. */
export const BYTES_PER_STEP = 32;

export { encodeJSON, MAX_OUTPUT_BYTES };

// ---------------------------------------------------------------------------
// Builtins

function encodeFn(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  // The usual call, json.encode(x), without the general unpacking.
  if (args.length === 1 && kwargs.length === 0) return encodeJSON(thread, args[0], "json.encode");
  const [x] = unpackPositional("json.encode", args, kwargs, 1, anyArg);
  return encodeJSON(thread, x as Value, "json.encode");
}

function decodeFn(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  // The usual call, json.decode(text), without the general unpacking.
  const plain = args.length === 1 && kwargs.length === 0 && typeof args[0] === "string";
  const [s, dflt] = plain
    ? [args[0], undefined]
    : unpackArgs("json.decode", args, kwargs, ["x", stringArg], ["default?", anyArg]);
  if (args.length < 1) {
    // x is positional-only, which the unpacking rules cannot express (the reference checks it the same way).
    throw new EvalError("json.decode: unexpected keyword argument x");
  }
  const text = s as string;
  thread.charge(1 + Math.floor(text.length / BYTES_PER_STEP));
  try {
    return decodeJSON(thread, text);
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

/** Steps per input byte of `json.indent`: its scanner is a byte-by-byte state machine written in JS. */
const INDENT_STEPS_PER_BYTE = 2;

function reindent(thread: Thread, fn: string, src: string, prefix: string, indent: string): string {
  thread.charge(1 + INDENT_STEPS_PER_BYTE * src.length);
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
    return indentJSON(src, prefix, indent, charge, () => thread.poll());
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
