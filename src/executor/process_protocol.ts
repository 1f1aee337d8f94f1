/**
 * The host ↔ sandbox-process protocol: length-prefixed binary frames over the child's stdin and stdout.
 *
 * A frame is an 8-byte prefix — the byte length of a UTF-8 JSON header and the byte length of a raw
 * payload, both little-endian `u32` — followed by the header and the payload. The header is an object
 * with a string `t` (the message type); the payload carries the encoded values (arguments, results, the
 * final value) so that they cross without a second encoding.
 *
 * The child runs the synchronous engine and blocks in `Deno.stdin.readSync` while the host answers a
 * native call, so a native call stays synchronous for the engine. The child never reads while it
 * computes: an interrupt frame only reaches it while it waits for a reply; otherwise the engine's own
 * copy of the deadline stops it, and the host's backstop is SIGKILL.
 *
 * The host never buffers an unbounded frame: {@link FrameDecoder} checks both lengths as soon as the
 * prefix arrives and refuses a frame over its limits before reading its body.
 *
 * This module uses no Deno APIs: the child process imports it too.
 *
 * @module
 */
import type { RunMessage, RunOutcome, SelfCheckReport } from "./protocol.ts";

/** Bytes of the length prefix of every frame. */
export const FRAME_PREFIX_BYTES = 8;

/** Largest header the host accepts from a child (headers carry ids, outcomes and short messages). */
export const MAX_CHILD_HEADER_BYTES = 64 * 1024;

/** Extra payload bytes accepted beyond `maxValueBytes`, so an oversized value is judged, not refused. */
export const PAYLOAD_SLACK_BYTES = 64 * 1024;

/** One decoded frame. */
export interface Frame<H = Record<string, unknown>> {
  /** The JSON header (an object with a string `t`). */
  readonly header: H;
  /** The raw payload (empty when the frame has none). */
  readonly payload: Uint8Array;
}

/** A frame broke the protocol: too large, malformed prefix or header. */
export class FrameError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "FrameError";
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Headers up to this many bytes that are plain ASCII (every native-call frame) are copied char by char:
 * `TextEncoder`/`TextDecoder` calls cross into the runtime, which costs more than the copy.
 */
const SHORT_HEADER_BYTES = 256;

/** Whether `s` is short ASCII text (its UTF-8 bytes are its char codes). */
function shortAscii(s: string): boolean {
  if (s.length > SHORT_HEADER_BYTES) return false;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

function putU32(out: Uint8Array, at: number, n: number): void {
  out[at] = n & 0xff;
  out[at + 1] = (n >>> 8) & 0xff;
  out[at + 2] = (n >>> 16) & 0xff;
  out[at + 3] = n >>> 24;
}

function getU32(b: Uint8Array, at: number): number {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16)) + b[at + 3] * 0x1000000;
}

/** Encodes one frame. */
export function encodeFrame<H extends { readonly t: string }>(header: H, payload?: Uint8Array): Uint8Array {
  const json = JSON.stringify(header);
  const pLen = payload === undefined ? 0 : payload.length;
  let out: Uint8Array;
  let hLen: number;
  if (shortAscii(json)) {
    hLen = json.length;
    out = new Uint8Array(FRAME_PREFIX_BYTES + hLen + pLen);
    for (let i = 0; i < hLen; i++) out[FRAME_PREFIX_BYTES + i] = json.charCodeAt(i);
  } else {
    const h = encoder.encode(json);
    hLen = h.length;
    out = new Uint8Array(FRAME_PREFIX_BYTES + hLen + pLen);
    out.set(h, FRAME_PREFIX_BYTES);
  }
  putU32(out, 0, hLen);
  putU32(out, 4, pLen);
  if (payload !== undefined) out.set(payload, FRAME_PREFIX_BYTES + hLen);
  return out;
}

/** The text of a header: short ASCII directly, anything else through the strict UTF-8 decoder. */
function headerText(bytes: Uint8Array): string {
  if (bytes.length <= SHORT_HEADER_BYTES) {
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (ascii) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  }
  return decoder.decode(bytes);
}

