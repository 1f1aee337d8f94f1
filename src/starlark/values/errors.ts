/**
 * The errors of the Starlark value model: the engine's error hierarchy (runtime, resource and syntax
 * errors) and the error for unhashable dict keys. A leaf module: it imports nothing else of the engine,
 * so every other value module can depend on it. Import these names from `value.ts` (or, outside
 * `values/`, from `mod.ts`).
 *
 * @module
 */

/** Thrown for values that cannot be dict keys or set elements. */
export class UnhashableError extends Error {
  /** Type name of the offending value. */
  readonly typeName: string;
  /** Builds the reference's message `unhashable type: T`. */
  constructor(typeName: string) {
    super(`unhashable type: ${typeName}`);
    this.typeName = typeName;
  }
}

/** Base class of every error the engine raises on purpose. */
export class StarlarkError extends Error {}

/** One frame of a Starlark call stack. */
export interface CallFrame {
  /** Function name (`<toplevel>` for module code, `<lambda>` for lambdas, builtin name for builtins). */
  name: string;
  /** File name. */
  filename: string;
  /** Line of the active call or failing operation (0 for builtins). */
  line: number;
  /** Column. */
  col: number;
}

/** A Starlark runtime error (`fail()`, type errors, key errors...), with the call stack where it happened. */
export class EvalError extends StarlarkError {
  /** Innermost frame last, like Python tracebacks. */
  callStack: CallFrame[];
  /** Creates an error; the interpreter fills the call stack as the error propagates. */
  constructor(message: string, callStack: CallFrame[] = []) {
    super(message);
    this.name = "EvalError";
    this.callStack = callStack;
  }
  /** The error with its traceback, in the reference's format. */
  backtrace(): string {
    // Like the reference, an innermost built-in frame is named in the final line instead of listed.
    let frames = this.callStack;
    let where = "";
    const last = frames[frames.length - 1];
    if (last !== undefined && last.line === 0) {
      where = ` in ${last.name}`;
      frames = frames.slice(0, -1);
    }
    let s = "Traceback (most recent call last):\n";
    for (const f of frames) {
      s += f.line > 0 ? `  ${f.filename}:${f.line}:${f.col}: in ${f.name}\n` : `  <builtin>: in ${f.name}\n`;
    }
    return s + `Error${where}: ` + this.message;
  }
}

/**
 * Thrown by a host value's `starlarkAttr` or `setField` when it has no such field (the reference's
 * `NoSuchAttrError`): its message is used as is, and the engine appends a spelling hint
 * (`(did you mean .x?)`) from the value's attribute names.
 */
export class NoSuchAttrError extends EvalError {
  /** Creates the error, e.g. `new NoSuchAttrError("point has no .z attribute")`. */
  constructor(message: string) {
    super(message);
    this.name = "NoSuchAttrError";
  }
}

/** Which budget was exhausted. */
export type ResourceKind = "steps" | "memory" | "depth" | "cancelled";

/** A budget was exhausted (steps, memory, nesting depth) or the host cancelled the execution. */
export class ResourceError extends StarlarkError {
  /** Which budget. */
  readonly resource: ResourceKind;
  /** Creates a resource error. */
  constructor(resource: ResourceKind, message: string) {
    super(message);
    this.name = "ResourceError";
    this.resource = resource;
  }
}

/** A scan, parse or resolve error at a source position. */
export class StarlarkSyntaxError extends StarlarkError {
  /** File name. */
  readonly filename: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly col: number;
  /** The bare message without the position. */
  readonly msg: string;
  /** Message is rendered `file:line:col: msg` like the reference. */
  constructor(filename: string, line: number, col: number, msg: string) {
    super(`${filename}:${line}:${col}: ${msg}`);
    this.name = "StarlarkSyntaxError";
    this.filename = filename;
    this.line = line;
    this.col = col;
    this.msg = msg;
  }
}

/**
 * A call past the thread's `maxCallDepth` (a `depth` ResourceError) that, like an {@link EvalError},
 * records the Starlark call stack as it propagates, so that the command line can print the reference's
 * traceback. Hosts that show only the message (the CodeMode path) are unaffected.
 */
export class CallDepthError extends ResourceError {
  /** Innermost frame last, like {@link EvalError.callStack}. */
  callStack: CallFrame[] = [];
  /** Creates the error; the interpreter fills the call stack as it propagates. */
  constructor(message: string) {
    super("depth", message);
    this.name = "CallDepthError";
  }
  /** The traceback and final line the reference command prints for a stack overflow. */
  backtrace(): string {
    let s = "Traceback (most recent call last):\n";
    for (const f of this.callStack) {
      s += f.line > 0 ? `  ${f.filename}:${f.line}:${f.col}: in ${f.name}\n` : `  <builtin>: in ${f.name}\n`;
    }
    return s + "Error: Starlark stack overflow";
  }
}
