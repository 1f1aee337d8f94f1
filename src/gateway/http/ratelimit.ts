/**
 * Rate limiting of failed authentications per remote address: a token bucket per address that each
 * failed authentication drains by one and that refills at a steady rate. While an address's bucket is
 * empty, every request from it is refused with 429 before its key is even looked at, so guessing keys
 * costs a wait per guess; a client that authenticates spends nothing.
 *
 * @module
 */

/** The limiter's settings (`auth_rate_limit` in the YAML). */
export interface AuthRateLimit {
  /** Failed authentications an address may make in a row (0: no limit). */
  readonly burst: number;
  /** Failed authentications per minute an address regains, up to `burst`. */
  readonly refillPerMinute: number;
}

/** Most addresses tracked at once; the longest-tracked is forgotten first beyond it. */
const MAX_ADDRESSES = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** The per-address buckets (per replica, like every other counter of the gateway). */
export class FailureLimiter {
  readonly #settings: AuthRateLimit;
  readonly #perMs: number;
  readonly #now: () => number;
  readonly #max: number;
  readonly #buckets = new Map<string, Bucket>();

  /** Creates a limiter; `now` is a millisecond clock (tests pass a fake one). */
  constructor(
    settings: AuthRateLimit,
    now: () => number = () => performance.now(),
    maxAddresses = MAX_ADDRESSES,
  ) {
    this.#settings = settings;
    this.#perMs = settings.refillPerMinute / 60_000;
    this.#now = now;
    this.#max = Math.max(1, maxAddresses);
  }

  /** The settings in force. */
  get settings(): AuthRateLimit {
    return this.#settings;
  }

  /** How many addresses are tracked (diagnostics and tests). */
  get size(): number {
    return this.#buckets.size;
  }

  /** Milliseconds until `address` may try again (0: now). */
  retryAfterMs(address: string): number {
    if (this.#settings.burst === 0) return 0;
    const bucket = this.#buckets.get(address);
    if (bucket === undefined) return 0;
    const tokens = this.#refill(bucket);
    if (tokens >= 1) return 0;
    if (this.#perMs === 0) return Number.POSITIVE_INFINITY;
    return Math.ceil((1 - tokens) / this.#perMs);
  }

  /**
   * Counts one failed authentication of `address`. Returns `true` when it used the address's last
   * token, so the address is limited from now on (the moment worth an audit record).
   */
  fail(address: string): boolean {
    if (this.#settings.burst === 0) return false;
    let bucket = this.#buckets.get(address);
    if (bucket === undefined) {
      this.#evict();
      bucket = { tokens: this.#settings.burst, at: this.#now() };
      this.#buckets.set(address, bucket);
    }
    const tokens = this.#refill(bucket);
    bucket.tokens = Math.max(0, tokens - 1);
    return tokens >= 1 && bucket.tokens < 1;
  }

  #refill(bucket: Bucket): number {
    const now = this.#now();
    bucket.tokens = Math.min(this.#settings.burst, bucket.tokens + (now - bucket.at) * this.#perMs);
    bucket.at = now;
    return bucket.tokens;
  }

  /**
   * Makes room for one more address by forgetting the longest-tracked one (O(1), so a flood of new
   * addresses costs no scan; a forgotten address starts again with a full bucket).
   */
  #evict(): void {
    if (this.#buckets.size >= this.#max) this.#buckets.delete(this.#buckets.keys().next().value!);
  }
}
