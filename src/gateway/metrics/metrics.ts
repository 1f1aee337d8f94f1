/**
 * The gateway's Prometheus metrics, on `prom-client` with a registry of its own (no process-global
 * state, so several gateways and tests coexist). Every metric is driven by a real event: the pipeline
 * reports calls, the breakers report state changes, the audit writer reports shed and unwritable records,
 * the downstream layer reports liveness and pool use.
 *
 * @module
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { AuditRecord, GatewayErrorCode } from "../domain/mod.ts";

/** The code-mode sandbox pool's health as the metrics read it (a pool's `health()`). */
export interface CodeModePoolHealth {
  /** `degraded` while a sandbox that did not stop when asked holds a slot. */
  readonly status: "ok" | "degraded";
  /** Slots held by such sandboxes. */
  readonly stuck: number;
  /** Slots in use. */
  readonly live: number;
}

/** Label used for a downstream name that is not configured (client input must not mint label values). */
export const UNKNOWN_LABEL = "_unknown";

/** Latency buckets in seconds: sub-millisecond gateway overhead up to the default 30 s timeout. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const BREAKER_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/** The gateway's metrics. Implements the pipeline's call observer. */
export class GatewayMetrics {
  readonly #registry: Registry = new Registry();
  #downstreams: ReadonlySet<string> = new Set();
  #clients: ReadonlySet<string> = new Set();
  readonly #calls: Counter<"client" | "downstream" | "decision" | "outcome">;
  readonly #latency: Histogram<"downstream">;
  readonly #redactions: Counter<"downstream">;
  readonly #truncated: Counter<"downstream">;
  readonly #up: Gauge<"downstream">;
  readonly #breaker: Gauge<"kind" | "name">;
  readonly #poolInUse: Gauge<"downstream">;
  readonly #poolExhausted: Counter<"downstream">;
  readonly #auditShed: Counter;
  readonly #auditUnwritable: Counter;
  readonly #authFailures: Counter;
  readonly #rateLimited: Counter;
  readonly #notificationsDropped: Counter;

