/**
 * The worker-pool executor: runs every program in a zero-permission Web Worker.
 *
 * Scheduling (slots, reuse within one subject, strict mode, reaping, fairness across subjects, honest
 * slots) is the shared {@link SlotScheduler}; this module is the Web Worker side of it: the ready
 * handshake, the run message, native calls through the shared buffer, and how a worker is stopped.
 *
 * Deadline and cancellation: the host raises the interrupt flag in the worker's shared buffer and wakes
 * it if it is blocked in a native call; the engine polls the flag (and its own copy of the deadline)
 * every few thousand steps. The caller's promise settles at once; the slot is held until the worker
 * acknowledges. `Worker.terminate()` cannot stop a worker spinning in JS, so a worker that has not
 * reported the end of its run is terminated only once it answers a self-check (proof that it is back at
 * its event loop); until then it keeps its slot, and past the drain grace it counts as stuck and the pool
 * reports itself degraded. The engine's budgets are the real bound; this is the honest accounting.
 *
 * What this executor contains: permissions (the worker has none) and time and steps through the
 * engine's budgets. What it does not: a heap cap (a Web Worker's out-of-memory aborts the whole
 * process, so the engine charges every allocation before making it) and CPU of a worker that ignores
 * its interrupt. The process pool contains both.
 *
 * @module
 */
import { CodeModeError } from "../errors.ts";
import type { ExecutionRequest, Executor } from "./contract.ts";
import { internalError, judgeOutcome, ownDeadline, SandboxViolation } from "./host_call.ts";
import {
  type CallMessage,
  type DoneMessage,
  INTERRUPT_CANCELLED,
  INTERRUPT_DEADLINE,
  INTERRUPT_SHUTDOWN,
  memoryBudget,
  type MoreMessage,
  type WorkerMessage,
} from "./protocol.ts";
import {
  type AbortKind,
  CatalogKeys,
  type PoolExecution,
  type PoolStats,
  positive,
  resolveSchedulerOptions,
  type WorkerPoolOptions,
} from "./pool_parts.ts";
import { CpuShare } from "./cpu_share.ts";
import { Sandbox, SANDBOX_WORKER_URL, type SandboxHooks } from "./sandbox.ts";
import { SpawnPacer } from "./spawn_pacer.ts";
import { type PoolHealth, type SandboxDriver, SlotScheduler } from "./scheduler.ts";

export type { PoolOptions, PoolStats, WorkerPoolOptions } from "./pool_parts.ts";
export type { PoolHealth } from "./scheduler.ts";

const INTERRUPTS: Readonly<Record<AbortKind, number>> = {
  deadline: INTERRUPT_DEADLINE,
  cancel: INTERRUPT_CANCELLED,
  shutdown: INTERRUPT_SHUTDOWN,
};

/** Runs programs in a bounded pool of zero-permission Web Workers. */
export class WorkerPool implements Executor {
  readonly #scheduler: SlotScheduler<Sandbox>;
  readonly #bufferBytes: number;
  readonly #retireHeap: number;
  readonly #warmUpMs: number;
  readonly #dialect: Readonly<Record<string, boolean>> | undefined;
  readonly #url: URL;
  readonly #hooks: SandboxHooks;
  readonly #catalogs = new CatalogKeys();
  readonly #pacer = new SpawnPacer();
  readonly #cpu = new CpuShare();

