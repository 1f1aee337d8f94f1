/**
 * The console's live figures, computed from the audit records as they pass: per client (calls,
 * denials, limited calls, errors, p50/p99 latency) over a sliding window of fixed slots, and calls and
 * errors per second per downstream. Memory is bounded whatever the rate: fixed slots, a fixed latency
 * histogram per slot, and a capped number of clients and downstreams.
 *
 * @module
 */
import type { AuditEntry, ClientView, RateSeries } from "./domain.ts";

/** Decisions of calls refused by a limit rather than by policy. */
const LIMITED = new Set(["rate_limited", "quota_exceeded", "concurrency_limited", "limits_unavailable"]);

/** Latency histogram bounds: 64 log-spaced buckets from 0.05 ms to about 5 minutes. */
const BUCKETS = 64;
const MIN_MS = 0.05;
const GROWTH = Math.pow(300_000 / MIN_MS, 1 / (BUCKETS - 1));

function bucketOf(ms: number): number {
  if (!(ms > MIN_MS)) return 0;
  return Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / MIN_MS) / Math.log(GROWTH)));
}

/** The upper bound of a bucket (what a quantile in it is reported as). */
function boundOf(bucket: number): number {
  return MIN_MS * Math.pow(GROWTH, bucket);
}

interface Slot {
  /** The slot's period number (`floor(time / slotMs)`); a stale slot is cleared before reuse. */
  period: number;
  calls: number;
  denials: number;
  limited: number;
  errors: number;
  latency: Uint32Array;
}

function emptySlot(): Slot {
  return { period: -1, calls: 0, denials: 0, limited: 0, errors: 0, latency: new Uint32Array(BUCKETS) };
}

/** How a record counts: refused by a limit, refused otherwise, an error, or a plain call. */
export function classify(record: AuditEntry): "limited" | "denied" | "error" | "ok" {
  if (LIMITED.has(record.decision)) return "limited";
  if (!record.allowed) return "denied";
  if (record.error !== "" || (record.outcome !== undefined && record.outcome !== "ok")) return "error";
  return "ok";
}

/** Options of {@link LiveStats}. */
export interface LiveStatsOptions {
  /** The client window in milliseconds (default 5 minutes). */
  readonly windowMs?: number;
  /** Slots in the window (default 30). */
  readonly slots?: number;
  /** Seconds of calls/errors history per downstream (default 120). */
  readonly rateSeconds?: number;
  /** Most clients tracked (default 256; more are counted under `…`). */
  readonly maxClients?: number;
  /** Wall clock in epoch milliseconds (tests inject one). */
  readonly now?: () => number;
}

/** Sliding-window figures per client and per-second rates per downstream. */
export class LiveStats {
  readonly #slotMs: number;
  readonly #slots: number;
  readonly #rateSeconds: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  readonly #clients = new Map<string, Slot[]>();
  readonly #rates = new Map<string, { second: Int32Array; calls: Uint32Array; errors: Uint32Array }>();
  #downstreams: ReadonlySet<string> = new Set();

  /** Creates empty figures. */
  constructor(options: LiveStatsOptions = {}) {
    this.#slots = Math.max(1, options.slots ?? 30);
    this.#slotMs = Math.max(1, Math.floor((options.windowMs ?? 300_000) / this.#slots));
    this.#rateSeconds = Math.max(2, options.rateSeconds ?? 120);
    this.#maxClients = Math.max(1, options.maxClients ?? 256);
    this.#now = options.now ?? Date.now;
  }

