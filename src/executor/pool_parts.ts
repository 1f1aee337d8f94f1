/**
 * The parts of the worker pool that are not the scheduling itself: its options and their defaults, its
 * counters, and the host-side state of one execution.
 *
 * @module
 */
import { CodeModeError } from "../errors.ts";
import type { Dialect } from "../starlark/mod.ts";
import type { ExecutionRequest } from "./contract.ts";
import { NativeCallHost, type Verdict } from "./host_call.ts";
import { type Sandbox, SANDBOX_WORKER_URL } from "./sandbox.ts";

/** Options of a {@link WorkerPool}. Zero or absent fields take their defaults. */
export interface WorkerPoolOptions {
  /** Bound on live workers and spawns in flight (the `maxConcurrentExecutions` limit). Default 8. */
  readonly maxConcurrentExecutions?: number;
  /** `"reuse"` (default) reuses workers within one subject; `"strict"` uses a new worker per execution. */
  readonly mode?: "reuse" | "strict";
  /** Executions after which a reused worker is retired. Default 1,000. */
  readonly maxExecutionsPerWorker?: number;
  /** Idle time after which a subject's worker is ended. Default 30,000 ms. */
  readonly idleTimeoutMs?: number;
  /** Fresh workers kept ready ahead of demand. Default: all free slots in strict mode, 1 in reuse mode. */
  readonly warmWorkers?: number;
  /** Size of each worker's reply data area; larger results travel in chunks. Default 256 KiB. */
  readonly replyBufferBytes?: number;
  /** How long a spawning worker may take to report ready. Default 10,000 ms. */
  readonly spawnTimeoutMs?: number;
  /** How long an interrupted worker may take to unwind before it is terminated anyway. Default 1,000 ms. */
  readonly drainGraceMs?: number;
  /**
   * Milliseconds a new worker spends compiling and optimizing the engine before it takes work, so that
   * its first executions are not slowed by cold code (that cost moves into the spawn). Default 10 in
   * reuse mode; 0 in strict mode, where every execution pays the spawn. Negative disables.
   */
  readonly warmUpMs?: number;
  /**
   * Spawns in flight at once. A spawn is CPU work (loading and compiling the engine), so more parallel
   * spawns than cores only slows each of them down. Default: the number of CPU cores.
   */
  readonly spawnConcurrency?: number;
  /** Engine dialect options (default: the reference's defaults, all off). */
  readonly dialect?: Partial<Dialect>;
  /** The worker entry module (default `workers/sandbox_worker.ts` of this package). */
  readonly workerUrl?: URL;
}

/** Counters of a {@link WorkerPool}, for monitoring and tests. */
export interface PoolStats {
  /** Slots in use (spawning + fresh + idle + busy + draining). */
  readonly live: number;
  /** Spawns in flight. */
  readonly spawning: number;
  /** Ready workers never used. */
  readonly fresh: number;
  /** Idle workers bound to a subject. */
  readonly idle: number;
  /** Workers running an execution. */
  readonly busy: number;
  /** Interrupted workers still unwinding. */
  readonly draining: number;
  /** Requests waiting for a slot. */
  readonly waiting: number;
  /** Workers spawned since creation. */
  readonly spawned: number;
  /** Workers ended since creation. */
  readonly discarded: number;
  /** Executions started on a worker since creation. */
  readonly executions: number;
  /** Highest number of slots in use at any time. */
  readonly peakLive: number;
}

/** Why an execution was stopped from outside. */
export type AbortKind = "deadline" | "cancel" | "shutdown";

/** The host-side state of one execution in the pool. */
export class PoolExecution {
  /** Native-call handling (counts, checks, budgets). */
  readonly host: NativeCallHost;
  /** Aborted when the execution ends early; its signal goes to every dispatch. */
  readonly controller: AbortController = new AbortController();
  /** Settles with the execution's result. */
  readonly promise: Promise<unknown>;
  /** Whether the result is decided. */
  settled = false;
  /** The worker running it. */
  sandbox: Sandbox | undefined;
  /** The host's error for a failed native call (the worker only learns its code). */
  nativeError: CodeModeError | undefined;
  /** The sequence number the next native call must carry. */
  nextSeq = 1;
  /** Whether a native call is being dispatched. */
  callInFlight = false;
  /** A result still being sent in chunks. */
  reply: { seq: number; bytes: Uint8Array; next: number } | undefined;
  #resolve!: (v: unknown) => void;
  #reject!: (e: unknown) => void;

