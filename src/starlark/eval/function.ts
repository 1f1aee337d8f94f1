/**
 * Compiled code, frames, cells and the Starlark `function` value.
 *
 * A frame is a plain array: a few fixed slots (thread, module, captured cells, return value) followed by
 * the function's local variables. An unassigned local holds `undefined` (distinct from `None`, which is
 * `null`). A local captured by a nested function lives in a {@link Cell} stored in its slot.
 *
 * @module
 */
import { freeze, StarObject, type Thread, type Value } from "../values/mod.ts";
import type { Stmt } from "../syntax/ast.ts";

/** A frame: fixed slots then locals. Slot types are documented by the F_* constants. */
export type Frame = unknown[];

/** Slot of the {@link Thread}. */
export const F_THREAD = 0;
/** Slot of the {@link ModuleInstance}. */
export const F_MODULE = 1;
/** Slot of the function's captured cells (`Cell[]`). */
export const F_FREE = 2;
/** Slot of the return value (initially `None`). */
export const F_RESULT = 3;
/** Index of the first local variable. */
export const F_LOCALS = 4;

/** A source position. */
export interface Pos {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly col: number;
}

/** A box holding a variable shared between a function and the closures it creates. */
export class Cell {
  /** The value, or `undefined` while unassigned. */
  v: Value | undefined;
  /** Creates a cell. */
  constructor(v: Value | undefined) {
    this.v = v;
  }
}

/** Statement completion codes. */
export const NORMAL = 0;
/** `break` completion. */
export const BREAK = 1;
/** `continue` completion. */
export const CONTINUE = 2;
/** `return` completion (the value is in the frame's result slot). */
export const RETURN = 3;

/** A compiled statement: runs and returns a completion code. */
export type StmtFn = (fr: Frame) => number;
/** A compiled expression. */
export type ExprFn = (fr: Frame) => Value;

/** The module-level state of one execution of a program: its globals and predeclared values. */
export interface ModuleInstance {
  /** File name, for tracebacks. */
  readonly filename: string;
  /** Global variables by slot; `undefined` while unassigned. */
  readonly globals: (Value | undefined)[];
  /** Names of the global slots. */
  readonly globalNames: readonly string[];
  /** Predeclared values by the compiler's predeclared slot; `undefined` when the host did not supply one. */
  readonly predeclared: (Value | undefined)[];
}

/** Compiled code of a function, lambda or module top level; shared by every function value made from it. */
export class FuncCode {
  /** Name (`lambda` for lambdas, `<toplevel>` for module code). */
  readonly name: string;
  /** File name. */
  readonly filename: string;
  /** Position of `def`/`lambda`. */
  readonly pos: Pos;
  /**
   * Position the reference reports for the function's own frame before its first instruction runs
   * (argument binding errors, recursion errors).
   */
  entryPos: Pos;
  /** Parameter names in slot order (named parameters, then `*args`, then `**kwargs`). */
  readonly paramNames: readonly string[];
  /** Number of parameters including `*args`/`**kwargs`. */
  readonly numParams: number;
  /** Number of keyword-only parameters. */
  readonly numKwonly: number;
  /** Whether there is a `*args` parameter. */
  readonly hasVarargs: boolean;
  /** Whether there is a `**kwargs` parameter. */
  readonly hasKwargs: boolean;
  /** True when binding is positional only: no `*args`, `**kwargs` or keyword-only parameters. */
  readonly simple: boolean;
  /** Frame slots of the locals that are cells. */
  readonly cellSlots: readonly number[];
  /** Total frame size. */
  readonly frameSize: number;
  /** Whether recursive calls are allowed (dialect `recursion` at compile time). */
  readonly recursion: boolean;
  /** Compiled body (set once compiled); it does not charge its own top-level statements. */
  body: StmtFn;
  /**
   * When the body is a single `return EXPR`: EXPR, which a call evaluates directly (same steps, same
   * errors, one closure call less).
   */
  expr: ExprFn | null = null;
  /** Steps charged per call: one for the call plus one per top-level statement of the body. */
  bodySteps = 1;
  /** Number of active calls (used to detect recursion). */
  active = 0;
  /**
   * Builds the generator form of the body that deep calls run (deep.ts), or null where there is none
   * (recursion off: depth is then bounded by the number of functions).
   */
  deepMaker: ((code: FuncCode) => unknown) | null = null;
  /** The generator form of the body, built on the first deep call; null when there is none. */
  deepBody: unknown = undefined;
  /** Frame template: fixed slots and unassigned locals, copied on each call. */
  readonly template: Frame;
  /** The body statements (kept for diagnostics). */
  readonly stmts: readonly Stmt[];