  /** Creates an empty pool; workers are spawned on demand (or by {@link WorkerPool.probe}). */
  constructor(options: WorkerPoolOptions = {}) {
    const o = resolveSchedulerOptions(options);
    this.#bufferBytes = positive(options.replyBufferBytes, 256 * 1024, "replyBufferBytes");
    this.#retireHeap = positive(options.retireHeapBytes, 24 * 1024 * 1024, "retireHeapBytes");
    this.#warmUpMs = o.warmUpMs;
    this.#dialect = o.dialect;
    this.#url = options.workerUrl ?? SANDBOX_WORKER_URL;
    this.#hooks = {
      onMessage: (sb, msg) => this.#onMessage(sb, msg),
      onFailure: (sb, reason) => this.#violation(sb, reason),
    };
    const driver: SandboxDriver<Sandbox> = {
      create: (readyTimeout) =>
        new Sandbox(this.#url, this.#bufferBytes, readyTimeout, this.#hooks, this.#warmUpMs, this.#pacer),
      ready: (sb) => sb.ready,
      start: (sb, exec) => this.#start(sb, exec),
      interrupt: (sb, kind) => {
        sb.channel.interrupt(INTERRUPTS[kind]);
        return true;
      },
      stop: (sb) => {
        if (sb.atRest) {
          sb.terminate(INTERRUPT_SHUTDOWN);
          return undefined;
        }
        return sb.quiesce(INTERRUPT_SHUTDOWN).then(() => sb.terminate(INTERRUPT_SHUTDOWN));
      },
      destroy: (sb) => {
        sb.terminate(INTERRUPT_SHUTDOWN);
        return Promise.resolve();
      },
      selfCheck: (sb, timeout) => sb.selfCheck(timeout),
    };
    this.#scheduler = new SlotScheduler(o, driver);
  }

  /** Current counters. */
  stats(): PoolStats {
    return this.#scheduler.stats();
  }

  /** `degraded` while a worker that ignored its interrupt holds a slot (see the module docs). */
  health(): PoolHealth {
    return this.#scheduler.health();
  }

