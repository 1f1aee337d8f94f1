/**
 * A Starlark interpreter in pure TypeScript: the language of the reference Go implementation
 * (go.starlark.net) with its built-ins, `json` and `math` modules, dialect options and error messages,
 * plus hard budgets (steps, memory, call depth) and cooperative cancellation for running untrusted code.
 *
 * The engine uses no Deno or Node APIs and exposes no JS to programs.
 *
 * ```ts
 * import { call, execFile, List, standardPredeclared, toJSString } from "./mod.ts";
 *
 * const out: string[] = [];
 * const { globals, thread } = execFile(
 *   'def main(n):\n    return json.encode([x * x for x in range(n)])\nprint("ready")\n',
 *   {
 *     filename: "squares.star",
 *     predeclared: standardPredeclared(),
 *     maxSteps: 100_000,
 *     print: (_thread, msg) => out.push(toJSString(msg)),
 *   },
 * );
 * const result = call(thread, globals.get("main")!, [4], []);
 * console.log(out, result); // [ "ready" ] [0,1,4,9]
 * ```
 *
 * Values: `None` is `null`, `bool` is `boolean`, `int` is a `number` (or a `bigint` beyond ±2^53−1),
 * `string` is a JS string of UTF-8 bytes (see {@link fromJSString}/{@link toJSString}, or
 * {@link fromJS}/{@link toJS} for whole values); the other types are the classes exported here.
 *
 * Errors: compile errors are {@link StarlarkSyntaxError}s; runtime errors are {@link EvalError}s whose
 * `callStack` lists the Starlark frames (innermost last; a built-in's frame has line 0). A host built-in
 * ({@link Builtin}) reports a Starlark error by throwing an `EvalError`; any other {@link StarlarkError}
 * subclass (such as {@link ResourceError}) passes through unchanged and aborts the execution; any other
 * exception is wrapped in an {@link InternalError} (an `EvalError` whose `cause` is the original).
 * Budgets: `maxSteps` counts statements, loop iterations and calls (built-ins add steps for their
 * work), `maxMemory` counts bytes charged by allocating operations (every allocation is charged before
 * it is made, or just after for results a small multiple of an input), `maxIntBits` caps the size of an
 * int ({@link DEFAULT_MAX_INT_BITS} by default), and `maxCallDepth` bounds nested calls (1,000 by default;
 * with the `recursion` dialect option 100,000, the reference's limit: nested calls past the first hundred
 * run on an explicit stack on the heap, charged to `maxSteps` and `maxMemory`, also through the
 * `key` calls of `sorted`, `min` and `max`, whose frames count like the reference's). A call past it
 * is a {@link CallDepthError} (a `depth` ResourceError that also records the call stack); running out
 * of JS stack (calls nested in an augmented element assignment, say) is a plain `depth` ResourceError.
 * Syntax of any length (operator chains, `elif` chains) and values of any depth (hashing, `repr`,
 * `json`) are handled without recursion. Long operations poll `checkInterrupt` from inside,
 * so a deadline is honoured within a few milliseconds. Compiling is charged and polled too: `execFile`
 * charges its thread for it, and {@link compile} the `budget` it is given (see {@link CompileOptions}).
 *
 * @module
 */
import { UNIVERSE } from "./builtins/mod.ts";
import { type CompileBudget, CompileJob, compileProgram, type Program } from "./eval/exec.ts";
import type { PredeclaredValues, ProgramOptions } from "./eval/exec.ts";
import { json, math, sum } from "./lib/mod.ts";
import { type Dialect, freeze, Thread, type ThreadOptions, type Value } from "./values/mod.ts";

export { UNIVERSE } from "./builtins/mod.ts";
export { json, math, sum } from "./lib/mod.ts";
export { Program } from "./eval/exec.ts";
export type { CompileBudget, PredeclaredValues, StartedProgram } from "./eval/exec.ts";
export { CompileJob } from "./eval/exec.ts";
export type { FrontEndBudget } from "./syntax/meter.ts";
export { SlicedCall, startCall } from "./eval/sliced.ts";
export { StarFunction } from "./eval/function.ts";
export { InternalError } from "./eval/errors.ts";
export {
  ALL_OPTIONS_DIALECT,
  Builtin,
  Bytes,
  call,
  CallDepthError,
  ConversionError,
  DEFAULT_DIALECT,
  DEFAULT_MAX_INT_BITS,
  Dict,
  EMPTY_TUPLE,
  EvalError,
  Float,
  freeze,
  fromJS,
  fromJSString,
  HOST_TURN,
  intBounded,
  List,
  MIN_INT_BITS,
  Module,
  NoSuchAttrError,
  Range,
  repr,
  ResourceError,
  StarlarkError,
  StarlarkSyntaxError,
  StarObject,
  StarSet,
  str,
  Thread,
  toJS,
  toJSString,
  Tuple,
  typeName,
} from "./values/mod.ts";
export type {
  BuiltinFn,
  BuiltinGen,
  Callback,
  CallFrame,
  Dialect,
  DictEntry,
  FromJSOptions,
  Kwargs,
  LoadHook,
  Mutable,
  ResourceKind,
  ThreadOptions,
  ToJSOptions,
  Value,
} from "./values/mod.ts";

