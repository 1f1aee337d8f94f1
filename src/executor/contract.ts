/**
 * The contract between the core (catalog, binding, authorization, handlers) and the executor (worker
 * pool, sandbox protocol, budgets). The executor runs Starlark; the core decides what a native call does.
 *
 * CONTRACT: shapes are fixed; the executor helper implements them in `src/executor/`.
 *
 * @module
 */
import type { TypeSchema } from "../schema.ts";

/**
 * A value that crosses the worker boundary: JSON-like, but type-preserving — ints and floats stay
 * distinct (`{ $int: "123" }`-style or tagged encoding chosen by the executor), tuples arrive as arrays.
 * Hosts see plain JS: `number` for both int and float after decoding, with the kind known from the schema.
 */
export type WireValue = unknown;

/** What the worker needs to know about one enabled capability to expose and bind it. */
export interface CapabilityStub {
  /** Dotted Starlark name, e.g. `records.lookup`. */
  readonly name: string;
  /** Input shape: a struct descriptor whose fields are the keyword parameters. */
  readonly input: TypeSchema & { readonly kind: "struct" };
  /** Output shape, when the executor should shape-check results before they reach the program. */
  readonly output?: TypeSchema & { readonly kind: "struct" };
}

/** Resolved execution budgets (every field positive; see the core's `Limits`). */
export interface ExecutionBudgets {
  /** Max Starlark source bytes (UTF-8). */
  readonly maxSourceBytes: number;
  /** Max executed steps. */
  readonly maxExecutionSteps: number;
  /** Wall-clock budget in ms, counted from before waiting for a worker slot. */
  readonly maxExecutionTime: number;
  /** Max attempted native calls. */
  readonly maxNativeCalls: number;
  /** Max inclusive nesting depth of any crossing value. */
  readonly maxValueDepth: number;
  /** Max encoded bytes of any crossing value. */
  readonly maxValueBytes: number;
  /** Max cumulative encoded bytes of successful native results. */
  readonly maxIntermediateValueBytes: number;
  /** Max bytes of allocation the engine may charge (extension; see the core's `Limits.maxMemoryBytes`). */
  readonly maxMemoryBytes?: number;
  /** Largest Starlark int in bits (extension; see the core's `Limits.maxIntBits`). */
  readonly maxIntBits?: number;
}

/**
 * Host-side handler of one native call. `args` is the worker's bound keyword map (already decoded from the
 * wire, NOT trusted: the core re-binds it). Resolves to the handler's converted output as a plain
 * JS value following the capability's output schema (the executor encodes and measures it), or rejects
 * with a CodeModeError (invalid_arguments, permission_denied, policy_failure, capability_failure,
 * internal, resource_limit) which the executor turns into a Starlark error that ends the program.
 */
export type NativeDispatch = (
  capabilityIndex: number,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<unknown>;

/** One execution request. */
export interface ExecutionRequest {
  /** Subject id (workers are reused only within one subject). */
  readonly subjectId: string;
  /** Starlark source. */
  readonly source: string;
  /** Budgets. */
  readonly budgets: ExecutionBudgets;
  /** The enabled capabilities, in index order used by `dispatch`. */
  readonly capabilities: readonly CapabilityStub[];
  /** Runs a native call on the host. */
  readonly dispatch: NativeDispatch;
  /** Caller cancellation. */
  readonly signal?: AbortSignal;
  /** `performance.now()` when the request arrived (the time budget starts here). */
  readonly startedAt: number;
  /**
   * Told the steps the program's run used when it ended with an outcome (a value or a classified
   * failure; not at a deadline or cancellation), as the sandbox reports them: for telemetry and for
   * checking that every executor charges a program alike. Never trusted for a decision.
   */
  readonly onSteps?: (steps: number) => void;
  /**
   * Told what the program printed (its last 8 KiB, led by `[N bytes dropped]` when more was printed)
   * when its run ended with an outcome — a value or any classified failure — and it printed something.
   * Called before `run` settles.
   */
  readonly onOutput?: (output: string) => void;
}

/** Runs programs. Implementations: a worker pool and an inline (same isolate) executor. */
export interface Executor {
  /**
   * Runs `main()` of the program and resolves to its converted final value (plain JS: null, boolean,
   * number, string, arrays, plain objects). Rejects with a CodeModeError (or the signal's reason on
   * cancellation).
   */
  run(request: ExecutionRequest): Promise<unknown>;
  /** Ends every worker and timer. Idempotent. */
  close(): Promise<void>;
}
