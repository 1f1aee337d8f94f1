/**
 * The execution state of a Starlark evaluation: {@link Thread} with its budgets and hooks, and the
 * dialect options. Import these names from `value.ts`.
 *
 * @module
 */

import type { Callback, Value } from "./object.ts";
import { type CallFrame, ResourceError } from "./errors.ts";
import { DEFAULT_MAX_INT_BITS } from "./int_cost.ts";

/** Dialect options, as in the reference's `syntax.FileOptions`/resolve flags. All default to false. */
export interface Dialect {
  /** Allow the `set` builtin. */
  set: boolean;
  /** Allow `while` loops. */
  while: boolean;
  /** Allow recursive calls. */
  recursion: boolean;
  /** Allow `if`/`for`/`while` at top level. */
  topLevelControl: boolean;
  /** Allow reassigning a global (and `+=` on globals). */
  globalReassign: boolean;
  /**
   * Make `load` bind global variables instead of file-local ones (the reference's `LoadBindsGlobally`,
   * a legacy Bazel option). Optional for compatibility; absent means false.
   */
  loadBindsGlobally?: boolean;
}

/** The reference's defaults: every option off. */
export const DEFAULT_DIALECT: Readonly<Dialect> = Object.freeze({
  set: false,
  while: false,
  recursion: false,
  topLevelControl: false,
  globalReassign: false,
});

/** Every option on (the CLI's `--all-options`). */
export const ALL_OPTIONS_DIALECT: Readonly<Dialect> = Object.freeze({
  set: true,
  while: true,
  recursion: true,
  topLevelControl: true,
  globalReassign: true,
});

/** Loads a module for a `load` statement; returns its exported members. */
export type LoadHook = (thread: Thread, module: string) => ReadonlyMap<string, Value>;

/** Options for a {@link Thread}. */
export interface ThreadOptions {
  /** Thread name (shown nowhere by default; useful to hosts). */
  name?: string;
  /** Step budget; `Infinity` (default) means unbounded. */
  maxSteps?: number;
  /** Allocation budget in bytes (approximate, charged by operations that allocate); default unbounded. */
  maxMemory?: number;
  /** Maximum call depth (default 1000; with the `recursion` dialect option, 100,000 like the reference). */
  maxCallDepth?: number;
  /**
   * Largest int, in bits of its magnitude (default 2^18 = 262,144 bits, 78,913 decimal digits; at least
   * 1024). An operation whose result would be larger fails with a `memory` {@link ResourceError}, before
   * it is computed for products, shifts and conversions (linear operations are checked on their result):
   * one BigInt operation cannot be interrupted, and this bounds the slowest one to about a millisecond.
   */
  maxIntBits?: number;
  /**
   * Polled every few thousand steps (and inside long built-ins): return a reason string to stop the
   * execution with a `cancelled` {@link ResourceError}, or `undefined` to continue.
   */
  checkInterrupt?: () => string | undefined;
  /** Receives `print()` output; default discards it. */
  print?: (thread: Thread, msg: string) => void;
  /** Resolves `load` statements; absent means `load` fails. */
  load?: LoadHook;
  /** Dialect options. */
  dialect?: Partial<Dialect>;
}

/**
 * Yielded by a built-in's generator ({@link BuiltinGen}) to hand the thread back to the host: a run
 * started with `startCall` pauses there until it is resumed (the host has meanwhile fetched what the
 * built-in needs, e.g. a native call's answer); anywhere else the generator is resumed at once.
 */
export const HOST_TURN: Callback = Object.freeze({ fn: null, arg: null });

/** Smallest accepted {@link ThreadOptions.maxIntBits}. */
export const MIN_INT_BITS = 1024;

/** How many steps pass between two interrupt polls. */
export const INTERRUPT_POLL_STEPS = 4096;

/**
 * The execution state of one Starlark evaluation: budgets, hooks, dialect and the call stack.
 * A thread is used by one execution at a time and is never shared between executions.
 */
