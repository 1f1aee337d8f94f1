/**
 * The engine-side runner shared by the sandbox worker and the inline executor: compile the program,
 * run its top level, check the `main()` contract, run `main()` under the budgets, and encode its result.
 *
 * The program contract (the seed's): the top level must define `main`, a function with no parameters of
 * any kind; `load` is disabled; `print` output is kept (its last 8 KiB, charged to the memory budget) and returned with the outcome; native calls are accepted only while `main`
 * runs. The predeclared environment is the Starlark universe plus `json`, `math`, `sum` and the capability
 * namespaces (nested modules for dotted names).
 *
 * Native calls go through a synchronous {@link NativeBridge}: in the worker it blocks on the shared
 * buffer; in the inline executor it answers from a memo or suspends the run (see `inline.ts`).
 *
 * Every run creates a fresh {@link Thread} with fresh budgets; the capability namespaces are immutable
 * and hold no per-run state (a call finds its run through the thread), so they can be cached per catalog.
 *
 * @module
 */
import {
  Builtin,
  call,
  compile,
  type CompileJob,
  type CompileOptions,
  type Dialect,
  EvalError,
  freeze,
  HOST_TURN,
  InternalError,
  json,
  type Kwargs,
  math,
  Module,
  type Program,
  ResourceError,
  type SlicedCall,
  StarFunction,
  StarlarkError,
  StarlarkSyntaxError,
  startCall,
  startCompile,
  type StartedProgram,
  sum,
  Thread,
  typeName,
  UNIVERSE,
  type Value,
} from "../starlark/mod.ts";
import { WireFormatError, WireLimitError, type WireLimits, WireTypeError } from "./codec.ts";
import type { CapabilityStub, ExecutionBudgets } from "./contract.ts";
import { type CatalogPayload, type FailureKind, type RunOutcome, safeDetail } from "./protocol.ts";
import { bindArguments, BindError, decodeStarValue, displayText, encodeFinalValue } from "./star_codec.ts";
import { evalDetail, type ProgramNames, syntaxHint, withHint } from "./program_hints.ts";
import { PrintTail } from "./print_output.ts";

/**
 * The capability environment a sandbox keeps between runs. The host sends a catalog's stubs only the first
 * time a sandbox sees its key; later runs name the key alone.
 */
export class CatalogCache {
  #cached: { key: number; env: CapabilityEnv } | undefined;

  /** The environment of a run's catalog. Throws when the key names a catalog this sandbox never got. */
  envFor(catalog: CatalogPayload): CapabilityEnv {
    if (catalog.stubs !== undefined) {
      this.#cached = { key: catalog.key, env: buildCapabilityEnv(catalog.stubs) };
    }
    if (this.#cached === undefined || this.#cached.key !== catalog.key) {
      throw new Error(`unknown capability catalog ${catalog.key}`);
    }
    return this.#cached.env;
  }
}

/** The error a run unwinds with when the host interrupted it (cancellation, deadline, shutdown). */
export function interruptedError(reason: string): ResourceError {
  return new ResourceError("cancelled", `Starlark computation cancelled: ${reason}`);
}

/** The file name programs run under (positions in messages read `main.star:line:col`). */
export const PROGRAM_FILENAME = "main.star";

/**
 * Performs one native call synchronously: receives the capability index and the encoded argument map and
 * returns the encoded result. Throws {@link NativeFailure} when the host refused or failed the call, or a
 * `cancelled` ResourceError when the execution was interrupted.
 */
export type NativeBridge = (index: number, args: Uint8Array) => Uint8Array;

/** The host failed a native call with `code`; the host keeps the real error. Ends the program. */
export class NativeFailure extends StarlarkError {
  /** The error code the host reported. */
  readonly code: string;
  /** Creates the failure. */
  constructor(code: string) {
    super(`native call failed: ${code}`);
    this.name = "NativeFailure";
    this.code = code;
  }
}

/** A classified failure raised by the runner's own built-ins (passes through the engine untouched). */
class RunFailure extends StarlarkError {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly detail?: string,
    /** For `resource`: the budget's name (the host renders its value; see `src/budgets.ts`). */
    readonly code?: string,
  ) {
    super(message);
    this.name = "RunFailure";
  }
}