  /**
   * Checks the sandbox wiring: spawns a worker (outside the concurrency bound), waits for its ready
   * message and has it confirm that reading, writing, network, environment, subprocesses, FFI and system
   * information are all refused. The worker is kept as a fresh worker when a slot is free.
   *
   * @throws {CodeModeError} `invalid_registration` with a diagnostic of the host wiring.
   */
  probe(options: number | { readonly timeout?: number } = {}): Promise<void> {
    const timeout = typeof options === "number" ? options : options.timeout ?? 5_000;
    return this.#scheduler.probe(timeout, (why, cause) =>
      new CodeModeError(
        "invalid_registration",
        `sandbox worker probe failed: ${why}. The worker module ${this.#url.href} must be loadable by the ` +
          `host (grant read access to it, e.g. --allow-read) and workers need permission options enabled ` +
          `("unstable": ["worker-options"] in deno.json or --unstable-worker-options; without it Deno exits ` +
          `with code 70). On runtimes without Web Worker permissions (Deno Deploy) use the inline executor.`,
        { cause },
      ));
  }

  /** Runs `main()` of the request's program in a sandbox worker. */
  run(request: ExecutionRequest): Promise<unknown> {
    return this.#scheduler.run(request);
  }

  /** Ends every worker, waiting request and timer. Running executions reject with `internal`. Idempotent. */
  close(): Promise<void> {
    this.#pacer.close();
    this.#cpu.close();
    return this.#scheduler.close();
  }

  #start(sb: Sandbox, exec: PoolExecution): void {
    const req = exec.request;
    const catalog = this.#catalogs.of(req.capabilities);
    const send = sb.catalogKey !== catalog.key;
    sb.atRest = false;
    sb.channel.reset();
    sb.post({
      t: "run",
      id: exec.id,
      source: req.source,
      catalog: send ? catalog : { key: catalog.key },
      budgets: { ...req.budgets },
      maxMemoryBytes: memoryBudget(req.budgets),
      remainingMs: Math.max(0, req.startedAt + req.budgets.maxExecutionTime - performance.now()),
      dialect: this.#dialect,
    });
    sb.catalogKey = catalog.key;
    this.#cpu.started(sb);
    this.#watchCalls(sb, exec, 0);
  }

  /**
   * Keeps one `Atomics.waitAsync` pending on the call word of `sb`'s buffer while `exec` runs, and
   * handles each call record the worker writes there like a call message. The wait ends with the run:
   * every way a run ends wakes it (the `done` message, an interrupt, the worker's end), and a wake
   * after the run has settled does nothing.
   */
  #watchCalls(sb: Sandbox, exec: PoolExecution, seen: number): void {
    sb.channel.awaitCall(seen, () => {
      if (exec.settled || sb.execution !== exec || sb.state === "stopping" || sb.state === "dead") return;
      let record: ReturnType<typeof sb.channel.takeCall>;
      try {
        record = sb.channel.takeCall(seen);
      } catch (e) {
        this.#violation(sb, e instanceof Error ? e.message : "malformed call record");
        return;
      }
      if (record === undefined) return this.#watchCalls(sb, exec, seen); // a wake without a new call
      this.#watchCalls(sb, exec, record.seq);
      this.#onCall(sb, exec, { t: "call", id: exec.id, ...record });
    });
  }

  #violation(sb: Sandbox, reason: string): void {
    sb.channel.releaseCallWait();
    this.#cpu.ended(sb);
    this.#scheduler.fault(sb, internalError(`sandbox protocol failure: ${reason}`));
  }

  #onMessage(sb: Sandbox, msg: WorkerMessage): void {
    if (sb.state === "stopping" || sb.state === "dead") return; // a late message of an ended worker
    const exec = sb.execution;
    if (exec === undefined || (msg as { id?: unknown }).id !== exec.id) {
      this.#violation(sb, `unexpected ${String(msg.t)} message`);
      return;
    }
    switch (msg.t) {
      case "call":
        return this.#onCall(sb, exec, msg);
      case "more":
        return this.#onMore(sb, exec, msg);
      case "done":
        return this.#onDone(sb, exec, msg);
      default:
        this.#violation(sb, `unexpected ${String(msg.t)} message`);
    }
  }

  #onCall(sb: Sandbox, exec: PoolExecution, msg: CallMessage): void {
    if (exec.settled) return; // posted just before an interrupt
    if (msg.seq !== exec.nextSeq || exec.callInFlight || exec.reply !== undefined) {
      this.#violation(sb, "native call out of sequence");
      return;
    }
    exec.nextSeq++;
    exec.callInFlight = true;
    const seq = msg.seq;
    exec.host.call(msg.cap, msg.args, exec.controller.signal).then(
      (bytes) => {
        exec.callInFlight = false;
        if (exec.settled) return;
        const next = sb.channel.writeResult(seq, bytes, 0);
        if (next >= 0 && next < bytes.length) exec.reply = { seq, bytes, next };
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
        sb.channel.writeError(seq, error.code);
      },
    );
  }

  #onMore(sb: Sandbox, exec: PoolExecution, msg: MoreMessage): void {
    if (exec.settled) return;
    const r = exec.reply;
    if (r === undefined || msg.seq !== r.seq || msg.offset !== r.next) {
      this.#violation(sb, "unexpected request for a result chunk");
      return;
    }
    const next = sb.channel.writeResult(r.seq, r.bytes, r.next);
    if (next < 0 || next >= r.bytes.length) exec.reply = undefined;
    else r.next = next;
  }

  #onDone(sb: Sandbox, exec: PoolExecution, msg: DoneMessage): void {
    // Posting `done` is the worker's last act of a run: it is back at its event loop.
    sb.atRest = true;
    sb.channel.releaseCallWait();
    this.#cpu.ended(sb);
    // The worker's own figure only decides whether to keep it: a lie costs nothing but its reuse.
    const ok = (msg.outcome as { ok?: unknown } | null)?.ok === true;
    if (!ok && !(typeof msg.heapUsed === "number" && msg.heapUsed <= this.#retireHeap)) {
      sb.retireAfterRun = true;
    }
    if (exec.settled) {
      // The acknowledgement of an interrupt (or a late result): the worker is at rest again.
      this.#scheduler.rested(sb);
      return;
    }
    // The sandbox's own copy of the deadline may pass while it waits for a reply, a moment before the
    // host's timer fires: that ends the run legitimately with a call in flight (its reply is dropped).
    if (exec.callInFlight && !ownDeadline(msg.outcome)) {
      this.#violation(sb, "run finished while a native call was in flight");
      return;
    }
    this.#scheduler.finish(sb, judgeOutcome(msg.outcome, exec.request, exec.nativeError));
  }
}
