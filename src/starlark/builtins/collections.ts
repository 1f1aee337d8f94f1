/**
 * Built-ins that build or consume collections: bytes, dict, enumerate, list, max, min, range,
 * reversed, set, sorted, tuple, zip.
 *
 * @module
 */
import {
  boolArg,
  type Builtin,
  Bytes,
  callableArg,
  type Callback,
  callOne,
  chargeInserts,
  chargeKeyHash,
  chargeTranscode,
  chargeTuples,
  collect,
  compare,
  Dict,
  EMPTY_TUPLE,
  EvalError,
  forEach,
  HASH_POLL_MASK,
  int64Arg,
  intArg,
  intBounded,
  isIterable,
  iterableArg,
  iterate,
  type Kwargs,
  len,
  List,
  noKwargs,
  normInt,
  Range,
  SET_ENTRY_BYTES,
  StarSet,
  type Thread,
  transcodeText,
  Tuple,
  typeName,
  UnhashableError,
  unpackArgs,
  unpackPositional,
  updateDict,
  type Value,
} from "../values/mod.ts";

import { sortByKeys, sortKeys, sortKeysGen } from "./sort.ts";

/** `bytes(x)`: from bytes, a string (invalid UTF-8 replaced) or an iterable of byte values. */
export function bytesBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  noKwargs("bytes", kwargs);
  if (args.length !== 1) throw new EvalError(`bytes: got ${args.length} arguments, want exactly 1`);
  const x = args[0];
  if (x instanceof Bytes) return x;
  if (typeof x === "string") {
    chargeTranscode(thread, x);
    return new Bytes(transcodeText(thread, x));
  }
  if (isIterable(x)) {
    const n = len(x);
    if (n > 0) thread.allocate(n);
    const codes: number[] = [];
    forEach(thread, x, (v, i) => {
      if (typeof v !== "number" && typeof v !== "bigint") {
        throw new EvalError(`bytes: at index ${i}, got ${typeName(v)}, want int`);
      }
      if (v < 0 || v > 255) {
        throw new EvalError(
          `bytes: at index ${i}, ${intBounded(v)} out of range (want value in unsigned 8-bit range)`,
        );
      }
      codes.push(Number(v));
    });
    let s = "";
    for (let i = 0; i < codes.length; i += 8192) s += String.fromCharCode(...codes.slice(i, i + 8192));
    return new Bytes(s);
  }
  throw new EvalError(`bytes: got ${typeName(x)}, want string, bytes, or iterable of ints`);
}

/** `dict(pairs_or_mapping=?, **kwargs)`. */
export function dictBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  if (args.length > 1) throw new EvalError(`dict: got ${args.length} arguments, want at most 1`);
  const d = new Dict();
  try {
    updateDict(thread, d, args, kwargs);
  } catch (e) {
    if (e instanceof EvalError) throw new EvalError(`dict: ${e.message}`);
    throw e;
  }
  return d;
}

/** `enumerate(iterable, start=0)` (positional only, like the reference). */
export function enumerateBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x, start] = unpackPositional("enumerate", args, kwargs, 1, iterableArg, intArg);
  const s = start ?? 0;
  const elems = collect(thread, x as Value);
  chargeTuples(thread, elems.length, 2);
  const out: Value[] = [];
  for (let i = 0; i < elems.length; i++) {
    const k = s + i;
    out.push(new Tuple([Number.isSafeInteger(k) ? k : normInt(BigInt(s) + BigInt(i)), elems[i]]));
    if ((i & HASH_POLL_MASK) === HASH_POLL_MASK) thread.poll();
  }
  return new List(out);
}

/** `list(iterable=?)`. */
export function listBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("list", args, kwargs, 0, iterableArg);
  return new List(x === undefined ? [] : collect(thread, x));
}

/** `max(...)` and `min(...)`: one iterable or several positional values, with an optional `key`. */
export function minmaxBuiltin(thread: Thread, args: Value[], kwargs: Kwargs, self: Builtin): Value {
  // Without keywords there is no key to call back: `max(a, b)` in an inner loop then skips the generator,
  // the argument unpacking and the tuple of its arguments.
  if (kwargs.length === 0) return minmaxPlain(thread, args, self.name);
  // The generator below does the work; here its key calls are made directly, on the JS stack. A call
  // that fails is thrown into it, so its iteration is closed as it unwinds.
  const run = minmaxGen(thread, args, kwargs, self);
  let r = run.next();
  while (!r.done) {
    let k: Value;
    try {
      k = callOne(thread, r.value.fn, r.value.arg);
    } catch (e) {
      r = run.throw(e);
      continue;
    }
    r = run.next(k);
  }
  return r.value;
}