/** The budget a wire limit stands for: the byte or the depth bound of crossing values. */
function wireBudget(e: WireLimitError): string {
  return e.limit === "depth" ? "maxValueDepth" : "maxValueBytes";
}

/**
 * The budget an engine resource error stands for. The engine reports the integer-size cap as a memory
 * error (both bound an allocation), so its message, which names `maxIntBits`, tells them apart.
 */
function engineBudget(e: ResourceError): string {
  switch (e.resource) {
    case "steps":
      return "maxExecutionSteps";
    case "depth":
      return "maxStackDepth";
    default:
      return e.message.includes("maxIntBits") ? "maxIntBits" : "maxMemoryBytes";
  }
}

/** Thrown by a bridge to stop the run without a verdict (the inline executor's replay). */
export class SuspendRun extends StarlarkError {
  /** Creates the marker. */
  constructor() {
    super("run suspended for a native call");
    this.name = "SuspendRun";
  }
}

/** The text a `fail(...)` failure starts with, for the model and the host (not `invalid program: ...`). */
export const PROGRAM_FAILED_PREFIX = "program failed: ";

/** A program's own `fail(...)`: a deliberate failure, told apart from a mistake in the program. */
class ProgramFailed extends EvalError {
  constructor(message: string) {
    super(message);
    this.name = "ProgramFailed";
  }
}

const UNIVERSE_FAIL = UNIVERSE.get("fail") as Builtin;

// `fail` as the universe has it, except that a call with valid arguments unwinds as a ProgramFailed (a
// misuse, such as `sep=1`, stays an ordinary error of the program).
const failBuiltin = new Builtin("fail", (thread, args, kwargs) => {
  const valid = kwargs.every(([k, v]) => k === "sep" && typeof v === "string") && kwargs.length <= 1;
  try {
    return UNIVERSE_FAIL.fn(thread, args, kwargs, UNIVERSE_FAIL);
  } catch (e) {
    if (valid && e instanceof EvalError && e.message.startsWith("fail: ")) {
      throw new ProgramFailed(e.message.slice("fail: ".length));
    }
    throw e;
  }
});

/** The capability namespaces of one catalog, ready to predeclare. Immutable; cache it per catalog. */
export interface CapabilityEnv {
  /** Root name → module (or built-in, for an undotted name). */
  readonly predeclared: ReadonlyMap<string, Value>;
  /** The stubs, by capability index. */
  readonly stubs: readonly CapabilityStub[];
}

const RUN_KEY = "codemode.run";

interface RunState {
  readonly budgets: ExecutionBudgets;
  readonly native: NativeBridge;
  readonly limits: WireLimits;
  readonly wait: ((cap: number, args: Uint8Array) => boolean) | undefined;
  inMain: boolean;
  calls: number;
  failure: RunFailure | undefined;
}

