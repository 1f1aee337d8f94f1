/**
 * The asynchronous JSONL audit writer. Records are encoded when submitted and written in batches by one
 * background loop, so a call never waits on the disk, except for security records (denials, redactions,
 * failed authentication): those are never shed, and the call that produced one answers only after its
 * line was written, or fails closed after `securityBlockMs`.
 *
 * The log holds whole lines only: a write that fails part-way is cut back to its last whole record by
 * the target, and the records that made it in full count as written (their calls answer).
 *
 * Back-pressure: at most `buffer` records are queued. Above `highWater` queued records, success records
 * are shed and counted; a security record waits for room (within the same `securityBlockMs`).
 *
 * @module
 */
import { type AuditRecord, GatewayError, isSecurityRecord } from "../domain/mod.ts";
import { type AuditTarget, AuditWriteError } from "./targets.ts";

/** Options of an {@link AuditWriter}. */
export interface AuditWriterOptions {
  /** The most records queued (≥ 1). */
  readonly buffer: number;
  /** Queued records above which success records are shed (≤ buffer). */
  readonly highWater: number;
  /** Period of `sync()` on the target while there were writes; 0 disables it. */
  readonly fsyncMs: number;
  /** How long a security record may take to be written before its call fails closed. */
  readonly securityBlockMs: number;
  /** Observes shed and unwritable records (metrics). */
  readonly onEvent?: (event: "shed" | "unwritable", records: number) => void;
  /** Observes write failures (the operator's log; never a client). */
  readonly onError?: (err: unknown) => void;
}

/** Counters of an {@link AuditWriter}. */
export interface AuditStats {
  /** Lines written. */
  written: number;
  /** Success records shed under load. */
  shed: number;
  /** Records that could not be written (write errors, or submitted after close). */
  unwritable: number;
  /** Records queued now. */
  queued: number;
}

interface Pending {
  readonly line: string;
  /** Settles the submitting call of a security record. */
  readonly done?: { resolve: () => void; reject: (e: GatewayError) => void };
}

/** Bytes per batch write (a batch is cut at a record boundary past this size). */
const BATCH_BYTES = 256 * 1024;

/**
 * How long the writer waits for more success records before writing: each asynchronous write costs the
 * process about 28 µs of CPU (a hand-off to a blocking thread) against 1 µs for the bytes themselves,
 * so calls close together share one write. A security record or closing ends the wait at once.
 */
const GATHER_MS = 2;

/** How many leading records of `batch` lie whole within its first `bytes` encoded bytes. */
function recordsIn(batch: readonly Pending[], bytes: number): number {
  const encoder = new TextEncoder();
  let at = 0;
  let n = 0;
  for (const p of batch) {
    at += encoder.encode(p.line).length;
    if (at > bytes) break;
    n++;
  }
  return n;
}

function unavailable(why: string): GatewayError {
  return new GatewayError("audit_unavailable", why);
}

/** The audit writer (see the module docs). Implements the pipeline's audit port. */
export class AuditWriter {
  readonly #target: AuditTarget;
  readonly #buffer: number;
  readonly #highWater: number;
  readonly #blockMs: number;
  readonly #onEvent: AuditWriterOptions["onEvent"];
  readonly #onError: AuditWriterOptions["onError"];
  readonly #encoder = new TextEncoder();
  #queue: Pending[] = [];
  #head = 0;
  /** The drain loop, while one runs (cleared by the loop itself in the turn it finds the queue empty). */
  #loop: Promise<void> | undefined;
  #closing = false;
  #closed: Promise<void> | undefined;
  #dirty = false;
  #syncTimer: ReturnType<typeof setInterval> | undefined;
  #syncing: Promise<void> | undefined;
  /** Security records waiting for room in the buffer. */
  #waiters: (() => void)[] = [];
  /** Ends the drain loop's wait for more records, while it waits. */
  #wake: (() => void) | undefined;
  readonly #stats: AuditStats = { written: 0, shed: 0, unwritable: 0, queued: 0 };

  /** Creates a writer over a target; the fsync timer starts at once (and does not keep the process up). */
  constructor(target: AuditTarget, options: AuditWriterOptions) {
    this.#target = target;
    this.#buffer = Math.max(1, Math.floor(options.buffer));
    this.#highWater = Math.min(this.#buffer, Math.max(0, Math.floor(options.highWater)));
    this.#blockMs = Math.max(0, options.securityBlockMs);
    this.#onEvent = options.onEvent;
    this.#onError = options.onError;
    if (options.fsyncMs > 0) {
      const timer = setInterval(() => void this.#sync(), options.fsyncMs);
      Deno.unrefTimer(timer);
      this.#syncTimer = timer;
    }
  }

  /** A snapshot of the counters. */
  get stats(): Readonly<AuditStats> {
    return { ...this.#stats, queued: this.#queue.length - this.#head };
  }

  /**
   * Submits a record (see the module docs for when it resolves). Rejects with `audit_unavailable` only
   * for a security record that could not be written in time, or any record after {@link close} for a
   * security one.
   */
  submit(record: AuditRecord): Promise<void> {
    const security = isSecurityRecord(record);
    if (this.#closing) {
      this.#count("unwritable", 1);
      return security ? Promise.reject(unavailable("the audit writer is closed")) : Promise.resolve();
    }
    const line = JSON.stringify(record) + "\n";
    if (!security) {
      if (this.#queued() >= this.#highWater) {
        this.#count("shed", 1);
      } else {
        this.#enqueue({ line });
      }
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        reject(unavailable(`a security record was not written within ${this.#blockMs} ms`));
      }, this.#blockMs);
      const done = {
        resolve: () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve();
        },
        reject: (e: GatewayError) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reject(e);
        },
      };
      const admit = () => {
        // A record whose call already failed closed is still written when room appears: the log stays
        // complete even though the call was refused.
        this.#enqueue({ line, done });
      };
      if (this.#queued() < this.#buffer) admit();
      else if (this.#waiters.length < this.#buffer) this.#waiters.push(admit);
      else {
        // As many security records wait as the buffer holds: the sink is stuck, and memory must not
        // grow with every refused call. This record is lost (and counted); its call fails closed.
        this.#count("unwritable", 1);
        done.reject(unavailable("the audit buffer is full"));
      }
    });
  }

