/**
 * One zero-permission sandbox worker as the pool sees it: spawning, the ready handshake, message
 * routing, the self-check, knowing when it is at rest, and termination.
 *
 * `Worker.terminate()` does not stop a worker spinning in JS, so a worker counts as stopped only when it
 * was at rest (ready and idle, or it reported the end of its run) or has answered a self-check after
 * its run was interrupted; see {@link Sandbox.quiesce}.
 *
 * @module
 */
import { type HostMessage, type SelfCheckReport, SharedChannel, type WorkerMessage } from "./protocol.ts";
import { Slot, type TimerId } from "./scheduler.ts";
import type { SpawnPacer } from "./spawn_pacer.ts";

export type { SandboxState, TimerId } from "./scheduler.ts";

/** The worker entry module. */
export const SANDBOX_WORKER_URL: URL = new URL("../../workers/sandbox_worker.ts", import.meta.url);

/** Where a {@link Sandbox} reports what happens after its handshake. */
export interface SandboxHooks {
  /** A message from the worker (other than `ready` and `selfcheck` replies). */
  onMessage(sandbox: Sandbox, msg: WorkerMessage): void;
  /** The worker crashed or sent something that cannot be deserialized. */
  onFailure(sandbox: Sandbox, reason: string): void;
}

/** A spawned sandbox worker. */
export class Sandbox extends Slot {
  /** The shared buffer for native-call replies and interrupts. */
  readonly channel: SharedChannel;
  /** Holds the worker's run to `perMille` of a CPU (0: no limit): it naps between slices of work. */
  setDuty(perMille: number): void {
    this.channel.setDuty(perMille);
  }
  /** Resolves once the worker loaded its modules, received the shared buffer and warmed up. */
  readonly ready: Promise<void>;
  /** The catalog the worker has cached (-1: none). */
  catalogKey = -1;
  /**
   * Whether the worker is known not to be inside a run: true until a run is posted, and again once the
   * worker reports the end of its run or throws out of its handler. Only then does `terminate()`
   * really stop it.
   */
  atRest = true;

  #worker: Worker | undefined;
  readonly #hooks: SandboxHooks;
  #terminated = false;
  readonly #restWaiters: (() => void)[] = [];
  #readyTimer: TimerId | undefined;
  #settleReady: ((error?: Error) => void) | undefined;
  #selfCheck:
    | { resolve: (r: SelfCheckReport) => void; reject: (e: Error) => void; timer: TimerId }
    | undefined;

  /**
   * Spawns the worker with no permissions at all: at once, or when `pacer` gets to it. Rejects `ready`
   * when the runtime refuses to create workers, the module fails to load or the worker stays silent
   * for `readyTimeoutMs` (counted from now). The worker spends up to `warmUpMs` compiling and
   * optimizing the engine before it reports ready.
   */
  constructor(
    url: URL,
    dataBytes: number,
    readyTimeoutMs: number,
    hooks: SandboxHooks,
    warmUpMs = 0,
    pacer?: SpawnPacer,
  ) {
    super();
    this.channel = SharedChannel.create(dataBytes);
    this.#hooks = hooks;
    this.ready = new Promise<void>((resolve, reject) => {
      this.#settleReady = (error) => {
        this.#settleReady = undefined;
        clearTimeout(this.#readyTimer);
        this.#readyTimer = undefined;
        if (error === undefined) resolve();
        else reject(error);
      };
    });
    this.#readyTimer = setTimeout(
      () => this.#settleReady?.(new Error(`sandbox worker did not start within ${readyTimeoutMs} ms`)),
      readyTimeoutMs,
    );
    if (pacer === undefined) this.#create(url, warmUpMs);
    else pacer.schedule(() => this.#create(url, warmUpMs));
  }

