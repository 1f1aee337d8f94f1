/**
 * Indexing, slicing, iteration and length, with the reference implementation's messages.
 *
 * Host-defined values (e.g. the string views) take part through optional methods:
 * {@link StarlarkIndexable} (`x[i]` and `len`), {@link StarlarkIterable} (`for`), {@link StarlarkSized}.
 *
 * @module
 */
import { int32Error } from "./int.ts";
import { reprBounded } from "./quote_bounded.ts";
import {
  Bytes,
  Dict,
  EvalError,
  hashKey,
  List,
  Range,
  StarSet,
  Tuple,
  typeName,
  UnhashableError,
} from "./value.ts";
import type { Thread, Value } from "./value.ts";
import { chargeKeyHash, POLL_CHUNK } from "./ops_bulk.ts";

/** Iteration protocol used by `for`, comprehensions and built-ins. */
export interface ValueIterator {
  /** Next element, or `undefined` when exhausted. */
  next(): Value | undefined;
  /** Ends the iteration (decrements the container's `itercount`). Idempotent. */
  done(): void;
}

/** A host value that can be iterated. */
export interface StarlarkIterable {
  /** Starts an iteration. */
  starlarkIterate(): ValueIterator;
}

/** A host value with a length (`len(x)`). */
export interface StarlarkSized {
  /** The length. */
  starlarkLen(): number;
}

/** A host value indexable by an int in `[0, len)` (it must also be {@link StarlarkSized}). */
export interface StarlarkIndexable extends StarlarkSized {
  /** The element at `i`, 0 ≤ i < len. */
  starlarkIndex(i: number): Value;
}

function outOfRange(i: number, n: number | bigint, x: Value): EvalError {
  if (n === 0 || n === 0n) return new EvalError(`index ${i} out of range: empty ${typeName(x)}`);
  const last = typeof n === "bigint" ? n - 1n : n - 1;
  return new EvalError(`${typeName(x)} index ${i} out of range [${-n}:${last}]`);
}

/** `r[i]` for a range with big bounds: exact bigint arithmetic. */
function bigRangeIndex(r: Range, i: Value): Value {
  const err = int32Error(i);
  if (err !== undefined) throw new EvalError(`range index: ${err}`);
  const n = r.bounds().length;
  let k = BigInt(i as number);
  if (k < 0n) k += n;
  if (k < 0n || k >= n) throw outOfRange(i as number, n, r);
  return r.at(k);
}

function toEvalError(e: unknown): unknown {
  return e instanceof UnhashableError ? new EvalError(e.message) : e;
}

function isIndexable(x: Value): x is Value & StarlarkIndexable {
  return typeof (x as Partial<StarlarkIndexable> | null)?.starlarkIndex === "function";
}

/** `x[i]`. */
export function getIndex(thread: Thread, x: Value, i: Value): Value {
  let n: number;
  if (x instanceof List || x instanceof Tuple) {
    const elems = x.elems;
    if (typeof i === "number" && i >= 0 && i < elems.length) return elems[i];
    n = elems.length;
  } else if (typeof x === "string") {
    if (typeof i === "number" && i >= 0 && i < x.length) return x[i];
    n = x.length;
  } else if (x instanceof Dict) {
    chargeKeyHash(thread, i);
    let v: Value | undefined;
    try {
      v = x.get(i);
    } catch (e) {
      throw toEvalError(e);
    }
    if (v === undefined) throw new EvalError(`key ${reprBounded(i, thread)} not in dict`);
    return v;
  } else if (x instanceof Bytes) {
    n = x.data.length;
  } else if (x instanceof Range) {
    if (x.big !== undefined) return bigRangeIndex(x, i);
    n = x.length;
  } else if (isIndexable(x)) {
    n = x.starlarkLen();
  } else {
    throw new EvalError(`unhandled index operation ${typeName(x)}[${typeName(i)}]`);
  }
  const err = int32Error(i);
  if (err !== undefined) throw new EvalError(`${typeName(x)} index: ${err}`);
  let k = i as number;
  if (k < 0) k += n;
  if (k < 0 || k >= n) throw outOfRange(i as number, n, x);
  if (x instanceof List || x instanceof Tuple) return x.elems[k];
  if (typeof x === "string") return x[k];
  if (x instanceof Bytes) return new Bytes(x.data[k]);
  if (x instanceof Range) return x.at(k);
  return (x as StarlarkIndexable).starlarkIndex(k);
}

