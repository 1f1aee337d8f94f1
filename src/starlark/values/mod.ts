/**
 * The value layer of the engine: the value model (`value.ts`: None, bool, int, float, string, bytes,
 * list, tuple, dict, set, range, functions and modules), the thread with its budgets, the errors, the
 * operations on values (`ops*.ts`: truth, comparison, arithmetic, indexing, iteration, repr), the
 * argument unpacking and calling protocol the library uses (`args.ts`, `call.ts`), conversion to and
 * from JS, number formatting and UTF-8 text helpers.
 *
 * It is the bottom of the engine's stages: the syntax tree, the resolver, the library (`methods/`,
 * `builtins/`, `lib/`) and the evaluator all stand on it, and it imports none of them. Code outside this
 * folder imports it through this module; modules inside import each other directly.
 *
 * @module
 */
export {
  anyArg,
  ArgConversionError,
  asInt32,
  boolArg,
  callableArg,
  checkPositional,
  intArg,
  isIterable,
  iterableArg,
  noKwargs,
  sliceIndices,
  stringArg,
  unpackArgs,
  unpackPositional,
} from "./args.ts";
export type { Unpacker } from "./args.ts";
export { call, callOne, installCalls } from "./call.ts";
export { ConversionError, fromJS, toJS } from "./convert.ts";
export type { FromJSOptions, ToJSOptions } from "./convert.ts";
export { formatFloat } from "./float_format.ts";
export { DEFAULT_MAX_INT_BITS, intToDecimal, intTooLarge, linearResult, parseDecimal } from "./int_cost.ts";
export type { BinaryOp, UnaryOp } from "./operators.ts";
export {
  binary,
  compare,
  compareValues,
  equals,
  freeze,
  getIndex,
  iterate,
  len,
  quote,
  repr,
  setIndex,
  slice,
  STEPS_PER_ESCAPE,
  str,
  truth,
  tryIterate,
  unary,
} from "./ops.ts";
export type { ValueIterator } from "./ops.ts";
export {
  FAIL_LIMIT,
  intBounded,
  joinBounded,
  moreMarker,
  QUOTE_LIMIT,
  reprBounded,
  textBounded,
} from "./quote_bounded.ts";
export type { BoundedReprable, ReprPrefix } from "./quote_bounded.ts";
export { LONG_FLOAT_TEXT, parseLongDecimal } from "./float_parse.ts";
export { MAX_STRING_LENGTH, tooLongString } from "./ops_binary.ts";
export {
  chargeInserts,
  chargeKeyHash,
  chargeSlots,
  copyElems,
  copyMap,
  ENTRY_BYTES,
  extendList,
  HASH_POLL_MASK,
  insertSteps,
  lookupSteps,
  SET_ENTRY_BYTES,
  SLOT_BYTES,
  TEXT_POLL_CHUNK,
} from "./ops_bulk.ts";
export { countMatches, findIndex, findLastIndex, forEachMatch } from "./ops_search.ts";
export { nearest } from "./spell.ts";
export { stringTableKey, tableKey } from "./table_key.ts";
export {
  bytesElems,
  stringCodepointOrds,
  stringCodepoints,
  stringElemOrds,
  stringElems,
} from "./string_views.ts";
export {
  chargeBytes,
  chargeRunes,
  chargeTranscode,
  chargeTuples,
  checkHashMutable,
  collect,
  dictGet,
  dictSet,
  displayString,
  forEach,
  hashing,
  int64Arg,
  setInsert,
  transcodeText,
  updateDict,
} from "./support.ts";
export { TextBuilder } from "./text_builder.ts";
export { MIN_INT_BITS } from "./thread.ts";
export { decodeRune, encodeRune, isInvalid, isPrint, RUNE_ERROR, runeCount, runeOf, sizeOf } from "./utf8.ts";
export {
  ALL_OPTIONS_DIALECT,
  binaryToBytes,
  Builtin,
  Bytes,
  CallDepthError,
  checkMutable,
  DEFAULT_DIALECT,
  Dict,
  EMPTY_TUPLE,
  EvalError,
  Float,
  fromJSString,
  hashKey,
  HOST_TURN,
  List,
  LONG_KEY_LENGTH,
  Module,
  normInt,
  NoSuchAttrError,
  Range,
  ResourceError,
  StarlarkError,
  StarlarkSyntaxError,
  StarObject,
  StarSet,
  Thread,
  toJSString,
  Tuple,
  typeName,
  UnhashableError,
} from "./value.ts";
export type {
  BuiltinFn,
  BuiltinGen,
  Callback,
  CallFrame,
  Dialect,
  DictEntry,
  Kwargs,
  LoadHook,
  Mutable,
  ResourceKind,
  ThreadOptions,
  Value,
} from "./value.ts";