  /** Creates code; the compiler fills `body` and `entryPos`. */
  constructor(init: {
    name: string;
    filename: string;
    pos: Pos;
    paramNames: string[];
    numKwonly: number;
    hasVarargs: boolean;
    hasKwargs: boolean;
    cellSlots: number[];
    numLocals: number;
    recursion: boolean;
    stmts: readonly Stmt[];
  }) {
    this.name = init.name;
    this.filename = init.filename;
    this.pos = init.pos;
    this.entryPos = init.pos;
    this.paramNames = init.paramNames;
    this.numParams = init.paramNames.length;
    this.numKwonly = init.numKwonly;
    this.hasVarargs = init.hasVarargs;
    this.hasKwargs = init.hasKwargs;
    this.simple = !init.hasVarargs && !init.hasKwargs && init.numKwonly === 0;
    this.cellSlots = init.cellSlots;
    this.frameSize = F_LOCALS + init.numLocals;
    this.recursion = init.recursion;
    this.body = () => NORMAL;
    this.stmts = init.stmts;
    const t: Frame = [];
    for (let i = 0; i < this.frameSize; i++) t.push(undefined);
    t[F_RESULT] = null;
    this.template = t;
  }
}

/** Marks a keyword-only parameter without default in a function's defaults. */
export const MANDATORY: unique symbol = Symbol("mandatory");

/** A default value, or {@link MANDATORY}. */
export type DefaultValue = Value | typeof MANDATORY;

/** A Starlark function or lambda value. */
export class StarFunction extends StarObject {
  /** @internal The compiled code. */
  readonly code: FuncCode;
  /** @internal The module instance the function was defined in. */
  readonly module: ModuleInstance;
  /** @internal Defaults of the trailing named parameters (keyword-only ones without default are MANDATORY). */
  readonly defaults: DefaultValue[];
  /** @internal Captured cells, in the order of the code's free variables. */
  readonly freevars: Cell[];
  /** Whether the function has been frozen. */
  frozen = false;

  /** @internal Function values are created by the interpreter when it executes `def` or `lambda`. */
  constructor(code: FuncCode, module: ModuleInstance, defaults: DefaultValue[], freevars: Cell[]) {
    super();
    this.code = code;
    this.module = module;
    this.defaults = defaults;
    this.freevars = freevars;
  }

  /** Always `"function"`. */
  get typeName(): string {
    return "function";
  }

  /** The function's name (`lambda` for lambdas). */
  get name(): string {
    return this.code.name;
  }

  /** `<function NAME>`. */
  starlarkRepr(): string {
    return `<function ${this.code.name}>`;
  }

  /** Freezes the values the function can reach: its defaults and the current values of its captured variables. */
  freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const d of this.defaults) if (d !== MANDATORY) freeze(d);
    for (const c of this.freevars) if (c.v !== undefined) freeze(c.v);
  }
}

/** The current thread's nesting of Starlark calls (all threads of this isolate share one JS stack). */
export const callDepth = { n: 0 };

/** Creates a frame for `code` running on `thread`. */
export function newFrame(code: FuncCode, thread: Thread, module: ModuleInstance, free: Cell[]): Frame {
  // Array literals are allocated inline by optimized code, noticeably faster than copying a template.
  const u = undefined;
  switch (code.frameSize) {
    case 4:
      return [thread, module, free, null];
    case 5:
      return [thread, module, free, null, u];
    case 6:
      return [thread, module, free, null, u, u];
    case 7:
      return [thread, module, free, null, u, u, u];
    case 8:
      return [thread, module, free, null, u, u, u, u];
    case 9:
      return [thread, module, free, null, u, u, u, u, u];
    case 10:
      return [thread, module, free, null, u, u, u, u, u, u];
    case 11:
      return [thread, module, free, null, u, u, u, u, u, u, u];
    case 12:
      return [thread, module, free, null, u, u, u, u, u, u, u, u];
    default: {
      const fr = code.template.slice();
      fr[F_THREAD] = thread;
      fr[F_MODULE] = module;
      fr[F_FREE] = free;
      return fr;
    }
  }
}
