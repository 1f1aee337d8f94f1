/**
 * The `sum` built-in, part of CodeMode's language surface (it is not in the reference Starlark universe).
 *
 * `sum(iterable, start=0)` adds the elements of `iterable` to `start` from left to right with Starlark's
 * `+`, like Python's `sum`:
 * - ints stay exact (arbitrary precision), an int plus a float is a float, floats add in plain
 *   left-to-right order (no compensated summation, unlike CPython 3.12+);
 * - `iterable` is positional-only, `start` may be given by position or keyword;
 * - a string or bytes `start` is rejected (`sum: can't sum strings [use "".join(seq) instead]`), as in
 *   Python; elements that `+` cannot add fail with the `+` error, prefixed with `sum: `
 *   (e.g. `sum: unknown binary op: int + string`);
 * - anything `+` accepts works, e.g. `sum([[1], [2]], [])` concatenates lists.
 *
 * @module
 */
import {
  anyArg,
  binary,
  Builtin,
  Bytes,
  EvalError,
  Float,
  iterableArg,
  iterate,
  type Kwargs,
  type Thread,
  unpackArgs,
  type Value,
} from "../values/mod.ts";

function sumFn(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [iterable, start] = unpackArgs("sum", args, kwargs, ["iterable", iterableArg], ["start?", anyArg]);
  if (args.length < 1) throw new EvalError("sum: unexpected keyword argument iterable");
  let acc: Value = start === undefined ? 0 : start;
  if (typeof acc === "string") throw new EvalError(`sum: can't sum strings [use "".join(seq) instead]`);
  if (acc instanceof Bytes) throw new EvalError(`sum: can't sum bytes [use b"".join(seq) instead]`);
  const it = iterate(iterable as Value);
  try {
    for (let x = it.next(); x !== undefined; x = it.next()) {
      thread.charge(1);
      // Float + float is the common case after the first element; skip the generic dispatch.
      if (acc instanceof Float && x instanceof Float) acc = new Float(acc.value + x.value);
      else acc = binary(thread, "+", acc, x);
    }
  } catch (e) {
    // Name the built-in in operand errors (`sum: unknown binary op: int + string`).
    if (e instanceof EvalError && e.constructor === EvalError) throw new EvalError(`sum: ${e.message}`);
    throw e;
  } finally {
    it.done();
  }
  return acc;
}

/** The `sum(iterable, start=0)` built-in. */
export const sum: Builtin = new Builtin("sum", sumFn);
