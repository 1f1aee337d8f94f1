/**
 * The store port: where counters live. A check names every counter a call needs and the store decides
 * them all at once — either every counter admits the call and all are spent, or none is touched — so a
 * call refused by one rule never spends another rule's tokens. The memory adapter answers in-process; the
 * Redis adapter answers for every replica sharing the server, in one script per check.
 *
 * @module
 */

/** One counter a call needs. Keys are the evaluator's (rule fingerprint, limit, client). */
export type LimitRequest =
  | {
    /** A token bucket of depth `burst`, refilled by `count` tokens per `periodMs`; a call takes one. */
    readonly kind: "rate";
    readonly key: string;
    readonly burst: number;
    readonly count: number;
    readonly periodMs: number;
  }
  | {
    /** At most `limit` calls in flight; a call holds a slot until released (or its lease expires). */
    readonly kind: "concurrency";
    readonly key: string;
    readonly limit: number;
  }
  | {
    /** At most `limit` calls per window of `periodMs` starting `offsetMs` after the UTC period boundary. */
    readonly kind: "quota";
    readonly key: string;
    readonly limit: number;
    readonly periodMs: number;
    readonly offsetMs: number;
  };

/** A concurrency slot held by an admitted call. */
export interface Lease {
  /** The counter's key. */
  readonly key: string;
  /** The holder's id within the counter (`""` where the store counts slots instead of naming them). */
  readonly id: string;
}

/** A counter that refused, by its index in the request list, with when it may admit again. */
export interface StoreRefusal {
  /** Index into the requests. */
  readonly index: number;
  /** Milliseconds until this counter may admit the call. */
  readonly retryAfterMs: number;
}

/** The store's answer to a check. */
export type StoreVerdict =
  | { readonly ok: true; readonly leases: readonly Lease[] }
  | { readonly ok: false; readonly refused: readonly StoreRefusal[] };

/** Where counters live. */
export interface LimitStore {
  /** `memory` (this process only) or `redis` (shared by every replica using the server). */
  readonly kind: "memory" | "redis";
  /**
   * Decides every request at once: all admit and all are spent (the concurrency ones return leases),
   * or the refusing ones are reported and nothing is spent. The memory store answers synchronously.
   * Rejects when the store cannot answer.
   */
  check(requests: readonly LimitRequest[]): StoreVerdict | Promise<StoreVerdict>;
  /** Gives back concurrency slots. Never throws (a lost release is recovered by lease expiry). */
  release(leases: readonly Lease[]): void;
  /** Resolves when the store answers a trivial request (health probe); rejects otherwise. */
  ping(): Promise<void>;
  /** Releases the store's resources (connections, held leases). */
  close(): Promise<void>;
}