  /**
   * Stops accepting records, writes everything queued (and every waiting security record), syncs and
   * closes the target. With `timeoutMs`, gives up waiting for a stuck sink after that long: what is still
   * queued is counted as unwritable and its calls fail closed. Idempotent.
   */
  close(timeoutMs?: number): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing = true;
      this.#wake?.();
      if (this.#syncTimer !== undefined) clearInterval(this.#syncTimer);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = timeoutMs === undefined
        ? new Promise<"expired">(() => {})
        : new Promise<"expired">((resolve) => (timer = setTimeout(() => resolve("expired"), timeoutMs)));
      try {
        while (this.#loop !== undefined || this.#waiters.length > 0) {
          while (this.#waiters.length > 0 && this.#queued() < this.#buffer) this.#waiters.shift()!();
          if (this.#loop !== undefined && await Promise.race([this.#loop, expired]) === "expired") {
            this.#abandon();
            break;
          }
        }
        if (this.#syncing !== undefined) await Promise.race([this.#syncing, expired]);
        try {
          if (this.#dirty && this.#loop === undefined) await Promise.race([this.#target.sync(), expired]);
        } catch (err) {
          this.#onError?.(err);
        }
      } finally {
        clearTimeout(timer);
      }
      await this.#target.close();
    })();
    return this.#closed;
  }

  /** Gives up on everything not yet written (a stuck sink at shutdown). */
  #abandon(): void {
    const e = unavailable("the audit writer closed before the record was written");
    const left = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    for (const admit of this.#waiters.splice(0)) admit();
    const waiting = this.#queue.splice(0);
    const lost = [...left, ...waiting];
    this.#count("unwritable", lost.length);
    for (const p of lost) p.done?.reject(e);
  }

  #queued(): number {
    return this.#queue.length - this.#head;
  }

  #enqueue(p: Pending): void {
    this.#queue.push(p);
    if (p.done !== undefined) this.#wake?.();
    this.#loop ??= this.#drain();
  }

  #count(event: "shed" | "unwritable", n: number): void {
    this.#stats[event] += n;
    this.#onEvent?.(event, n);
  }

  async #drain(): Promise<void> {
    try {
      await this.#gather();
      while (this.#queued() > 0) await this.#writeBatch();
    } finally {
      // In the same turn as the last emptiness check: a record enqueued after it starts a new loop.
      this.#loop = undefined;
    }
  }

  /**
   * Lets records submitted soon after the first share its write: a turn for a security record (whose
   * call waits), {@link GATHER_MS} for success records unless a security record or closing comes first.
   */
  #gather(): Promise<void> {
    if (this.#closing || this.#queue[this.#head]?.done !== undefined) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, GATHER_MS);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  async #writeBatch(): Promise<void> {
    const batch: Pending[] = [];
    let text = "";
    while (this.#head < this.#queue.length && text.length < BATCH_BYTES) {
      const p = this.#queue[this.#head++];
      batch.push(p);
      text += p.line;
    }
    if (this.#head > 4096 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    // Room was made: let waiting security records in, in order.
    while (this.#waiters.length > 0 && this.#queued() < this.#buffer) this.#waiters.shift()!();
    try {
      await this.#target.write(this.#encoder.encode(text));
      this.#dirty = true;
      this.#stats.written += batch.length;
      for (const p of batch) p.done?.resolve();
    } catch (err) {
      this.#onError?.(err);
      // The target keeps whole lines only: the records that made it in full count as written.
      const whole = err instanceof AuditWriteError ? recordsIn(batch, err.kept) : 0;
      if (whole > 0) this.#dirty = true;
      this.#stats.written += whole;
      this.#count("unwritable", batch.length - whole);
      const e = unavailable("the audit sink failed");
      for (const [i, p] of batch.entries()) {
        if (i < whole) p.done?.resolve();
        else p.done?.reject(e);
      }
    }
  }

  async #sync(): Promise<void> {
    if (!this.#dirty || this.#syncing !== undefined) return;
    this.#dirty = false;
    this.#syncing = this.#target.sync().catch((err) => {
      this.#dirty = true;
      this.#onError?.(err);
    }).finally(() => (this.#syncing = undefined));
    await this.#syncing;
  }
}