/** {@link minmaxGen} without a key, with the same charges and errors, as a plain loop. */
function minmaxPlain(thread: Thread, args: Value[], name: string): Value {
  if (args.length === 0) throw new EvalError(`${name} requires at least one positional argument`);
  const max = name === "max";
  if (args.length > 1) {
    let extremum = args[0];
    for (let i = 1; i < args.length; i++) {
      thread.charge(1);
      const x = args[i];
      if (typeof x === "number" && typeof extremum === "number") {
        if (max ? x > extremum : x < extremum) extremum = x;
      } else if (better(name, max, x, extremum)) {
        extremum = x;
      }
    }
    return extremum;
  }
  const iterable = args[0];
  if (!isIterable(iterable)) throw new EvalError(`${name}: ${typeName(iterable)} value is not iterable`);
  const it = iterate(iterable);
  try {
    let extremum = it.next();
    if (extremum === undefined) throw new EvalError(`${name}: argument is an empty sequence`);
    for (let x = it.next(); x !== undefined; x = it.next()) {
      thread.charge(1);
      if (typeof x === "number" && typeof extremum === "number") {
        if (max ? x > extremum : x < extremum) extremum = x;
      } else if (better(name, max, x, extremum)) {
        extremum = x;
      }
    }
    return extremum;
  } finally {
    it.done();
  }
}

/** Whether `x` beats `extremum` for max (or min), with comparison errors prefixed by the built-in's name. */
function better(name: string, max: boolean, x: Value, extremum: Value): boolean {
  try {
    return compare(max ? ">" : "<", x, extremum);
  } catch (e) {
    if (e instanceof EvalError) throw new EvalError(`${name}: ${e.message}`);
    throw e;
  }
}

/**
 * {@link minmaxBuiltin} as a generator yielding its key calls (see `BuiltinGen`); without a key it yields
 * nothing.
 */
export function* minmaxGen(
  thread: Thread,
  args: Value[],
  kwargs: Kwargs,
  self: Builtin,
): Generator<Callback, Value, Value> {
  const name = self.name;
  if (args.length === 0) throw new EvalError(`${name} requires at least one positional argument`);
  const [key] = unpackArgs(name, [], kwargs, ["key?", callableArg]);
  const op = name === "max" ? ">" : "<";
  const iterable = args.length === 1 ? args[0] : new Tuple(args);
  if (!isIterable(iterable)) throw new EvalError(`${name}: ${typeName(iterable)} value is not iterable`);
  const it = iterate(iterable);
  try {
    let extremum = it.next();
    if (extremum === undefined) throw new EvalError(`${name}: argument is an empty sequence`);
    let extremeKey = key === undefined ? extremum : yield { fn: key, arg: extremum };
    for (let x = it.next(); x !== undefined; x = it.next()) {
      thread.charge(1);
      const k = key === undefined ? x : yield { fn: key, arg: x };
      let better: boolean;
      try {
        better = compare(op, k, extremeKey);
      } catch (e) {
        if (e instanceof EvalError) throw new EvalError(`${name}: ${e.message}`);
        throw e;
      }
      if (better) {
        extremum = x;
        extremeKey = k;
      }
    }
    return extremum;
  } finally {
    it.done();
  }
}

/** `range(stop)` / `range(start, stop, step=1)`: lazy. */
export function rangeBuiltin(_thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [a, b, c] = unpackPositional("range", args, kwargs, 1, int64Arg, int64Arg, int64Arg);
  let start = a as number | bigint, stop = b ?? 0;
  const step = c ?? 1;
  if (args.length === 1) {
    stop = start;
    start = 0;
  }
  if (step === 0) throw new EvalError("range: step argument must not be zero");
  return new Range(start, stop, step);
}

/** `reversed(iterable)`. */
export function reversedBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("reversed", args, kwargs, 1, iterableArg);
  return new List(collect(thread, x as Value).reverse());
}

