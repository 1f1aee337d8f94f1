/**
 * Helpers shared by the built-in functions and methods: budgeted iteration, hash-table mutation with
 * the reference's messages, and dict updates. They sit in the value layer, below `methods/` and
 * `builtins/`, because both (and the evaluator's pair loops) use them.
 *
 * @module
 */
import { ArgConversionError, isIterable, type Unpacker } from "./args.ts";
import { iterate, len, repr } from "./ops.ts";
import { transcodeUTF8 } from "./utf8.ts";
import { intBounded, textBounded } from "./quote_bounded.ts";
import { isTooDeepKey, tooDeepError } from "./dict.ts";
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
} from "./value.ts";
import type { Kwargs, Thread, Value } from "./value.ts";
import {
  chargeCompactKeys,
  chargeInserts,
  chargeKeyHash,
  chargeSlots,
  copyElems,
  eachEntry,
  ENTRY_BYTES,
  insertSteps,
  POLL_CHUNK,
  SLOT_BYTES,
} from "./ops_bulk.ts";

export { SLOT_BYTES };

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Accepts an int in the signed 64-bit range (the reference's Go `int`), exactly: a bigint beyond ±2^53. */
export const int64Arg: Unpacker<number | bigint> = (v: Value): number | bigint => {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") {
    if (v < INT64_MIN || v > INT64_MAX) {
      throw new ArgConversionError(`${intBounded(v)} out of range (want value in signed 64-bit range)`);
    }
    return v;
  }
  throw new ArgConversionError(`got ${typeName(v)}, want int`);
};

/** Charges steps for scanning `bytes` bytes of string data (one step per 64 bytes, at least one). */
export function chargeBytes(thread: Thread, bytes: number): void {
  thread.charge(1 + (bytes >>> 6));
}

/** Charges steps for a byte-by-byte (or rune-by-rune) loop written in JS over `s`: one step per 4 bytes. */
export function chargeRunes(thread: Thread, s: string): void {
  thread.charge(1 + (s.length >>> 2));
}

// deno-lint-ignore no-control-regex
const ASCII_RE = /^[\x00-\x7f]*$/;

/**
 * Charges a UTF-8 validation or transcoding of `s`: ASCII text is recognised by a native scan (one step
 * per 16 bytes); other text is decoded in JS (one more step per 4 bytes).
 */
export function chargeTranscode(thread: Thread, s: string): void {
  thread.charge(1 + (s.length >>> 4));
  if (s.length >= 64 && !ASCII_RE.test(s)) chargeRunes(thread, s);
}

/**
 * `s` with invalid UTF-8 replaced (see {@link transcodeUTF8}), polled in chunks. A replaced text is new
 * memory (up to 3 bytes per invalid byte); it is charged once built, which its size bounds to 3 × |s|.
 */
export function transcodeText(thread: Thread, s: string): string {
  const out = transcodeUTF8(s, () => thread.poll());
  if (out !== s) thread.allocate(out.length);
  return out;
}

/**
 * Collects the elements of an iterable into a fresh array. A known length is charged (steps and
 * memory) before anything is materialised, so `list(range(10**18))` fails fast with a ResourceError.
 */
export function collect(thread: Thread, x: Value): Value[] {
  if (x instanceof List || x instanceof Tuple) {
    chargeSlots(thread, x.elems.length);
    return copyElems(thread, x.elems);
  }
  if (x instanceof Range) {
    const n = x.length;
    chargeSlots(thread, n);
    const out: Value[] = [];
    for (let i = 0; i < n; i++) {
      out.push(x.at(i));
      if ((i & (POLL_CHUNK - 1)) === POLL_CHUNK - 1) thread.poll();
    }
    return out;
  }
  // Other iterables step an iterator for each element: one step each.
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
      if ((out.length & 255) === 0) {
        if (n < 0) {
          thread.charge(256);
          thread.allocate(SLOT_BYTES * 256);
        } else if ((out.length & (POLL_CHUNK - 1)) === 0) thread.poll();
      }
    }
  } finally {
    it.done();
  }
  return out;
}

