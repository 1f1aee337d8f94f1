/**
 * The scheduling shared by the worker pool and the process pool: slots, fresh and per-subject idle
 * sandboxes, strict mode, reaping, the fair waiting queue and honest slot accounting. What a sandbox is
 * (a Web Worker, a child process) hides behind {@link SandboxDriver}.
 *
 * Slots: at most `max` sandboxes exist at once, counting spawns in flight, fresh, idle and busy ones,
 * interrupted ones still unwinding and ended ones that have not yet really stopped. A slot is free only
 * once its sandbox has stopped: a sandbox that does not stop when asked keeps its slot, is counted as
 * `stuck` and makes the pool `degraded` (see {@link SlotScheduler.health}) instead of piling up threads
 * or processes beyond the bound.
 *
 * Fairness: waiting executions are served round-robin across subjects (a subject just served goes to
 * the back of the rotation), one subject holds at most `maxPerSubject` slots with running or unwinding
 * executions, and at most `maxQueuedPerSubject` of its executions wait; more are refused at once with
 * `resource_limit`. Every execution counts, however it arrived (one request each, or a JSON-RPC batch).
 * Reserved slots: a few slots go only to light subjects, so a flood of long programs from a few subjects
 * cannot keep a light subject waiting for one of their runs to end (see admission.ts).
 *
 * @module
 */
import { CodeModeError } from "../errors.ts";
import type { ExecutionRequest } from "./contract.ts";
import { checkRequest, deadlineError, internalError, type Verdict } from "./host_call.ts";
import type { SelfCheckReport } from "./protocol.ts";
import { FairQueue } from "./fair_queue.ts";
import { type Admission, idleToEnd, isLight, mayStart, slotsWanted } from "./admission.ts";
import { type AbortKind, PoolExecution, type PoolStats } from "./pool_parts.ts";

/** A timer handle as this runtime types it. */
export type TimerId = ReturnType<typeof setTimeout>;

/** Lifecycle of a sandbox inside a pool. */
export type SandboxState = "spawning" | "fresh" | "idle" | "busy" | "draining" | "stopping" | "dead";

let nextSlotId = 1;

/** The scheduler's bookkeeping on one sandbox (worker or process); sandbox classes extend it. */
export class Slot {
  /** Pool-unique id. */
  readonly id: number = nextSlotId++;
  /** Where the sandbox is in its lifecycle. */
  state: SandboxState = "spawning";
  /** The subject it is bound to after its first execution (a sandbox never serves two subjects). */
  subject: string | undefined;
  /** The subject whose execution holds this slot (running, unwinding or stopping after it). */
  holder: string | undefined;
  /** Completed executions. */
  uses = 0;
  /** `performance.now()` when it last became idle. */
  lastUsed = 0;
  /** The execution it serves. */
  execution: PoolExecution | undefined;
  /** Drain or stop timer. */
  timer: TimerId | undefined;
  /** Whether it failed to stop in time (its slot stays held). */
  stuck = false;
  /** Set by a driver when the sandbox must not be reused (for example it holds too much memory). */
  retireAfterRun = false;
  /** Whether its last run ended at a budget, so it is ended after a short idle time (see `Verdict`). */
  atBudget = false;
}

/**
 * Idle time after which a sandbox whose last run ended at a budget is ended (or the pool's idle
 * timeout, if shorter): it may hold that run's garbage, so it is kept only while its subject is busy.
 */
export const AT_BUDGET_IDLE_MS = 1_000;

/** What a pool tells the scheduler about its kind of sandbox. */
export interface SandboxDriver<S extends Slot> {
  /** Starts a new sandbox. Throws synchronously when the runtime refuses to create one. */
  create(readyTimeoutMs: number): S;
  /** Resolves once the sandbox can take work; rejects when it failed to start. */
  ready(sandbox: S): Promise<void>;
  /** Sends the execution to the sandbox. A throw fails the execution with `internal`. */
  start(sandbox: S, execution: PoolExecution): void;
  /**
   * Asks a busy sandbox to stop its execution. True when it was asked and will unwind by itself (the
   * scheduler stops it after the drain grace otherwise); false when it cannot be told (stopped at once).
   */
  interrupt(sandbox: S, kind: AbortKind): boolean;
  /**
   * Ends the sandbox: `undefined` when it has stopped already, else a promise that resolves once it
   * has really stopped (it may never resolve for a sandbox that cannot be stopped).
   */
  stop(sandbox: S): Promise<void> | undefined;
  /** Ends the sandbox as well as it can when the pool closes; the promise bounds the wait. */
  destroy(sandbox: S): Promise<void>;
  /** Asks a started sandbox which privileged operations are refused. */
  selfCheck(sandbox: S, timeoutMs: number): Promise<SelfCheckReport>;
}

