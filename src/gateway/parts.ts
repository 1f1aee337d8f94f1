/**
 * The composition root's wiring of the stateful parts built from the configuration: the audit writer
 * (on its sink), the resilience stage (breakers and timeouts, probing downstreams through the registry)
 * and the metrics, joined so that every metric is moved by the real event it counts.
 *
 * @module
 */
import { type AuditTarget, AuditWriter, lineTarget, openAuditTarget } from "./audit/mod.ts";
import type { GatewayConfig } from "./config/mod.ts";
import type { Call, CallContext, Handler, Result, Stage } from "./domain/mod.ts";
import { GatewayMetrics } from "./metrics/mod.ts";
import type { AuditPort } from "./pipeline/mod.ts";
import { type CircuitState, Resilience } from "./resilience/mod.ts";

/** What {@link buildParts} needs from the rest of the root. */
export interface PartsOptions {
  /** The breaker's recovery probe: an MCP ping to a downstream. */
  readonly probe: (downstream: string, signal: AbortSignal) => Promise<void>;
  /** Operator log. */
  readonly log: (line: string) => void;
  /** Audit lines for a `stdout` sink go to stderr instead (`--stdio` mode). */
  readonly auditToStderr: boolean;
  /** Also told every breaker state change (the operator console). */
  readonly onBreakerChange?: (kind: "downstream" | "tool", key: string, state: CircuitState) => void;
}

/** The stateful parts of one gateway. */
export interface GatewayParts {
  /** The audit writer, as the pipeline's audit port. */
  readonly audit: AuditPort;
  /** The resilience stage (swappable on reload). */
  readonly resilience: Stage;
  /** The metrics. */
  readonly metrics: GatewayMetrics;
  /** Applies breaker and timeout settings of `next`; forgets the breakers of `changed` downstreams. */
  reconfigure(next: GatewayConfig, changed: readonly string[]): void;
  /** Drains and closes the audit writer. */
  close(): Promise<void>;
}

/** Standard error (never closed), keeping whole lines like every audit target. */
function stderrTarget(): AuditTarget {
  return lineTarget({ write: (p) => Deno.stderr.write(p) });
}

/**
 * A stage that delegates to a replaceable inner stage: a reload that changes breaker or timeout
 * settings swaps in a fresh {@link Resilience} while calls already inside keep the one they entered.
 */
class SwappableStage implements Stage {
  readonly name = "resilience";
  inner: Resilience;
  constructor(inner: Resilience) {
    this.inner = inner;
  }
  handle(call: Call, ctx: CallContext, next: Handler): Promise<Result> {
    return this.inner.handle(call, ctx, next);
  }
}

/** Builds the audit writer, resilience stage and metrics for `config`. */
export async function buildParts(config: GatewayConfig, options: PartsOptions): Promise<GatewayParts> {
  const known = (c: GatewayConfig) => ({
    downstreams: c.downstreams.map((d) => d.name),
    clients: c.clients.map((cl) => cl.id),
  });
  const metrics = new GatewayMetrics(known(config));
  const target = config.audit.sink.kind === "stdout" && options.auditToStderr
    ? stderrTarget()
    : await openAuditTarget(config.audit.sink);
  const writer = new AuditWriter(target, {
    buffer: config.audit.buffer,
    highWater: config.audit.highWater,
    fsyncMs: config.audit.fsyncMs,
    securityBlockMs: config.audit.securityBlockMs,
    onEvent: (event, n) => metrics.auditEvent(event, n),
    onError: () => options.log("gateway: audit write failed"),
  });
  const resilienceFor = (c: GatewayConfig) => {
    const timeouts = new Map(c.downstreams.map((d) => [d.name, d.callTimeoutMs ?? c.callTimeoutMs]));
    return new Resilience({
      failureThreshold: c.breaker.failureThreshold,
      openMs: c.breaker.openMs,
      callTimeoutMs: (downstream) => timeouts.get(downstream) ?? c.callTimeoutMs,
      probe: options.probe,
      onBreakerChange: (kind, key, state) => {
        metrics.setBreakerState(kind, key, state);
        options.onBreakerChange?.(kind, key, state);
      },
    });
  };
  const resilience = new SwappableStage(resilienceFor(config));
  let current = config;
  return {
    audit: writer,
    resilience,
    metrics,
    reconfigure(next, changed) {
      const same = JSON.stringify(current.breaker) === JSON.stringify(next.breaker) &&
        current.callTimeoutMs === next.callTimeoutMs &&
        JSON.stringify(current.downstreams.map((d) => d.callTimeoutMs)) ===
          JSON.stringify(next.downstreams.map((d) => d.callTimeoutMs));
      if (!same) resilience.inner = resilienceFor(next);
      else for (const name of changed) resilience.inner.forget(name);
      const removed = new Set(current.downstreams.map((d) => d.name));
      for (const d of next.downstreams) removed.delete(d.name);
      for (const name of removed) metrics.forgetDownstream(name);
      metrics.setKnown(known(next));
      current = next;
    },
    close: () => writer.close(),
  };
}
