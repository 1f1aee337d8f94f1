/**
 * Compiled unary and binary operators. Each operator gets its own closure with an inline fast path for
 * small ints (JS numbers) and strings; everything else goes to the shared operations of values/ops.ts, whose
 * errors are tagged with the operator's position.
 *
 * @module
 */
import {
  binary,
  Dict,
  Float,
  LONG_KEY_LENGTH,
  type Thread,
  truth,
  unary,
  type Value,
} from "../values/mod.ts";
import type { BinaryOp, UnaryOp } from "../syntax/ast.ts";
import { atPos } from "./errors.ts";
import { type ExprFn, F_THREAD, type Pos } from "./function.ts";

const MAX = 9007199254740991;

/** `op` applied by ops.binary, with errors located at `pos`. */
export function slowBinary(th: Thread, op: BinaryOp, x: Value, y: Value, pos: Pos): Value {
  try {
    return binary(th, op, x, y);
  } catch (e) {
    throw atPos(e, pos);
  }
}

/** `op` applied by ops.unary, with errors located at `pos`. */
export function slowUnary(th: Thread, op: UnaryOp, x: Value, pos: Pos): Value {
  try {
    return unary(th, op, x);
  } catch (e) {
    throw atPos(e, pos);
  }
}

/** Truth of a condition, with the boolean case inline. */
export function isTrue(v: Value): boolean {
  return v === true ? true : v === false ? false : truth(v);
}

/** The arithmetic of `x op y` for two small ints, or `undefined` when the fast path does not apply. */
export function fastIntOp(op: BinaryOp, x: number, y: number): number | undefined {
  switch (op) {
    case "+": {
      const z = x + y;
      return z <= MAX && z >= -MAX ? z : undefined;
    }
    case "-": {
      const z = x - y;
      return z <= MAX && z >= -MAX ? z : undefined;
    }
    case "*": {
      const z = x * y;
      return z <= MAX && z >= -MAX ? z + 0 : undefined; // + 0 turns -0 into 0
    }
    case "//":
      if ((x | 0) === x && (y | 0) === y && y !== 0) return Math.floor(x / y) + 0;
      return undefined;
    case "%":
      if ((x | 0) === x && (y | 0) === y && y !== 0) {
        let r = x % y;
        if (r !== 0 && (r < 0) !== (y < 0)) r += y;
        return r + 0;
      }
      return undefined;
    case "&":
      return (x | 0) === x && (y | 0) === y ? x & y : undefined;
    case "|":
      return (x | 0) === x && (y | 0) === y ? x | y : undefined;
    case "^":
      return (x | 0) === x && (y | 0) === y ? x ^ y : undefined;
    case ">>":
      return (x | 0) === x && y >= 0 && y < 32 ? x >> y : undefined;
    case "<<":
      if ((x | 0) === x && y >= 0 && y < 32) {
        const z = x * 2 ** y;
        return z <= MAX && z >= -MAX ? z : undefined;
      }
      return undefined;
  }
  return undefined;
}

