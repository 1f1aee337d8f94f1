/**
 * Calling any callable Starlark value from TypeScript: built-ins call back through it (`sorted(key=...)`,
 * `min(key=...)`), and hosts use it to call a program's functions, e.g. `main`.
 *
 * Running a Starlark function, and recording a call's frame in an error's traceback, is the evaluator's
 * business, and the evaluator sits above the library that calls back through here. So the evaluator
 * installs its implementation when its module loads ({@link installCalls}) and this layer forwards to
 * it: the built-ins never import the evaluator.
 *
 * @module
 */
import type { Kwargs, Thread, Value } from "./value.ts";

/** How the evaluator calls a value on behalf of a built-in or the host (there is no Starlark call site). */
export interface CallProtocol {
  /** Calls `fn` with positional `args` and keyword `kwargs`. */
  call(thread: Thread, fn: Value, args: Value[], kwargs: Kwargs): Value;
  /** Calls `fn` with one positional argument, the common case of a `key` function. */
  callOne(thread: Thread, fn: Value, a: Value): Value;
}

let installed: CallProtocol | undefined;

/** Installs the evaluator's calling implementation; the evaluator does this once, when it loads. */
export function installCalls(protocol: CallProtocol): void {
  installed = protocol;
}

function protocol(): CallProtocol {
  // Only reachable by loading the library without the evaluator (the engine's entry loads both): a
  // wiring bug, which a built-in's caller reports as an internal error.
  if (installed === undefined) throw new Error("the Starlark evaluator is not loaded");
  return installed;
}

/**
 * Calls `fn` (a Starlark function, lambda or Builtin) with positional `args` and keyword `kwargs`.
 * Errors carry the Starlark call stack from this call inwards.
 *
 * @throws {EvalError} `invalid call of non-function (T)` when `fn` is not callable, or any error of the call.
 * @throws {ResourceError} when a budget is exhausted or the execution is cancelled.
 */
export function call(thread: Thread, fn: Value, args: Value[], kwargs: Kwargs): Value {
  return protocol().call(thread, fn, args, kwargs);
}

/**
 * Calls `fn` with one positional argument from a built-in (e.g. a `key` function); a one-parameter
 * Starlark function or lambda has its frame bound directly.
 *
 * @throws {EvalError} `invalid call of non-function (T)`, or any error of the call.
 */
export function callOne(thread: Thread, fn: Value, a: Value): Value {
  return protocol().callOne(thread, fn, a);
}
