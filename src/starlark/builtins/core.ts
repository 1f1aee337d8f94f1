/**
 * Built-ins about single values: any, all, bool, chr, dir, fail, getattr, hasattr, hash, len, ord,
 * print, repr, str, type.
 *
 * @module
 */
import {
  anyArg,
  ArgConversionError,
  asInt32,
  Bytes,
  chargeBytes,
  chargeTranscode,
  decodeRune,
  displayString,
  encodeRune,
  EvalError,
  forEach,
  iterableArg,
  joinBounded,
  type Kwargs,
  len,
  List,
  noKwargs,
  Range,
  repr,
  runeCount,
  runeOf,
  sizeOf,
  str,
  stringArg,
  TEXT_POLL_CHUNK,
  textBounded,
  type Thread,
  transcodeText,
  truth,
  typeName,
  unpackArgs,
  unpackPositional,
  type Value,
} from "../values/mod.ts";
import { attrNames, getAttr, hasMethodAttr } from "../methods/mod.ts";

/** `all(iterable)`. */
export function allBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("all", args, kwargs, 1, iterableArg);
  let result = true;
  forEach(thread, x as Value, (v) => {
    if (!truth(v)) {
      result = false;
      return true;
    }
  });
  return result;
}

/** `any(iterable)`. */
export function anyBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("any", args, kwargs, 1, iterableArg);
  let result = false;
  forEach(thread, x as Value, (v) => {
    if (truth(v)) {
      result = true;
      return true;
    }
  });
  return result;
}

/** `bool(x=False)`. */
export function boolBuiltin(_thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("bool", args, kwargs, 0, anyArg);
  return x === undefined ? false : truth(x);
}

/** `chr(i)`. */
export function chrBuiltin(_thread: Thread, args: Value[], kwargs: Kwargs): Value {
  noKwargs("chr", kwargs);
  if (args.length !== 1) throw new EvalError(`chr: got ${args.length} arguments, want 1`);
  let i: number;
  try {
    i = asInt32(args[0]);
  } catch (e) {
    if (e instanceof ArgConversionError) throw new EvalError(`chr: ${e.message}`);
    throw e;
  }
  if (i < 0) throw new EvalError(`chr: Unicode code point ${i} out of range (<0)`);
  if (i > 0x10ffff) {
    throw new EvalError(`chr: Unicode code point U+${i.toString(16).toUpperCase()} out of range (>0x10FFFF)`);
  }
  return encodeRune(i);
}

/** `dir(x)`. */
export function dirBuiltin(_thread: Thread, args: Value[], kwargs: Kwargs): Value {
  noKwargs("dir", kwargs);
  if (args.length !== 1) throw new EvalError(`dir: got ${args.length} arguments, want 1`);
  const names = attrNames(args[0]).slice().sort();
  return new List(names);
}

/** `fail(*args, sep=" ")`. */
export function failBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [sep] = unpackArgs("fail", [], kwargs, ["sep?", stringArg]);
  const s = sep ?? " ";
  // The message is bounded (FAIL_LIMIT bytes, then how many more): the reference keeps all of it.
  throw new EvalError("fail: " + joinBounded(args, s, thread));
}

/** `getattr(x, name, default=?)`. */
export function getattrBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x, name, dflt] = unpackPositional("getattr", args, kwargs, 2, anyArg, stringArg, anyArg) as [
    Value,
    string,
    Value | undefined,
  ];
  // A miss with a default on a value without fields of its own builds no error.
  if (dflt !== undefined && hasMethodAttr(x, name) === false) return dflt;
  const known = attrNames(x).includes(name);
  try {
    return getAttr(thread, x, name);
  } catch (e) {
    if (!(e instanceof EvalError)) throw e;
    if (dflt !== undefined) return dflt;
    if (!known) throw new EvalError(`getattr: ${typeName(x)} has no .${textBounded(name)} field or method`);
    throw new EvalError(`getattr: ${e.message}`);
  }
}

/** `hasattr(x, name)`. */
export function hasattrBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x, name] = unpackPositional("hasattr", args, kwargs, 2, anyArg, stringArg) as [Value, string];
  const quick = hasMethodAttr(x, name);
  if (quick !== undefined) return quick;
  try {
    getAttr(thread, x, name);
    return true;
  } catch (e) {
    if (!(e instanceof EvalError)) throw e;
    return attrNames(x).includes(name);
  }
}

