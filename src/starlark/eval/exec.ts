/**
 * Programs: a file parsed, resolved and compiled once, runnable many times on fresh threads.
 *
 * @module
 */
import { FileResolver } from "../resolve/resolve.ts";
import type { File } from "../syntax/ast.ts";
import { type FrontEndBudget, FrontEndMeter } from "../syntax/meter.ts";
import { FileParser } from "../syntax/parser.ts";
import { DEFAULT_DIALECT, type Dialect, type Thread, type Value } from "../values/mod.ts";
import { callFunction } from "./calls.ts";
import { type CompiledFile, FileCompilation } from "./compile_file.ts";
import { type FuncCode, type ModuleInstance, StarFunction } from "./function.ts";
import { type SlicedCall, startCall } from "./sliced.ts";

/** Options of {@link compileProgram}. */
export interface ProgramOptions {
  /** File name used in positions and tracebacks (default `main.star`). */
  filename?: string;
  /** Dialect options (default: the reference's defaults, all off). */
  dialect?: Partial<Dialect>;
  /** Names the host will predeclare when running the program (they shadow universal names). */
  predeclared?: Iterable<string>;
  /** Whether runs may pause between slices ({@link Program.start}; costs some compile time). */
  sliced?: boolean;
  /**
   * Charged for the work of compiling, and polled, like a run (a `Thread` is one): a step and
   * `BYTES_PER_UNIT` bytes (syntax/meter.ts) per token scanned and per node resolved and compiled.
   * Without it compiling is unbounded.
   */
  budget?: CompileBudget;
}

/** Predeclared values: a map or a plain object of name → value. */
export type PredeclaredValues = ReadonlyMap<string, Value> | Readonly<Record<string, Value>>;

function lookupPredeclared(env: PredeclaredValues | undefined, name: string): Value | undefined {
  if (env === undefined) return undefined;
  if (env instanceof Map) return (env as ReadonlyMap<string, Value>).get(name);
  return Object.hasOwn(env, name) ? (env as Readonly<Record<string, Value>>)[name] : undefined;
}

/** A compiled Starlark file. Immutable; run it any number of times, each run on its own thread. */
export class Program {
  /** File name. */
  readonly filename: string;
  /** The dialect the program was compiled with. */
  readonly dialect: Readonly<Dialect>;
  /** Global variable names, in definition order. */
  readonly globalNames: readonly string[];
  /** Predeclared names the program uses. */
  readonly predeclaredNames: readonly string[];
  /** Module names of the program's `load` statements, in order. */
  readonly loads: readonly string[];
  /**
   * The steps compiling the program cost (most with `BYTES_PER_UNIT` bytes of memory, syntax/meter.ts).
   * A host that runs a compiled program again on a fresh thread charges them to it with
   * {@link chargeCompilation}, so every run pays for the program as if it had compiled it.
   */
  readonly compileSteps: number;
  /** The memory compiling the program cost (see {@link compileSteps}). */
  readonly compileBytes: number;
  private readonly toplevel: FuncCode;

  /** @internal Use {@link compileProgram}. */
  constructor(
    filename: string,
    dialect: Readonly<Dialect>,
    toplevel: FuncCode,
    globals: string[],
    predeclared: string[],
    loads: string[],
    compileSteps = 0,
    compileBytes = 0,
  ) {
    this.filename = filename;
    this.dialect = dialect;
    this.toplevel = toplevel;
    this.globalNames = globals;
    this.predeclaredNames = predeclared;
    this.loads = loads;
    this.compileSteps = compileSteps;
    this.compileBytes = compileBytes;
  }

  /** Charges `budget` what compiling this program cost (see {@link compileSteps}). */
  chargeCompilation(budget: FrontEndBudget): void {
    budget.allocate(this.compileBytes);
    budget.charge(this.compileSteps);
  }

  /**
   * Executes the program's top level on `thread` and returns its globals (those assigned, in definition
   * order). Globals are not frozen (see `execFile`, which freezes them like the reference's ExecFile).
   *
   * @throws {EvalError} on a runtime error, with its Starlark call stack.
   * @throws {ResourceError} when a budget is exhausted or the execution is cancelled.
   */
  run(thread: Thread, predeclared?: PredeclaredValues): Map<string, Value> {
    const { top, globals } = this.#instance(predeclared);
    callFunction(thread, top, [], null, null);
    return globals();
  }

  /**
   * Starts the program's top level on `thread` as a call that pauses whenever the thread's pause is
   * due (see `sliced.ts`; compile with `sliced` for the loops to pause too): resume `top` until it
   * returns true, then read the globals, as {@link run} returns them.
   */
  start(thread: Thread, predeclared?: PredeclaredValues): StartedProgram {
    const { top, globals } = this.#instance(predeclared);
    return { top: startCall(thread, top, undefined), globals };
  }

  #instance(
    predeclared: PredeclaredValues | undefined,
  ): { top: StarFunction; globals: () => Map<string, Value> } {
    const mod: ModuleInstance = {
      filename: this.filename,
      globals: this.globalNames.map(() => undefined),
      globalNames: this.globalNames,
      predeclared: this.predeclaredNames.map((n) => lookupPredeclared(predeclared, n)),
    };
    const globals = () => {
      const out = new Map<string, Value>();
      mod.globals.forEach((v, i) => {
        if (v !== undefined) out.set(this.globalNames[i], v);
      });
      return out;
    };
    return { top: new StarFunction(this.toplevel, mod, [], []), globals };
  }
}

