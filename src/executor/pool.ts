/**
 * The worker-pool executor: runs every program in a zero-permission Web Worker.
 *
 * Slots: at most `maxConcurrentExecutions` workers exist at once, counting spawns in flight, ready
 * (fresh) workers, idle and busy ones, and interrupted workers still unwinding. A request waits for a
 * slot; its time budget started before that wait (`request.startedAt`).
 *
 * Reuse (default mode `"reuse"`): a worker serves only one subject. It returns to that subject's idle
 * list after a normal end (a value, or a program/argument/authorization/capability error) and is
 * discarded after any abnormal end (deadline, cancellation, resource limit, internal error), after
 * `maxExecutionsPerWorker` executions, or when idle for `idleTimeoutMs`. Fresh workers (never used) can
 * serve any subject. In `"strict"` mode every execution gets a brand-new worker, and replacements are
 * spawned as soon as a slot frees so that spawn cost stays off the request path where possible.
 *
 * Deadline and cancellation: the host raises the interrupt flag in the worker's shared buffer and wakes
 * it if it is blocked in a native call; the engine polls the flag (and its own copy of the deadline)
 * every few thousand steps. The caller's promise settles at once; the slot is held until the worker
 * acknowledges (or `drainGraceMs` passes) and the worker is then terminated. `terminate()` alone cannot
 * stop a worker spinning in JS, so the engine's budgets are the real bound.
 *
 * @module
 */
import { CodeModeError } from "../errors.ts";
import type { CapabilityStub, ExecutionRequest, Executor } from "./contract.ts";
import { checkRequest, deadlineError, internalError, judgeOutcome, SandboxViolation } from "./host_call.ts";
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
  PoolExecution,
  type PoolStats,
  resolvePoolOptions,
  type WorkerPoolOptions,
} from "./pool_parts.ts";
import { Sandbox, type SandboxHooks, type TimerId } from "./sandbox.ts";

export type { PoolStats, WorkerPoolOptions } from "./pool_parts.ts";

/** Runs programs in a bounded pool of zero-permission Web Workers. */
export class WorkerPool implements Executor {
  readonly #max: number;
  readonly #strict: boolean;
  readonly #maxUses: number;
  readonly #idleTimeout: number;
  readonly #warm: number;
  readonly #bufferBytes: number;
  readonly #spawnTimeout: number;
  readonly #drainGrace: number;
  readonly #warmUpMs: number;
  readonly #spawnConcurrency: number;
  readonly #dialect: Readonly<Record<string, boolean>> | undefined;
  readonly #url: URL;
  readonly #hooks: SandboxHooks;

  readonly #all = new Set<Sandbox>();
  readonly #fresh: Sandbox[] = [];
  readonly #idle = new Map<string, Sandbox[]>();
  readonly #waiters: PoolExecution[] = [];
  readonly #catalogs = new WeakMap<
    object,
    { readonly key: number; readonly stubs: readonly CapabilityStub[] }
  >();
  #nextCatalogKey = 1;
  #nextExecId = 1;
  #live = 0;
  #spawning = 0;
  #spawnFailures = 0;
  #reaper: TimerId | undefined;
  #closed = false;
  #pumping = false;
  #pumpAgain = false;
  #spawned = 0;
  #discarded = 0;
  #executions = 0;
  #peak = 0;