/** Scheduling parameters (resolved pool options). */
export interface SchedulerConfig {
  /** Slot bound. */
  readonly max: number;
  /** Most slots one subject's executions hold at once. */
  readonly maxPerSubject: number;
  /** Most executions of one subject waiting at once. */
  readonly maxQueuedPerSubject: number;
  /** Strict mode: a new sandbox per execution. */
  readonly strict: boolean;
  /** Executions per sandbox. */
  readonly maxUses: number;
  /** Idle time before a subject's sandbox is ended (ms). */
  readonly idleTimeout: number;
  /** Fresh sandboxes to keep ready. */
  readonly warm: number;
  /** Spawn timeout (ms). */
  readonly spawnTimeout: number;
  /** How long an interrupted sandbox may take to unwind (ms). */
  readonly drainGrace: number;
  /** How long a stopping sandbox may take before it counts as stuck (ms). */
  readonly stuckAfter: number;
  /** Spawns in flight at once. */
  readonly spawnConcurrency: number;
  /** Slots kept for subjects that hold none (see the module doc). */
  readonly reserved: number;
}

/** The health of a pool, as `/healthz` reports it. */
export interface PoolHealth {
  /** `degraded` while any slot is held by a sandbox that did not stop when asked. */
  readonly status: "ok" | "degraded";
  /** Slots held by such sandboxes. */
  readonly stuck: number;
  /** Slots in use. */
  readonly live: number;
  /** The slot bound. */
  readonly max: number;
}

/** Runs executions on sandboxes from a driver under the scheduling rules above. */
export class SlotScheduler<S extends Slot> {
  readonly #c: SchedulerConfig;
  readonly #driver: SandboxDriver<S>;
  readonly #all = new Set<S>();
  readonly #fresh: S[] = [];
  readonly #idle = new Map<string, S[]>();
  readonly #queue = new FairQueue<PoolExecution>();
  readonly #active = new Map<string, number>();
  /** Slots held by executions, all subjects together (the sum of #active). */
  #held = 0;
  #nextExecId = 1;
  #live = 0;
  #spawning = 0;
  #spawnFailures = 0;
  #stuck = 0;
  #reaper: TimerId | undefined;
  /** When the last execution ended (or the pool was made): the start of a quiet pool's idle time. */
  #quietSince = performance.now();
  /**
   * Whether the pool went quiet for the idle timeout and ended its warm spares: none are spawned again
   * until the next execution arrives. A Web Worker cannot be unref'd, so an idle server's spares would
   * otherwise keep the host process alive forever when the host forgets `close()`.
   */
  #dormant = false;
  #closed = false;
  #pumping = false;
  #pumpAgain = false;
  #spawned = 0;
  #discarded = 0;
  #executions = 0;
  #peak = 0;
  #everStuck = 0;
  #refused = 0;

  /** Creates an empty scheduler. */
  constructor(config: SchedulerConfig, driver: SandboxDriver<S>) {
    this.#c = config;
    this.#driver = driver;
  }

