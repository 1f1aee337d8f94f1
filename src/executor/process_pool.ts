/**
 * The process-pool executor: runs every program in a Deno child process started with no permission
 * flags and a V8 heap cap — the wall that contains memory and CPU as well as permissions.
 *
 * Scheduling (slots, reuse within one subject, strict mode, reaping, fairness, honest slots) is the
 * shared {@link SlotScheduler}; this module is the process side: the run frame, native calls over the
 * child's stdin/stdout (the child blocks for each reply, so calls stay synchronous for the engine), and
 * the child's end.
 *
 * Deadline and cancellation: a child blocked in a native call gets an interrupt frame and unwinds; a
 * child that computes stops on its own copy of the deadline. When it has not reported its end within the
 * drain grace (default 200 ms), or at once on a cancellation while it computes (it reads nothing then),
 * the pool kills it with SIGKILL. Its slot frees when the process has exited. A child that exits by
 * itself fails its execution: `resource_limit` when V8 reported reaching the heap cap, else `internal`.
 *
 * Distrust: as in the worker pool, the host re-binds every argument, re-checks every size and depth,
 * counts native calls itself and judges every outcome; a malformed or oversized frame (bounded before
 * it is buffered) kills the child and fails the execution with `internal`.
 *
 * Memory: V8 keeps the pages a run needed, so a child whose resident memory (or heap, after a full
 * collection) is large after its run is retired instead of kept idle, and idle children are ended after
 * `idleTimeoutMs`: an ended child gives all of its memory back.
 *
 * What this executor contains: permissions, CPU time (SIGKILL) and memory (the heap cap ends only the
 * child). What it does not: the host needs `--allow-run` for `Deno.execPath()`, and a spawn costs tens of
 * milliseconds of CPU, so it is unavailable where processes cannot be spawned (Deno Deploy).
 *
 * @module
 */
import { CodeModeError } from "../errors.ts";
import type { ExecutionRequest, Executor } from "./contract.ts";
import { internalError, judgeOutcome, ownDeadline, SandboxViolation } from "./host_call.ts";
import {
  type AbortKind,
  CatalogKeys,
  type PoolExecution,
  type PoolOptions,
  type PoolStats,
  positive,
  resolveSchedulerOptions,
} from "./pool_parts.ts";
import { PAYLOAD_SLACK_BYTES, type ProcOutcome, type ProcRunHeader } from "./process_protocol.ts";
import type { Frame } from "./process_protocol.ts";
import { type ChildExit, type ProcessHooks, ProcessSandbox, SANDBOX_PROCESS_URL } from "./process_sandbox.ts";
import { DEFAULT_MAX_MEMORY_BYTES, memoryBudget, type RunOutcome } from "./protocol.ts";
import { type PoolHealth, type SandboxDriver, SlotScheduler } from "./scheduler.ts";
import { CpuShare } from "./cpu_share.ts";

const MIB = 1024 * 1024;

/** How long a killed child may take to exit before its slot counts as stuck. */
const STOP_TIMEOUT_MS = 2_000;

/** Options of a {@link ProcessPool}. Zero or absent fields take their defaults. */
export interface ProcessPoolOptions extends PoolOptions {
  /**
   * The engine memory budget the heap cap is derived from (the `maxMemoryBytes` limit). Default 64 MiB.
   * A request with a larger budget still runs; the cap then ends the child sooner.
   */
  readonly maxMemoryBytes?: number;
  /** V8 heap cap of each child in MiB. Default: 4 × `maxMemoryBytes` + 64 MiB for the engine, at least 64. */
  readonly heapLimitMiB?: number;
  /**
   * A child whose resident memory after a run exceeds this many bytes (or whose heap in use exceeds half
   * the cap) is retired instead of kept idle, giving that memory back at once. Default 128 MiB (an idle
   * child holds about 45 MiB).
   */
  readonly retireMemoryBytes?: number;
  /** Deno's cache directory for the children. Default: the host's `DENO_DIR` when it may read it. */
  readonly denoDir?: string;
  /** The child entry module (default `workers/sandbox_process.ts` of this package). */
  readonly moduleUrl?: URL;
}

function hostDenoDir(): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: "DENO_DIR" }).state !== "granted") {
      return undefined;
    }
    return Deno.env.get("DENO_DIR") || undefined;
  } catch {
    return undefined;
  }
}

/** Runs programs in a bounded pool of permission-less, heap-capped Deno child processes. */
export class ProcessPool implements Executor {
  readonly #scheduler: SlotScheduler<ProcessSandbox>;
  // Long runs next to short ones are held to a share of the cores (the children are stopped in turn).
  readonly #cpu = new CpuShare();
  readonly #heapMiB: number;
  readonly #retireHeap: number;
  readonly #retireRss: number;
  readonly #warmUpMs: number;
  readonly #dialect: Readonly<Record<string, boolean>> | undefined;
  readonly #url: URL;
  readonly #denoDir: string | undefined;
  readonly #hooks: ProcessHooks;
  readonly #catalogs = new CatalogKeys();