/** `x[i] = v`. */
export function setIndex(thread: Thread, x: Value, i: Value, v: Value): void {
  if (x instanceof List) {
    const n = x.elems.length;
    const err = int32Error(i);
    if (err !== undefined) throw new EvalError(err);
    let k = i as number;
    if (k < 0) k += n;
    if (k < 0 || k >= n) throw outOfRange(i as number, n, x);
    if (x.frozen) throw new EvalError("cannot assign to element of frozen list");
    if (x.itercount > 0) throw new EvalError("cannot assign to element of list during iteration");
    x.elems[k] = v;
    return;
  }
  if (x instanceof Dict) {
    if (x.frozen) throw new EvalError("cannot insert into frozen hash table");
    if (x.itercount > 0) throw new EvalError("cannot insert into hash table during iteration");
    chargeKeyHash(thread, i);
    try {
      x.setUnchecked(i, v);
    } catch (e) {
      throw toEvalError(e);
    }
    return;
  }
  const h = (x as { starlarkSetIndex?: (i: Value, v: Value) => void } | null)?.starlarkSetIndex;
  if (typeof h === "function") return h.call(x, i, v);
  throw new EvalError(`${typeName(x)} value does not support item assignment`);
}

function sliceIndex(v: Value, n: number, what: string): number | undefined {
  if (v === null) return undefined;
  const err = int32Error(v);
  if (err !== undefined) throw new EvalError(`invalid ${what}: ${err}`);
  const k = v as number;
  return k < 0 ? k + n : k;
}

function bigSliceIndex(v: Value, n: bigint, what: string): bigint | undefined {
  if (v === null) return undefined;
  const err = int32Error(v);
  if (err !== undefined) throw new EvalError(`invalid ${what}: ${err}`);
  const k = BigInt(v as number);
  return k < 0n ? k + n : k;
}

/** `r[lo:hi:step]` in exact arithmetic: the bounds of the result may leave the safe-integer range. */
function sliceRange(r: Range, lo: Value, hi: Value, step: number): Range {
  const b = r.bounds();
  const n = b.length;
  let start: bigint, end: bigint;
  if (step > 0) {
    start = bigSliceIndex(lo, n, "start index") ?? 0n;
    start = start < 0n ? 0n : start > n ? n : start;
    end = bigSliceIndex(hi, n, "end index") ?? n;
    end = end < 0n ? 0n : end > n ? n : end;
    if (end < start) end = start;
  } else {
    start = bigSliceIndex(lo, n, "start index") ?? n - 1n;
    if (start >= n) start = n - 1n;
    end = bigSliceIndex(hi, n, "end index") ?? -1n;
    if (end < -1n) end = -1n;
    if (start < end) start = end;
  }
  return new Range(b.start + b.step * start, b.start + b.step * end, b.step * BigInt(step));
}

/** `x[lo:hi:step]`; `null` (None) stands for an absent part. */
export function slice(thread: Thread, x: Value, lo: Value, hi: Value, stepv: Value): Value {
  let n: number;
  if (typeof x === "string") n = x.length;
  else if (x instanceof List || x instanceof Tuple) n = x.elems.length;
  else if (x instanceof Bytes) n = x.data.length;
  else if (x instanceof Range) n = x.length;
  else throw new EvalError(`invalid slice operand ${typeName(x)}`);
  let step = 1;
  if (stepv !== null) {
    const err = int32Error(stepv);
    if (err !== undefined) throw new EvalError(`invalid slice step: ${err}`);
    step = stepv as number;
    if (step === 0) throw new EvalError("zero is not a valid slice step");
  }
  if (x instanceof Range) return sliceRange(x, lo, hi, step);
  let start: number, end: number;
  if (step > 0) {
    start = sliceIndex(lo, n, "start index") ?? 0;
    start = start < 0 ? 0 : start > n ? n : start;
    end = sliceIndex(hi, n, "end index") ?? n;
    end = end < 0 ? 0 : end > n ? n : end;
    if (end < start) end = start;
  } else {
    start = sliceIndex(lo, n, "start index") ?? n - 1;
    if (start >= n) start = n - 1;
    end = sliceIndex(hi, n, "end index") ?? -1;
    if (end < -1) end = -1;
    if (start < end) start = end;
  }
  const count = step > 0 ? Math.ceil((end - start) / step) : Math.ceil((start - end) / -step);
  if (count >= 64) {
    // A contiguous copy is native; a strided one is a JS loop (a step per element or byte).
    const list = x instanceof List || x instanceof Tuple;
    thread.charge(step === 1 ? (list ? count : count >>> 6) : list ? count : count >>> 1);
    thread.allocate(list ? 8 * count : count);
  }
  if (typeof x === "string") return sliceString(thread, x, start, end, step);
  if (x instanceof Bytes) return new Bytes(sliceString(thread, x.data, start, end, step));
  const elems = (x as List | Tuple).elems;
  let out: Value[];
  if (step === 1) out = elems.slice(start, end);
  else {
    out = [];
    for (let k = 0, i = start; k < count; k++, i += step) {
      out.push(elems[i]);
      if ((k & (POLL_CHUNK - 1)) === POLL_CHUNK - 1) thread.poll();
    }
  }
  return x instanceof List ? new List(out) : new Tuple(out);
}