function nativeBuiltin(stub: CapabilityStub, index: number): Builtin {
  const name = stub.name;
  const input = stub.input;
  const runOf = (thread: Thread): RunState => {
    const st = thread.locals.get(RUN_KEY) as RunState | undefined;
    if (st === undefined) throw new EvalError(`${name}: no CodeMode run is active on this thread`);
    return st;
  };
  const fail = (st: RunState, f: RunFailure): never => {
    st.failure ??= f;
    throw f;
  };
  // Everything before the host is asked: the contract, the call budget, the arguments' encoding.
  const request = (st: RunState, args: Value[], kwargs: Kwargs): Uint8Array => {
    if (!st.inMain) {
      const msg = `${name}: native calls are only allowed while main() runs (not at top level)`;
      fail(st, new RunFailure("program", msg, msg));
    }
    st.calls++;
    if (st.calls > st.budgets.maxNativeCalls) {
      fail(
        st,
        new RunFailure(
          "resource",
          `more than ${st.budgets.maxNativeCalls} native calls`,
          undefined,
          "maxNativeCalls",
        ),
      );
    }
    try {
      return bindArguments(input, args, kwargs, st.limits);
    } catch (e) {
      if (e instanceof BindError) {
        const msg = `${name}: ${e.message}`;
        return fail(st, new RunFailure("arguments", msg, msg));
      }
      if (e instanceof WireLimitError) {
        return fail(
          st,
          new RunFailure("resource", `${name} arguments: ${e.message}`, undefined, wireBudget(e)),
        );
      }
      throw e;
    }
  };
  const answer = (thread: Thread, st: RunState, encoded: Uint8Array): Value => {
    let result: Uint8Array;
    try {
      result = st.native(index, encoded);
    } catch (e) {
      // An interrupted call: poll so the run learns why (the poll throws the engine's own error).
      if (e instanceof ResourceError && e.resource === "cancelled") thread.poll();
      throw e;
    }
    try {
      return decodeStarValue(result, st.limits, thread);
    } catch (e) {
      if (e instanceof WireLimitError) {
        return fail(st, new RunFailure("resource", `${name} result: ${e.message}`, undefined, wireBudget(e)));
      }
      if (e instanceof WireFormatError) {
        return fail(st, new RunFailure("internal", `${name} result: ${e.message}`));
      }
      throw e;
    }
  };
  return new Builtin(
    name,
    (thread, args, kwargs) => {
      const st = runOf(thread);
      return answer(thread, st, request(st, args, kwargs));
    },
    undefined,
    // Called from a sliced run's generator code: the run hands the thread back while the host
    // performs the call (see ProgramRunOptions.nativeWait), then takes the answer.
    function* (thread, args, kwargs) {
      const st = runOf(thread);
      const encoded = request(st, args, kwargs);
      if (st.wait?.(index, encoded) === true) yield HOST_TURN;
      return answer(thread, st, encoded);
    },
  );
}

/**
 * Builds the capability namespaces for `stubs`: `records.lookup` becomes module `records` with member
 * `lookup`; deeper names nest modules.
 *
 * @throws {Error} when two stubs collide (a name is both a capability and a namespace, or repeats).
 */
export function buildCapabilityEnv(stubs: readonly CapabilityStub[]): CapabilityEnv {
  interface Node {
    members: Map<string, Node | Builtin>;
  }
  const root: Node = { members: new Map() };
  stubs.forEach((stub, index) => {
    const parts = stub.name.split(".");
    let node = root;
    for (let i = 0; i < parts.length - 1; i++) {
      let next = node.members.get(parts[i]);
      if (next === undefined) {
        next = { members: new Map() };
        node.members.set(parts[i], next);
      }
      if (next instanceof Builtin) {
        throw new Error(`capability ${stub.name} collides with capability ${next.name}`);
      }
      node = next;
    }
    const leaf = parts[parts.length - 1];
    if (node.members.has(leaf)) throw new Error(`capability ${stub.name} collides with another name`);
    node.members.set(leaf, nativeBuiltin(stub, index));
  });
  const toValue = (n: Node | Builtin, path: string): Value => {
    if (n instanceof Builtin) return n;
    const members = new Map<string, Value>();
    for (const [k, v] of n.members) members.set(k, toValue(v, path === "" ? k : `${path}.${k}`));
    return new Module(path, members);
  };
  const predeclared = new Map<string, Value>([["json", json], ["math", math], ["sum", sum]]);
  for (const [k, v] of root.members) {
    if (predeclared.has(k) || k === "fail") {
      throw new Error(`capability namespace ${k} shadows a built-in module`);
    }
    predeclared.set(k, toValue(v, k));
  }
  predeclared.set("fail", failBuiltin);
  return { predeclared, stubs };
}

/** What one run needs. */
export interface ProgramRunOptions {
  /** Starlark source. */
  readonly source: string;
  /** The capability namespaces. */
  readonly env: CapabilityEnv;
  /** Budgets (steps, native calls, value limits). */
  readonly budgets: ExecutionBudgets;
  /** Engine memory budget in bytes. */
  readonly maxMemoryBytes: number;
  /** Polled by the engine: a reason string stops the run. */
  readonly checkInterrupt: () => string | undefined;
  /** Performs native calls. */
  readonly native: NativeBridge;
  /**
   * In a run from {@link startProgram}: asked before each native call made from the run's generator
   * code; true means "pause the run while I fetch the answer" — {@link ProgramRun.resume} then returns
   * undefined, and once resumed the run asks {@link native}, which must answer the call. Calls made
   * where the run cannot pause go straight to {@link native}.
   */
  readonly nativeWait?: (cap: number, args: Uint8Array) => boolean;
  /** Dialect options (default: the reference's defaults, all off). */
  readonly dialect?: Partial<Dialect>;
  /**
   * Holds the compiled program between runs of the same source (the inline executor's replays). A
   * compiled program is immutable; every run still gets a fresh thread and fresh globals.
   */
  readonly compiled?: { program?: Program };
  /**
   * Whether to compile the program for runs that pause (its every function gets a generator form,
   * made when first needed): one compiled program then serves both {@link runProgram} and
   * {@link startProgram}.
   */
  readonly sliced?: boolean;
}

