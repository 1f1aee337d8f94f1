/**
 * Unary operators `+ - ~ not`, with the reference implementation's messages.
 *
 * @module
 */
import { intNeg, intNot } from "./int.ts";
import { linearResult } from "./int_cost.ts";
import { truth } from "./ops_compare.ts";
import type { UnaryOp } from "./operators.ts";
import { EvalError, Float, typeName } from "./value.ts";
import type { Thread, Value } from "./value.ts";

/**
 * Implemented by host values that define `-x`, `+x` or `~x` (the reference's `HasUnary`); return
 * `undefined` when unsupported.
 */
export interface StarlarkHasUnary {
  /** The result of the operator applied to this value. */
  starlarkUnary(op: "+" | "-" | "~"): Value | undefined;
}

/** Unary operator. */
export function unary(thread: Thread, op: UnaryOp, x: Value): Value {
  if (op === "not") return !truth(x);
  if (typeof x === "number" || typeof x === "bigint") {
    if (op === "-") return linearResult(thread, intNeg(x));
    if (op === "+") return x;
    return linearResult(thread, intNot(x));
  }
  if (x instanceof Float) {
    if (op === "-") return new Float(-x.value);
    if (op === "+") return x;
  }
  const h = (x as Partial<StarlarkHasUnary> | null)?.starlarkUnary;
  if (typeof h === "function") {
    const z = h.call(x, op);
    if (z !== undefined) return z;
  }
  throw new EvalError(`unknown unary op: ${op} ${typeName(x)}`);
}
