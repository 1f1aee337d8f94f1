/**
 * Programs: a file parsed, resolved and compiled once, runnable many times on fresh threads.
 *
 * @module
 */
import { resolveFile } from "../resolve/resolve.ts";
import { parseFile } from "../syntax/parser.ts";
import { DEFAULT_DIALECT, type Dialect, type Thread, type Value } from "../values/mod.ts";
import { callFunction } from "./calls.ts";
import { compileFile } from "./compile_file.ts";
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
  private readonly toplevel: FuncCode;

  /** @internal Use {@link compileProgram}. */
  constructor(
    filename: string,
    dialect: Readonly<Dialect>,
    toplevel: FuncCode,
    globals: string[],
    predeclared: string[],
    loads: string[],
  ) {
    this.filename = filename;
    this.dialect = dialect;
    this.toplevel = toplevel;
    this.globalNames = globals;
    this.predeclaredNames = predeclared;
    this.loads = loads;
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
 * Parses, resolves and compiles `source`.
 *
 * @throws {StarlarkSyntaxError} for scan, parse and resolve errors.
 */
export function compileProgram(
  source: string,
  options: ProgramOptions,
  universe: ReadonlyMap<string, Value>,
): Program {
  const filename = options.filename ?? "main.star";
  const dialect: Readonly<Dialect> = Object.freeze({ ...DEFAULT_DIALECT, ...options.dialect });
  const predeclared = new Set(options.predeclared ?? []);
  const file = parseFile(filename, source, { staticChecks: false });
  resolveFile(file, {
    dialect,
    isPredeclared: (n) => predeclared.has(n),
    isUniversal: (n) => universe.has(n),
  });
  const compiled = compileFile(file, {
    filename,
    recursion: dialect.recursion,
    universe,
    sliced: options.sliced === true,
  });
  const loads = file.stmts.flatMap((s) => s.kind === "LoadStmt" ? [s.module] : []);
  return new Program(filename, dialect, compiled.toplevel, compiled.globals, compiled.predeclared, loads);
}