/** Compiles `X op Y` (not `and`/`or`, not `not in`'s negation, which ops.binary handles). */
export function binaryOp(op: BinaryOp, X: ExprFn, Y: ExprFn, pos: Pos): ExprFn {
  switch (op) {
    case "+":
      return (fr) => {
        const x = X(fr), y = Y(fr);
        if (typeof x === "number" && typeof y === "number") {
          const z = x + y;
          if (z <= MAX && z >= -MAX) return z;
        }
        if (x instanceof Float && y instanceof Float) return new Float(x.value + y.value);
        return slowBinary(fr[F_THREAD] as Thread, "+", x, y, pos);
      };
    case "-":
      return (fr) => {
        const x = X(fr), y = Y(fr);
        if (typeof x === "number" && typeof y === "number") {
          const z = x - y;
          if (z <= MAX && z >= -MAX) return z;
        }
        if (x instanceof Float && y instanceof Float) return new Float(x.value - y.value);
        return slowBinary(fr[F_THREAD] as Thread, "-", x, y, pos);
      };
    case "*":
      return (fr) => {
        const x = X(fr), y = Y(fr);
        if (typeof x === "number" && typeof y === "number") {
          const z = x * y;
          if (z <= MAX && z >= -MAX) return z + 0;
        }
        if (x instanceof Float && y instanceof Float) return new Float(x.value * y.value);
        return slowBinary(fr[F_THREAD] as Thread, "*", x, y, pos);
      };
    case "<":
      return (fr) => {
        const x = X(fr), y = Y(fr);
        if (typeof x === "number" && typeof y === "number") return x < y;
        if (typeof x === "string" && typeof y === "string" && (x.length < 64 || y.length < 64)) return x < y;
        return slowBinary(fr[F_THREAD] as Thread, "<", x, y, pos);
      };
    case "<=":
      return (fr) => {
        const x = X(fr), y = Y(fr);
        if (typeof x === "number" && typeof y === "number") return x <= y;
        if (typeof x === "string" && typeof y === "string" && (x.length < 64 || y.length < 64)) return x <= y;
        return slowBinary(fr[F_THREAD] as Thread, "<=", x, y, pos);
      };
    case ">":
      return (fr) => {
        const x = X(fr), y = Y(fr);
        if (typeof x === "number" && typeof y === "number") return x > y;
        if (typeof x === "string" && typeof y === "string" && (x.length < 64 || y.length < 64)) return x > y;
        return slowBinary(fr[F_THREAD] as Thread, ">", x, y, pos);
      };
    case ">=":
      return (fr) => {
        const x = X(fr), y = Y(fr);
        if (typeof x === "number" && typeof y === "number") return x >= y;
        if (typeof x === "string" && typeof y === "string" && (x.length < 64 || y.length < 64)) return x >= y;
        return slowBinary(fr[F_THREAD] as Thread, ">=", x, y, pos);
      };
    case "==":
      return (fr) => {
        const x = X(fr), y = Y(fr);
        if (typeof x === "number" && typeof y === "number") return x === y;
        if (typeof x === "string" && typeof y === "string" && (x.length < 64 || y.length < 64)) {
          return x === y;
        }
        return slowBinary(fr[F_THREAD] as Thread, "==", x, y, pos);
      };
    case "!=":
      return (fr) => {
        const x = X(fr), y = Y(fr);
        if (typeof x === "number" && typeof y === "number") return x !== y;
        if (typeof x === "string" && typeof y === "string" && (x.length < 64 || y.length < 64)) {
          return x !== y;
        }
        return slowBinary(fr[F_THREAD] as Thread, "!=", x, y, pos);
      };
    case "in":
    case "not in": {
      const want = op === "in";
      return (fr) => {
        const x = X(fr), y = Y(fr);
        // Strings and ints are their own dict hash keys (a long string is charged for the comparison).
        if (
          y instanceof Dict &&
          (typeof x === "number" || (typeof x === "string" && x.length <= LONG_KEY_LENGTH))
        ) {
          return (y.getByHash(x) !== undefined) === want;
        }
        return slowBinary(fr[F_THREAD] as Thread, op, x, y, pos);
      };
    }
    case "//":
    case "%":
    case "&":
    case "|":
    case "^":
    case "<<":
    case ">>":
      return (fr) => {
        const x = X(fr), y = Y(fr);
        if (typeof x === "number" && typeof y === "number") {
          const z = fastIntOp(op, x, y);
          if (z !== undefined) return z;
        }
        return slowBinary(fr[F_THREAD] as Thread, op, x, y, pos);
      };
    default:
      return (fr) => {
        const x = X(fr), y = Y(fr);
        return slowBinary(fr[F_THREAD] as Thread, op, x, y, pos);
      };
  }
}

/** Compiles a unary operator. */
export function unaryOp(op: UnaryOp, X: ExprFn, pos: Pos): ExprFn {
  switch (op) {
    case "not":
      return (fr) => !isTrue(X(fr));
    case "-":
      return (fr) => {
        const x = X(fr);
        if (typeof x === "number") return x === 0 ? 0 : -x;
        return slowUnary(fr[F_THREAD] as Thread, "-", x, pos);
      };
    case "+":
      return (fr) => {
        const x = X(fr);
        if (typeof x === "number") return x;
        return slowUnary(fr[F_THREAD] as Thread, "+", x, pos);
      };
    case "~":
      return (fr) => {
        const x = X(fr);
        if (typeof x === "number" && (x | 0) === x) return ~x;
        return slowUnary(fr[F_THREAD] as Thread, "~", x, pos);
      };
  }
}