  /** Creates an empty pool; children are spawned on demand (or by {@link ProcessPool.probe}). */
  constructor(options: ProcessPoolOptions = {}) {
    const o = resolveSchedulerOptions(options, { drainGrace: 200, stuckAfter: STOP_TIMEOUT_MS });
    const budget = positive(options.maxMemoryBytes, DEFAULT_MAX_MEMORY_BYTES, "maxMemoryBytes");
    this.#heapMiB = Math.floor(
      positive(options.heapLimitMiB, Math.max(64, Math.ceil((4 * budget) / MIB) + 64), "heapLimitMiB"),
    );
    this.#retireHeap = (this.#heapMiB * MIB) / 2;
    this.#retireRss = positive(options.retireMemoryBytes, 128 * MIB, "retireMemoryBytes");
    this.#warmUpMs = o.warmUpMs;
    this.#dialect = o.dialect;
    this.#url = options.moduleUrl ?? SANDBOX_PROCESS_URL;
    this.#denoDir = options.denoDir ?? hostDenoDir();
    this.#hooks = {
      onFrame: (sb, frame) => this.#onFrame(sb, frame),
      onViolation: (sb, reason) => this.#violation(sb, reason),
      onExit: (sb, exit) => this.#onExit(sb, exit),
      maxPayloadBytes: (sb) => (sb.execution?.request.budgets.maxValueBytes ?? 0) + PAYLOAD_SLACK_BYTES,
    };
    const driver: SandboxDriver<ProcessSandbox> = {
      create: (readyTimeoutMs) =>
        new ProcessSandbox({
          moduleUrl: this.#url,
          heapMiB: this.#heapMiB,
          warmUpMs: this.#warmUpMs,
          readyTimeoutMs,
          denoDir: this.#denoDir,
        }, this.#hooks),
      ready: (sb) => sb.ready,
      start: (sb, exec) => this.#start(sb, exec),
      interrupt: (sb, kind) => this.#interrupt(sb, kind),
      stop: (sb) => (sb.gone ? undefined : sb.kill()),
      destroy: (sb) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_TIMEOUT_MS)));
        return Promise.race([sb.kill(), bound]).finally(() => clearTimeout(timer));
      },
      selfCheck: (sb, timeout) => sb.selfCheck(timeout),
    };
    this.#scheduler = new SlotScheduler(o, driver);
  }

  /** The V8 heap cap of each child, in MiB. */
  get heapLimitMiB(): number {
    return this.#heapMiB;
  }

  /** Current counters. */
  stats(): PoolStats {
    return this.#scheduler.stats();
  }

  /** `degraded` while a child that was killed has not exited (its slot stays held). */
  health(): PoolHealth {
    return this.#scheduler.health();
  }

  /**
   * Checks the wiring: spawns a child (outside the concurrency bound), waits for it to report ready and
   * has it confirm that reading, writing, network, environment, subprocesses, FFI and system information
   * are all refused. The child is kept as a fresh sandbox when a slot is free.
   *
   * @throws {CodeModeError} `invalid_registration` with a diagnostic of the host wiring.
   */
  probe(options: number | { readonly timeout?: number } = {}): Promise<void> {
    const timeout = typeof options === "number" ? options : options.timeout ?? 5_000;
    return this.#scheduler.probe(timeout, (why, cause) =>
      new CodeModeError(
        "invalid_registration",
        `sandbox process probe failed: ${why}. The host must be allowed to spawn ${Deno.execPath()} ` +
          `(--allow-run) and the child module ${this.#url.href} must load with \`deno run\`. Where ` +
          `processes cannot be spawned, use the worker executor (or inline on Deno Deploy).`,
        { cause },
      ));
  }

  /** Runs `main()` of the request's program in a sandbox process. */
  run(request: ExecutionRequest): Promise<unknown> {
    return this.#scheduler.run(request);
  }

  /** Kills every child and waits for them to exit; running executions reject with `internal`. Idempotent. */
  close(): Promise<void> {
    this.#cpu.close();
    return this.#scheduler.close();
  }

  #start(sb: ProcessSandbox, exec: PoolExecution): void {
    const req = exec.request;
    const catalog = this.#catalogs.of(req.capabilities);
    const send = sb.catalogKey !== catalog.key;
    sb.awaitingReply = false;
    sb.send(
      {
        t: "run",
        id: exec.id,
        source: req.source,
        catalog: send ? catalog : { key: catalog.key },
        budgets: { ...req.budgets },
        maxMemoryBytes: memoryBudget(req.budgets),
        remainingMs: Math.max(0, req.startedAt + req.budgets.maxExecutionTime - performance.now()),
        dialect: this.#dialect,
      } satisfies ProcRunHeader,
    );
    sb.catalogKey = catalog.key;
    sb.setDuty(0); // whatever throttled its last run is over
    this.#cpu.started(sb);
  }

  /** The run of `sb` has ended (or must end now): it is no longer throttled. */
  #runEnded(sb: ProcessSandbox): void {
    this.#cpu.ended(sb);
    sb.setDuty(0);
  }

  // A child reads stdin only while it waits for a reply; otherwise only its own deadline stops it.
  #interrupt(sb: ProcessSandbox, kind: AbortKind): boolean {
    // A stopped child could not see its deadline, nor answer the interrupt.
    this.#runEnded(sb);
    if (sb.awaitingReply) {
      sb.send({ t: "interrupt", reason: kind === "cancel" ? "cancelled" : kind });
      return true;
    }
    return kind === "deadline";
  }

  #violation(sb: ProcessSandbox, reason: string): void {
    this.#scheduler.fault(sb, internalError(`sandbox protocol failure: ${reason}`));
  }

  #onExit(sb: ProcessSandbox, exit: ChildExit): void {
    if (sb.state === "spawning") return; // the failed start is reported through `ready`
    const error = exit.outOfMemory
      ? new CodeModeError(
        "resource_limit",
        `execution exceeded the sandbox heap limit (${this.#heapMiB} MiB)`,
      )
      : internalError(`sandbox process exited unexpectedly (${exit.signal ?? `code ${exit.code}`})`);
    this.#scheduler.fault(sb, error);
  }

  #onFrame(sb: ProcessSandbox, frame: Frame): void {
    if (sb.state === "stopping" || sb.state === "dead") return;
    const h = frame.header;
    const exec = sb.execution;
    if (exec === undefined || h.id !== exec.id) {
      this.#violation(sb, `unexpected ${String(h.t)} frame`);
      return;
    }
    if (h.t === "call") return this.#onCall(sb, exec, h, frame.payload);
    if (h.t === "done") return this.#onDone(sb, exec, h, frame.payload);
    this.#violation(sb, `unexpected ${String(h.t)} frame`);
  }

  #onCall(sb: ProcessSandbox, exec: PoolExecution, h: Record<string, unknown>, args: Uint8Array): void {
    if (exec.settled) return; // sent just before an interrupt
    if (h.seq !== exec.nextSeq || exec.callInFlight || typeof h.cap !== "number") {
      this.#violation(sb, "native call out of sequence");
      return;
    }
    exec.nextSeq++;
    exec.callInFlight = true;
    sb.awaitingReply = true;
    const seq = h.seq;
    exec.host.call(h.cap, args, exec.controller.signal).then(
      (bytes) => {
        exec.callInFlight = false;
        if (exec.settled) return;
        sb.awaitingReply = false;
        sb.send({ t: "reply", seq }, bytes);
      },
      (err) => {
        exec.callInFlight = false;
        if (exec.settled) return;
        if (err instanceof SandboxViolation) {
          this.#scheduler.fault(sb, err);
          return;
        }
        const error = err instanceof CodeModeError ? err : internalError("native call failed", err);
        exec.nativeError = error;
        sb.awaitingReply = false;
        sb.send({ t: "reply", seq, code: error.code });
      },
    );
  }

  #onDone(sb: ProcessSandbox, exec: PoolExecution, h: Record<string, unknown>, value: Uint8Array): void {
    this.#runEnded(sb);
    // The child's own figures only decide whether to keep it: a lie costs nothing but its reuse.
    if (!(typeof h.heapUsed === "number" && h.heapUsed <= this.#retireHeap)) sb.retireAfterRun = true;
    if (!(typeof h.rss === "number" && h.rss <= this.#retireRss)) sb.retireAfterRun = true;
    if (exec.settled) {
      this.#scheduler.rested(sb); // the end of an interrupted run: reused unless it holds too much
      return;
    }
    // The sandbox's own copy of the deadline may pass while it waits for a reply, a moment before the
    // host's timer fires: that ends the run legitimately with a call in flight (its reply is dropped).
    if (exec.callInFlight && !ownDeadline(h.outcome)) {
      this.#violation(sb, "run finished while a native call was in flight");
      return;
    }
    const o = h.outcome as ProcOutcome | null | undefined;
    if (o === null || typeof o !== "object") {
      this.#violation(sb, "malformed outcome");
      return;
    }
    const outcome = (o.ok === true ? { ok: true, value, steps: o.steps, output: o.output } : o) as RunOutcome;
    this.#scheduler.finish(sb, judgeOutcome(outcome, exec.request, exec.nativeError));
  }
}