  /** Creates an empty pool; workers are spawned on demand (or by {@link WorkerPool.probe}). */
  constructor(options: WorkerPoolOptions = {}) {
    const o = resolvePoolOptions(options);
    this.#max = o.max;
    this.#strict = o.strict;
    this.#maxUses = o.maxUses;
    this.#idleTimeout = o.idleTimeout;
    this.#warm = o.warm;
    this.#bufferBytes = o.bufferBytes;
    this.#spawnTimeout = o.spawnTimeout;
    this.#drainGrace = o.drainGrace;
    this.#warmUpMs = o.warmUpMs;
    this.#spawnConcurrency = o.spawnConcurrency;
    this.#dialect = o.dialect;
    this.#url = o.url;
    this.#hooks = {
      onMessage: (sb, msg) => this.#onMessage(sb, msg),
      onFailure: (sb, reason) => this.#violation(sb, reason),
    };
  }

  /** Current counters. */
  stats(): PoolStats {
    let idle = 0;
    for (const list of this.#idle.values()) idle += list.length;
    let busy = 0;
    let draining = 0;
    for (const sb of this.#all) {
      if (sb.state === "busy") busy++;
      else if (sb.state === "draining") draining++;
    }
    return {
      live: this.#live,
      spawning: this.#spawning,
      fresh: this.#fresh.length,
      idle,
      busy,
      draining,
      waiting: this.#waiters.length,
      spawned: this.#spawned,
      discarded: this.#discarded,
      executions: this.#executions,
      peakLive: this.#peak,
    };
  }

  /**
   * Checks the sandbox wiring: spawns a worker (outside the concurrency bound), waits for its ready
   * message and has it confirm that reading, writing, network, environment, subprocesses, FFI and system
   * information are all refused. The worker is kept as a fresh worker when a slot is free.
   *
   * @throws {CodeModeError} `invalid_registration` with a diagnostic of the host wiring.
   */
  async probe(options: number | { readonly timeout?: number } = {}): Promise<void> {
    const timeout = typeof options === "number" ? options : options.timeout ?? 5_000;
    if (this.#closed) throw internalError("executor is closed");
    const started = performance.now();
    let sb: Sandbox | undefined;
    try {
      sb = new Sandbox(this.#url, this.#bufferBytes, timeout, this.#hooks, this.#warmUpMs);
      await sb.ready;
      const report = await sb.selfCheck(Math.max(1, timeout - (performance.now() - started)));
      const allowed = Object.entries(report).filter(([, r]) => !r.refused).map(([k, r]) =>
        `${k} (${r.detail})`
      );
      if (allowed.length > 0) {
        throw new Error(`the sandbox worker is not isolated: ${allowed.join(", ")} allowed`);
      }
    } catch (e) {
      sb?.terminate(INTERRUPT_SHUTDOWN);
      const why = e instanceof Error ? e.message : String(e);
      throw new CodeModeError(
        "invalid_registration",
        `sandbox worker probe failed: ${why}. The worker module ${this.#url.href} must be loadable by the ` +
          `host (grant read access to it, e.g. --allow-read) and workers need permission options enabled ` +
          `("unstable": ["worker-options"] in deno.json or --unstable-worker-options; without it Deno exits ` +
          `with code 70). On runtimes without Web Worker permissions (Deno Deploy) use the inline executor.`,
        { cause: e },
      );
    }
    if (this.#closed || this.#live >= this.#max) {
      sb.terminate(INTERRUPT_SHUTDOWN);
      return;
    }
    this.#adopt(sb);
    this.#pump();
  }

  /** Runs `main()` of the request's program in a sandbox worker. */
  async run(request: ExecutionRequest): Promise<unknown> {
    if (this.#closed) throw internalError("executor is closed");
    const signal = request.signal;
    if (signal?.aborted) throw signal.reason;
    checkRequest(request);
    const exec = new PoolExecution(this.#nextExecId++, request);
    const remaining = request.startedAt + request.budgets.maxExecutionTime - performance.now();
    if (!(remaining > 0)) throw deadlineError(request.budgets.maxExecutionTime);
    const timer = setTimeout(() => this.#abort(exec, "deadline"), remaining);
    const onAbort = () => this.#abort(exec, "cancel");
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      this.#waiters.push(exec);
      this.#pump();
      return await exec.promise;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Ends every worker, waiting request and timer. Running executions reject with `internal`. Idempotent. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    const closedError = () => internalError("executor closed");
    const reason = new DOMException("executor closed", "AbortError");
    for (const exec of this.#waiters.splice(0)) exec.fail(closedError(), reason);
    for (const sb of [...this.#all]) {
      const exec = sb.execution as PoolExecution | undefined;
      exec?.fail(closedError(), reason);
      this.#kill(sb);
    }
    clearInterval(this.#reaper);
    this.#reaper = undefined;
    return Promise.resolve();
  }

  // -------------------------------------------------------------------------------------------------
  // Slots and workers

  #adopt(sb: Sandbox): void {
    this.#all.add(sb);
    this.#live++;
    this.#peak = Math.max(this.#peak, this.#live);
    sb.state = "fresh";
    this.#fresh.push(sb);
  }

  #spawn(): void {
    this.#live++;
    this.#peak = Math.max(this.#peak, this.#live);
    this.#spawning++;
    this.#spawned++;
    let sb: Sandbox;
    try {
      sb = new Sandbox(this.#url, this.#bufferBytes, this.#spawnTimeout, this.#hooks, this.#warmUpMs);
    } catch (e) {
      this.#live--;
      this.#spawning--;
      this.#spawnFailed(e);
      return;
    }
    this.#all.add(sb);
    sb.ready.then(
      () => {
        this.#spawning--;
        this.#spawnFailures = 0;
        if (this.#closed || sb.state === "dead") {
          this.#kill(sb);
          return;
        }
        sb.state = "fresh";
        this.#fresh.push(sb);
        this.#pump();
      },
      (e) => {
        this.#spawning--;
        if (this.#closed) return;
        this.#spawnFailed(e);
        this.#kill(sb);
      },
    );
  }

  // A failed spawn fails the oldest waiter at once instead of letting it wait for its deadline.
  #spawnFailed(e: unknown): void {
    this.#spawnFailures++;
    const exec = this.#waiters.shift();
    const why = e instanceof Error ? e.message : String(e);
    exec?.fail(internalError(`sandbox worker failed to start: ${why}`, e), e);
    this.#pump();
  }

  #kill(sb: Sandbox): void {
    if (sb.state === "dead") return;
    const counted = this.#all.delete(sb);
    if (sb.state === "fresh") this.#remove(this.#fresh, sb);
    if (sb.state === "idle" && sb.subject !== undefined) {
      const list = this.#idle.get(sb.subject);
      if (list !== undefined) {
        this.#remove(list, sb);
        if (list.length === 0) this.#idle.delete(sb.subject);
      }
    }
    sb.terminate(INTERRUPT_SHUTDOWN);
    if (counted) {
      this.#live--;
      this.#discarded++;
    }
    this.#pump();
  }

  #remove<T>(list: T[], item: T): void {
    const i = list.indexOf(item);
    if (i >= 0) list.splice(i, 1);
  }

  #popIdle(subject: string): Sandbox | undefined {
    const list = this.#idle.get(subject);
    if (list === undefined) return undefined;
    const sb = list.pop();
    if (list.length === 0) this.#idle.delete(subject);
    return sb;
  }

  #lruIdle(): Sandbox | undefined {
    let best: Sandbox | undefined;
    for (const list of this.#idle.values()) {
      if (list.length > 0 && (best === undefined || list[0].lastUsed < best.lastUsed)) best = list[0];
    }
    return best;
  }

  #pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#pumpAgain = false;
        this.#pumpOnce();
      } while (this.#pumpAgain);
    } finally {
      this.#pumping = false;
    }
  }

  #pumpOnce(): void {
    if (this.#closed) return;
    const waiters = this.#waiters;
    // A subject's own idle worker first, wherever its request sits in the queue.
    for (let i = 0; i < waiters.length;) {
      const sb = this.#popIdle(waiters[i].request.subjectId);
      if (sb === undefined) i++;
      else this.#start(waiters.splice(i, 1)[0], sb);
    }
    while (waiters.length > 0 && this.#fresh.length > 0) this.#start(waiters.shift()!, this.#fresh.pop()!);
    const canSpawn = () => this.#spawning < this.#spawnConcurrency;
    let need = waiters.length - this.#spawning;
    while (need > 0 && this.#live < this.#max && canSpawn()) {
      this.#spawn();
      need--;
    }
    while (need > 0 && canSpawn()) {
      const victim = this.#lruIdle();
      if (victim === undefined) break;
      this.#kill(victim);
      this.#spawn();
      need--;
    }
    if (this.#spawnFailures === 0) {
      while (
        this.#live < this.#max && canSpawn() &&
        this.#fresh.length + Math.max(0, this.#spawning - waiters.length) < this.#warm
      ) this.#spawn();
    }
  }

  #start(exec: PoolExecution, sb: Sandbox): void {
    const req = exec.request;
    sb.state = "busy";
    sb.subject = req.subjectId;
    sb.execution = exec;
    exec.sandbox = sb;
    this.#executions++;
    let catalog = this.#catalogs.get(req.capabilities);
    if (catalog === undefined) {
      // Only the data the worker needs crosses (never a handler or anything else a host attached).
      const stubs = req.capabilities.map((c) => ({ name: c.name, input: c.input }));
      catalog = { key: this.#nextCatalogKey++, stubs };
      this.#catalogs.set(req.capabilities, catalog);
    }
    const send = sb.catalogKey !== catalog.key;
    sb.channel.reset();
    try {
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
    } catch (e) {
      exec.settle({ error: internalError("could not send the program to the sandbox", e), reusable: false });
      this.#kill(sb);
    }
  }

  #release(sb: Sandbox): void {
    sb.execution = undefined;
    sb.uses++;
    if (this.#closed || this.#strict || sb.uses >= this.#maxUses || sb.subject === undefined) {
      this.#kill(sb);
      return;
    }
    sb.state = "idle";
    sb.lastUsed = performance.now();
    const list = this.#idle.get(sb.subject);
    if (list === undefined) this.#idle.set(sb.subject, [sb]);
    else list.push(sb);
    this.#ensureReaper();
    this.#pump();
  }

  #ensureReaper(): void {
    if (this.#reaper !== undefined) return;
    this.#reaper = setInterval(() => this.#reap(), Math.max(10, Math.min(this.#idleTimeout / 2, 5_000)));
    Deno.unrefTimer(this.#reaper as unknown as number);
  }

  #reap(): void {
    const cutoff = performance.now() - this.#idleTimeout;
    const old: Sandbox[] = [];
    for (const list of this.#idle.values()) for (const sb of list) if (sb.lastUsed <= cutoff) old.push(sb);
    for (const sb of old) this.#kill(sb);
    if (this.#idle.size === 0) {
      clearInterval(this.#reaper);
      this.#reaper = undefined;
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Executions

  #abort(exec: PoolExecution, kind: AbortKind): void {
    if (exec.settled) return;
    const budgets = exec.request.budgets;
    if (kind === "deadline") {
      const error = deadlineError(budgets.maxExecutionTime);
      exec.fail(error, error.cause);
    } else if (kind === "cancel") {
      const reason = exec.request.signal?.reason;
      exec.fail(reason, reason);
    } else {
      exec.fail(internalError("executor closed"), new DOMException("executor closed", "AbortError"));
    }
    this.#remove(this.#waiters, exec);
    const sb = exec.sandbox;
    if (sb === undefined || sb.state !== "busy") return;
    sb.channel.interrupt(
      kind === "deadline" ? INTERRUPT_DEADLINE : kind === "cancel" ? INTERRUPT_CANCELLED : INTERRUPT_SHUTDOWN,
    );
    sb.state = "draining";
    sb.drainTimer = setTimeout(() => this.#kill(sb), this.#drainGrace);
  }

  #violation(sb: Sandbox, reason: string): void {
    const exec = sb.execution as PoolExecution | undefined;
    exec?.settle({ error: internalError(`sandbox protocol failure: ${reason}`), reusable: false });
    this.#kill(sb);
  }

  #onMessage(sb: Sandbox, msg: WorkerMessage): void {
    const exec = sb.execution as PoolExecution | undefined;
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
          exec.settle({ error: err, reusable: false });
          this.#kill(sb);
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
    if (exec.settled) {
      // The acknowledgement of an interrupt (or a late result): the worker is idle now, end it.
      if (sb.state === "draining" || sb.state === "busy") this.#kill(sb);
      return;
    }
    if (exec.callInFlight) {
      this.#violation(sb, "run finished while a native call was in flight");
      return;
    }
    const verdict = judgeOutcome(msg.outcome, exec.request, exec.nativeError);
    exec.settle(verdict);
    if (verdict.reusable) this.#release(sb);
    else this.#kill(sb);
  }
}
