/**
 * Operations on Starlark values: truth, equality, ordering, arithmetic, indexing, attributes,
 * iteration, repr/str and freezing. The interpreter and the built-ins share these.
 *
 * CONTRACT STUB: signatures are fixed; bodies are being implemented (owner: values helper).
 *
 * @module
 */
import type { BinaryOp, UnaryOp } from "./syntax/ast.ts";
import type { Thread, Value } from "./value.ts";

/** Iteration protocol used by `for`, comprehensions and built-ins. */
export interface ValueIterator {
  /** Next element, or `undefined` when exhausted. */
  next(): Value | undefined;
  /** Ends the iteration (decrements the container's `itercount`). Idempotent. */
  done(): void;
}

function todo(): never {
  throw new Error("not implemented yet");
}

/** Truth value (`bool(x)`). */
export function truth(_x: Value): boolean {
  return todo();
}
/** `x == y`. Throws EvalError on excessive recursion. */
export function equals(_x: Value, _y: Value): boolean {
  return todo();
}
/** Three-way comparison for ordered types; throws EvalError `unsupported comparison: T < U`-style. */
export function compare(_op: "<" | "<=" | ">" | ">=", _x: Value, _y: Value): boolean {
  return todo();
}
/** Three-way comparison (negative, zero, positive) used by sorted/min/max. */
export function compareValues(_x: Value, _y: Value): number {
  return todo();
}
/** Binary operator other than `and`/`or` (which the interpreter short-circuits). */
export function binary(_thread: Thread, _op: BinaryOp, _x: Value, _y: Value): Value {
  return todo();
}
/** Unary operator. */
export function unary(_thread: Thread, _op: UnaryOp, _x: Value): Value {
  return todo();
}
/** `x[i]`. */
export function getIndex(_thread: Thread, _x: Value, _i: Value): Value {
  return todo();
}
/** `x[i] = v`. */
export function setIndex(_thread: Thread, _x: Value, _i: Value, _v: Value): void {
  return todo();
}
/** `x[lo:hi:step]` (absent parts are `null`... but note None is also null: absent == None, as in the spec). */
export function slice(_thread: Thread, _x: Value, _lo: Value, _hi: Value, _step: Value): Value {
  return todo();
}
/** `x.name`: fields, module members and bound methods. */
export function getAttr(_thread: Thread, _x: Value, _name: string): Value {
  return todo();
}
/** Names of `x`'s attributes, sorted (`dir(x)`). */
export function attrNames(_x: Value): string[] {
  return todo();
}
/** Starts iterating; throws EvalError when `x` is not iterable. */
export function iterate(_x: Value): ValueIterator {
  return todo();
}
/** Length of a sequence or mapping, or -1 when `x` has none. */
export function len(_x: Value): number {
  return todo();
}
/** `repr(x)` as a binary string. */
export function repr(_x: Value): string {
  return todo();
}
/** `str(x)` as a binary string. */
export function str(_x: Value): string {
  return todo();
}
/** Freezes `x` and everything reachable from it. */
export function freeze(_x: Value): void {
  return todo();
}