/** The reference's string hash: Java's `String.hashCode` over the UTF-16 encoding (per decoded rune). */
export function javaStringHash(s: string, thread?: Thread): number {
  let h = 0;
  for (let i = 0, next = TEXT_POLL_CHUNK; i < s.length;) {
    const p = decodeRune(s, i);
    // Astral runes are deliberately not split into surrogates: the reference adds the rune itself.
    h = (Math.imul(31, h) + runeOf(p)) | 0;
    i += sizeOf(p);
    if (i >= next) {
      thread?.poll();
      next = i + TEXT_POLL_CHUNK;
    }
  }
  return h;
}

/** 32-bit FNV-1a of a binary string (the reference's bytes hash). */
export function fnv32a(s: string, thread?: Thread): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619) >>> 0;
    if ((i & (TEXT_POLL_CHUNK - 1)) === TEXT_POLL_CHUNK - 1) thread?.poll();
  }
  return h >>> 0;
}

/** `hash(x)` for strings and bytes. */
export function hashBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("hash", args, kwargs, 1, anyArg) as [Value];
  // Both hashes are byte loops written in JS (5–10 ns a byte): a step per byte, polled in chunks.
  if (typeof x === "string") {
    thread.charge(1 + x.length);
    return javaStringHash(x, thread);
  }
  if (x instanceof Bytes) {
    thread.charge(1 + (x.data.length >>> 1)); // FNV-1a does not decode runes: twice as fast
    return fnv32a(x.data, thread);
  }
  throw new EvalError(`hash: got ${typeName(x)}, want string or bytes`);
}

/** `len(x)`. */
export function lenBuiltin(_thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("len", args, kwargs, 1, anyArg) as [Value];
  if (x instanceof Range) return x.exactLength; // beyond 2^53, len() of ops is only approximate
  const n = len(x);
  if (n < 0) throw new EvalError(`len: value of type ${typeName(x)} has no len`);
  return n;
}

/** `ord(s)`. */
export function ordBuiltin(_thread: Thread, args: Value[], kwargs: Kwargs): Value {
  noKwargs("ord", kwargs);
  if (args.length !== 1) throw new EvalError(`ord: got ${args.length} arguments, want 1`);
  const x = args[0];
  if (typeof x === "string") {
    const p = x.length === 0 ? 0 : decodeRune(x, 0);
    if (x.length === 0 || sizeOf(p) !== x.length) {
      throw new EvalError(`ord: string encodes ${runeCount(x)} Unicode code points, want 1`);
    }
    return runeOf(p);
  }
  if (x instanceof Bytes) {
    if (x.data.length !== 1) throw new EvalError(`ord: bytes has length ${x.data.length}, want 1`);
    return x.data.charCodeAt(0);
  }
  throw new EvalError(`ord: got ${typeName(x)}, want string or bytes`);
}

/**
 * `print(*args, sep=" ")`. Like every Starlark string, the message handed to `thread.print` is a binary
 * string of UTF-8 bytes (passed through unchanged, as the reference writes raw bytes); hosts decode it
 * with `toJSString`.
 */
export function printBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [sep] = unpackArgs("print", [], kwargs, ["sep?", stringArg]);
  const msg = args.map((v) => displayString(v, true, thread)).join(sep ?? " ");
  chargeBytes(thread, msg.length);
  thread.print(thread, msg);
  return null;
}

/** `repr(x)`. */
export function reprBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("repr", args, kwargs, 1, anyArg) as [Value];
  return repr(x, thread);
}

/** `str(x)`. */
export function strBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  noKwargs("str", kwargs);
  if (args.length !== 1) throw new EvalError(`str: got ${args.length} arguments, want exactly 1`);
  const x = args[0];
  if (typeof x === "string") return x;
  if (x instanceof Bytes) {
    chargeTranscode(thread, x.data);
    return transcodeText(thread, x.data);
  }
  return str(x, thread);
}

/** `type(x)`. */
export function typeBuiltin(_thread: Thread, args: Value[], kwargs: Kwargs): Value {
  noKwargs("type", kwargs);
  if (args.length !== 1) throw new EvalError(`type: got ${args.length} arguments, want exactly 1`);
  return typeName(args[0]);
}
