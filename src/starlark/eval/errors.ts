/**
 * How runtime errors acquire their Starlark call stack.
 *
 * Nothing is recorded on the happy path. When an operation fails, the error is tagged with the position
 * of the failing operation in the innermost active function (`pending`). As the error leaves that
 * function, the interpreter prepends a frame `{name, file, pending}` to `callStack` and sets `pending` to
 * the call site in the caller, and so on outwards; a built-in adds a `<builtin>` frame. At every public
 * entry point (`Program.run`, `call`) the stack is therefore complete, innermost frame last.
 *
 * Errors that are not Starlark errors are normalized on first contact: an unhashable key becomes an
 * EvalError, a JS stack overflow becomes a `depth` ResourceError, and any other JS exception (a bug in a
 * built-in) becomes an {@link InternalError} so that it never escapes as an unexplained crash.
 *
 * @module
 */
import {
  CallDepthError,
  type CallFrame,
  EvalError,
  ResourceError,
  StarlarkError,
  UnhashableError,
} from "../values/mod.ts";
import type { FuncCode, Pos } from "./function.ts";

/** A JS exception raised by a buggy built-in or host hook, surfaced as a Starlark error. */
export class InternalError extends EvalError {
  /** Wraps `cause`; the message starts with `internal error: `. */
  constructor(message: string, cause: unknown) {
    super(`internal error: ${message}`);
    this.name = "InternalError";
    this.cause = cause;
  }
}

const UNWIND: unique symbol = Symbol("starlark.unwind");

/** An error that records its call stack as it propagates. */
type Unwinding = (EvalError | CallDepthError) & { [UNWIND]?: { pending: Pos | null } };

/**
 * Classifies JS engine errors that mean "out of resources": a stack overflow (V8's RangeError, or the
 * regexp engine's own overflow error) or a string/array too large to allocate.
 */
function resourceKind(e: unknown): "depth" | "memory" | undefined {
  if (!(e instanceof Error)) return undefined;
  const m = e.message;
  if (m.includes("call stack") || m.includes("Stack overflow")) return "depth";
  if (
    e instanceof RangeError && (m.includes("Invalid string length") || m.includes("Invalid array length"))
  ) {
    return "memory";
  }
  return undefined;
}

/** The error raised when the JS stack runs out (deep recursion through built-ins, or huge nesting). */
export function stackOverflowError(): ResourceError {
  return new ResourceError("depth", "Starlark stack overflow (nesting too deep)");
}

/**
 * Normalizes a thrown value. Returns the EvalError to annotate, or `undefined` when the value must pass
 * through untouched (resource errors, syntax errors, and EvalErrors with a stack built elsewhere); in
 * that case `passthrough` receives the value to rethrow.
 */
function normalize(e: unknown): Unwinding | { passthrough: unknown } {
  if (e instanceof EvalError || e instanceof CallDepthError) {
    const u = e as Unwinding;
    if (u[UNWIND] !== undefined) return u;
    if (e.callStack.length > 0) return { passthrough: e }; // complete stack from another execution
    u[UNWIND] = { pending: null };
    return u;
  }
  if (e instanceof StarlarkError) return { passthrough: e };
  let out: EvalError;
  const kind = resourceKind(e);
  if (kind === "depth") return { passthrough: stackOverflowError() };
  if (kind === "memory") {
    return { passthrough: new ResourceError("memory", "Starlark computation cancelled: value too large") };
  }
  if (e instanceof UnhashableError) out = new EvalError(e.message);
  else if (e instanceof Error) out = new InternalError(e.message, e);
  else out = new InternalError(String(e), e);
  const u = out as Unwinding;
  u[UNWIND] = { pending: null };
  return u;
}

/** Annotates `e` with the position of the failing operation (unless an inner operation already did). */
export function atPos(e: unknown, pos: Pos): unknown {
  const u = normalize(e);
  if ("passthrough" in u) return u.passthrough;
  const w = u[UNWIND]!;
  if (w.pending === null) w.pending = pos;
  return u;
}

/** A new EvalError raised at `pos`. */
export function errorAt(msg: string, pos: Pos): EvalError {
  const e = new EvalError(msg) as Unwinding;
  e[UNWIND] = { pending: pos };
  return e;
}

/** Records the frame of `code` as the error leaves it; `site` is the call's position in the caller. */
export function leaveFunction(e: unknown, code: FuncCode, site: Pos | null): unknown {
  const u = normalize(e);
  if ("passthrough" in u) return u.passthrough;
  const w = u[UNWIND]!;
  const p = w.pending ?? code.entryPos;
  u.callStack.unshift({ name: code.name, filename: code.filename, line: p.line, col: p.col });
  w.pending = site;
  return u;
}

/** A frame an error leaves: a Starlark function's (`code`), or a built-in's (`code` null, `builtin`). */
export interface LeftFrame {
  /** The function's code, or null for a built-in. */
  readonly code: FuncCode | null;
  /** The built-in's name (when `code` is null). */
  readonly builtin: string;
  /** The call's position in the caller. */
  readonly site: Pos | null;
}

/**
 * {@link leaveFunction} (or {@link leaveBuiltin}) for frames an error leaves one after another, innermost first: the frames are
 * prepended at once, so that unwinding a deep recursion stays linear.
 */
export function leaveFunctions(e: unknown, frames: readonly LeftFrame[]): unknown {
  const u = normalize(e);
  if ("passthrough" in u) return u.passthrough;
  const w = u[UNWIND]!;
  const n = frames.length;
  const stack: CallFrame[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const { code, site } = frames[i];
    if (code === null) {
      stack[n - 1 - i] = { name: frames[i].builtin, filename: "<builtin>", line: 0, col: 0 };
    } else {
      const p = w.pending ?? code.entryPos;
      stack[n - 1 - i] = { name: code.name, filename: code.filename, line: p.line, col: p.col };
    }
    w.pending = site;
  }
  for (const f of u.callStack) stack.push(f);
  u.callStack = stack;
  return u;
}

/** Records a built-in's frame as the error leaves it; `site` is the call's position in the caller. */
export function leaveBuiltin(e: unknown, name: string, site: Pos | null): unknown {
  const u = normalize(e);
  if ("passthrough" in u) return u.passthrough;
  const w = u[UNWIND]!;
  u.callStack.unshift({ name, filename: "<builtin>", line: 0, col: 0 });
  w.pending = site;
  return u;
}
