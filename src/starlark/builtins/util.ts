/**
 * Helpers shared by the built-in functions and methods: budgeted iteration, hash-table mutation with
 * the reference's messages, and dict updates.
 *
 * @module
 */
import { isIterable } from "../args.ts";
import { iterate, len, repr } from "../ops.ts";
import {
  Bytes,
  Dict,
  EvalError,
  List,
  Range,
  type StarSet,
  Tuple,
  typeName,
  UnhashableError,
} from "../value.ts";
import type { Kwargs, Thread, Value } from "../value.ts";

/** Bytes charged per element slot when a built-in materialises a sequence. */
export const SLOT_BYTES = 8;

/** Charges steps for scanning `bytes` bytes of string data (one step per 64 bytes, at least one). */
export function chargeBytes(thread: Thread, bytes: number): void {
  thread.charge(1 + (bytes >>> 6));
}

/**
 * Collects the elements of an iterable into a fresh array. A known length is charged (steps and
 * memory) before anything is materialised, so `list(range(10**18))` fails fast with a ResourceError.
 */
export function collect(thread: Thread, x: Value): Value[] {
  if (x instanceof List || x instanceof Tuple) {
    const n = x.elems.length;
    thread.charge(n);
    thread.allocate(SLOT_BYTES * n);
    return x.elems.slice();
  }
  if (x instanceof Range) {
    const n = x.length;
    thread.charge(n);
    thread.allocate(SLOT_BYTES * n);
    const out: Value[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = x.at(i);
    return out;
  }
  const n = len(x);
  if (n > 0) {
    thread.charge(n);
    thread.allocate(SLOT_BYTES * n);
  }
  const out: Value[] = [];
  const it = iterate(x);
  try {
    for (let v = it.next(); v !== undefined; v = it.next()) {
      out.push(v);
      if (n < 0 && (out.length & 255) === 0) {
        thread.charge(256);
        thread.allocate(SLOT_BYTES * 256);
      }
    }
  } finally {
    it.done();
  }
  return out;
}

/**
 * Calls `f` on each element of an iterable (one step each), ending the iteration even on error.
 * `f` returns `true` to stop early.
 */
export function forEach(thread: Thread, x: Value, f: (v: Value, i: number) => boolean | void): void {
  const it = iterate(x);
  try {
    let i = 0;
    for (let v = it.next(); v !== undefined; v = it.next(), i++) {
      thread.charge(1);
      if (f(v, i) === true) return;
    }
  } finally {
    it.done();
  }
}

/**
 * Checks that a dict or set may be mutated, with the reference's hash-table wording
 * (`cannot insert into frozen hash table`, `cannot clear hash table during iteration`).
 */
export function checkHashMutable(x: Dict | StarSet, verb: string): void {
  if (x.frozen) throw new EvalError(`cannot ${verb} frozen hash table`);
  if (x.itercount > 0) throw new EvalError(`cannot ${verb} hash table during iteration`);
}

/** Runs `f`, turning an {@link UnhashableError} into an EvalError with the same message. */
export function hashing<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof UnhashableError) throw new EvalError(e.message);
    throw e;
  }
}

/** `d[k] = v` with mutability and hashability checks (messages without a function prefix). */
export function dictSet(d: Dict, k: Value, v: Value): void {
  checkHashMutable(d, "insert into");
  hashing(() => d.setUnchecked(k, v));
}

/** Adds `v` to set `s` with mutability and hashability checks. */
export function setInsert(s: StarSet, v: Value): void {
  checkHashMutable(s, "insert into");
  hashing(() => s.addUnchecked(v));
}

/** Looks `k` up in `d` (throws for unhashable keys); `undefined` when absent. */
export function dictGet(d: Dict, k: Value): Value | undefined {
  return hashing(() => d.get(k));
}

/**
 * The shared body of `dict(...)` and `dict.update(...)`: at most one positional mapping or iterable of
 * pairs, then keyword arguments. Messages carry no function prefix; callers add it.
 */
export function updateDict(thread: Thread, d: Dict, args: Value[], kwargs: Kwargs): void {
  if (args.length === 1) {
    const src = args[0];
    if (src instanceof Dict) {
      thread.charge(src.size);
      thread.allocate(2 * SLOT_BYTES * src.size);
      for (const e of [...src.map.values()]) dictSet(d, e.key, e.value);
    } else {
      if (!isIterable(src)) throw new EvalError(`got ${typeName(src)}, want iterable`);
      forEach(thread, src, (pair, i) => {
        if (!isIterable(pair)) {
          throw new EvalError(`dictionary update sequence element #${i} is not iterable (${typeName(pair)})`);
        }
        const n = len(pair);
        if (n < 0) {
          throw new EvalError(
            `dictionary update sequence element #${i} has unknown length (${typeName(pair)})`,
          );
        }
        if (n !== 2) throw new EvalError(`dictionary update sequence element #${i} has length ${n}, want 2`);
        thread.allocate(2 * SLOT_BYTES);
        const it = iterate(pair);
        try {
          const k = it.next() as Value;
          const v = it.next() as Value;
          dictSet(d, k, v);
        } finally {
          it.done();
        }
      });
    }
  }
  const before = d.size;
  thread.charge(kwargs.length);
  thread.allocate(2 * SLOT_BYTES * kwargs.length);
  for (const [k, v] of kwargs) dictSet(d, k, v);
  if (d.size < before + kwargs.length) {
    const seen = new Set<string>();
    for (const [k] of kwargs) {
      if (seen.has(k)) throw new EvalError(`duplicate keyword arg: "${k}"`);
      seen.add(k);
    }
  }
}

/**
 * The text `print`, `fail` and `str.format` use for a value: strings as they are, everything else in
 * the reference's `String()` form, which is the `repr` (only strings and bytes differ between `str` and
 * `repr`). With `rawBytes`, bytes are written as their raw content (as `print` does).
 */
export function displayString(v: Value, rawBytes = false): string {
  if (typeof v === "string") return v;
  if (rawBytes && v instanceof Bytes) return v.data;
  return repr(v);
}
