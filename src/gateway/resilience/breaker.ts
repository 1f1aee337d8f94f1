/**
 * A circuit breaker: closed → open after `failureThreshold` consecutive failures → half-open once
 * `openMs` have passed → closed again after a successful probe (or trial call), open again after a failed
 * one. The clock is injectable so tests drive time.
 *
 * @module
 */
import { GatewayError } from "../domain/mod.ts";

/** The states of a breaker. */
export type CircuitState = "closed" | "open" | "half_open";

/** How a call that passed the breaker ended, from the breaker's point of view. */
export type Outcome = "success" | "failure" | "neutral";

/** Options of a {@link CircuitBreaker}. */
export interface BreakerOptions {
  /** Consecutive failures that open the breaker (≥ 1). */
  readonly failureThreshold: number;
  /** Milliseconds the breaker stays open before it lets a probe through. */
  readonly openMs: number;
  /** Monotonic milliseconds (default `performance.now`). */
  readonly clock?: () => number;
  /**
   * A real recovery probe (an MCP ping for a downstream). With one, the first call in half-open runs it
   * and every concurrent call waits for it; without one, one trial call at a time is let through and its
   * outcome decides.
   */
  readonly probe?: (signal: AbortSignal) => Promise<void>;
  /** How long a probe may take (default: `min(openMs, 5000)`, at least 100). */
  readonly probeTimeoutMs?: number;
  /** Called on every state change (metrics). */
  readonly onChange?: (state: CircuitState) => void;
}

/** A pass through the breaker; give it back with {@link CircuitBreaker.release}. */
export interface Permit {
  /** Whether this call is the half-open trial (its outcome closes or reopens the breaker). */
  readonly trial: boolean;
  /** The state the call observed when it was admitted. */
  readonly observed: CircuitState;
}

/** A circuit breaker for one downstream or one tool. */
export class CircuitBreaker {
  readonly #threshold: number;
  readonly #openMs: number;
  readonly #clock: () => number;
  readonly #probe: ((signal: AbortSignal) => Promise<void>) | undefined;
  readonly #probeTimeoutMs: number;
  readonly #onChange: ((state: CircuitState) => void) | undefined;
  #state: CircuitState = "closed";
  #failures = 0;
  #openedAt = 0;
  #trialInFlight = false;
  #probing: Promise<boolean> | undefined;

  /** Creates a closed breaker. */
  constructor(options: BreakerOptions) {
    this.#threshold = Math.max(1, Math.floor(options.failureThreshold));
    this.#openMs = Math.max(0, options.openMs);
    this.#clock = options.clock ?? (() => performance.now());
    this.#probe = options.probe;
    this.#probeTimeoutMs = options.probeTimeoutMs ?? Math.max(100, Math.min(this.#openMs, 5000));
    this.#onChange = options.onChange;
  }

  /** The current state (an open breaker whose time is up reads as half-open). */
  get state(): CircuitState {
    if (this.#state === "open" && this.#clock() - this.#openedAt >= this.#openMs) this.#set("half_open");
    return this.#state;
  }

  /** Consecutive failures counted while closed. */
  get failures(): number {
    return this.#failures;
  }

  /**
   * Admits a call or rejects it at once with `breaker_open`. In half-open, runs the probe first (shared
   * by concurrent callers) or admits a single trial call.
   */
  async acquire(): Promise<Permit> {
    const state = this.state;
    if (state === "closed") return { trial: false, observed: "closed" };
    if (state === "open") throw this.#rejection();
    if (this.#probe !== undefined) {
      this.#probing ??= this.#runProbe().finally(() => (this.#probing = undefined));
      if (await this.#probing) return { trial: false, observed: "half_open" };
      throw this.#rejection();
    }
    if (this.#trialInFlight) throw this.#rejection();
    this.#trialInFlight = true;
    return { trial: true, observed: "half_open" };
  }

  /** Records how an admitted call ended. Neutral outcomes (client cancellation) change nothing. */
  release(permit: Permit, outcome: Outcome): void {
    if (permit.trial) this.#trialInFlight = false;
    if (outcome === "neutral") return;
    if (outcome === "success") {
      this.#failures = 0;
      if (this.#state !== "closed") this.#set("closed");
      return;
    }
    if (permit.trial || this.#state === "half_open") {
      this.#open();
      return;
    }
    if (this.#state === "closed" && ++this.#failures >= this.#threshold) this.#open();
  }

  async #runProbe(): Promise<boolean> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException("probe timed out", "TimeoutError")),
      this.#probeTimeoutMs,
    );
    try {
      await Promise.race([
        this.#probe!(controller.signal),
        new Promise<never>((_, reject) => {
          controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
        }),
      ]);
      this.#failures = 0;
      this.#set("closed");
      return true;
    } catch {
      this.#open();
      return false;
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  #open(): void {
    this.#openedAt = this.#clock();
    this.#failures = 0;
    this.#set("open");
  }

  #set(state: CircuitState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#onChange?.(state);
  }

  #rejection(): GatewayError {
    return new GatewayError("breaker_open", "circuit breaker open");
  }
}