const FINAL_TYPES =
  " (main() returns None, bool, int, float, str, or lists, tuples and string-keyed dicts of them)";

function checkMain(globals: Map<string, Value>): StarFunction {
  const main = globals.get("main");
  const bad = (msg: string): never => {
    throw new RunFailure("program", msg, msg);
  };
  if (main === undefined) return bad("the program must define a function main() taking no parameters");
  if (!(main instanceof StarFunction)) return bad(`main must be a function, not ${typeName(main)}`);
  const code = main.code;
  if (code.numParams > 0 || code.numKwonly > 0 || code.hasVarargs || code.hasKwargs) {
    return bad("main() must not take any parameters");
  }
  return main;
}

/**
 * Runs one program to completion and classifies the result. Never throws for program behaviour; an
 * `internal` outcome reports anything unexpected.
 */
export function runProgram(options: ProgramRunOptions): RunOutcome {
  const run = new ProgramRun(options, false);
  return run.resume(Infinity)!;
}

/**
 * Starts a run that can pause between slices of its time, so that one JS thread can take turns among
 * several (the inline executor). Compile it with `sliced` in its options: the loops of an ordinary
 * program do not pause. Nothing runs until the first {@link ProgramRun.resume}.
 */
export function startProgram(options: ProgramRunOptions): ProgramRun {
  return new ProgramRun(options, true);
}

/** One run of a program: {@link runProgram}'s steps, resumable when started by {@link startProgram}. */
export class ProgramRun {
  readonly #options: ProgramRunOptions;
  readonly #sliced: boolean;
  readonly #thread: Thread;
  readonly #state: RunState;
  #interrupted: string | undefined;
  #top: StartedProgram | undefined;
  #job: CompileJob | undefined;
  #main: SlicedCall | undefined;
  #outcome: RunOutcome | undefined;
  readonly #printed = new PrintTail();

