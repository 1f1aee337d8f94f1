/**
 * The host ↔ sandbox-worker protocol.
 *
 * Messages travel by `postMessage` in both directions except for native calls. The worker is blocked
 * inside the synchronous Starlark engine while a native call runs, so it cannot receive a message; it
 * waits with `Atomics.wait` on a `SharedArrayBuffer` instead, and the host writes the reply into that
 * buffer and wakes it with `Atomics.notify`. The call itself travels through the same buffer: the worker
 * writes the call record (capability index, argument bytes) into the data area, publishes its sequence
 * number in `CALL` and notifies; the host waits on `CALL` with `Atomics.waitAsync`. That costs about half
 * of what a posted call message costs (structured clone, message event; see `bench/native_calls.ts`).
 * Arguments larger than the data area still travel as a `call` message. The same buffer carries the
 * interrupt flag (cancellation, deadline, shutdown) that the engine polls between steps.
 *
 * Layout of the shared buffer (little-endian Int32 header, then the reply data area):
 *
 * | word | name | meaning |
 * |---|---|---|
 * | 0 | `STATE` | reply state the worker waits on: IDLE, WAITING, REPLY_OK, REPLY_ERROR, INTERRUPTED |
 * | 1 | `INTERRUPT` | 0, or why the execution must stop (CANCELLED, DEADLINE, SHUTDOWN) |
 * | 2 | `SEQ` | sequence number of the native call the reply answers |
 * | 3 | `TOTAL` | total encoded byte length of the result |
 * | 4 | `OFFSET` | offset of this chunk within the result |
 * | 5 | `LENGTH` | byte length of this chunk |
 * | 6 | `ERROR` | error-code index of a REPLY_ERROR |
 * | 7 | `DUTY` | the CPU share the host allows the run (per mille, 0 = unthrottled) |
 * | 8 | `CALL` | sequence number of the latest call record the worker wrote (0: none this run) |
 * | 9 | `CALL_CAP` | capability index of that call |
 * | 10 | `CALL_LENGTH` | byte length of its encoded argument map, at the start of the data area |
 *
 * The host does not trust a call record: it copies the arguments out once, checks the length against
 * the data area, and judges the sequence number and capability index like those of a call message.
 *
 * Results larger than the data area are sent in chunks: the worker copies a chunk, switches the state
 * back to WAITING, posts a `more` message and waits again; the host then writes the next chunk.
 *
 * State transitions use compare-and-exchange so that an interrupt (an unconditional store of
 * INTERRUPTED) can never be overwritten by a late reply or by the worker starting its next call.
 *
 * This module uses no Deno APIs: the worker imports it too.
 *
 * @module
 */
import { ERROR_CODES, type ErrorCode } from "../errors.ts";
import type { CapabilityStub, ExecutionBudgets } from "./contract.ts";

/** Longest model-safe detail passed on (longer ones are cut). */
const MAX_DETAIL_CHARS = 2048;

/** Default engine memory budget: 64 MiB of charged allocation (the extension limit `maxMemoryBytes`). */
export const DEFAULT_MAX_MEMORY_BYTES = 64 * 1024 * 1024;

/** Header word: the reply state. */
export const I_STATE = 0;
/** Header word: the interrupt reason (0 = none). */
export const I_INTERRUPT = 1;
/** Header word: sequence number of the answered call. */
export const I_SEQ = 2;
/** Header word: total result length in bytes. */
export const I_TOTAL = 3;
/** Header word: offset of the current chunk. */
export const I_OFFSET = 4;
/** Header word: length of the current chunk. */
export const I_LENGTH = 5;
/** Header word: error-code index of an error reply. */
export const I_ERROR = 6;
/**
 * Header word: the share of a CPU the run may use, in per mille (0 = unthrottled). The host lowers it
 * for long-running programs while they would otherwise crowd shorter executions off the cores.
 */
export const I_DUTY = 7;
/** Header word: sequence number of the latest call record in the buffer (the host waits on it). */
export const I_CALL = 8;
/** Header word: capability index of the call record. */
export const I_CALL_CAP = 9;
/** Header word: byte length of the call record's argument map. */
export const I_CALL_LENGTH = 10;
/** Bytes reserved for the header (room for future words). */
export const HEADER_BYTES = 64;

