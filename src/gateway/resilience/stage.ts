/**
 * The resilience stage: a per-call timeout, a breaker per downstream (transport failures, recovered by
 * a real probe such as an MCP ping) and a breaker per tool (timeouts, recovered by a trial call). A
 * client's cancellation never counts against either; an open breaker answers at once.
 *
 * @module
 */
import {
  breakerScopeOf,
  type BreakerState,
  type Call,
  type CallContext,
  classifyError,
  GatewayError,
  type Handler,
  type Result,
  type Stage,
  withContext,
} from "../domain/mod.ts";
import { CircuitBreaker, type CircuitState, type Outcome, type Permit } from "./breaker.ts";

/** Which breaker a state change concerns. */
export type BreakerKind = "downstream" | "tool";

/** Options of the {@link Resilience} stage. */
export interface ResilienceOptions {
  /** Consecutive failures that open a breaker. */
  readonly failureThreshold: number;
  /** How long a breaker stays open. */
  readonly openMs: number;
  /** The per-call timeout in milliseconds, by downstream (a number applies to all). */
  readonly callTimeoutMs: number | ((downstream: string) => number);
  /** The downstream probe (an MCP ping); resolves when the downstream answered. */
  readonly probe?: (downstream: string, signal: AbortSignal) => Promise<void>;
  /** Monotonic milliseconds for the breakers (tests inject a fake clock). */
  readonly clock?: () => number;
  /** Called on every breaker state change (metrics). */
  readonly onBreakerChange?: (kind: BreakerKind, key: string, state: CircuitState) => void;
}

const SEVERITY: Record<BreakerState, number> = { "": 0, closed: 1, half_open: 2, open: 3 };

function observe(ctx: CallContext, state: BreakerState): void {
  if (SEVERITY[state] > SEVERITY[ctx.trace.breakerState]) ctx.trace.breakerState = state;
}

/** The resilience stage (see the module docs). Breakers live as long as the stage. */
export class Resilience implements Stage {
  /** Stage name. */
  readonly name = "resilience";
  readonly #options: ResilienceOptions;
  readonly #downstreams = new Map<string, CircuitBreaker>();
  readonly #tools = new Map<string, CircuitBreaker>();

  /** Creates the stage. */
  constructor(options: ResilienceOptions) {
    this.#options = options;
  }

  /** The breaker of a downstream (created closed on first use). */
  downstreamBreaker(downstream: string): CircuitBreaker {
    let b = this.#downstreams.get(downstream);
    if (b === undefined) {
      const probe = this.#options.probe;
      b = new CircuitBreaker({
        failureThreshold: this.#options.failureThreshold,
        openMs: this.#options.openMs,
        clock: this.#options.clock,
        probe: probe === undefined ? undefined : (signal) => probe(downstream, signal),
        onChange: (s) => this.#options.onBreakerChange?.("downstream", downstream, s),
      });
      this.#downstreams.set(downstream, b);
    }
    return b;
  }

  /** The breaker of a tool, by namespaced name (created closed on first use). */
  toolBreaker(name: string): CircuitBreaker {
    let b = this.#tools.get(name);
    if (b === undefined) {
      b = new CircuitBreaker({
        failureThreshold: this.#options.failureThreshold,
        openMs: this.#options.openMs,
        clock: this.#options.clock,
        onChange: (s) => this.#options.onBreakerChange?.("tool", name, s),
      });
      this.#tools.set(name, b);
    }
    return b;
  }

  /** Drops the breakers of a downstream that was removed or restarted by a reload. */
  forget(downstream: string): void {
    this.#downstreams.delete(downstream);
    const prefix = `${downstream}__`;
    for (const name of [...this.#tools.keys()]) if (name.startsWith(prefix)) this.#tools.delete(name);
  }

  /** Admits the call through both breakers, runs it under the timeout and records the outcome. */
  async handle(call: Call, ctx: CallContext, next: Handler): Promise<Result> {
    if (ctx.signal.aborted) throw new GatewayError("cancelled");
    const dsBreaker = this.downstreamBreaker(call.tool.downstream);
    const toolBreaker = this.toolBreaker(call.name);
    let dsPermit: Permit;
    try {
      dsPermit = await dsBreaker.acquire();
    } catch (err) {
      observe(ctx, "open");
      throw err;
    }
    observe(ctx, dsPermit.observed);
    let toolPermit: Permit;
    try {
      toolPermit = await toolBreaker.acquire();
    } catch (err) {
      dsBreaker.release(dsPermit, "neutral");
      observe(ctx, "open");
      throw err;
    }
    observe(ctx, toolPermit.observed);

    const timeoutMs = typeof this.#options.callTimeoutMs === "number"
      ? this.#options.callTimeoutMs
      : this.#options.callTimeoutMs(call.tool.downstream);
    // One controller for the downstream call, aborted by the client's signal or the deadline. Not
    // AbortSignal.any: in Deno a long-lived source signal (the gateway-wide one of a session) keeps
    // every dependent signal alive, about 360 bytes per call.
    const controller = new AbortController();
    const signal = controller.signal;
    let timedOut = false;
    let rejectOnAbort: (reason: unknown) => void = () => {};
    const aborted = new Promise<never>((_, reject) => (rejectOnAbort = reject));
    signal.addEventListener("abort", () => rejectOnAbort(signal.reason), { once: true });
    const forward = () => controller.abort(ctx.signal.reason);
    // The client may have cancelled while the breakers were being consulted (a probe takes time).
    if (ctx.signal.aborted) forward();
    else ctx.signal.addEventListener("abort", forward, { once: true });
    const timer = setTimeout(() => {
      timedOut = !ctx.signal.aborted;
      controller.abort(new DOMException("the tool call timed out", "TimeoutError"));
    }, timeoutMs);
    let dsOutcome: Outcome = "neutral";
    let toolOutcome: Outcome = "neutral";
    try {
      // The race answers at the deadline even if the downstream ignores the signal.
      const result = await Promise.race([next(call, withContext(ctx, { signal })), aborted]);
      dsOutcome = "success";
      toolOutcome = "success";
      return result;
    } catch (err) {
      if (timedOut) {
        toolOutcome = "failure";
        throw new GatewayError("timeout", "per-call timeout", { cause: err });
      }
      if (ctx.signal.aborted) throw new GatewayError("cancelled", undefined, { cause: err });
      const e = classifyError(err);
      const scope = breakerScopeOf(e.code);
      if (scope === "downstream") dsOutcome = "failure";
      else if (scope === "tool") toolOutcome = "failure";
      // A protocol error is an answer: the downstream is alive.
      else if (e.code === "downstream_error") dsOutcome = "success";
      throw e;
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", forward);
      // Nobody awaits `aborted` once the race is over; keep its late rejection from surfacing.
      aborted.catch(() => {});
      dsBreaker.release(dsPermit, dsOutcome);
      toolBreaker.release(toolPermit, toolOutcome);
    }
  }
}
