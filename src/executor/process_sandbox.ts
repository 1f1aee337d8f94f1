/**
 * One sandbox process as the process pool sees it: spawning a permission-less Deno child with a V8 heap
 * cap, the ready handshake, frame routing with bounded buffering, the self-check, SIGKILL, and how the
 * child ended (killed by us, out of memory, or crashed).
 *
 * @module
 */
import {
  encodeFrame,
  type Frame,
  FrameDecoder,
  FrameError,
  MAX_CHILD_HEADER_BYTES,
} from "./process_protocol.ts";
import type { SelfCheckReport } from "./protocol.ts";
import { Slot, type TimerId } from "./scheduler.ts";

/** The child entry module. */
export const SANDBOX_PROCESS_URL: URL = new URL("../../workers/sandbox_process.ts", import.meta.url);

/** The period over which a throttled child runs its duty and is stopped for the rest (ms). */
export const DUTY_PERIOD_MS = 10;

/** How a child process ended. */
export interface ChildExit {
  /** Exit code (128 + signal number when a signal ended it). */
  readonly code: number;
  /** The signal that ended it, if any. */
  readonly signal: string | null;
  /** Whether the pool killed it. */
  readonly killed: boolean;
  /** Whether V8 reported running out of heap (the child hit its heap cap). */
  readonly outOfMemory: boolean;
}

/** Where a {@link ProcessSandbox} reports what happens after its handshake. */
export interface ProcessHooks {
  /** A frame from the child (other than `ready` and self-check replies). */
  onFrame(sandbox: ProcessSandbox, frame: Frame): void;
  /** The child sent something malformed or oversized (the sandbox kills it right after). */
  onViolation(sandbox: ProcessSandbox, reason: string): void;
  /** The child exited without being killed by the pool. */
  onExit(sandbox: ProcessSandbox, exit: ChildExit): void;
  /** Largest payload the child may send now (depends on the execution it runs). */
  maxPayloadBytes(sandbox: ProcessSandbox): number;
}

/** How to start a child. */
export interface ProcessSpawnOptions {
  /** The child entry module. */
  readonly moduleUrl: URL;
  /** V8 old-space cap in MiB (`--max-old-space-size`). */
  readonly heapMiB: number;
  /** Milliseconds the child spends warming up the engine before reporting ready. */
  readonly warmUpMs: number;
  /** How long the child may take to report ready. */
  readonly readyTimeoutMs: number;
  /** The only environment variable the child gets: Deno's cache directory, when the host knows it. */
  readonly denoDir?: string;
}

/** Size of the buffer the child's stdout is read into (a larger frame arrives over several reads). */
const READ_CHUNK_BYTES = 64 * 1024;

/** Bytes of the child's stderr kept to classify its end (V8 prints its out-of-memory report there). */
const STDERR_TAIL_BYTES = 8 * 1024;

/** Recognizes V8's fatal heap reports. */
const OOM_PATTERN = /out of memory|heap limit|allocation failed/i;

/** A spawned sandbox child process. */
export class ProcessSandbox extends Slot {
  /** Resolves once the child loaded the engine, warmed up and reported ready. */
  readonly ready: Promise<void>;
  /** Resolves once the child process has exited and its pipes are closed. */
  readonly exited: Promise<ChildExit>;
  /** The catalog the child has cached (-1: none). */
  catalogKey = -1;
  /** Whether the child is blocked waiting for the reply to a native call (it reads stdin only then). */
  awaitingReply = false;
  /** Whether the child has exited. */
  gone = false;

  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #hooks: ProcessHooks;
  #killed = false;
  // CPU duty cycling (setDuty).
  #stopped = false;
  #dutyTimer: ReturnType<typeof setInterval> | undefined;
  #stopTimer: ReturnType<typeof setTimeout> | undefined;
  #stderrTail = "";
  #readyTimer: TimerId | undefined;
  #settleReady: ((error?: Error) => void) | undefined;
  #selfCheck:
    | { resolve: (r: SelfCheckReport) => void; reject: (e: Error) => void; timer: TimerId }
    | undefined;

