/**
 * The parts of the pools that are not the scheduling itself: their options and defaults, their
 * counters, catalog keys, and the host-side state of one execution.
 *
 * @module
 */
import { CodeModeError } from "../errors.ts";
import type { Dialect } from "../starlark/mod.ts";
import type { CapabilityStub, ExecutionRequest } from "./contract.ts";
import { NativeCallHost, type Verdict } from "./host_call.ts";
import type { SchedulerConfig } from "./scheduler.ts";

/** Options shared by the {@link WorkerPool} and the process pool. Zero or absent fields take their defaults. */
export interface PoolOptions {
  /** Bound on live sandboxes and spawns in flight (the `maxConcurrentExecutions` limit). Default 8. */
  readonly maxConcurrentExecutions?: number;
  /**
   * Most slots the running (or still unwinding) executions of one subject may hold, so that one subject
   * cannot starve the others. Default: half the slots, rounded up.
   */
  readonly maxSlotsPerSubject?: number;
  /**
   * Slots kept for light subjects (holding no slot, with no other execution waiting): a few subjects
   * flooding long programs then cannot keep a light subject waiting for one of their runs to end.
   * Default: one slot in eight (at least one) when there are 4 slots or more, none below. At most
   * `maxConcurrentExecutions - 1`.
   */
  readonly reservedSlots?: number;
  /**
   * Most executions of one subject waiting for a slot; more are refused at once with `resource_limit`
   * (a flood of requests, or a JSON-RPC batch, cannot queue without bound). Default 64.
   */
  readonly maxQueuedPerSubject?: number;
  /** `"reuse"` (default) reuses sandboxes within one subject; `"strict"` uses a new one per execution. */
  readonly mode?: "reuse" | "strict";
  /** Executions after which a reused sandbox is retired. Default 1,000. */
  readonly maxExecutionsPerWorker?: number;
  /**
   * Idle time after which a subject's sandbox is ended, giving its memory back. Default 5,000 ms: a
   * returning subject pays one spawn, an idle server holds no sandbox memory for long.
   */
  readonly idleTimeoutMs?: number;
  /** Fresh sandboxes kept ready ahead of demand. Default: all free slots in strict mode, 1 in reuse mode. */
  readonly warmWorkers?: number;
  /** How long a spawning sandbox may take to report ready. Default 10,000 ms. */
  readonly spawnTimeoutMs?: number;
  /**
   * How long an interrupted sandbox may take to unwind before it is ended anyway. Default 1,000 ms for
   * workers; 200 ms for processes (then SIGKILL).
   */
  readonly drainGraceMs?: number;
  /**
   * Milliseconds a new sandbox spends compiling and optimizing the engine before it takes work, so that
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
}

/** Options of a {@link WorkerPool}. Zero or absent fields take their defaults. */
export interface WorkerPoolOptions extends PoolOptions {
  /** Size of each worker's reply data area; larger results travel in chunks. Default 256 KiB. */
  readonly replyBufferBytes?: number;
  /** The worker entry module (default `workers/sandbox_worker.ts` of this package). */
  readonly workerUrl?: URL;
  /**
   * A worker whose V8 heap in use after a failed or interrupted run exceeds this many bytes is replaced;
   * a smaller one serves its subject again (and is ended after 1 s idle). V8 keeps a worker's freed heap,
   * so a worker that ran into the memory budget is not kept; one stopped by the step or time budget
   * usually is, which spares a spawn (`new Worker()` blocks the host's thread for 10–30 ms). Default
   * 24 MiB (an idle worker holds about 5 MiB).
   */
  readonly retireHeapBytes?: number;
}

/** Counters of a pool, for monitoring and tests. */
export interface PoolStats {
  /** Slots in use (spawning + fresh + idle + busy + draining + stopping). */
  readonly live: number;
  /** Spawns in flight. */
  readonly spawning: number;
  /** Ready sandboxes never used. */
  readonly fresh: number;
  /** Idle sandboxes bound to a subject. */
  readonly idle: number;
  /** Sandboxes running an execution. */
  readonly busy: number;
  /** Interrupted sandboxes still unwinding. */
  readonly draining: number;
  /** Ended sandboxes that have not yet really stopped (their slots are still held). */
  readonly stopping: number;
  /** Of those, the ones that did not stop in time: while any exists the pool is degraded. */
  readonly stuck: number;
  /** Sandboxes that were ever stuck since creation. */
  readonly everStuck: number;
  /** Requests waiting for a slot. */
  readonly waiting: number;
  /** Requests refused because their subject already had `maxQueuedPerSubject` waiting. */
  readonly refused: number;
  /** Sandboxes spawned since creation. */
  readonly spawned: number;
  /** Sandboxes stopped since creation. */
  readonly discarded: number;
  /** Executions started on a sandbox since creation. */
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
  /** The sandbox running it. */
  sandbox: object | undefined;
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

/**
 * `v`, or `fallback` when absent or zero.
 *
 * @throws {CodeModeError} `invalid_registration` for a negative or non-number value.
 */
export function positive(v: number | undefined, fallback: number, name: string): number {
  if (v === undefined || v === 0) return fallback;
  if (!(v > 0)) throw new CodeModeError("invalid_registration", `executor option ${name} must be positive`);
  return v;
}

/**
 * Applies the defaults of {@link PoolOptions}: the scheduling parameters, the warm-up and the dialect.
 * `defaults` holds the pool kind's own drain grace and how long a stopping sandbox of this kind may take
 * before it counts as stuck (default: the drain grace).
 *
 * @throws {CodeModeError} `invalid_registration` for a negative or otherwise invalid option.
 */
export function resolveSchedulerOptions(
  options: PoolOptions,
  defaults: { readonly drainGrace?: number; readonly stuckAfter?: number } = {},
): SchedulerConfig & {
  readonly warmUpMs: number;
  readonly dialect: Readonly<Record<string, boolean>> | undefined;
} {
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
  const share = Math.floor(positive(options.maxSlotsPerSubject, Math.ceil(max / 2), "maxSlotsPerSubject"));
  const drainGrace = positive(options.drainGraceMs, defaults.drainGrace ?? 1_000, "drainGraceMs");
  const reserved = Math.floor(
    positive(options.reservedSlots, max >= 4 ? Math.max(1, Math.floor(max / 8)) : 0, "reservedSlots"),
  );
  return {
    max,
    maxPerSubject: Math.min(max, share),
    maxQueuedPerSubject: Math.floor(positive(options.maxQueuedPerSubject, 64, "maxQueuedPerSubject")),
    strict,
    maxUses: positive(options.maxExecutionsPerWorker, 1_000, "maxExecutionsPerWorker"),
    idleTimeout: positive(options.idleTimeoutMs, 5_000, "idleTimeoutMs"),
    warm: Math.min(max, Math.floor(warm)),
    spawnTimeout: positive(options.spawnTimeoutMs, 10_000, "spawnTimeoutMs"),
    drainGrace,
    stuckAfter: defaults.stuckAfter ?? drainGrace,
    warmUpMs: warmUp > 0 && Number.isFinite(warmUp) ? warmUp : 0,
    spawnConcurrency: Math.floor(
      positive(options.spawnConcurrency, Math.max(1, navigator.hardwareConcurrency || 2), "spawnConcurrency"),
    ),
    dialect: options.dialect as Readonly<Record<string, boolean>> | undefined,
    reserved: Math.min(max - 1, reserved),
  };
}

/**
 * Gives each capability list a small key, so that a sandbox that already holds a catalog is sent only
 * its key (and only stub data ever crosses: never a handler or anything else a host attached).
 */
export class CatalogKeys {
  readonly #keys = new WeakMap<object, { readonly key: number; readonly stubs: readonly CapabilityStub[] }>();
  #next = 1;

  /** The key and stub data of `capabilities`. */
  of(
    capabilities: readonly CapabilityStub[],
  ): { readonly key: number; readonly stubs: readonly CapabilityStub[] } {
    let entry = this.#keys.get(capabilities);
    if (entry === undefined) {
      const stubs = capabilities.map((c) => ({ name: c.name, input: c.input }));
      entry = { key: this.#next++, stubs };
      this.#keys.set(capabilities, entry);
    }
    return entry;
  }
}