  /** Creates the state of execution `id`. */
  constructor(readonly id: number, readonly request: ExecutionRequest) {
    this.host = new NativeCallHost(request);
    this.promise = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Settles with a verdict (no-op when already settled). */
  settle(verdict: Verdict): void {
    if (this.settled) return;
    this.settled = true;
    if ("error" in verdict && verdict.error !== undefined) {
      if (!this.controller.signal.aborted) {
        this.controller.abort(new DOMException("execution ended", "AbortError"));
      }
      this.#reject(verdict.error);
    } else this.#resolve(verdict.value);
  }

  /** Settles with `error`, aborting the dispatch signal with `reason` (no-op when already settled). */
  fail(error: unknown, reason: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.controller.abort(reason);
    this.#reject(error);
  }
}

/** `v`, or `fallback` when absent or zero; throws for a negative or non-number value. */
function positive(v: number | undefined, fallback: number, name: string): number {
  if (v === undefined || v === 0) return fallback;
  if (!(v > 0)) throw new CodeModeError("invalid_registration", `executor option ${name} must be positive`);
  return v;
}

/** {@link WorkerPoolOptions} with defaults applied and checked. */
export interface ResolvedPoolOptions {
  /** Slot bound. */
  readonly max: number;
  /** Strict mode. */
  readonly strict: boolean;
  /** Executions per worker. */
  readonly maxUses: number;
  /** Idle timeout (ms). */
  readonly idleTimeout: number;
  /** Fresh workers to keep ready. */
  readonly warm: number;
  /** Reply data area bytes. */
  readonly bufferBytes: number;
  /** Spawn timeout (ms). */
  readonly spawnTimeout: number;
  /** Drain grace (ms). */
  readonly drainGrace: number;
  /** Warm-up per spawn (ms). */
  readonly warmUpMs: number;
  /** Spawns in flight at once. */
  readonly spawnConcurrency: number;
  /** Dialect options. */
  readonly dialect: Readonly<Record<string, boolean>> | undefined;
  /** Worker module. */
  readonly url: URL;
}

/**
 * Applies the defaults of {@link WorkerPoolOptions}.
 *
 * @throws {CodeModeError} `invalid_registration` for a negative or otherwise invalid option.
 */
export function resolvePoolOptions(options: WorkerPoolOptions): ResolvedPoolOptions {
  if (options.mode !== undefined && options.mode !== "reuse" && options.mode !== "strict") {
    throw new CodeModeError("invalid_registration", 'executor mode must be "reuse" or "strict"');
  }
  const strict = options.mode === "strict";
  const max = Math.floor(positive(options.maxConcurrentExecutions, 8, "maxConcurrentExecutions"));
  const warm = options.warmWorkers ?? (strict ? max : 1);
  if (!(warm >= 0)) {
    throw new CodeModeError("invalid_registration", "executor option warmWorkers must be >= 0");
  }
  const warmUp = options.warmUpMs ?? (strict ? 0 : 10);
  return {
    max,
    strict,
    maxUses: positive(options.maxExecutionsPerWorker, 1_000, "maxExecutionsPerWorker"),
    idleTimeout: positive(options.idleTimeoutMs, 30_000, "idleTimeoutMs"),
    warm: Math.min(max, Math.floor(warm)),
    bufferBytes: positive(options.replyBufferBytes, 256 * 1024, "replyBufferBytes"),
    spawnTimeout: positive(options.spawnTimeoutMs, 10_000, "spawnTimeoutMs"),
    drainGrace: positive(options.drainGraceMs, 1_000, "drainGraceMs"),
    warmUpMs: warmUp > 0 && Number.isFinite(warmUp) ? warmUp : 0,
    spawnConcurrency: Math.floor(
      positive(options.spawnConcurrency, Math.max(1, navigator.hardwareConcurrency || 2), "spawnConcurrency"),
    ),
    dialect: options.dialect as Readonly<Record<string, boolean>> | undefined,
    url: options.workerUrl ?? SANDBOX_WORKER_URL,
  };
}