/** No native call in flight. */
export const STATE_IDLE = 0;
/** The worker posted a call and waits for its reply. */
export const STATE_WAITING = 1;
/** A (chunk of a) successful result is in the data area. */
export const STATE_REPLY_OK = 2;
/** The call failed; `I_ERROR` holds the code. */
export const STATE_REPLY_ERROR = 3;
/** The execution was interrupted; the worker must unwind. Sticky until the host resets the buffer. */
export const STATE_INTERRUPTED = 4;

/** Interrupt reason: the caller cancelled. */
export const INTERRUPT_CANCELLED = 1;
/** Interrupt reason: the time budget ran out. */
export const INTERRUPT_DEADLINE = 2;
/** Interrupt reason: the executor is closing. */
export const INTERRUPT_SHUTDOWN = 3;

/** Smallest data area accepted (so every reply header and a useful chunk fit). */
export const MIN_DATA_BYTES = 16;

/**
 * Index of `code` in {@link ERROR_CODES}: a native-call reply carries a code as this index in `I_ERROR`
 * (host and worker load the same list, so the index is stable across the boundary).
 */
export function errorCodeIndex(code: ErrorCode): number {
  const i = ERROR_CODES.indexOf(code);
  return i < 0 ? ERROR_CODES.indexOf("internal") : i;
}

/** Views over one worker's shared buffer. */
export class SharedChannel {
  /** The shared memory. */
  readonly buffer: SharedArrayBuffer;
  /** Header words. */
  readonly words: Int32Array;
  /** The reply data area. */
  readonly data: Uint8Array;

  /** Wraps `buffer` (at least {@link HEADER_BYTES} + {@link MIN_DATA_BYTES} bytes). */
  constructor(buffer: SharedArrayBuffer) {
    if (buffer.byteLength < HEADER_BYTES + MIN_DATA_BYTES) {
      throw new RangeError(`shared buffer too small: ${buffer.byteLength} bytes`);
    }
    this.buffer = buffer;
    this.words = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.data = new Uint8Array(buffer, HEADER_BYTES);
  }

  /** Allocates a channel whose data area holds `dataBytes` bytes. */
  static create(dataBytes: number): SharedChannel {
    const n = Math.max(MIN_DATA_BYTES, Math.ceil(dataBytes / 8) * 8);
    return new SharedChannel(new SharedArrayBuffer(HEADER_BYTES + n));
  }

  /** Host: prepares the buffer for a new execution (only while the worker is idle). */
  reset(): void {
    Atomics.store(this.words, I_INTERRUPT, 0);
    Atomics.store(this.words, I_STATE, STATE_IDLE);
    Atomics.store(this.words, I_DUTY, 0);
    Atomics.store(this.words, I_CALL, 0);
  }

  /**
   * Worker: writes the record of call `seq` (after {@link SharedChannel.beginCall}) and wakes the host.
   * False when the arguments do not fit the data area: the call must then travel as a message.
   */
  postCall(seq: number, cap: number, args: Uint8Array): boolean {
    if (args.length > this.data.length) return false;
    const w = this.words;
    this.data.set(args);
    w[I_CALL_CAP] = cap;
    w[I_CALL_LENGTH] = args.length;
    Atomics.store(w, I_CALL, seq); // publishes the record: the host reads it after loading this word
    Atomics.notify(w, I_CALL);
    return true;
  }

  /**
   * Host: the call record written after call `seen` (undefined when there is none yet). The arguments
   * are copied out before they are checked, so a worker changing them meanwhile changes nothing.
   *
   * @throws {Error} when the record is malformed (its length is outside the data area).
   */
  takeCall(
    seen: number,
  ): { readonly seq: number; readonly cap: number; readonly args: Uint8Array } | undefined {
    const w = this.words;
    const seq = Atomics.load(w, I_CALL);
    if (seq === seen) return undefined;
    const cap = w[I_CALL_CAP];
    const length = w[I_CALL_LENGTH];
    if (!(length >= 0 && length <= this.data.length)) {
      throw new Error(`protocol: call record of ${length} bytes (the data area holds ${this.data.length})`);
    }
    return { seq, cap, args: this.data.slice(0, length) };
  }

