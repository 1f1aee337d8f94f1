/**
 * Calling any callable Starlark value from TypeScript (built-ins such as `sorted(key=...)` need it, and
 * hosts use it to call a program's functions, e.g. `main`).
 *
 * @module
 */
import { callBuiltin, callFunction } from "../eval/calls.ts";
import { StarFunction } from "../eval/function.ts";
import { Builtin, EvalError, type Kwargs, type Thread, typeName, type Value } from "./value.ts";

/**
 * Calls `fn` (a Starlark function, lambda or Builtin) with positional `args` and keyword `kwargs`.
 * Errors carry the Starlark call stack from this call inwards.
 *
 * @throws {EvalError} `invalid call of non-function (T)` when `fn` is not callable, or any error of the call.
 * @throws {ResourceError} when a budget is exhausted or the execution is cancelled.
 */
export function call(thread: Thread, fn: Value, args: Value[], kwargs: Kwargs): Value {
  if (fn instanceof StarFunction) {
    return callFunction(thread, fn, args, kwargs.length === 0 ? null : kwargs, null);
  }
  if (fn instanceof Builtin) return callBuiltin(thread, fn, args, kwargs, null);
  throw new EvalError(`invalid call of non-function (${typeName(fn)})`);
}