  /** @internal Use {@link runProgram} or {@link startProgram}. */
  constructor(options: ProgramRunOptions, sliced: boolean) {
    const { budgets } = options;
    this.#options = options;
    this.#sliced = sliced;
    this.#thread = new Thread({
      name: "codemode",
      maxSteps: budgets.maxExecutionSteps,
      maxMemory: options.maxMemoryBytes,
      maxIntBits: budgets.maxIntBits,
      checkInterrupt: () => {
        const why = options.checkInterrupt();
        if (why !== undefined) this.#interrupted = why;
        return why;
      },
      dialect: options.dialect,
      // Every printed byte is charged as it is printed (the message and its newline), so a program
      // printing in a loop ends at its memory budget; only the tail is kept.
      print: (thread, msg) => {
        thread.allocate(msg.length + 1);
        this.#printed.add(msg + "\n");
      },
    });
    this.#state = {
      budgets,
      native: options.native,
      wait: options.nativeWait,
      limits: { maxBytes: budgets.maxValueBytes, maxDepth: budgets.maxValueDepth },
      inMain: false,
      calls: 0,
      failure: undefined,
    };
    this.#thread.locals.set(RUN_KEY, this.#state);
  }

  /** What the run printed so far (see `print_output.ts`); undefined when nothing. */
  get output(): string | undefined {
    return this.#printed.text();
  }

  /**
   * Runs until the program's outcome is known (returned; every later call returns it again) or, in a
   * run from {@link startProgram}, until `performance.now()` passes `until` (undefined: resume again).
   */
  resume(until: number): RunOutcome | undefined {
    if (this.#outcome !== undefined) return this.#outcome;
    const thread = this.#thread, state = this.#state, options = this.#options;
    try {
      let result: Value;
      if (!this.#sliced) {
        const globals = this.#compile().run(thread, options.env.predeclared);
        const main = this.#checkGlobals(globals);
        state.inMain = true;
        result = call(thread, main, [], []);
      } else {
        thread.pauseAt = until;
        if (this.#top === undefined) {
          // Compiling takes turns too: the job stops between top-level statements once the slice is over.
          const program = this.#compileSliced();
          if (program === undefined) return undefined;
          this.#top = program.start(thread, options.env.predeclared);
        }
        if (this.#main === undefined) {
          if (!this.#top.top.resume()) return undefined;
          this.#main = startCall(thread, this.#checkGlobals(this.#top.globals()), []);
        }
        state.inMain = true;
        if (!this.#main.resume()) return undefined;
        result = this.#main.value;
      }
      state.inMain = false;
      this.#outcome = { ok: true, value: encodeFinalValue(result, state.limits), steps: thread.steps };
    } catch (e) {
      this.#outcome = classify(e, state, thread.steps, this.#interrupted, options.source, options.env);
    } finally {
      state.inMain = false;
      thread.pauseAt = Infinity;
    }
    const output = this.#printed.text();
    if (output !== undefined && this.#outcome !== undefined) this.#outcome = { ...this.#outcome, output };
    return this.#outcome;
  }

  // Compiling is charged to the run's thread and polled like the run (the budgets hold from the first
  // byte of source); a run that reuses a program compiled earlier is charged what compiling it cost, so
  // every run of a source pays the same steps whichever compiled it.
  #compile(): Program {
    const options = this.#options;
    const cached = options.compiled?.program;
    if (cached !== undefined) cached.chargeCompilation(this.#thread);
    return this.#compiled(cached ?? compile(options.source, this.#compileOptions()));
  }

  /** {@link #compile} for a sliced run: undefined when the slice ended first (resume again). */
  #compileSliced(): Program | undefined {
    const options = this.#options;
    const cached = options.compiled?.program;
    if (cached !== undefined) {
      cached.chargeCompilation(this.#thread);
      return this.#compiled(cached);
    }
    this.#job ??= startCompile(options.source, this.#compileOptions());
    const program = this.#job.step(true);
    return program === undefined ? undefined : this.#compiled(program);
  }

  #compileOptions(): CompileOptions {
    const options = this.#options;
    return {
      filename: PROGRAM_FILENAME,
      dialect: this.#thread.dialect,
      predeclared: options.env.predeclared.keys(),
      sliced: options.sliced === true,
      budget: this.#thread,
    };
  }

  /** Keeps `program` for later runs and checks it loads no module. */
  #compiled(program: Program): Program {
    const options = this.#options;
    if (options.compiled !== undefined) options.compiled.program = program;
    if (program.loads.length > 0) {
      const msg = `${PROGRAM_FILENAME}: load statements are not allowed (module loading is disabled)`;
      throw new RunFailure("program", msg, msg);
    }
    return program;
  }

  /** Freezes the globals the top level left and returns its `main`. */
  #checkGlobals(globals: Map<string, Value>): StarFunction {
    for (const v of globals.values()) freeze(v);
    return checkMain(globals);
  }
}

function failure(
  kind: FailureKind,
  message: string,
  steps: number,
  extra: { detail?: string; code?: string } = {},
) {
  return { ok: false as const, kind, message, steps, ...extra };
}