  /**
   * Host: waits (without blocking) until the worker writes a call record after call `seen`, or the host
   * releases the wait ({@link SharedChannel.releaseCallWait}); then runs `wake`, which must check why.
   */
  awaitCall(seen: number, wake: () => void): void {
    const r = Atomics.waitAsync(this.words, I_CALL, seen);
    if (r.async) r.value.then(wake);
    else queueMicrotask(wake);
  }

  /** Host: wakes every pending {@link SharedChannel.awaitCall} (the run ended, or the worker does). */
  releaseCallWait(): void {
    Atomics.notify(this.words, I_CALL);
  }

  /** Host: sets the CPU share (per mille; 0 or 1000 and above: unthrottled) of the current run. */
  setDuty(perMille: number): void {
    Atomics.store(this.words, I_DUTY, perMille);
  }

  /** Worker: the CPU share (per mille) the host allows the current run; 0 = unthrottled. */
  duty(): number {
    return Atomics.load(this.words, I_DUTY);
  }

  /**
   * Worker: sleeps up to `ms` without using a CPU, between native calls only. An interrupt (which
   * changes the reply state) wakes it at once.
   */
  nap(ms: number): void {
    Atomics.wait(this.words, I_STATE, STATE_IDLE, ms);
  }

  /**
   * Host: writes the chunk of `result` that starts at `offset` and wakes the worker. Returns the offset
   * after the chunk, or -1 when the worker is no longer waiting (it was interrupted).
   */
  writeResult(seq: number, result: Uint8Array, offset: number): number {
    const w = this.words;
    const len = Math.min(result.length - offset, this.data.length);
    this.data.set(result.subarray(offset, offset + len));
    w[I_SEQ] = seq;
    w[I_TOTAL] = result.length;
    w[I_OFFSET] = offset;
    w[I_LENGTH] = len;
    if (Atomics.compareExchange(w, I_STATE, STATE_WAITING, STATE_REPLY_OK) !== STATE_WAITING) return -1;
    Atomics.notify(w, I_STATE);
    return offset + len;
  }

  /** Host: fails the pending call with `code` and wakes the worker. False when it was not waiting. */
  writeError(seq: number, code: ErrorCode): boolean {
    const w = this.words;
    w[I_SEQ] = seq;
    w[I_ERROR] = errorCodeIndex(code);
    if (Atomics.compareExchange(w, I_STATE, STATE_WAITING, STATE_REPLY_ERROR) !== STATE_WAITING) return false;
    Atomics.notify(w, I_STATE);
    return true;
  }

  /** Host: raises the interrupt flag and wakes the worker if it is blocked in a native call. */
  interrupt(reason: number): void {
    Atomics.store(this.words, I_INTERRUPT, reason);
    Atomics.store(this.words, I_STATE, STATE_INTERRUPTED);
    Atomics.notify(this.words, I_STATE);
    this.releaseCallWait();
  }

  /** The interrupt reason (0 when none). Cheap enough for the engine's poll. */
  interruptReason(): number {
    return Atomics.load(this.words, I_INTERRUPT);
  }

  /** Worker: marks a native call as pending before posting it. False when the run was interrupted. */
  beginCall(): boolean {
    return Atomics.compareExchange(this.words, I_STATE, STATE_IDLE, STATE_WAITING) === STATE_IDLE;
  }

