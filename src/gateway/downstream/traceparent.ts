/**
 * W3C trace context for http downstreams: each request carries the `traceparent` of the span active
 * when it is sent (the gateway's `gateway.call` span of the call it belongs to, or the `fetch` span
 * Deno's built-in OpenTelemetry opens under it), so a downstream's own spans join the caller's trace.
 * Nothing is added when no span is active (tracing off).
 *
 * @module
 */
import { context, trace } from "@opentelemetry/api";

/** The W3C `traceparent` of the span active now, or `undefined` when there is none. */
export function currentTraceparent(): string | undefined {
  const sc = trace.getSpanContext(context.active());
  if (sc === undefined || !trace.isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 1) === 1 ? "01" : "00"}`;
}

/**
 * Whether the tracer in force is Deno's built-in one, whose `fetch` already sends the active span as
 * `traceparent` (a second header would make the context invalid for the receiver).
 */
function denoPropagates(): boolean {
  const provider = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const deno = (Deno as { telemetry?: { tracerProvider?: unknown } }).telemetry?.tracerProvider;
  return deno !== undefined && (provider === deno || provider.getDelegate?.() === deno);
}

/**
 * `base` (default: the global `fetch` at call time) with the active span's `traceparent` on each request,
 * unless the request has one or Deno's own instrumentation of `fetch` adds it.
 */
export function fetchWithTraceparent(base?: typeof fetch): typeof fetch {
  return (input, init) => {
    const send = base ?? fetch;
    const traceparent = currentTraceparent();
    if (traceparent === undefined || denoPropagates()) return send(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (headers.has("traceparent")) return send(input, init);
    headers.set("traceparent", traceparent);
    return send(input, { ...init, headers });
  };
}