/** `set(iterable=?)`. */
export function setBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("set", args, kwargs, 0, iterableArg);
  const s = new StarSet();
  if (x !== undefined) {
    const n = len(x);
    if (n > 0) chargeInserts(thread, n, n, SET_ENTRY_BYTES);
    try {
      forEach(thread, x, (v) => {
        if (n < 0) chargeInserts(thread, 1, s.size, SET_ENTRY_BYTES);
        chargeKeyHash(thread, v);
        s.addUnchecked(v);
      });
    } catch (e) {
      if (e instanceof UnhashableError) throw new EvalError(`set: ${e.message}`);
      throw e;
    }
  }
  return s;
}

/**
 * Steps per comparison of a sort: numbers compare in a few ns, strings (short ones; long ones charge
 * their bytes as they compare) and containers take longer.
 */
function comparisonSteps(keys: Value[]): number {
  const k = keys[0];
  if (typeof k === "number") return 2;
  if (typeof k === "string") return 4;
  return 6;
}

function sortedArgs(args: Value[], kwargs: Kwargs) {
  return unpackArgs(
    "sorted",
    args,
    kwargs,
    ["iterable", iterableArg],
    ["key?", callableArg],
    ["reverse?", boolArg],
  );
}

function sortedOf(thread: Thread, values: Value[], keys: Value[], reverse: boolean): Value {
  const n = values.length;
  if (n > 1) thread.charge(Math.ceil(n * Math.log2(n) * comparisonSteps(keys)));
  return new List(sortByKeys(thread, values, keys, reverse));
}

/** `sorted(iterable, key=None, reverse=False)`: a stable sort. */
export function sortedBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x, key, reverse] = sortedArgs(args, kwargs);
  const values = collect(thread, x as Value);
  if (key === undefined) return sortedOf(thread, values, values, reverse === true);
  // The reference keeps its iteration of `x` open until it returns: a key function that mutates `x`
  // fails ("cannot clear list during iteration"), as it does under `min` and `max`.
  const it = iterate(x as Value);
  try {
    return sortedOf(thread, values, sortKeys(thread, values, key), reverse === true);
  } finally {
    it.done();
  }
}

/** {@link sortedBuiltin} as a generator yielding its key calls (see `BuiltinGen`). */
export function* sortedGen(thread: Thread, args: Value[], kwargs: Kwargs): Generator<Callback, Value, Value> {
  const [x, key, reverse] = sortedArgs(args, kwargs);
  const values = collect(thread, x as Value);
  if (key === undefined) return sortedOf(thread, values, values, reverse === true);
  // As in sortedBuiltin: the iteration stays open while the key calls run.
  const it = iterate(x as Value);
  try {
    return sortedOf(thread, values, yield* sortKeysGen(thread, values, key), reverse === true);
  } finally {
    it.done();
  }
}

/** `tuple(iterable=?)`. */
export function tupleBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackPositional("tuple", args, kwargs, 0, iterableArg);
  if (x === undefined) return EMPTY_TUPLE;
  if (x instanceof Tuple) return x;
  const elems = collect(thread, x);
  return elems.length === 0 ? EMPTY_TUPLE : new Tuple(elems);
}

/** `zip(*iterables)`. */
export function zipBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  noKwargs("zip", kwargs);
  const cols = args.length;
  const its: ReturnType<typeof iterate>[] = [];
  try {
    let rows = -1;
    for (let i = 0; i < cols; i++) {
      const seq = args[i];
      if (!isIterable(seq)) throw new EvalError(`zip: argument #${i + 1} is not iterable: ${typeName(seq)}`);
      its.push(iterate(seq));
      const n = len(seq);
      if (i === 0 || n < rows) rows = n; // any unknown length makes it unknown
    }
    if (rows > 0) chargeTuples(thread, rows, cols);
    const out: Value[] = [];
    if (cols === 0) return new List(out);
    for (;;) {
      const row: Value[] = new Array(cols);
      for (let j = 0; j < cols; j++) {
        const v = its[j].next();
        if (v === undefined) return new List(out);
        row[j] = v;
      }
      if (rows < 0) chargeTuples(thread, 1, cols);
      else if ((out.length & HASH_POLL_MASK) === HASH_POLL_MASK) thread.poll();
      out.push(new Tuple(row));
    }
  } finally {
    for (const it of its) it.done();
  }
}