  #create(url: URL, warmUpMs: number): void {
    if (this.#terminated) return;
    let worker: Worker;
    try {
      worker = new Worker(url, { type: "module", deno: { permissions: "none" } });
    } catch (e) {
      this.#settleReady?.(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    this.#worker = worker;
    worker.onmessage = (e: MessageEvent<WorkerMessage>) => this.#onMessage(e.data);
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.atRest = true; // an uncaught error ended the handler: the worker is not running a program
      this.#fail(`sandbox worker error: ${e.message || "unknown error"}`);
    };
    worker.onmessageerror = () => this.#fail("sandbox worker sent a message that cannot be read");
    // Queued until the worker module has loaded; the worker answers with `ready` once it has warmed up.
    worker.postMessage({ t: "init", buffer: this.channel.buffer, warmUpMs } satisfies HostMessage);
  }

  #fail(reason: string): void {
    if (this.#terminated) return;
    if (this.#settleReady !== undefined) {
      this.#settleReady(new Error(reason));
      return;
    }
    if (this.#selfCheck !== undefined) {
      const s = this.#selfCheck;
      this.#selfCheck = undefined;
      clearTimeout(s.timer);
      s.reject(new Error(reason));
    }
    this.#hooks.onFailure(this, reason);
  }

  #onMessage(msg: WorkerMessage): void {
    if (this.#terminated) return;
    if (msg === null || typeof msg !== "object") {
      this.#fail("sandbox worker sent a malformed message");
      return;
    }
    if (this.#settleReady !== undefined) {
      if (msg.t !== "ready") {
        this.#settleReady(new Error(`sandbox worker sent ${String(msg.t)} before ready`));
        return;
      }
      this.atRest = true;
      this.#settleReady();
      return;
    }
    if (msg.t === "selfcheck") {
      // Answering means the worker is in a message handler, not inside a run: it is at rest.
      for (const wake of this.#restWaiters.splice(0)) wake();
      const s = this.#selfCheck;
      if (s === undefined) return;
      this.#selfCheck = undefined;
      clearTimeout(s.timer);
      s.resolve(msg.report);
      return;
    }
    this.#hooks.onMessage(this, msg);
  }

  /** Posts a message to the worker. */
  post(msg: HostMessage): void {
    if (!this.#terminated) this.#worker?.postMessage(msg);
  }

  /**
   * Resolves once the worker is back at its event loop: raises the interrupt flag (waking a worker
   * blocked in a native call) and asks for a self-check, which the worker answers only after its
   * current run has unwound. Never resolves for a worker spinning in JS that ignores the flag.
   */
  quiesce(reason: number): Promise<void> {
    if (this.atRest || this.#terminated) return Promise.resolve();
    this.channel.interrupt(reason);
    return new Promise<void>((resolve) => {
      this.#restWaiters.push(resolve);
      if (this.#restWaiters.length === 1) this.post({ t: "selfcheck" });
    });
  }

  /** Asks the worker to try privileged operations and report which ones were refused. */
  selfCheck(timeoutMs: number): Promise<SelfCheckReport> {
    if (this.#selfCheck !== undefined) return Promise.reject(new Error("self-check already running"));
    return new Promise<SelfCheckReport>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#selfCheck = undefined;
        reject(new Error(`sandbox self-check did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#selfCheck = { resolve, reject, timer };
      this.post({ t: "selfcheck" });
    });
  }

  /**
   * Ends the worker. Idempotent. A worker blocked in a native call is woken first (Deno's terminate
   * does not interrupt `Atomics.wait`); one spinning in JS stops only when the engine polls its flag.
   */
  terminate(interruptReason: number): void {
    if (this.#terminated) return;
    this.#terminated = true;
    this.channel.interrupt(interruptReason);
    this.#settleReady?.(new Error("sandbox worker terminated before it was ready"));
    if (this.#selfCheck !== undefined) {
      clearTimeout(this.#selfCheck.timer);
      this.#selfCheck.reject(new Error("sandbox worker terminated"));
      this.#selfCheck = undefined;
    }
    this.#worker?.terminate();
  }
}