function classify(
  e: unknown,
  state: RunState,
  steps: number,
  interrupted: string | undefined,
  source: string,
  names?: ProgramNames,
): RunOutcome {
  if (e instanceof SuspendRun) return failure("suspended", e.message, steps);
  if (e instanceof NativeFailure) return failure("native", e.message, steps, { code: e.code });
  if (e instanceof ResourceError && e.resource === "cancelled") {
    return failure("interrupted", e.message, steps, { code: interrupted ?? "cancelled" });
  }
  // The run's own failures normally arrive as themselves; the recorded one also survives any wrapping.
  const own = e instanceof RunFailure ? e : state.failure;
  if (own !== undefined) {
    return failure(own.kind, own.message, steps, {
      ...(own.detail === undefined ? {} : { detail: own.detail }),
      ...(own.code === undefined ? {} : { code: own.code }),
    });
  }
  if (e instanceof ResourceError) return failure("resource", e.message, steps, { code: engineBudget(e) });
  if (e instanceof StarlarkSyntaxError) {
    const detail = withHint(safeDetail(displayText(e.message)), syntaxHint(e, source, names));
    return failure("program", detail, steps, { detail });
  }
  if (e instanceof InternalError) return failure("internal", e.message, steps);
  if (e instanceof ProgramFailed) {
    // What the program said first, then where: the model reads why its program stopped, not a fault.
    const at = evalDetail(new EvalError("", e.callStack), source).replace(/: in (\S+): $/, " in $1");
    const detail = safeDetail(
      `${PROGRAM_FAILED_PREFIX}${displayText(e.message)}${at === "" ? "" : ` (${at})`}`,
    );
    return failure("program", detail, steps, { detail });
  }
  if (e instanceof EvalError) {
    const detail = evalDetail(e, source, names);
    return failure("program", detail, steps, { detail });
  }
  if (e instanceof WireTypeError) {
    // The codec names the value ("final value: unsupported type function"): say it once.
    const what = displayText(e.message).replace(/^final value: /, "").replace(/^unsupported type /, "type ");
    const detail = safeDetail(
      `unsupported final value: ${what}${what.startsWith("type ") ? FINAL_TYPES : ""}`,
    );
    return failure("program", detail, steps, { detail });
  }
  if (e instanceof WireLimitError) {
    // `final:` tells the host the budget was hit by main()'s result (see host_call.ts judgeOutcome).
    return failure("resource", `final value: ${e.message}`, steps, { code: `final:${wireBudget(e)}` });
  }
  return failure("internal", e instanceof Error ? `${e.name}: ${e.message}` : String(e), steps);
}

const WARM_UP_SOURCE = `
def helper(items, key = "n"):
    return sorted([x[key] for x in items if x[key] % 2 == 0], reverse = True)

def main():
    r = warm.up(name = "x", n = 3, ratio = 0.5, tags = ["a", "b"])
    items = [{"n": i, "s": "v%d" % i} for i in range(20)]
    out = {"even": helper(items), "r": r, "j": json.encode(r), "t": (1, 2.5, None, True)}
    out["joined"] = ",".join([str(x) for x in out["even"]])
    return out
`;

/**
 * Runs a representative program a few times so that the engine's code is compiled and optimized before
 * the first real execution (a fresh isolate otherwise pays several milliseconds on its first runs).
 * Bounded by `maxMs`; returns the number of runs.
 */
export function warmUp(maxMs = 15, maxRuns = 40): number {
  const stub: CapabilityStub = {
    name: "warm.up",
    input: {
      kind: "struct",
      fields: [
        { name: "name", type: { kind: "str" } },
        { name: "n", type: { kind: "int" } },
        { name: "ratio", type: { kind: "float" } },
        { name: "tags", type: { kind: "list", of: { kind: "str" } } },
      ],
    },
  };
  const env = buildCapabilityEnv([stub]);
  const budgets: ExecutionBudgets = {
    maxSourceBytes: 65_536,
    maxExecutionSteps: 100_000,
    maxExecutionTime: 1_000,
    maxNativeCalls: 10,
    maxValueDepth: 32,
    maxValueBytes: 65_536,
    maxIntermediateValueBytes: 65_536,
  };
  const limits: WireLimits = { maxBytes: 65_536, maxDepth: 32 };
  // Echo the arguments back as the result: exercises binding, both codecs and result decoding.
  const native: NativeBridge = (_i, args) => encodeFinalValue(decodeStarValue(args, limits), limits);
  const end = performance.now() + maxMs;
  let runs = 0;
  while (runs < maxRuns && performance.now() < end) {
    runProgram({
      source: WARM_UP_SOURCE,
      env,
      budgets,
      maxMemoryBytes: 1 << 24,
      checkInterrupt: () => undefined,
      native,
    });
    runs++;
  }
  return runs;
}
