/**
 * The inline executor: runs programs with the same engine, runner and budgets as the sandbox workers,
 * but in the host isolate — for runtimes that cannot spawn permission-restricted workers (Deno Deploy).
 * There is no isolation boundary: the engine exposes no JS to programs, so the budgets and the engine's
 * surface are the whole defence. Prefer the worker pool wherever it is available.
 *
 * Sharing the thread. Every execution starts as an ordinary run; one still running after its first
 * slice (5 ms) starts again as a sliced run (`startProgram`, see `eval/sliced.ts` in the engine), which
 * pauses every 4 ms at a loop turn or call, and at each native call it has no answer for. Paused runs
 * wait for their turn in {@link Turns}, keyed by the thread time their subject has used, so a short
 * execution is never queued behind another subject's long ones, and the event loop turns between any
 * two slices (I/O, timers and new requests go on). A single built-in operation cannot pause: it holds
 * the thread until it ends or polls past the deadline.
 *
 * Native calls. The engine is synchronous but capability handlers are async: an ordinary run stops
 * (suspends) at its first unanswered native call, the executor awaits the call, memoizes the answer and
 * goes on with a sliced run from scratch, which answers the earlier calls from the memo (Starlark is
 * deterministic: no clock, no randomness, insertion-ordered dicts, frozen globals), and pauses at each
 * later one while it is fetched. A call made where a sliced run cannot pause (inside a construct that
 * has no generator form) suspends it the same way and is replayed. A replay that diverges (a different
 * capability or different arguments) is reported as `internal`. Every native call reaches the host
 * exactly once (counted and debited once); every run gets the full step and memory budgets (so the same
 * programs pass and fail as in a worker, where the last run is the only one), and the time budget spans
 * all runs.
 *
 * @module
 */
import { raceAbort } from "../abort.ts";
import { CodeModeError } from "../errors.ts";
import type { Dialect } from "../starlark/mod.ts";
import type { CapabilityStub, ExecutionRequest, Executor } from "./contract.ts";
import {
  checkRequest,
  deadlineError,
  internalError,
  judgeOutcome,
  NativeCallHost,
  reportOutput,
} from "./host_call.ts";
import {
  buildCapabilityEnv,
  type CapabilityEnv,
  type ProgramRunOptions,
  runProgram,
  startProgram,
  SuspendRun,
} from "./program.ts";
import type { RunOutcome } from "./protocol.ts";
import { Turns } from "./turns.ts";
import { FairQueue } from "./fair_queue.ts";
import { IdleRelease } from "./idle_release.ts";
import { getHeapStatistics } from "node:v8";
import { positive } from "./pool_parts.ts";
import { memoryBudget } from "./protocol.ts";

/**
 * How long a run holds the thread before it starts again as a sliced run (ms): most executions end
 * well within it and never pay for slicing; a longer one loses at most this much work.
 */
const FIRST_SLICE_MS = 5;

/** How long a sliced run holds the thread between two turns (ms). */
const SLICE_MS = 4;

/** The interrupt reason that ends an ordinary run after its first slice. */
const SLICE_USED = "slice";

/** How far behind the running subjects' least thread time a returning subject starts (ms). */
const SHARE_CREDIT_MS = 50;

/** How long a subject's thread time is remembered after its last execution (ms). */
const SHARE_MEMORY_MS = 10_000;

/** A subject's thread time (ms) and its executions running. */
interface Share {
  used: number;
  runs: number;
  idleSince: number;
}

/** Options of an {@link InlineExecutor}. */
export interface InlineExecutorOptions {
  /** Executions in flight at once (the `maxConcurrentExecutions` limit). Default 8. */
  readonly maxConcurrentExecutions?: number;
  /** Most slots one subject's executions hold at once. Default: half the slots, rounded up. */
  readonly maxSlotsPerSubject?: number;
  /** Most executions of one subject waiting; more are refused with `resource_limit`. Default 64. */
  readonly maxQueuedPerSubject?: number;
  /** Engine dialect options (default: the reference's defaults, all off). */
  readonly dialect?: Partial<Dialect>;
  /**
   * Most memory the executions running at once may use together, each counted as 6 times its
   * `maxMemoryBytes` (the engine's worst measured heap growth over its budget). A slot waits until it fits; one execution always runs. Default: three quarters of
   * V8's heap limit (2 GiB when unknown), so the executions cannot exhaust the host's heap together.
   */
  readonly maxHeldMemoryBytes?: number;
  /**
   * How long an execution runs as an ordinary run before it starts again sliced, ms (default 5). 0
   * runs every execution sliced from its start: slower, but the same steps and outcomes (tests use it
   * to hold the sliced engine to the ordinary one).
   */
  readonly firstSliceMs?: number;
}