  /** Creates the metrics; `downstreams` and `clients` bound the label values (see {@link setKnown}). */
  constructor(known: { downstreams?: Iterable<string>; clients?: Iterable<string> } = {}) {
    this.setKnown(known);
    const registers = [this.#registry];
    this.#calls = new Counter({
      name: "gateway_calls_total",
      help:
        "Tool calls by client, downstream, policy decision and outcome (ok, tool_error or an error code).",
      labelNames: ["client", "downstream", "decision", "outcome"] as const,
      registers,
    });
    this.#latency = new Histogram({
      name: "gateway_call_duration_seconds",
      help: "End-to-end tool call latency through the pipeline.",
      labelNames: ["downstream"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#redactions = new Counter({
      name: "gateway_redactions_total",
      help: "Values replaced by [REDACTED] in arguments, results, errors and notifications.",
      labelNames: ["downstream"] as const,
      registers,
    });
    this.#truncated = new Counter({
      name: "gateway_results_oversized_total",
      help: "Results over max_result_bytes replaced by an error result.",
      labelNames: ["downstream"] as const,
      registers,
    });
    this.#up = new Gauge({
      name: "gateway_downstream_up",
      help: "1 when the downstream is connected and listed its tools, else 0.",
      labelNames: ["downstream"] as const,
      registers,
    });
    this.#breaker = new Gauge({
      name: "gateway_breaker_state",
      help: "Circuit breaker state: 0 closed, 1 half-open, 2 open.",
      labelNames: ["kind", "name"] as const,
      registers,
    });
    this.#poolInUse = new Gauge({
      name: "gateway_pool_in_use",
      help: "Live per-client sessions of a downstream.",
      labelNames: ["downstream"] as const,
      registers,
    });
    this.#poolExhausted = new Counter({
      name: "gateway_pool_exhausted_total",
      help: "Calls refused because the downstream's per-client pool was full.",
      labelNames: ["downstream"] as const,
      registers,
    });
    this.#auditShed = new Counter({
      name: "gateway_audit_shed_total",
      help: "Success audit records shed above the high-water mark.",
      registers,
    });
    this.#auditUnwritable = new Counter({
      name: "gateway_audit_unwritable_total",
      help: "Audit records that could not be written.",
      registers,
    });
    this.#authFailures = new Counter({
      name: "gateway_auth_failures_total",
      help: "Requests refused for a missing or wrong API key.",
      registers,
    });
    this.#rateLimited = new Counter({
      name: "gateway_auth_rate_limited_total",
      help: "Requests refused unread because their address failed to authenticate too often.",
      registers,
    });
    this.#notificationsDropped = new Counter({
      name: "gateway_notifications_dropped_total",
      help: "Notifications dropped because their client did not read them fast enough (queue bounds).",
      registers,
    });
  }

  /**
   * Reports the code-mode sandbox pool: `gateway_codemode_degraded` (1 while a sandbox that did not stop
   * when asked holds a slot), `gateway_codemode_sandboxes_stuck` and `gateway_codemode_slots_live`, read
   * at each scrape (0 before code mode has started a pool). Call once.
   */
  watchCodeMode(health: () => CodeModePoolHealth | undefined): void {
    const registers = [this.#registry];
    const gauge = (name: string, help: string, read: (h: CodeModePoolHealth) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const h = health();
          this.set(h === undefined ? 0 : read(h));
        },
      });
    gauge(
      "gateway_codemode_degraded",
      "1 while a code-mode sandbox that did not stop holds a slot.",
      (h) => h.status === "ok" ? 0 : 1,
    );
    gauge(
      "gateway_codemode_sandboxes_stuck",
      "Code-mode sandbox slots held by sandboxes that did not stop.",
      (h) => h.stuck,
    );
    gauge("gateway_codemode_slots_live", "Code-mode sandbox slots in use.", (h) => h.live);
  }

  /** The content type of {@link GatewayMetrics.text}. */
  get contentType(): string {
    return this.#registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.#registry.metrics();
  }

  /** Replaces the configured downstream names and client ids (on start and on reload). */
  setKnown(known: { downstreams?: Iterable<string>; clients?: Iterable<string> }): void {
    if (known.downstreams !== undefined) this.#downstreams = new Set(known.downstreams);
    if (known.clients !== undefined) this.#clients = new Set(known.clients);
  }

  #ds(name: string): string {
    return this.#downstreams.has(name) ? name : UNKNOWN_LABEL;
  }

  /**
   * One completed call (the pipeline's observer hook). A denied call is labelled like one to a missing
   * downstream (`_unknown`): which downstreams exist beyond a client's policy is not its to learn, and
   * the label must not tell them apart.
   */
  observeCall(record: AuditRecord, info: { downstream: string; errorCode?: GatewayErrorCode }): void {
    const ds = record.allowed ? this.#ds(info.downstream) : UNKNOWN_LABEL;
    const client = this.#clients.has(record.client_id) ? record.client_id : UNKNOWN_LABEL;
    const outcome = info.errorCode ?? (record.truncated ? "oversized" : "ok");
    this.#calls.inc({ client, downstream: ds, decision: record.decision, outcome });
    this.#latency.observe({ downstream: ds }, record.latency_ms / 1000);
    if (record.redactions > 0) this.#redactions.inc({ downstream: ds }, record.redactions);
    if (record.truncated) this.#truncated.inc({ downstream: ds });
  }

  /** A downstream came up or went down. */
  setDownstreamUp(downstream: string, up: boolean): void {
    this.#up.set({ downstream: this.#ds(downstream) }, up ? 1 : 0);
  }

  /** A breaker changed state (`kind`: downstream or tool; `name`: downstream or namespaced tool). */
  setBreakerState(kind: "downstream" | "tool", name: string, state: "closed" | "half_open" | "open"): void {
    const ds = kind === "downstream" ? name : name.slice(0, Math.max(0, name.indexOf("__")));
    if (!this.#downstreams.has(ds)) return;
    this.#breaker.set({ kind, name }, BREAKER_VALUE[state]);
  }

  /** The number of live per-client sessions of a downstream. */
  setPoolInUse(downstream: string, sessions: number): void {
    this.#poolInUse.set({ downstream: this.#ds(downstream) }, sessions);
  }

  /** A call was refused because the downstream's pool was full. */
  poolExhausted(downstream: string): void {
    this.#poolExhausted.inc({ downstream: this.#ds(downstream) });
  }

  /** Audit records shed or unwritable (the audit writer's `onEvent` hook). */
  auditEvent(event: "shed" | "unwritable", records: number): void {
    (event === "shed" ? this.#auditShed : this.#auditUnwritable).inc(records);
  }

  /** A request failed authentication. */
  authFailure(): void {
    this.#authFailures.inc();
  }

  /** Counts a request refused by the failed-authentication rate limit. */
  rateLimited(): void {
    this.#rateLimited.inc();
  }

  /** Counts a notification dropped because its client's queue was full. */
  notificationDropped(): void {
    this.#notificationsDropped.inc();
  }

  #limits?: {
    readonly refused: Counter<"rule" | "limit">;
    readonly storeErrors: Counter<"action">;
  };

  /**
   * Registers the call limits' metrics: `gateway_limit_refusals_total{rule,limit}` (calls a limit rule
   * refused), `gateway_limit_store_errors_total{action}` (checks the store could not answer, by what
   * `on_store_error` did) and `gateway_limits_degraded` (1 while the store is failing), read at each
   * scrape. Call once.
   */
  watchLimits(health: () => "ok" | "degraded" | undefined): void {
    const registers = [this.#registry];
    this.#limits = {
      refused: new Counter({
        name: "gateway_limit_refusals_total",
        help: "Authorized calls refused by a limit rule, by rule name and limit (rate, concurrency, quota).",
        labelNames: ["rule", "limit"] as const,
        registers,
      }),
      storeErrors: new Counter({
        name: "gateway_limit_store_errors_total",
        help: "Limit checks the store could not answer in time, by what on_store_error did (deny, allow).",
        labelNames: ["action"] as const,
        registers,
      }),
    };
    new Gauge({
      name: "gateway_limits_degraded",
      help: "1 while the limits store is failing (calls follow on_store_error), else 0.",
      registers,
      collect() {
        this.set(health() === "degraded" ? 1 : 0);
      },
    });
  }

  /** A limit rule (a configured name: bounded) refused a call. */
  limitRefused(rule: string, limit: "rate" | "concurrency" | "quota"): void {
    this.#limits?.refused.inc({ rule, limit });
  }

  /** The limits store could not answer a check; `action` is what the call got. */
  limitStoreError(action: "deny" | "allow"): void {
    this.#limits?.storeErrors.inc({ action });
  }

  /** Removes the series of a downstream that a reload removed. */
  forgetDownstream(downstream: string): void {
    for (const g of [this.#up, this.#poolInUse]) g.remove({ downstream });
    this.#breaker.remove({ kind: "downstream", name: downstream });
  }
}