  /**
   * Worker: blocks until the reply to call `seq` is complete, reassembling chunks (for each missing
   * chunk it calls `more(offset)`, which must ask the host for it). Gives up with `interrupted` when the
   * host raises the flag or `deadline` (a `performance.now()` time) passes.
   *
   * @throws {Error} on a protocol violation (a reply to another call, a malformed chunk).
   */
  awaitReply(seq: number, maxBytes: number, deadline: number, more: (offset: number) => void): Reply {
    const w = this.words;
    let out: Uint8Array | undefined;
    let expected = 0;
    for (;;) {
      let st = Atomics.load(w, I_STATE);
      while (st === STATE_WAITING) {
        const left = deadline - performance.now();
        if (left <= 0) return { kind: "interrupted", reason: "deadline" };
        // The host always wakes us; the timeout only bounds a lost wake-up and enforces our own deadline.
        Atomics.wait(w, I_STATE, STATE_WAITING, Math.min(left, MAX_WAIT_MS));
        st = Atomics.load(w, I_STATE);
      }
      if (st === STATE_INTERRUPTED) {
        return { kind: "interrupted", reason: interruptName(Atomics.load(w, I_INTERRUPT)) };
      }
      if (w[I_SEQ] !== seq) throw new Error(`protocol: reply to call ${w[I_SEQ]}, expected ${seq}`);
      if (st === STATE_REPLY_ERROR) {
        const code = ERROR_CODES[w[I_ERROR]] ?? "internal";
        Atomics.compareExchange(w, I_STATE, STATE_REPLY_ERROR, STATE_IDLE);
        return { kind: "error", code };
      }
      if (st !== STATE_REPLY_OK) throw new Error(`protocol: unexpected reply state ${st}`);
      const total = w[I_TOTAL];
      const offset = w[I_OFFSET];
      const length = w[I_LENGTH];
      if (
        total < 0 || total > maxBytes || offset !== expected || length < 0 || length > this.data.length ||
        offset + length > total || (length === 0 && total > 0)
      ) {
        throw new Error(`protocol: bad reply chunk (${offset}+${length} of ${total})`);
      }
      out ??= new Uint8Array(total);
      out.set(this.data.subarray(0, length), offset);
      expected = offset + length;
      if (expected === total) {
        Atomics.compareExchange(w, I_STATE, STATE_REPLY_OK, STATE_IDLE);
        return { kind: "ok", bytes: out };
      }
      if (Atomics.compareExchange(w, I_STATE, STATE_REPLY_OK, STATE_WAITING) !== STATE_REPLY_OK) {
        return { kind: "interrupted", reason: interruptName(Atomics.load(w, I_INTERRUPT)) };
      }
      more(expected);
    }
  }
}

/** Longest single `Atomics.wait` of the worker. */
const MAX_WAIT_MS = 1000;

/** The name of an interrupt reason code. */
export function interruptName(code: number): string {
  return code === INTERRUPT_CANCELLED ? "cancelled" : code === INTERRUPT_DEADLINE ? "deadline" : "shutdown";
}

/** The worker's view of a native call's reply. */
export type Reply =
  | { readonly kind: "ok"; readonly bytes: Uint8Array }
  | { readonly kind: "error"; readonly code: ErrorCode }
  | { readonly kind: "interrupted"; readonly reason: string };

/** Host → worker: hands over the shared buffer (first message after spawn; answered by `ready`). */
export interface InitMessage {
  /** Discriminant. */
  readonly t: "init";
  /** The shared buffer. */
  readonly buffer: SharedArrayBuffer;
  /** Milliseconds to spend warming up the engine before reporting ready (0: none). */
  readonly warmUpMs: number;
}

/** A catalog of capability stubs, cached by the worker under `key`. */
export interface CatalogPayload {
  /** Host-chosen identity of the catalog. */
  readonly key: number;
  /** The stubs, in capability-index order; absent when the worker already has this key. */
  readonly stubs?: readonly CapabilityStub[];
}

/** Host → worker: run one program. */
export interface RunMessage {
  /** Discriminant. */
  readonly t: "run";
  /** Execution id (echoed in every message of this execution). */
  readonly id: number;
  /** Starlark source. */
  readonly source: string;
  /** The capability catalog. */
  readonly catalog: CatalogPayload;
  /** Budgets. */
  readonly budgets: ExecutionBudgets;
  /** Engine memory budget in bytes. */
  readonly maxMemoryBytes: number;
  /** Milliseconds left of the time budget when the message was sent (the worker checks it too). */
  readonly remainingMs: number;
  /** Dialect options of the engine. */
  readonly dialect?: Readonly<Record<string, boolean>>;
}