  /** Whether {@link SlotScheduler.close} ran. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Current counters. */
  stats(): PoolStats {
    let idle = 0;
    for (const list of this.#idle.values()) idle += list.length;
    const count = (state: SandboxState) => [...this.#all].filter((sb) => sb.state === state).length;
    return {
      live: this.#live,
      spawning: this.#spawning,
      fresh: this.#fresh.length,
      idle,
      busy: count("busy"),
      draining: count("draining"),
      stopping: count("stopping"),
      stuck: this.#stuck,
      everStuck: this.#everStuck,
      waiting: this.#queue.size,
      refused: this.#refused,
      spawned: this.#spawned,
      discarded: this.#discarded,
      executions: this.#executions,
      peakLive: this.#peak,
    };
  }

  /** `degraded` while a sandbox that did not stop when asked holds a slot. */
  health(): PoolHealth {
    return {
      status: this.#stuck > 0 ? "degraded" : "ok",
      stuck: this.#stuck,
      live: this.#live,
      max: this.#c.max,
    };
  }

  /**
   * Starts a sandbox outside the slot bound, waits for it and checks that every privileged operation
   * is refused inside it; keeps it as a fresh sandbox when a slot is free. `explain` turns a failure
   * into the pool's wiring diagnostic.
   */
  async probe(timeout: number, explain: (why: string, cause: unknown) => CodeModeError): Promise<void> {
    if (this.#closed) throw internalError("executor is closed");
    const started = performance.now();
    let sb: S | undefined;
    try {
      sb = this.#driver.create(timeout);
      await this.#driver.ready(sb);
      const report = await this.#driver.selfCheck(sb, Math.max(1, timeout - (performance.now() - started)));
      const allowed = Object.entries(report).filter(([, r]) => !r.refused).map(([k, r]) =>
        `${k} (${r.detail})`
      );
      if (allowed.length > 0) throw new Error(`the sandbox is not isolated: ${allowed.join(", ")} allowed`);
    } catch (e) {
      if (sb !== undefined) await this.#driver.destroy(sb).catch(() => {});
      throw explain(e instanceof Error ? e.message : String(e), e);
    }
    if (this.#closed || this.#live >= this.#c.max) {
      await this.#driver.destroy(sb).catch(() => {});
      return;
    }
    this.#all.add(sb);
    this.#live++;
    this.#peak = Math.max(this.#peak, this.#live);
    sb.state = "fresh";
    this.#fresh.push(sb);
    this.#ensureReaper();
    this.#pump();
  }

  /** Runs one execution: waits fairly for a slot, then hands it to the driver. */
  async run(request: ExecutionRequest): Promise<unknown> {
    if (this.#closed) throw internalError("executor is closed");
    const signal = request.signal;
    if (signal?.aborted) throw signal.reason;
    checkRequest(request);
    if (this.#queue.count(request.subjectId) >= this.#c.maxQueuedPerSubject) {
      this.#refused++;
      throw new CodeModeError(
        "resource_limit",
        `more than ${this.#c.maxQueuedPerSubject} executions of this subject are waiting`,
      );
    }
    const exec = new PoolExecution(this.#nextExecId++, request);
    this.#dormant = false;
    const remaining = request.startedAt + request.budgets.maxExecutionTime - performance.now();
    if (!(remaining > 0)) throw deadlineError(request.budgets.maxExecutionTime);
    const timer = setTimeout(() => this.#abort(exec, "deadline"), remaining);
    const onAbort = () => this.#abort(exec, "cancel");
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      this.#queue.push(exec);
      this.#pump();
      return await exec.promise;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Ends every sandbox, waiting request and timer; running executions reject with `internal`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const reason = new DOMException("executor closed", "AbortError");
    for (const exec of this.#queue.drain()) exec.fail(internalError("executor closed"), reason);
    const ends: Promise<void>[] = [];
    for (const sb of [...this.#all]) {
      sb.execution?.fail(internalError("executor closed"), reason);
      clearTimeout(sb.timer);
      sb.state = "dead";
      ends.push(this.#driver.destroy(sb));
    }
    this.#all.clear();
    this.#fresh.length = 0;
    this.#idle.clear();
    this.#active.clear();
    this.#held = 0;
    this.#live = 0;
    this.#stuck = 0;
    clearInterval(this.#reaper);
    this.#reaper = undefined;
    await Promise.all(ends);
  }

  /** The sandbox finished its execution with `verdict`: reuse it when allowed, else end it. */
  finish(sb: S, verdict: Verdict): void {
    const exec = sb.execution;
    exec?.settle(verdict);
    sb.atBudget = verdict.atBudget === true;
    if (verdict.reusable && sb.state === "busy") this.#release(sb);
    else this.retire(sb);
  }

  /**
   * An interrupted sandbox reports that its run has unwound (it is back at its event loop): it serves
   * its subject again like one whose run ended at a budget, unless its driver marked it
   * `retireAfterRun` (its heap is large). A spawn is dear: a process start, or for a Web Worker 10–30 ms
   * during which `new Worker()` blocks the host's thread.
   */
  rested(sb: S): void {
    if (sb.state !== "draining") {
      this.retire(sb);
      return;
    }
    clearTimeout(sb.timer);
    sb.timer = undefined;
    sb.atBudget = true;
    this.#release(sb);
  }

  /** The sandbox broke the protocol (or crashed): fail its execution with `internal` and end it. */
  fault(sb: S, error: CodeModeError): void {
    sb.execution?.settle({ error, reusable: false });
    this.retire(sb);
  }

  /** Ends a sandbox; its slot frees once the driver reports it stopped. Idempotent. */
  retire(sb: S): void {
    if (sb.state === "dead" || sb.state === "stopping") return;
    if (sb.state === "fresh") this.#remove(this.#fresh, sb);
    if (sb.state === "idle" && sb.subject !== undefined) {
      const list = this.#idle.get(sb.subject);
      if (list !== undefined) {
        this.#remove(list, sb);
        if (list.length === 0) this.#idle.delete(sb.subject);
      }
    }
    clearTimeout(sb.timer);
    sb.timer = undefined;
    if (this.#closed) {
      sb.state = "dead";
      void this.#driver.destroy(sb);
      return;
    }
    sb.state = "stopping";
    const pending = this.#driver.stop(sb);
    if (pending === undefined) return this.#stopped(sb);
    sb.timer = setTimeout(() => {
      if (sb.state !== "stopping" || sb.stuck) return;
      sb.stuck = true;
      this.#stuck++;
      this.#everStuck++;
    }, this.#c.stuckAfter);
    pending.then(() => this.#stopped(sb), () => this.#stopped(sb));
  }

  #stopped(sb: S): void {
    if (sb.state === "dead") return;
    clearTimeout(sb.timer);
    sb.timer = undefined;
    sb.state = "dead";
    if (sb.stuck) {
      sb.stuck = false;
      this.#stuck--;
    }
    this.#unhold(sb);
    if (this.#all.delete(sb)) {
      this.#live--;
      this.#discarded++;
    }
    this.#pump();
  }

  #unhold(sb: S): void {
    const s = sb.holder;
    if (s === undefined) return;
    sb.holder = undefined;
    this.#held--;
    const n = (this.#active.get(s) ?? 1) - 1;
    if (n <= 0) this.#active.delete(s);
    else this.#active.set(s, n);
  }

  #remove<T>(list: T[], item: T): void {
    const i = list.indexOf(item);
    if (i >= 0) list.splice(i, 1);
  }

  #spawn(): void {
    this.#live++;
    this.#peak = Math.max(this.#peak, this.#live);
    this.#spawning++;
    this.#spawned++;
    let sb: S;
    try {
      sb = this.#driver.create(this.#c.spawnTimeout);
    } catch (e) {
      this.#live--;
      this.#spawning--;
      this.#spawnFailed(e);
      return;
    }
    this.#all.add(sb);
    this.#driver.ready(sb).then(
      () => {
        this.#spawning--;
        this.#spawnFailures = 0;
        if (this.#closed || sb.state !== "spawning") {
          this.retire(sb);
          return;
        }
        sb.state = "fresh";
        this.#fresh.push(sb);
        // The reaper ends spares once the pool stays quiet (see #dormant).
        this.#ensureReaper();
        this.#pump();
      },
      (e) => {
        this.#spawning--;
        if (this.#closed) return;
        this.#spawnFailed(e);
        this.retire(sb);
      },
    );
  }

  // A failed spawn fails the next waiter at once instead of letting it wait for its deadline.
  #spawnFailed(e: unknown): void {
    this.#spawnFailures++;
    const exec = this.#queue.take(() => true);
    const why = e instanceof Error ? e.message : String(e);
    exec?.fail(internalError(`sandbox failed to start: ${why}`, e), e);
    this.#pump();
  }

  /** The admission rules' view of this pool now (admission.ts). */
  get #admission(): Admission {
    const c = this.#c, q = this.#queue;
    return {
      max: c.max,
      reserved: c.reserved,
      maxPerSubject: c.maxPerSubject,
      held: this.#held,
      active: this.#active,
      queued: (s) => q.count(s),
    };
  }

  #underShare(subject: string): boolean {
    return mayStart(this.#admission, subject);
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

  // Slots that free soon: those of sandboxes already stopping (and not stuck).
  #stoppingSoon(): number {
    let n = 0;
    for (const sb of this.#all) if (sb.state === "stopping" && !sb.stuck) n++;
    return n;
  }

  #pumpOnce(): void {
    if (this.#closed) return;
    const q = this.#queue;
    // Rounds over the rotation: each round starts at most one execution per subject, and a served
    // subject moves to the back. A subject reuses its own idle sandbox, else takes a fresh one, else
    // waits for a new one. When subjects ahead of it in the rotation wait and no slot is free for them,
    // its idle sandbox is ended to make room instead of reused: reuse never lets a busy subject starve
    // the others.
    // Subjects waiting for a new sandbox; spawns in flight and stopping sandboxes will serve them.
    const unmet = new Set<string>();
    for (let progress = true; progress && q.size > 0;) {
      progress = false;
      for (const s of q.subjects()) {
        if (q.count(s) === 0 || !this.#underShare(s)) continue;
        const own = this.#idle.get(s);
        if (own !== undefined && own.length > 0) {
          const room = this.#c.max - this.#live + this.#stoppingSoon() + this.#spawning;
          // A light subject's idle sandbox is its reserved slot: it is reused, not ended for the flood.
          if (unmet.size <= room || isLight(this.#admission, s)) {
            const sb = own.pop()!;
            if (own.length === 0) this.#idle.delete(s);
            this.#start(q.take((x) => x === s)!, sb);
            progress = true;
            continue;
          }
          this.retire(own[own.length - 1]);
        } else if (this.#fresh.length > 0) {
          this.#start(q.take((x) => x === s)!, this.#fresh.pop()!);
          unmet.delete(s);
          progress = true;
          continue;
        }
        unmet.add(s);
      }
    }
    const canSpawn = () => this.#spawning < this.#c.spawnConcurrency;
    // A light subject's execution may use a reserved slot; the others share what the reserve leaves.
    let need = slotsWanted(this.#admission, q.subjects()) - this.#spawning;
    while (need > 0 && this.#live < this.#c.max && canSpawn()) {
      this.#spawn();
      need--;
    }
    // Sandboxes already stopping free their slots soon: evict no more idle ones than still needed.
    need -= this.#stoppingSoon();
    while (need > 0 && canSpawn()) {
      const victim = idleToEnd(this.#idle, this.#admission);
      if (victim === undefined) break;
      this.retire(victim);
      // The victim's slot frees only once it has stopped; spawn now only if it already has.
      if (this.#live >= this.#c.max) break;
      this.#spawn();
      need--;
    }
    if (this.#spawnFailures === 0) {
      while (
        this.#live < this.#c.max && canSpawn() &&
        !this.#dormant &&
        this.#fresh.length + Math.max(0, this.#spawning - q.size) < this.#c.warm
      ) this.#spawn();
    }
  }

  #start(exec: PoolExecution, sb: S): void {
    const subject = exec.request.subjectId;
    sb.state = "busy";
    sb.subject = subject;
    sb.execution = exec;
    sb.holder = subject;
    this.#held++;
    this.#active.set(subject, (this.#active.get(subject) ?? 0) + 1);
    exec.sandbox = sb;
    this.#executions++;
    try {
      this.#driver.start(sb, exec);
    } catch (e) {
      this.fault(sb, internalError("could not send the program to the sandbox", e));
    }
  }

  #release(sb: S): void {
    this.#quietSince = performance.now();
    sb.execution = undefined;
    sb.uses++;
    this.#unhold(sb);
    if (
      this.#closed || this.#c.strict || sb.uses >= this.#c.maxUses || sb.subject === undefined ||
      sb.retireAfterRun
    ) {
      this.retire(sb);
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

  #idleLimit(sb: S): number {
    return sb.atBudget ? Math.min(this.#c.idleTimeout, AT_BUDGET_IDLE_MS) : this.#c.idleTimeout;
  }

  #ensureReaper(): void {
    if (this.#reaper !== undefined) return;
    const shortest = Math.min(this.#c.idleTimeout, AT_BUDGET_IDLE_MS);
    const every = Math.max(10, Math.min(shortest / 2, 5_000));
    this.#reaper = setInterval(() => this.#reap(), every);
    Deno.unrefTimer(this.#reaper as unknown as number);
  }

  #reap(): void {
    const now = performance.now();
    const old: S[] = [];
    for (const list of this.#idle.values()) {
      for (const sb of list) if (sb.lastUsed <= now - this.#idleLimit(sb)) old.push(sb);
    }
    for (const sb of old) this.retire(sb);
    if (
      !this.#dormant && this.#held === 0 && this.#queue.size === 0 && this.#idle.size === 0 &&
      now - this.#quietSince >= this.#c.idleTimeout
    ) {
      this.#dormant = true;
    }
    if (this.#dormant) { for (const sb of [...this.#fresh]) this.retire(sb); }
    if (this.#idle.size === 0 && this.#fresh.length === 0) {
      clearInterval(this.#reaper);
      this.#reaper = undefined;
    }
  }

  #abort(exec: PoolExecution, kind: AbortKind): void {
    if (exec.settled) return;
    if (kind === "deadline") {
      const error = deadlineError(exec.request.budgets.maxExecutionTime);
      exec.fail(error, error.cause);
    } else if (kind === "cancel") {
      const reason = exec.request.signal?.reason;
      exec.fail(reason, reason);
    } else {
      exec.fail(internalError("executor closed"), new DOMException("executor closed", "AbortError"));
    }
    this.#queue.remove(exec);
    const sb = exec.sandbox as S | undefined;
    if (sb === undefined || sb.state !== "busy") return;
    if (!this.#driver.interrupt(sb, kind)) {
      this.retire(sb);
      return;
    }
    sb.state = "draining";
    sb.timer = setTimeout(() => this.retire(sb), this.#c.drainGrace);
  }
}