  /** The downstreams rates are kept for (tool names of other prefixes mint no series). */
  setDownstreams(names: Iterable<string>): void {
    this.#downstreams = new Set(names);
    for (const name of [...this.#rates.keys()]) if (!this.#downstreams.has(name)) this.#rates.delete(name);
  }

  /** Counts one audit record. */
  add(record: AuditEntry): void {
    const now = this.#now();
    const kind = classify(record);
    let id = record.client_id;
    if (!this.#clients.has(id) && this.#clients.size >= this.#maxClients) id = "…";
    let slots = this.#clients.get(id);
    if (slots === undefined) {
      slots = Array.from({ length: this.#slots }, emptySlot);
      this.#clients.set(id, slots);
    }
    const period = Math.floor(now / this.#slotMs);
    const slot = slots[period % this.#slots];
    if (slot.period !== period) {
      slot.period = period;
      slot.calls =
        slot.denials =
        slot.limited =
        slot.errors =
          0;
      slot.latency.fill(0);
    }
    slot.calls++;
    if (kind === "limited") slot.limited++;
    else if (kind === "denied") slot.denials++;
    else if (kind === "error") slot.errors++;
    slot.latency[bucketOf(record.latency_ms)]++;

    const split = record.tool_name.indexOf("__");
    const downstream = split > 0 ? record.tool_name.slice(0, split) : "";
    if (!this.#downstreams.has(downstream) || kind === "denied" || kind === "limited") return;
    let rate = this.#rates.get(downstream);
    if (rate === undefined) {
      const n = this.#rateSeconds;
      rate = { second: new Int32Array(n).fill(-1), calls: new Uint32Array(n), errors: new Uint32Array(n) };
      this.#rates.set(downstream, rate);
    }
    const second = Math.floor(now / 1000);
    const i = second % this.#rateSeconds;
    if (rate.second[i] !== second) {
      rate.second[i] = second;
      rate.calls[i] = 0;
      rate.errors[i] = 0;
    }
    rate.calls[i]++;
    if (kind === "error") rate.errors[i]++;
  }

  /** Every client seen in the window, by id. */
  clients(): ClientView[] {
    const current = Math.floor(this.#now() / this.#slotMs);
    const out: ClientView[] = [];
    for (const [id, slots] of this.#clients) {
      let calls = 0, denials = 0, limited = 0, errors = 0;
      const latency = new Uint32Array(BUCKETS);
      for (const slot of slots) {
        if (slot.period <= current - this.#slots || slot.period > current) continue;
        calls += slot.calls;
        denials += slot.denials;
        limited += slot.limited;
        errors += slot.errors;
        for (let b = 0; b < BUCKETS; b++) latency[b] += slot.latency[b];
      }
      if (calls === 0) {
        // Gone quiet for a whole window: forget it, so ids of the past do not pile up.
        this.#clients.delete(id);
        continue;
      }
      out.push({
        id,
        calls,
        denials,
        limited,
        errors,
        p50Ms: quantile(latency, calls, 0.5),
        p99Ms: quantile(latency, calls, 0.99),
      });
    }
    return out.sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  }

  /** Calls/s and errors/s of every known downstream over the last seconds, ending with the current one. */
  rates(): RateSeries {
    const now = Math.floor(this.#now() / 1000);
    const n = this.#rateSeconds;
    const start = now - n + 1;
    const downstreams: Record<string, { calls: number[]; errors: number[] }> = {};
    for (const name of this.#downstreams) {
      const rate = this.#rates.get(name);
      const calls = new Array<number>(n).fill(0);
      const errors = new Array<number>(n).fill(0);
      for (let k = 0; rate !== undefined && k < n; k++) {
        const second = start + k;
        const i = second % n;
        if (rate.second[i] === second) {
          calls[k] = rate.calls[i];
          errors[k] = rate.errors[i];
        }
      }
      downstreams[name] = { calls, errors };
    }
    return { start, downstreams };
  }
}

function quantile(histogram: Uint32Array, total: number, q: number): number | null {
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let b = 0; b < histogram.length; b++) {
    seen += histogram[b];
    if (seen >= rank) return Math.round(boundOf(b) * 100) / 100;
  }
  return Math.round(boundOf(histogram.length - 1) * 100) / 100;
}