/** A program's top level started by {@link Program.start}. */
export interface StartedProgram {
  /** The top level's execution. */
  readonly top: SlicedCall;
  /** The globals assigned (in definition order), once `top` has returned. */
  globals(): Map<string, Value>;
}

/**
 * Parses, resolves and compiles `source`. With a `budget` in the options, the work is charged to it
 * (steps and memory) and polled like execution (see syntax/meter.ts).
 *
 * @throws {StarlarkSyntaxError} for scan, parse and resolve errors.
 * @throws {ResourceError} when the budget is exhausted or its interrupt poll says stop.
 */
export function compileProgram(
  source: string,
  options: ProgramOptions,
  universe: ReadonlyMap<string, Value>,
): Program {
  const job = new CompileJob(source, options, universe);
  for (;;) {
    const program = job.step(false);
    if (program !== undefined) return program;
  }
}

/** The part of a thread a {@link CompileJob} uses: its budgets, and the pause of a sliced run. */
export interface CompileBudget extends FrontEndBudget {
  /** Set once a sliced run's pause is due (see `Thread.pauseDue`). */
  pauseDue?: boolean;
}

/**
 * A compilation that can stop between two top-level statements (and between stages) when its budget's
 * pause is due, so that a sliced run (eval/sliced.ts) compiles in slices too. A single statement is
 * compiled in one go: its cost is bounded by the step budget it is charged to.
 */
export class CompileJob {
  readonly #filename: string;
  readonly #dialect: Readonly<Dialect>;
  readonly #options: ProgramOptions;
  readonly #universe: ReadonlyMap<string, Value>;
  readonly #meter: FrontEndMeter;
  readonly #parser: FileParser;
  #file: File | undefined;
  #resolver: FileResolver | undefined;
  #resolved = 0;
  #compiler: FileCompilation | undefined;
  #compiled: CompiledFile | undefined;
  #program: Program | undefined;

  /** Starts compiling `source` (scans its first token). Use `startCompile` (mod.ts) from outside. */
  constructor(source: string, options: ProgramOptions, universe: ReadonlyMap<string, Value>) {
    this.#filename = options.filename ?? "main.star";
    this.#dialect = Object.freeze({ ...DEFAULT_DIALECT, ...options.dialect });
    this.#options = options;
    this.#universe = universe;
    this.#meter = new FrontEndMeter(options.budget);
    this.#parser = new FileParser(this.#filename, source, { staticChecks: false, meter: this.#meter });
  }

  /**
   * Goes on compiling: returns the program once it is compiled, or undefined when `pausable` and the
   * budget's pause came due first (call again to go on).
   *
   * @throws {StarlarkSyntaxError} for scan, parse and resolve errors.
   * @throws {ResourceError} when the budget is exhausted or its interrupt poll says stop.
   */
  step(pausable: boolean): Program | undefined {
    if (this.#program !== undefined) return this.#program;
    const budget = this.#options.budget as CompileBudget | undefined;
    const due = pausable && budget !== undefined ? () => budget.pauseDue === true : () => false;
    if (pausable && budget !== undefined) budget.pauseDue = false;
    const parser = this.#parser;
    if (this.#file === undefined) {
      while (parser.next()) if (due()) return undefined;
      this.#file = { filename: this.#filename, stmts: parser.stmts };
      if (due()) return undefined;
    }
    const file = this.#file;
    if (this.#compiler === undefined) {
      const predeclared = new Set(this.#options.predeclared ?? []);
      const universe = this.#universe;
      this.#resolver ??= new FileResolver(this.#filename, {
        dialect: this.#dialect,
        isPredeclared: (n) => predeclared.has(n),
        isUniversal: (n) => universe.has(n),
        meter: this.#meter,
      });
      while (this.#resolved < file.stmts.length) {
        this.#resolver.statement(file.stmts[this.#resolved++]);
        if (due()) return undefined;
      }
      this.#resolver.finish(file);
      this.#compiler = new FileCompilation(file, {
        filename: this.#filename,
        recursion: this.#dialect.recursion,
        universe,
        sliced: this.#options.sliced === true,
        meter: this.#meter,
      });
      if (due()) return undefined;
    }
    while (this.#compiler.next()) if (due()) return undefined;
    const compiled = this.#compiled ??= this.#compiler.finish();
    // A sliced run would build each function's generator form on its first call, in one go and
    // unpolled: build them here, between turns, instead.
    if (pausable && this.#options.sliced === true) {
      while (this.#compiler.nextDeepForm(budget)) if (due()) return undefined;
    }
    const loads = file.stmts.flatMap((s) => s.kind === "LoadStmt" ? [s.module] : []);
    this.#program = new Program(
      this.#filename,
      this.#dialect,
      compiled.toplevel,
      compiled.globals,
      compiled.predeclared,
      loads,
      this.#meter.units,
      this.#meter.bytes,
    );
    return this.#program;
  }
}