export class Thread {
  /** Thread name. */
  readonly name: string;
  /** Steps executed so far. */
  steps = 0;
  /** Step budget. */
  readonly maxSteps: number;
  /** Bytes charged so far. */
  memory = 0;
  /** Allocation budget. */
  readonly maxMemory: number;
  /** Maximum call depth. */
  readonly maxCallDepth: number;
  /** Largest int in bits (see {@link ThreadOptions.maxIntBits}). */
  readonly maxIntBits: number;
  /** The step count at which the next interrupt poll happens. */
  nextPoll: number = INTERRUPT_POLL_STEPS;
  /** Interrupt poll. */
  readonly checkInterrupt: (() => string | undefined) | undefined;
  /**
   * When a run started with `startCall` (eval/sliced.ts) should pause: a `performance.now()` time, or
   * `Infinity` (never). The host sets it before each slice; polls compare it with the clock.
   */
  pauseAt: number = Infinity;
  /** Set by a poll once {@link pauseAt} has passed; the evaluator pauses at its next loop turn or call. */
  pauseDue = false;
  /** Print hook. */
  readonly print: (thread: Thread, msg: string) => void;
  /** Load hook. */
  readonly load: LoadHook | undefined;
  /** Dialect options in force. */
  readonly dialect: Readonly<Dialect>;
  /** Active call stack (maintained by the interpreter and by builtin calls). */
  readonly callStack: CallFrame[] = [];
  /** Host-owned per-thread data, like the reference's `Thread.SetLocal`. */
  readonly locals: Map<string, unknown> = new Map();

  /** Creates a thread. */
  constructor(options: ThreadOptions = {}) {
    this.name = options.name ?? "";
    this.maxSteps = options.maxSteps ?? Infinity;
    this.maxMemory = options.maxMemory ?? Infinity;
    this.dialect = Object.freeze({ ...DEFAULT_DIALECT, ...options.dialect });
    // With recursion on, the reference's limit (deep calls run on the heap, see eval/deep.ts).
    this.maxCallDepth = options.maxCallDepth ?? (this.dialect.recursion ? 100_000 : 1000);
    const intBits = options.maxIntBits ?? DEFAULT_MAX_INT_BITS;
    // Ints below 2^256 are never checked against the cap (see int_cost.ts), so it must lie above them.
    if (!(intBits >= MIN_INT_BITS)) throw new RangeError(`maxIntBits must be at least ${MIN_INT_BITS}`);
    this.maxIntBits = intBits;
    this.checkInterrupt = options.checkInterrupt;
    this.print = options.print ?? (() => {});
    this.load = options.load;
  }

  /**
   * Charges `n` steps (n ≥ 0). Built-ins call this in proportion to their work before doing it.
   * @throws {ResourceError} when the step budget is exhausted or the interrupt poll says stop.
   */
  charge(n: number): void {
    this.steps += n;
    if (this.steps > this.maxSteps) {
      throw new ResourceError("steps", `Starlark computation cancelled: too many steps`);
    }
    if (this.steps >= this.nextPoll) this.poll();
  }

  /** Polls the interrupt hook now (the interpreter calls this through {@link charge}). */
  poll(): void {
    this.nextPoll = this.steps + INTERRUPT_POLL_STEPS;
    if (this.pauseAt !== Infinity && performance.now() >= this.pauseAt) this.pauseDue = true;
    if (this.checkInterrupt !== undefined) {
      const reason = this.checkInterrupt();
      if (reason !== undefined) {
        throw new ResourceError("cancelled", `Starlark computation cancelled: ${reason}`);
      }
    }
  }

  /**
   * Charges `bytes` of allocation against the memory budget before an operation allocates.
   * @throws {ResourceError} when the memory budget would be exceeded.
   */
  allocate(bytes: number): void {
    this.memory += bytes;
    if (this.memory > this.maxMemory) {
      throw new ResourceError("memory", `Starlark computation cancelled: memory budget exceeded`);
    }
  }
}
