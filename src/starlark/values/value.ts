/**
 * The Starlark value model shared by the whole engine.
 *
 * Representation (chosen so the hot paths stay on JS primitives):
 *
 * | Starlark | JS representation |
 * |---|---|
 * | `None` | `null` |
 * | `bool` | `boolean` |
 * | `int` | `number` when a safe integer (\|n\| ≤ 2^53−1), otherwise `bigint` (never a bigint in the safe range) |
 * | `float` | {@link Float} |
 * | `string` | JS `string` whose char codes are the UTF-8 *bytes* of the text (each 0..255): a "binary string" |
 * | `bytes` | {@link Bytes} (same binary-string layout) |
 * | `list`, `tuple`, `dict`, `set`, `range` | {@link List}, {@link Tuple}, {@link Dict}, {@link StarSet}, {@link Range} |
 * | builtin function or method | {@link Builtin} |
 * | module (`json`, `math`, capability namespaces) | {@link Module} |
 *
 * Because strings are byte strings, `len`, indexing and slicing are byte-exact like the reference, and
 * comparing two JS strings compares their UTF-8 encodings. Use {@link fromJSString}/{@link toJSString}
 * at the host boundary.
 *
 * This module is the value model's entry inside the value layer: the definitions live in focused modules
 * (`object.ts`, `dict.ts`, `range.ts`, `thread.ts`, `errors.ts`, `text.ts`) and are re-exported here, so
 * the other value modules import them from this file only (code outside `values/` uses `mod.ts`).
 *
 * @module
 */

export {
  Builtin,
  Bytes,
  checkMutable,
  EMPTY_TUPLE,
  Float,
  isInt,
  List,
  Module,
  normInt,
  StarObject,
  Tuple,
  typeName,
} from "./object.ts";
export type { BuiltinFn, BuiltinGen, Callback, Kwargs, Mutable, Value } from "./object.ts";
export { Dict, hashKey, isKeyPrepared, LONG_KEY_LENGTH, prepareKey, StarSet } from "./dict.ts";
export type { DictEntry, HashableObject } from "./dict.ts";
export { Range } from "./range.ts";
export {
  CallDepthError,
  EvalError,
  NoSuchAttrError,
  ResourceError,
  StarlarkError,
  StarlarkSyntaxError,
  UnhashableError,
} from "./errors.ts";
export type { CallFrame, ResourceKind } from "./errors.ts";
export { ALL_OPTIONS_DIALECT, DEFAULT_DIALECT, HOST_TURN, INTERRUPT_POLL_STEPS, Thread } from "./thread.ts";
export type { Dialect, LoadHook, ThreadOptions } from "./thread.ts";
export { binaryToBytes, bytesToBinary, fromJSString, toJSString } from "./text.ts";