/** Host → worker: report what the sandbox is allowed to do (used by the probe and the tests). */
export interface SelfCheckMessage {
  /** Discriminant. */
  readonly t: "selfcheck";
}

/** Any host → worker message. */
export type HostMessage = InitMessage | RunMessage | SelfCheckMessage;

/** Worker → host: initialized and warmed up, ready for work. */
export interface ReadyMessage {
  /** Discriminant. */
  readonly t: "ready";
}

/** Worker → host: a native call (arguments already bound and encoded). */
export interface CallMessage {
  /** Discriminant. */
  readonly t: "call";
  /** Execution id. */
  readonly id: number;
  /** Call sequence number within the execution (1, 2, ...). */
  readonly seq: number;
  /** Capability index. */
  readonly cap: number;
  /** Encoded argument map. */
  readonly args: Uint8Array;
}

/** Worker → host: send the next chunk of a large result. */
export interface MoreMessage {
  /** Discriminant. */
  readonly t: "more";
  /** Execution id. */
  readonly id: number;
  /** Call sequence number. */
  readonly seq: number;
  /** Offset of the wanted chunk. */
  readonly offset: number;
}

/** How a program run failed, as classified inside the worker. */
export type FailureKind =
  | "program" // syntax/resolve/runtime error, bad main contract, unsupported final value
  | "arguments" // binding of a native call's arguments failed
  | "resource" // a budget ran out (steps, memory, depth, native calls, value size/depth)
  | "interrupted" // the interrupt flag or the worker's own deadline check stopped the engine
  | "native" // the host failed a native call (the host holds the real error)
  | "suspended" // inline executor only: the run stopped to await a native call
  | "internal"; // anything unexpected

/** The outcome of a run, shared by the worker and the inline executor. */
export type RunOutcome =
  | {
    readonly ok: true;
    readonly value: Uint8Array;
    readonly steps: number;
    /** What the program printed (its last 8 KiB, see `print_output.ts`); absent when nothing. */
    readonly output?: string;
  }
  | {
    readonly ok: false;
    readonly kind: FailureKind;
    /** Host-facing message. */
    readonly message: string;
    /** Model-safe detail (programs and arguments only). */
    readonly detail?: string;
    /** For `native`: the code the host sent; for `interrupted`: `deadline` when the worker's own clock fired. */
    readonly code?: string;
    /** Steps executed. */
    readonly steps: number;
    /** What the program printed (its last 8 KiB, see `print_output.ts`); absent when nothing. */
    readonly output?: string;
  };

/** Worker → host: the run finished. */
export interface DoneMessage {
  /** Discriminant. */
  readonly t: "done";
  /** Execution id. */
  readonly id: number;
  /** The outcome. */
  readonly outcome: RunOutcome;
  /**
   * V8 heap in use after a run that did not succeed (bytes), so the host can decide whether to keep the
   * worker: only a small heap is kept. Absent after a success.
   */
  readonly heapUsed?: number;
}

/** Result of one sandbox self-check: the operations tried and whether each was refused. */
export type SelfCheckReport = Readonly<
  Record<string, { readonly refused: boolean; readonly detail: string }>
>;

/** Worker → host: the self-check report. */
export interface SelfCheckReply {
  /** Discriminant. */
  readonly t: "selfcheck";
  /** Report. */
  readonly report: SelfCheckReport;
}

/** Any worker → host message. */
export type WorkerMessage = ReadyMessage | CallMessage | MoreMessage | DoneMessage | SelfCheckReply;

/** Escapes control characters and cuts long text, so a detail is safe to show to a model. */
export function safeDetail(text: string): string {
  let s = text.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u0008\u000b-\u001f\u007f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
  if (s.length > MAX_DETAIL_CHARS) s = s.slice(0, MAX_DETAIL_CHARS - 3) + "...";
  return s;
}

/** The engine memory budget of `budgets` (the extension field, or {@link DEFAULT_MAX_MEMORY_BYTES}). */
export function memoryBudget(budgets: ExecutionBudgets): number {
  const m = budgets.maxMemoryBytes;
  return typeof m === "number" && m > 0 ? m : DEFAULT_MAX_MEMORY_BYTES;
}