function parseHeader(bytes: Uint8Array): Record<string, unknown> {
  let header: unknown;
  try {
    header = JSON.parse(headerText(bytes));
  } catch {
    throw new FrameError("frame header is not UTF-8 JSON");
  }
  if (
    header === null || typeof header !== "object" || Array.isArray(header) ||
    typeof (header as { t?: unknown }).t !== "string"
  ) {
    throw new FrameError("frame header is not an object with a type");
  }
  return header as Record<string, unknown>;
}

/** Limits a {@link FrameDecoder} enforces before it buffers a frame's body. */
export interface FrameLimits {
  /** Largest header in bytes. */
  readonly maxHeaderBytes: number;
  /** Largest payload in bytes (asked per frame: the bound depends on the running execution). */
  maxPayloadBytes(): number;
}

/**
 * Incremental decoder for a byte stream of frames (the host's side of the child's stdout). It buffers
 * at most one frame within its limits plus one incoming chunk.
 */
export class FrameDecoder {
  readonly #limits: FrameLimits;
  #buf = new Uint8Array(4096);
  #start = 0;
  #end = 0;

  /** Creates a decoder enforcing `limits`. */
  constructor(limits: FrameLimits) {
    this.#limits = limits;
  }

  /**
   * Appends `chunk` and returns the frames it completes, in order.
   *
   * @throws {FrameError} when a frame exceeds the limits or its header is malformed.
   */
  push(chunk: Uint8Array): Frame[] {
    this.#append(chunk);
    const frames: Frame[] = [];
    for (;;) {
      const avail = this.#end - this.#start;
      if (avail < FRAME_PREFIX_BYTES) break;
      const hLen = getU32(this.#buf, this.#start);
      const pLen = getU32(this.#buf, this.#start + 4);
      if (hLen === 0 || hLen > this.#limits.maxHeaderBytes) {
        throw new FrameError(`frame header of ${hLen} bytes (limit ${this.#limits.maxHeaderBytes})`);
      }
      const maxPayload = this.#limits.maxPayloadBytes();
      if (pLen > maxPayload) throw new FrameError(`frame payload of ${pLen} bytes (limit ${maxPayload})`);
      const total = FRAME_PREFIX_BYTES + hLen + pLen;
      if (avail < total) break;
      const h0 = this.#start + FRAME_PREFIX_BYTES;
      const header = parseHeader(this.#buf.subarray(h0, h0 + hLen));
      const payload = this.#buf.slice(h0 + hLen, h0 + hLen + pLen);
      this.#start += total;
      frames.push({ header, payload });
    }
    if (this.#start === this.#end) this.#start = this.#end = 0;
    return frames;
  }

  #append(chunk: Uint8Array): void {
    if (this.#end + chunk.length > this.#buf.length) {
      const live = this.#end - this.#start;
      const need = live + chunk.length;
      if (need <= this.#buf.length) {
        this.#buf.copyWithin(0, this.#start, this.#end);
      } else {
        const next = new Uint8Array(Math.max(need, this.#buf.length * 2));
        next.set(this.#buf.subarray(this.#start, this.#end));
        this.#buf = next;
      }
      this.#start = 0;
      this.#end = live;
    }
    this.#buf.set(chunk, this.#end);
    this.#end += chunk.length;
  }
}

/**
 * Blocking frame reader over a synchronous `read` (the child's side of its stdin): `read(buf)` fills
 * part of `buf` and returns the byte count, or `null` at end of input.
 */
export class SyncFrameReader {
  readonly #read: (buf: Uint8Array) => number | null;
  readonly #maxHeader: number;
  readonly #maxPayload: number;
  #buf = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;

  /** Creates a reader; frames over the given limits throw {@link FrameError}. */
  constructor(read: (buf: Uint8Array) => number | null, maxHeaderBytes: number, maxPayloadBytes: number) {
    this.#read = read;
    this.#maxHeader = maxHeaderBytes;
    this.#maxPayload = maxPayloadBytes;
  }

  /** The next frame, or `null` at a clean end of input. Throws {@link FrameError}. */
  next(): Frame | null {
    if (!this.#fill(FRAME_PREFIX_BYTES)) {
      if (this.#end === this.#start) return null;
      throw new FrameError("input ended inside a frame prefix");
    }
    const hLen = getU32(this.#buf, this.#start);
    const pLen = getU32(this.#buf, this.#start + 4);
    if (hLen === 0 || hLen > this.#maxHeader || pLen > this.#maxPayload) {
      throw new FrameError(`frame of ${hLen}+${pLen} bytes exceeds the limits`);
    }
    const total = FRAME_PREFIX_BYTES + hLen + pLen;
    if (!this.#fill(total)) throw new FrameError("input ended inside a frame");
    const h0 = this.#start + FRAME_PREFIX_BYTES;
    const header = parseHeader(this.#buf.subarray(h0, h0 + hLen));
    const payload = this.#buf.slice(h0 + hLen, h0 + hLen + pLen);
    this.#start += total;
    if (this.#start === this.#end) this.#start = this.#end = 0;
    return { header, payload };
  }

  // Ensures `n` bytes are buffered from #start; false at end of input.
  #fill(n: number): boolean {
    if (this.#start + n > this.#buf.length) {
      const live = this.#end - this.#start;
      const next = n > this.#buf.length ? new Uint8Array(Math.max(n, this.#buf.length * 2)) : this.#buf;
      next.set(this.#buf.subarray(this.#start, this.#end));
      this.#buf = next;
      this.#start = 0;
      this.#end = live;
    }
    while (this.#end - this.#start < n) {
      const got = this.#read(this.#buf.subarray(this.#end));
      if (got === null || got === 0) return false;
      this.#end += got;
    }
    return true;
  }
}

// ---------------------------------------------------------------------------------------------------
// Messages (headers). Payloads are noted per message.

/** Host → child: run one program; the same fields as the worker's run message. No payload. */
export type ProcRunHeader = RunMessage;

/** Host → child: the reply to native call `seq`; payload: the encoded result when `code` is absent. */
export interface ProcReplyHeader {
  /** Discriminant. */
  readonly t: "reply";
  /** The call answered. */
  readonly seq: number;
  /** Error code when the call failed. */
  readonly code?: string;
}

/** Host → child: stop the execution (read only while the child waits for a reply). No payload. */
export interface ProcInterruptHeader {
  /** Discriminant. */
  readonly t: "interrupt";
  /** `deadline`, `cancelled` or `shutdown`. */
  readonly reason: string;
}

/** Host → child: report which privileged operations are refused. No payload. */
export interface ProcSelfCheckHeader {
  /** Discriminant. */
  readonly t: "selfcheck";
}

/** Child → host: loaded and warmed up. No payload. */
export interface ProcReadyHeader {
  /** Discriminant. */
  readonly t: "ready";
}

/** Child → host: a native call; payload: the encoded argument map. */
export interface ProcCallHeader {
  /** Discriminant. */
  readonly t: "call";
  /** Execution id. */
  readonly id: number;
  /** Call sequence number within the execution (1, 2, ...). */
  readonly seq: number;
  /** Capability index. */
  readonly cap: number;
}

/** A run outcome without its encoded final value (which travels as the payload). */
export type ProcOutcome =
  | { readonly ok: true; readonly steps: number; readonly output?: string }
  | Exclude<RunOutcome, { readonly ok: true }>;

/** Child → host: the run finished; payload: the encoded final value when `outcome.ok`. */
export interface ProcDoneHeader {
  /** Discriminant. */
  readonly t: "done";
  /** Execution id. */
  readonly id: number;
  /** The outcome. */
  readonly outcome: ProcOutcome;
  /** The child's V8 heap in use after the run (after a collection when it had grown), in bytes. */
  readonly heapUsed: number;
  /** The child's resident set after the run, in bytes (V8 keeps pages it no longer needs). */
  readonly rss: number;
}

/** Child → host: the self-check report. No payload. */
export interface ProcSelfCheckReply {
  /** Discriminant. */
  readonly t: "selfcheck";
  /** Report. */
  readonly report: SelfCheckReport;
}