/** Options of {@link compile}. */
export interface CompileOptions {
  /** File name used in error positions and tracebacks (default `main.star`). */
  filename?: string;
  /** Dialect options; unset options take the reference's defaults (all off). */
  dialect?: Partial<Dialect>;
  /**
   * Names the host will predeclare when it runs the program (in addition to the universe, which they
   * shadow). Any other unknown name is a compile error (`undefined: x`).
   */
  predeclared?: Iterable<string>;
  /**
   * Whether runs may pause between slices of their time ({@link Program.start}, {@link startCall}):
   * every function gets a generator form in which loops pause. Such a program also runs normally.
   */
  sliced?: boolean;
  /**
   * Charged for the work of compiling and polled like a run, so that a huge or pathological source
   * stops at the budgets (usually the {@link Thread} that will run the program): a step and 192 bytes
   * of memory per token scanned and per node resolved and compiled, plus
   * the conversion of long int literals, which beyond the budget's `maxIntBits` are a compile error.
   * Without it compiling is bounded only by the source's size.
   */
  budget?: CompileBudget;
}

/**
 * Parses, resolves and compiles a Starlark file once; the returned {@link Program} can then be run any
 * number of times (each run on a fresh {@link Thread}).
 *
 * @throws {StarlarkSyntaxError} for scan, parse and resolve errors (`file:line:col: message`).
 */
export function compile(source: string, options: CompileOptions = {}): Program {
  return compileProgram(source, programOptions(options), UNIVERSE);
}

/**
 * Starts a compilation that a sliced run can spread over its slices: {@link CompileJob.step} with
 * `pausable` stops between two top-level statements once the budget's pause is due.
 */
export function startCompile(source: string, options: CompileOptions = {}): CompileJob {
  return new CompileJob(source, programOptions(options), UNIVERSE);
}

function programOptions(options: CompileOptions): ProgramOptions {
  const opts: ProgramOptions = { filename: options.filename, dialect: options.dialect };
  if (options.predeclared !== undefined) opts.predeclared = options.predeclared;
  if (options.sliced === true) opts.sliced = true;
  if (options.budget !== undefined) opts.budget = options.budget;
  return opts;
}

/** Options of {@link execFile}: the thread's options plus the file name and predeclared values. */
export interface ExecOptions extends ThreadOptions {
  /** File name used in error positions and tracebacks (default `main.star`). */
  filename?: string;
  /**
   * Values predeclared for the program, in addition to {@link UNIVERSE} (which they shadow). The
   * standard modules are not included by default: pass {@link standardPredeclared} to add them.
   */
  predeclared?: PredeclaredValues;
  /**
   * Run on this thread instead of creating one; the thread options given here are then ignored. Useful
   * to read `thread.steps` even when the execution fails.
   */
  thread?: Thread;
}

/** The result of {@link execFile}. */
export interface ExecResult {
  /** The module's globals, frozen, in definition order. */
  globals: Map<string, Value>;
  /** The thread the program ran on: reuse it to call the program's functions and read `steps`. */
  thread: Thread;
}

/**
 * Compiles and runs a file on a new thread configured by `options`, then freezes its globals (like the
 * reference's `ExecFile`).
 *
 * @throws {StarlarkSyntaxError} for scan, parse and resolve errors.
 * @throws {EvalError} for runtime errors; `backtrace()` renders the reference's traceback.
 * @throws {ResourceError} when a budget is exhausted or `checkInterrupt` cancels the execution.
 */
export function execFile(source: string, options: ExecOptions = {}): ExecResult {
  const thread = options.thread ?? new Thread(options);
  const predeclared = options.predeclared;
  const names = predeclared === undefined
    ? []
    : predeclared instanceof Map
    ? [...(predeclared as ReadonlyMap<string, Value>).keys()]
    : Object.keys(predeclared);
  // The thread pays for compiling as it pays for running: the budgets hold from the first byte.
  const program = compileProgram(
    source,
    { filename: options.filename, dialect: thread.dialect, predeclared: names, budget: thread },
    UNIVERSE,
  );
  const globals = program.run(thread, predeclared);
  for (const v of globals.values()) freeze(v);
  return { globals, thread };
}

/** The standard modules hosts usually predeclare: `json`, `math` and the `sum` built-in. */
export function standardPredeclared(): Record<string, Value> {
  return { json, math, sum };
}