/** Longest strided string slice built by concatenation (its rope of one-byte nodes stays small). */
const STRIDE_CONCAT_MAX = 4096;

function sliceString(thread: Thread, s: string, start: number, end: number, step: number): string {
  if (step === 1) return s.slice(start, end);
  const count = step > 0 ? Math.ceil((end - start) / step) : Math.ceil((start - end) / -step);
  if (count <= STRIDE_CONCAT_MAX) {
    // One-byte strings are V8's cached single characters: `+=` allocates only rope nodes, cheaper than
    // gathering char codes for fromCharCode.
    let out = "";
    for (let i = start; step > 0 ? i < end : i > end; i += step) out += s[i];
    return out;
  }
  const parts: string[] = [];
  const codes: number[] = [];
  for (let i = start; step > 0 ? i < end : i > end; i += step) {
    codes.push(s.charCodeAt(i));
    if (codes.length === 8192) {
      parts.push(String.fromCharCode.apply(null, codes));
      codes.length = 0;
      thread.poll();
    }
  }
  parts.push(String.fromCharCode.apply(null, codes));
  return parts.length === 1 ? parts[0] : parts.join("");
}

class ArrayIterator implements ValueIterator {
  private i = 0;
  constructor(private readonly elems: Value[]) {}
  next(): Value | undefined {
    const elems = this.elems;
    return this.i < elems.length ? elems[this.i++] : undefined;
  }
  done(): void {}
}

class ListIterator implements ValueIterator {
  private i = 0;
  private active = true;
  constructor(private readonly list: List) {
    list.itercount++;
  }
  next(): Value | undefined {
    const elems = this.list.elems;
    return this.i < elems.length ? elems[this.i++] : undefined;
  }
  done(): void {
    if (this.active) {
      this.active = false;
      this.list.itercount--;
    }
  }
}

class MapIterator<T> implements ValueIterator {
  private active = true;
  private readonly it: Iterator<T>;
  constructor(
    private readonly owner: Dict | StarSet,
    values: Iterable<T>,
    private readonly pick: (t: T) => Value,
  ) {
    owner.itercount++;
    this.it = values[Symbol.iterator]();
  }
  next(): Value | undefined {
    const r = this.it.next();
    return r.done ? undefined : this.pick(r.value);
  }
  done(): void {
    if (this.active) {
      this.active = false;
      this.owner.itercount--;
    }
  }
}

class RangeIterator implements ValueIterator {
  private i = 0;
  constructor(private readonly r: Range) {}
  next(): Value | undefined {
    return this.i < this.r.length ? this.r.at(this.i++) : undefined;
  }
  done(): void {}
}

const pickKey = (e: { key: Value }): Value => e.key;
const pickSelf = (v: Value): Value => v;

/**
 * Starts iterating, or returns `undefined` when `x` is not iterable (strings are not iterable).
 * Lists, dicts and sets count active iterations until `done()`.
 */
export function tryIterate(x: Value): ValueIterator | undefined {
  if (x instanceof List) return new ListIterator(x);
  if (x instanceof Tuple) return new ArrayIterator(x.elems);
  if (x instanceof Dict) {
    // Small dicts are stored compactly; a key snapshot keeps them so (mutation is refused meanwhile).
    return x.size <= 8 ? new MapIterator(x, x.keys(), pickSelf) : new MapIterator(x, x.map.values(), pickKey);
  }
  if (x instanceof StarSet) return new MapIterator(x, x.map.values(), pickSelf);
  if (x instanceof Range) return new RangeIterator(x);
  const it = (x as Partial<StarlarkIterable> | null)?.starlarkIterate;
  if (typeof it === "function") return it.call(x);
  return undefined;
}

/** Starts iterating; throws EvalError `T value is not iterable` when `x` is not iterable. */
export function iterate(x: Value): ValueIterator {
  const it = tryIterate(x);
  if (it === undefined) throw new EvalError(`${typeName(x)} value is not iterable`);
  return it;
}

/** Length of a sequence or mapping, or -1 when `x` has none. */
export function len(x: Value): number {
  if (typeof x === "string") return x.length;
  if (x instanceof List || x instanceof Tuple) return x.elems.length;
  if (x instanceof Dict || x instanceof StarSet) return x.size;
  if (x instanceof Bytes) return x.data.length;
  if (x instanceof Range) return x.length;
  const l = (x as Partial<StarlarkSized> | null)?.starlarkLen;
  return typeof l === "function" ? l.call(x) : -1;
}

/** Whether `v` is hashable (usable as a dict key or set element). */
export function isHashable(v: Value): boolean {
  try {
    hashKey(v);
    return true;
  } catch {
    return false;
  }
}