/** The engine's worst measured heap growth over `maxMemoryBytes` (tests/starlark/containment_test.ts). */
const HEAP_PER_BUDGET = 6;

function heldMemoryOf(request: ExecutionRequest): number {
  return HEAP_PER_BUDGET * memoryBudget(request.budgets);
}

function defaultHeldMemory(): number {
  try {
    const limit = getHeapStatistics().heap_size_limit;
    if (typeof limit === "number" && limit > 0) return Math.floor(limit * 0.75);
  } catch {
    // no node:v8 here
  }
  return 2 * 1024 ** 3;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

interface Waiter {
  readonly request: ExecutionRequest;
  readonly grant: () => void;
}

/** Runs programs in the host isolate with the sandbox's engine and budgets (no worker). */
export class InlineExecutor implements Executor {
  readonly #max: number;
  readonly #dialect: Partial<Dialect> | undefined;
  readonly #envs = new WeakMap<readonly CapabilityStub[], CapabilityEnv>();
  readonly #maxPerSubject: number;
  readonly #maxQueued: number;
  readonly #waiters = new FairQueue<Waiter>();
  readonly #running = new Set<AbortController>();
  readonly #held = new Map<string, number>();
  // Sliced runs waiting for the thread, served by the thread time their subjects have had.
  readonly #turns = new Turns();
  readonly #shares = new Map<string, Share>();
  readonly #maxHeldMemory: number;
  readonly #firstSliceMs: number;
  #heldMemory = 0;
  #active = 0;
  #closed = false;
  // Programs allocate in the host's own heap here; what they leave committed is returned once the
  // executor has been idle a moment (when `gc` is exposed).
  readonly #release = new IdleRelease(200, 64 * 1024 * 1024, () => Deno.memoryUsage().heapTotal);

  /** Creates the executor. */
  constructor(options: InlineExecutorOptions = {}) {
    const max = options.maxConcurrentExecutions ?? 0;
    if (max < 0 || !Number.isFinite(max)) {
      throw new CodeModeError("invalid_registration", "maxConcurrentExecutions must be positive");
    }
    this.#max = max === 0 ? 8 : Math.floor(max);
    this.#maxPerSubject = Math.min(
      this.#max,
      Math.floor(positive(options.maxSlotsPerSubject, Math.ceil(this.#max / 2), "maxSlotsPerSubject")),
    );
    this.#maxQueued = Math.floor(positive(options.maxQueuedPerSubject, 64, "maxQueuedPerSubject"));
    this.#dialect = options.dialect;
    this.#maxHeldMemory = positive(options.maxHeldMemoryBytes, defaultHeldMemory(), "maxHeldMemoryBytes");
    const first = options.firstSliceMs ?? FIRST_SLICE_MS;
    if (!(first >= 0)) throw new CodeModeError("invalid_registration", "firstSliceMs must not be negative");
    this.#firstSliceMs = first;
    this.#release.noteBaseline();
  }

  /** Checks that the engine loads and runs a trivial program. */
  probe(_options?: number | { readonly timeout?: number }): Promise<void> {
    const outcome = runProgram({
      source: "def main():\n    return 1\n",
      env: buildCapabilityEnv([]),
      budgets: {
        maxSourceBytes: 1024,
        maxExecutionSteps: 1000,
        maxExecutionTime: 1000,
        maxNativeCalls: 1,
        maxValueDepth: 2,
        maxValueBytes: 64,
        maxIntermediateValueBytes: 64,
      },
      maxMemoryBytes: 1 << 20,
      checkInterrupt: () => undefined,
      native: () => {
        throw new Error("no native calls in the probe");
      },
    });
    if (!outcome.ok) {
      return Promise.reject(
        new CodeModeError("invalid_registration", `inline executor probe failed: ${outcome.message}`),
      );
    }
    return Promise.resolve();
  }

  /** Runs `main()` of the request's program in this isolate. */
  async run(request: ExecutionRequest): Promise<unknown> {
    if (this.#closed) throw internalError("executor is closed");
    const signal = request.signal;
    if (signal?.aborted) throw signal.reason;
    checkRequest(request);
    const budgets = request.budgets;
    const deadline = request.startedAt + budgets.maxExecutionTime;
    if (!(deadline - performance.now() > 0)) throw deadlineError(budgets.maxExecutionTime);

    const subject = request.subjectId;
    if (this.#waiters.count(subject) >= this.#maxQueued) {
      throw new CodeModeError(
        "resource_limit",
        `more than ${this.#maxQueued} executions of this subject are waiting`,
      );
    }
    const controller = new AbortController();
    const timeoutReason = deadlineError(budgets.maxExecutionTime);
    const timer = setTimeout(() => controller.abort(timeoutReason), deadline - performance.now());
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    this.#running.add(controller);
    let holding = false;
    try {
      await this.#acquire(request, controller.signal);
      holding = true;
      // On a deadline or cancellation the rejection is the controller's reason: the deadline error
      // (resource_limit caused by a TimeoutError) or the caller's own reason.
      return await this.#execute(request, deadline, controller.signal);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      this.#running.delete(controller);
      if (holding) this.#releaseSlot(request);
    }
  }

  /** Rejects waiting and running executions with `internal`. Idempotent. */
  close(): Promise<void> {
    this.#closed = true;
    this.#release.cancel();
    this.#turns.close();
    for (const c of this.#running) if (!c.signal.aborted) c.abort(internalError("executor closed"));
    return Promise.resolve();
  }

  // Slots are granted like the pools grant theirs: round-robin across subjects, and a subject holds at
  // most its share, so one subject's flood cannot keep the others' executions waiting for a slot.
  //
  // Every running execution's heap lives in the host's, and sliced runs are alive at the same time:
  // a slot is granted only while the memory they may use together fits (see maxHeldMemoryBytes).
  #acquire(request: ExecutionRequest, signal: AbortSignal): Promise<void> {
    const subject = request.subjectId;
    if (
      this.#active < this.#max && this.#underShare(subject) && this.#fits(request) && this.#waiters.size === 0
    ) {
      this.#hold(request);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        request,
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.#waiters.remove(waiter);
        reject(signal.reason);
        this.#grant();
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#grant();
    });
  }

  #underShare(subject: string): boolean {
    return (this.#held.get(subject) ?? 0) < this.#maxPerSubject;
  }

  /** Whether `request` may start now without the executions' memory passing maxHeldMemoryBytes. */
  #fits(request: ExecutionRequest): boolean {
    return this.#active === 0 || this.#heldMemory + heldMemoryOf(request) <= this.#maxHeldMemory;
  }

  #hold(request: ExecutionRequest): void {
    const subject = request.subjectId;
    this.#release.cancel();
    this.#active++;
    this.#heldMemory += heldMemoryOf(request);
    this.#held.set(subject, (this.#held.get(subject) ?? 0) + 1);
  }

  #releaseSlot(request: ExecutionRequest): void {
    const subject = request.subjectId;
    this.#active--;
    this.#heldMemory -= heldMemoryOf(request);
    const n = (this.#held.get(subject) ?? 1) - 1;
    if (n <= 0) this.#held.delete(subject);
    else this.#held.set(subject, n);
    this.#grant();
    if (this.#active === 0 && !this.#closed) this.#release.schedule();
  }

  #grant(): void {
    while (this.#active < this.#max) {
      const next = this.#waiters.take((s, head) => this.#underShare(s) && this.#fits(head.request));
      if (next === undefined) return;
      this.#hold(next.request);
      next.grant();
    }
  }

  #env(stubs: readonly CapabilityStub[]): CapabilityEnv {
    let env = this.#envs.get(stubs);
    if (env === undefined) {
      env = buildCapabilityEnv(stubs);
      this.#envs.set(stubs, env);
    }
    return env;
  }

  async #execute(request: ExecutionRequest, deadline: number, signal: AbortSignal): Promise<unknown> {
    const share = this.#share(request.subjectId);
    try {
      return await this.#executeShared(request, deadline, signal, share);
    } finally {
      if (--share.runs === 0) share.idleSince = performance.now();
    }
  }

  /**
   * The account of a subject's thread time: the key of its turns, so the subject that has used the
   * thread least goes first. It is kept a while after the subject's last execution (a stream of short
   * executions keeps its standing), but a subject coming back starts at most {@link SHARE_CREDIT_MS}
   * behind the least of the running ones: it neither waits behind everyone's history nor jumps ahead
   * of the others for long.
   */
  #share(subject: string): Share {
    const now = performance.now();
    let least = Infinity;
    for (const [k, s] of this.#shares) {
      if (s.runs > 0) least = Math.min(least, s.used);
      else if (now - s.idleSince > SHARE_MEMORY_MS) this.#shares.delete(k);
    }
    let share = this.#shares.get(subject);
    if (share === undefined) {
      share = { used: 0, runs: 0, idleSince: now };
      this.#shares.set(subject, share);
    }
    if (share.runs === 0 && Number.isFinite(least)) {
      share.used = Math.max(share.used, least - SHARE_CREDIT_MS);
    }
    share.runs++;
    return share;
  }

  async #executeShared(
    request: ExecutionRequest,
    deadline: number,
    signal: AbortSignal,
    share: Share,
  ): Promise<unknown> {
    const host = new NativeCallHost(request);
    const env = this.#env(request.capabilities);
    const memo: { cap: number; args: Uint8Array; result: Uint8Array }[] = [];
    const compiled = {}; // replays reuse the compiled program
    // Every run starts as an ordinary run; one that is still running after its first slice starts
    // again (Starlark is deterministic: the memo answers its native calls) as a sliced run.
    let sliced = this.#firstSliceMs === 0;
    const turn = async () => {
      await this.#turns.next(share.used, signal);
    };
    // Performs a call the run is waiting for, once; later runs and resumes answer it from the memo.
    const fetch = async ({ cap, args }: { cap: number; args: Uint8Array }) => {
      memo.push({ cap, args, result: await raceAbort(host.call(cap, args, signal), signal) });
    };
    // Even the first attempt waits for a turn: executions granted a slot as others end would otherwise
    // chain their first slices in one task, without the event loop turning between them.
    await turn();
    for (;;) {
      if (signal.aborted) throw signal.reason;
      // Another run may have held the thread past this one's deadline (its timer could not fire
      // meanwhile): end now rather than compile and start a run that is already late.
      if (performance.now() >= deadline) throw deadlineError(request.budgets.maxExecutionTime);
      let index = 0;
      let pending: { cap: number; args: Uint8Array } | undefined;
      let diverged = false;
      const sliceEnd = performance.now() + this.#firstSliceMs;
      const options: ProgramRunOptions = {
        source: request.source,
        env,
        budgets: request.budgets,
        maxMemoryBytes: memoryBudget(request.budgets),
        dialect: this.#dialect,
        compiled,
        sliced: true,
        checkInterrupt: () => {
          if (signal.aborted) return "cancelled";
          const now = performance.now();
          if (now >= deadline) return "deadline";
          if (!sliced && now >= sliceEnd) return SLICE_USED;
          return undefined;
        },
        native: (cap, args) => {
          const i = index++;
          if (i < memo.length) {
            const m = memo[i];
            if (m.cap === cap && sameBytes(m.args, args)) return m.result;
            diverged = true;
            throw new SuspendRun();
          }
          pending = { cap, args };
          throw new SuspendRun();
        },
        // A sliced run pauses at a call it has no answer for; the answer is fetched and memoized, and
        // the run goes on where it stopped (no replay).
        nativeWait: (cap, args) => {
          if (index < memo.length) return false;
          pending = { cap, args };
          return true;
        },
      };
      let outcome: RunOutcome;
      if (!sliced) {
        const t0 = performance.now();
        outcome = runProgram(options);
        share.used += performance.now() - t0;
        if (!outcome.ok && outcome.kind === "interrupted" && outcome.code === SLICE_USED) {
          sliced = true;
          continue;
        }
      } else {
        const run = startProgram(options);
        let next: RunOutcome | undefined;
        for (;;) {
          const t0 = performance.now();
          next = run.resume(t0 + SLICE_MS);
          share.used += performance.now() - t0;
          if (next !== undefined) break;
          if (pending === undefined) {
            await turn();
            continue;
          }
          const call = pending;
          pending = undefined;
          // A refused or failed call ends the execution here: what the run printed so far goes with it.
          await fetch(call).catch((e) => {
            reportOutput(request, run.output);
            throw e;
          });
          if (performance.now() >= deadline) {
            reportOutput(request, run.output);
            throw deadlineError(request.budgets.maxExecutionTime);
          }
          // Back in the queue of turns: the answer goes on when this run's share says so.
          await turn();
        }
        outcome = next;
      }
      if (!outcome.ok && outcome.kind === "suspended") {
        if (diverged || pending === undefined) {
          throw internalError("inline replay diverged: the program did not repeat its earlier native calls");
        }
        await fetch(pending).catch((e) => {
          reportOutput(request, outcome.output);
          throw e;
        });
        // The replay runs sliced, so its later calls pause instead of replaying again; and it waits
        // for a turn, since a handler's answer may arrive without the event loop turning.
        sliced = true;
        await turn();
        continue;
      }
      if (!outcome.ok && outcome.kind === "interrupted") {
        if (signal.aborted) throw signal.reason;
        if (outcome.code === "deadline") {
          reportOutput(request, outcome.output);
          throw deadlineError(request.budgets.maxExecutionTime);
        }
      }
      const verdict = judgeOutcome(outcome, request, undefined);
      if (verdict.error !== undefined) throw verdict.error;
      return verdict.value;
    }
  }
}
