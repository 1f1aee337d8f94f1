/**
 * Calling any callable Starlark value from TypeScript (built-ins such as `sorted(key=...)` need it).
 *
 * CONTRACT STUB: the signature is fixed; the interpreter helper implements the body.
 *
 * @module
 */
import type { Kwargs, Thread, Value } from "./value.ts";

/**
 * Calls `fn` (a Starlark function, lambda or Builtin) with positional `args` and keyword `kwargs`.
 * Throws EvalError `invalid call of non-function (T)` when `fn` is not callable.
 */
export function call(_thread: Thread, _fn: Value, _args: Value[], _kwargs: Kwargs): Value {
  throw new Error("not implemented yet");
}