  /**
   * Starts the child with no permission flags, an empty environment (except `DENO_DIR` when given) and
   * a heap cap. Throws synchronously when the host may not spawn it (no `--allow-run`).
   */
  constructor(options: ProcessSpawnOptions, hooks: ProcessHooks) {
    super();
    this.#hooks = hooks;
    this.ready = new Promise<void>((resolve, reject) => {
      this.#settleReady = (error) => {
        this.#settleReady = undefined;
        clearTimeout(this.#readyTimer);
        if (error === undefined) resolve();
        else reject(error);
      };
    });
    this.ready.catch(() => {}); // observed by the pool; a kill before ready must not be unhandled
    const args = [
      "run",
      "--no-prompt",
      "--quiet",
      "--no-config",
      `--v8-flags=--max-old-space-size=${options.heapMiB},--expose-gc`,
      options.moduleUrl.href,
      `--warm-up=${Math.max(0, Math.floor(options.warmUpMs))}`,
    ];
    this.#child = new Deno.Command(Deno.execPath(), {
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      clearEnv: true,
      env: options.denoDir === undefined ? {} : { DENO_DIR: options.denoDir },
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#readyTimer = setTimeout(() => {
      this.#settleReady?.(new Error(`sandbox process did not start within ${options.readyTimeoutMs} ms`));
    }, options.readyTimeoutMs);
    const reading = Promise.all([this.#readFrames(), this.#readStderr()]);
    this.exited = Promise.all([this.#child.status, reading]).then(([status]) => this.#onExit(status));
  }

  /** The child's process id. */
  get pid(): number {
    return this.#child.pid;
  }

  async #readFrames(): Promise<void> {
    const decoder = new FrameDecoder({
      maxHeaderBytes: MAX_CHILD_HEADER_BYTES,
      maxPayloadBytes: () => this.#hooks.maxPayloadBytes(this),
    });
    // A BYOB reader fills one reused buffer: the default reader allocates a fresh 64 KiB chunk for every
    // read, which costs more than the rest of a native call's round trip (see bench/native_calls.ts).
    const reader = this.#child.stdout.getReader({ mode: "byob" });
    let buf = new Uint8Array(READ_CHUNK_BYTES);
    try {
      for (;;) {
        const { value, done } = await reader.read(buf);
        if (done || value === undefined) return;
        buf = new Uint8Array(value.buffer); // the read transferred the buffer: take it back
        if (this.#killed) continue; // drain what is left; nothing a killed child says counts
        let frames: Frame[];
        try {
          frames = decoder.push(value);
        } catch (e) {
          this.#violation(e instanceof FrameError ? e.message : "unreadable frame");
          continue;
        }
        for (const frame of frames) {
          if (this.#killed) break;
          this.#onFrame(frame);
        }
      }
    } catch {
      // The pipe broke: the exit handler classifies the end.
    } finally {
      reader.releaseLock();
    }
  }

  async #readStderr(): Promise<void> {
    const text = new TextDecoder();
    try {
      for await (const chunk of this.#child.stderr) {
        this.#stderrTail = (this.#stderrTail + text.decode(chunk, { stream: true })).slice(
          -STDERR_TAIL_BYTES,
        );
      }
    } catch {
      // Ignored: stderr only helps classify the end.
    }
  }

  #violation(reason: string): void {
    if (this.#killed) return;
    if (this.#settleReady !== undefined) {
      this.#settleReady(new Error(`sandbox process broke the protocol: ${reason}`));
    } else this.#hooks.onViolation(this, reason);
    void this.kill();
  }

  #onFrame(frame: Frame): void {
    const t = frame.header.t;
    if (this.#settleReady !== undefined) {
      if (t !== "ready") return this.#violation(`sent ${String(t)} before ready`);
      this.#settleReady();
      return;
    }
    if (t === "selfcheck" && this.#selfCheck !== undefined) {
      const s = this.#selfCheck;
      this.#selfCheck = undefined;
      clearTimeout(s.timer);
      s.resolve(frame.header.report as SelfCheckReport);
      return;
    }
    this.#hooks.onFrame(this, frame);
  }

  #onExit(status: Deno.CommandStatus): ChildExit {
    this.gone = true;
    this.#writer.close().catch(() => {});
    const exit: ChildExit = {
      code: status.code,
      signal: status.signal,
      killed: this.#killed,
      // V8 ends a process at its heap cap with a fatal report and SIGTRAP (or SIGABRT).
      outOfMemory: !this.#killed &&
        (OOM_PATTERN.test(this.#stderrTail) || status.signal === "SIGTRAP" || status.signal === "SIGABRT"),
    };
    const why = exit.outOfMemory ? "ran out of memory" : `exited (code ${status.code})`;
    this.#settleReady?.(new Error(`sandbox process ${why} before it was ready`));
    if (this.#selfCheck !== undefined) {
      clearTimeout(this.#selfCheck.timer);
      this.#selfCheck.reject(new Error(`sandbox process ${why}`));
      this.#selfCheck = undefined;
    }
    if (!this.#killed) this.#hooks.onExit(this, exit);
    return exit;
  }

  /** Sends one frame (ignored once the child is killed or gone: its end is reported separately). */
  send<H extends { readonly t: string }>(header: H, payload?: Uint8Array): void {
    if (this.#killed || this.gone) return;
    this.#writer.write(encodeFrame(header, payload)).catch(() => {});
  }

  /** Asks the child which privileged operations are refused. */
  selfCheck(timeoutMs: number): Promise<SelfCheckReport> {
    if (this.#selfCheck !== undefined) return Promise.reject(new Error("self-check already running"));
    return new Promise<SelfCheckReport>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#selfCheck = undefined;
        reject(new Error(`sandbox self-check did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#selfCheck = { resolve, reject, timer };
      this.send({ t: "selfcheck" });
    });
  }

  /**
   * Holds the child's run to `perMille` of a CPU (0: no limit). A child computing reads nothing, so
   * the host stops it (SIGSTOP) for the rest of each {@link DUTY_PERIOD_MS} and continues it
   * (SIGCONT); its clock runs meanwhile, so its own deadline still ends it on time.
   */
  setDuty(perMille: number): void {
    clearInterval(this.#dutyTimer);
    clearTimeout(this.#stopTimer);
    this.#dutyTimer = this.#stopTimer = undefined;
    this.#signal("SIGCONT");
    if (perMille <= 0 || perMille >= 1000 || this.#killed) return;
    const on = Math.max(1, Math.round((DUTY_PERIOD_MS * perMille) / 1000));
    const cycle = () => {
      this.#signal("SIGCONT");
      this.#stopTimer = setTimeout(() => this.#signal("SIGSTOP"), on);
    };
    this.#dutyTimer = setInterval(cycle, DUTY_PERIOD_MS);
    cycle();
  }

  #signal(sig: "SIGSTOP" | "SIGCONT"): void {
    if (sig === "SIGCONT" && !this.#stopped) return;
    if (this.#killed || this.gone) return;
    try {
      this.#child.kill(sig);
      this.#stopped = sig === "SIGSTOP";
    } catch {
      // Already exited.
    }
  }

  /** Ends the child with SIGKILL. Idempotent; resolves once it has exited and its pipes are closed. */
  kill(): Promise<void> {
    clearInterval(this.#dutyTimer);
    clearTimeout(this.#stopTimer);
    if (!this.#killed) {
      this.#killed = true;
      this.#settleReady?.(new Error("sandbox process was stopped before it was ready"));
      this.#writer.close().catch(() => {});
      if (!this.gone) {
        try {
          this.#child.kill("SIGKILL");
        } catch {
          // Already exited.
        }
      }
    }
    return this.exited.then(() => {});
  }
}
