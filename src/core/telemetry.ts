/**
 * OpenTelemetry spans of the core, through the standard API (`npm:@opentelemetry/api`). Deno's built-in
 * OpenTelemetry registers the providers when the process runs with `OTEL_DENO=true`; otherwise the API
 * is a no-op and a span costs a few allocations.
 *
 * Spans and the attributes an operator filters on (never arguments, results, sources or causes):
 *
 * | span | attributes |
 * |---|---|
 * | `codemode.execute` | `codemode.subject`, `codemode.execution_id`, `codemode.source_bytes`, `codemode.error_code` |
 * | `codemode.call` | `codemode.capability.name`, `codemode.capability.id`, `codemode.execution_id`, `codemode.error_code` |
 * | `codemode.authorize` | `codemode.capability.name`, `codemode.authz.decision` (`allow`, `deny`, `failure`) |
 *
 * A call's spans are children of their execution's span even though the executor answers native calls
 * from a worker's message handler, outside the execution's async context: the parent is passed on.
 *
 * @module
 */
import { type Context, context, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { isCodeModeError } from "../errors.ts";

const tracer = trace.getTracer("codemode");

/** Attribute values the spans carry. */
export type SpanAttributes = Record<string, string | number>;

/** The OpenTelemetry types the spans use. */
export type { Context, Span } from "@opentelemetry/api";

/** The context to parent spans under: the active one (an MCP request's span, say). */
export function activeContext(): Context {
  return context.active();
}

/** The context whose active span is `span`, to parent later spans explicitly. */
export function withSpan(span: Span, parent: Context = context.active()): Context {
  return trace.setSpan(parent, span);
}

/**
 * Runs `fn` inside a new span `name` under `parent`, ends it when `fn` settles, and marks it failed with
 * the error's code (`codemode.error_code`; the message is never recorded: it may quote a cause).
 */
export async function inSpan<T>(
  name: string,
  attributes: SpanAttributes,
  parent: Context,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, { attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** Marks `span` failed with the classification of `err` (cancellation reads as `cancelled`). */
export function failSpan(span: Span, err: unknown): void {
  const code = isCodeModeError(err)
    ? err.code
    : err instanceof Error && err.name === "AbortError"
    ? "cancelled"
    : "internal";
  span.setAttribute("codemode.error_code", code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}
