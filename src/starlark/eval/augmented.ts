/**
 * What augmented assignments (`x op= y`) do with their values, shared by the ordinary closures
 * (compile_stmt.ts) and the generator forms (deep_compile.ts): in place for `list += iterable` and
 * `dict |= dict`, small ints directly, anything else as the binary operator.
 *
 * @module
 */
import {
  binary,
  chargeInserts,
  checkMutable,
  Dict,
  EvalError,
  extendList,
  HASH_POLL_MASK,
  iterate,
  List,
  type Thread,
  Tuple,
  type Value,
} from "../values/mod.ts";
import type { BinaryOp } from "../syntax/ast.ts";
import { fastIntOp } from "./arith.ts";
import { tick } from "./calls.ts";
import { atPos } from "./errors.ts";
import { F_THREAD, type Frame, type Pos } from "./function.ts";

/** Stores a value into an assignment target. */
export type Setter = (fr: Frame, v: Value) => void;

/** Stores `x op y` through `set`, for `name op= y`: small ints directly, anything else as {@link augmentedValue}. */
export function storeAugmented(fr: Frame, set: Setter, op: BinaryOp, x: Value, y: Value, pos: Pos): void {
  if (typeof x === "number" && typeof y === "number") {
    const z = fastIntOp(op, x, y);
    if (z !== undefined) {
      set(fr, z);
      return;
    }
  }
  set(fr, augmentedValue(fr[F_THREAD] as Thread, op, x, y, pos));
}

/** `x op= y` for the value part: in-place for `list += iterable` and `dict |= dict`. Errors at `pos`. */
export function augmentedValue(th: Thread, op: BinaryOp, x: Value, y: Value, pos: Pos): Value {
  try {
    if (op === "+" && x instanceof List) {
      let elems: Value[] | undefined;
      if (y instanceof List || y instanceof Tuple) {
        elems = y.elems;
      } else if (typeof y === "object" && y !== null) {
        elems = tryCollect(th, y);
      }
      if (elems !== undefined) {
        checkMutable(x, "apply += to");
        // Charges and polls before copying, like list.extend (y may be x itself).
        extendList(th, x, elems);
        return x;
      }
    } else if (op === "|" && x instanceof Dict && y instanceof Dict) {
      // The reference words this check for its hash table, not the dict type.
      if (x.frozen) throw new EvalError("cannot apply |= to frozen hash table");
      if (x.itercount > 0) throw new EvalError("cannot apply |= to hash table during iteration");
      chargeInserts(th, y.size, x.size + y.size, 48);
      // `x |= x` changes nothing; otherwise y is read in place, polled like any long insertion loop.
      if (x !== y) {
        let i = 0, failed = false;
        y.forEach((k, v) => {
          // The reference ignores a failed insertion (a key too deep to compare), which ends the update.
          if (!failed) failed = !x.trySet(k, v);
          if ((++i & HASH_POLL_MASK) === 0) th.poll();
        });
      }
      return x;
    }
    return binary(th, op, x, y);
  } catch (err) {
    throw atPos(err, pos);
  }
}

/** The elements of an iterable value (charged as they are collected), or undefined when not iterable. */
function tryCollect(th: Thread, y: Value): Value[] | undefined {
  let it;
  try {
    it = iterate(y);
  } catch {
    return undefined;
  }
  const out: Value[] = [];
  try {
    collect(th, it, out);
  } finally {
    it.done();
  }
  return out;
}

/** Appends the rest of an iteration to `out`, charging a step per element and memory per 1024. */
export function collect(th: Thread, it: { next(): Value | undefined }, out: Value[]): void {
  for (let v = it.next(); v !== undefined; v = it.next()) {
    tick(th);
    if (out.length > 0 && (out.length & 1023) === 0) th.allocate(8 * 1024);
    out.push(v);
  }
}