/** Steps per small tuple a built-in creates (two allocations and the element copies). */
export const STEPS_PER_TUPLE = 5;

/** Charges the creation of `n` tuples of `width` elements and a list slot for each. */
export function chargeTuples(thread: Thread, n: number, width: number): void {
  if (n <= 0) return;
  thread.charge(n * (STEPS_PER_TUPLE + (width >> 1)));
  thread.allocate(n * (SLOT_BYTES * (width + 1) + 32));
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
  if (d.frozen || d.itercount > 0) checkHashMutable(d, "insert into");
  try {
    d.setUnchecked(k, v);
  } catch (e) {
    throw e instanceof UnhashableError ? new EvalError(e.message) : e;
  }
}

/** Adds `v` to set `s` with mutability and hashability checks. */
export function setInsert(s: StarSet, v: Value): void {
  checkHashMutable(s, "insert into");
  hashing(() => s.addUnchecked(v));
}

/** Looks `k` up in `d` (throws for unhashable keys); `undefined` when absent. */
export function dictGet(d: Dict, k: Value): Value | undefined {
  try {
    return d.get(k);
  } catch (e) {
    throw e instanceof UnhashableError ? new EvalError(e.message) : e;
  }
}

/**
 * The shared body of `dict(...)` and `dict.update(...)`: at most one positional mapping or iterable of
 * pairs, then keyword arguments. Messages carry no function prefix; callers add it.
 */
export function updateDict(thread: Thread, d: Dict, args: Value[], kwargs: Kwargs): void {
  if (args.length === 1) {
    const src = args[0];
    if (src instanceof Dict) {
      if (src.size > 0) {
        checkHashMutable(d, "insert into");
        chargeInserts(thread, src.size, d.size + src.size, ENTRY_BYTES);
        if (d.size > 0) chargeCompactKeys(thread, src);
        // `d.update(d)` changes nothing (every key is present, with its own value); any other source
        // is read in place, without a copy of its entries.
        if (src !== d && !hashing(() => d.assignCompact(src, "fail"))) {
          eachEntry(thread, src.map, (k, e) => {
            const cur = d.map.get(k);
            if (cur === undefined) d.map.set(k, { key: e.key, value: e.value });
            else if (isTooDeepKey(k)) throw new EvalError(tooDeepError().message); // the key comparison fails
            else cur.value = e.value;
          });
        }
      }
    } else {
      if (!isIterable(src)) throw new EvalError(`got ${typeName(src)}, want iterable`);
      forEach(thread, src, (pair, i) => {
        // The insertion, and unpacking the pair.
        thread.charge(insertSteps(d.size) + 2);
        thread.allocate(ENTRY_BYTES);
        if (pair instanceof Tuple || pair instanceof List) {
          const e = pair.elems;
          if (e.length !== 2) {
            throw new EvalError(`dictionary update sequence element #${i} has length ${e.length}, want 2`);
          }
          chargeKeyHash(thread, e[0]);
          dictSet(d, e[0], e[1]);
          return;
        }
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
      if (seen.has(k)) throw new EvalError(`duplicate keyword arg: "${textBounded(k)}"`);
      seen.add(k);
    }
  }
}

/**
 * The text `print`, `fail` and `str.format` use for a value: strings as they are, everything else in
 * the reference's `String()` form, which is the `repr` (only strings and bytes differ between `str` and
 * `repr`). With `rawBytes`, bytes are written as their raw content (as `print` does). With a thread, the
 * printing is charged to its budgets.
 */
export function displayString(v: Value, rawBytes = false, thread?: Thread): string {
  if (typeof v === "string") return v;
  if (rawBytes && v instanceof Bytes) return v.data;
  return repr(v, thread);
}
