/**
 * The embedded store: counters in this process's memory, decided synchronously (a check is a few map
 * look-ups). Each replica using it counts alone. Idle counters are swept as time passes, so clients and
 * rules that stop calling leave nothing behind.
 *
 * @module
 */
import type { Lease, LimitRequest, LimitStore, StoreRefusal, StoreVerdict } from "./store.ts";

interface Bucket {
  tokens: number;
  at: number;
  readonly burst: number;
  readonly perMs: number;
}

interface Window {
  start: number;
  used: number;
  readonly end: number;
}

/** How often (in clock time) idle counters are swept. */
const SWEEP_EVERY_MS = 10_000;

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** Milliseconds since the epoch (tests inject a clock; default `Date.now`). */
  readonly now?: () => number;
}

/** Start of the window of `periodMs` (shifted by `offsetMs`) that holds `now`. */
export function windowStart(now: number, periodMs: number, offsetMs: number): number {
  const shift = offsetMs % periodMs;
  return Math.floor((now - shift) / periodMs) * periodMs + shift;
}

/** Counters in memory, for one process. */
export class MemoryStore implements LimitStore {
  /** Store kind. */
  readonly kind = "memory";
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();
  readonly #windows = new Map<string, Window>();
  readonly #inFlight = new Map<string, number>();
  #swept: number;

  /** Creates an empty store. */
  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#swept = this.#now();
  }

  /** Decides every request at once (see {@link LimitStore.check}). */
  check(requests: readonly LimitRequest[]): StoreVerdict {
    const now = this.#now();
    if (now - this.#swept >= SWEEP_EVERY_MS) this.#sweep(now);
    let refused: StoreRefusal[] | undefined;
    // First pass: decide without spending.
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i];
      let retryAfterMs = 0;
      if (r.kind === "rate") {
        const b = this.#bucket(r, now);
        if (b.tokens < 1) retryAfterMs = Math.ceil((1 - b.tokens) / b.perMs);
      } else if (r.kind === "quota") {
        const w = this.#window(r, now);
        if (w.used >= r.limit) retryAfterMs = Math.max(1, w.end - now);
      } else if ((this.#inFlight.get(r.key) ?? 0) >= r.limit) {
        // Nobody knows when a call in flight ends: a nominal second.
        retryAfterMs = 1_000;
      }
      if (retryAfterMs > 0) (refused ??= []).push({ index: i, retryAfterMs });
    }
    if (refused !== undefined) return { ok: false, refused };
    // Second pass: spend (the first pass created every counter).
    let leases: Lease[] | undefined;
    for (const r of requests) {
      if (r.kind === "rate") this.#buckets.get(r.key)!.tokens -= 1;
      else if (r.kind === "quota") this.#windows.get(r.key)!.used += 1;
      else {
        this.#inFlight.set(r.key, (this.#inFlight.get(r.key) ?? 0) + 1);
        (leases ??= []).push({ key: r.key, id: "" });
      }
    }
    return { ok: true, leases: leases ?? NO_LEASES };
  }

  #bucket(r: Extract<LimitRequest, { kind: "rate" }>, now: number): Bucket {
    let b = this.#buckets.get(r.key);
    if (b === undefined) {
      b = { tokens: r.burst, at: now, burst: r.burst, perMs: r.count / r.periodMs };
      this.#buckets.set(r.key, b);
    } else if (now > b.at) {
      b.tokens = Math.min(b.burst, b.tokens + (now - b.at) * b.perMs);
      b.at = now;
    }
    return b;
  }

  #window(r: Extract<LimitRequest, { kind: "quota" }>, now: number): Window {
    let w = this.#windows.get(r.key);
    if (w === undefined || now >= w.end || now < w.start) {
      const start = windowStart(now, r.periodMs, r.offsetMs);
      w = { start, used: 0, end: start + r.periodMs };
      this.#windows.set(r.key, w);
    }
    return w;
  }

  /** Gives back concurrency slots. */
  release(leases: readonly Lease[]): void {
    for (const l of leases) {
      const n = (this.#inFlight.get(l.key) ?? 0) - 1;
      if (n <= 0) this.#inFlight.delete(l.key);
      else this.#inFlight.set(l.key, n);
    }
  }

  /** Always answers. */
  ping(): Promise<void> {
    return Promise.resolve();
  }

  /** Forgets every counter. */
  close(): Promise<void> {
    this.#buckets.clear();
    this.#windows.clear();
    this.#inFlight.clear();
    return Promise.resolve();
  }

  /** Counters held (buckets, windows, in-flight keys): diagnostics and tests. */
  get size(): number {
    return this.#buckets.size + this.#windows.size + this.#inFlight.size;
  }

  #sweep(now: number): void {
    this.#swept = now;
    for (const [key, b] of this.#buckets) {
      // A bucket that has refilled is the same as no bucket.
      if (b.tokens + (now - b.at) * b.perMs >= b.burst) this.#buckets.delete(key);
    }
    for (const [key, w] of this.#windows) if (now >= w.end) this.#windows.delete(key);
  }
}

const NO_LEASES: readonly Lease[] = Object.freeze([]);
