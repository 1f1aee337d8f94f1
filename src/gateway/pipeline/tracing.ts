/**
 * OpenTelemetry spans of the gateway's own calls, through the standard API (`npm:@opentelemetry/api`;
 * Deno's built-in OpenTelemetry provides the tracer with `OTEL_DENO=true`, otherwise every span is a
 * no-op and a call pays one non-recording span).
 *
 * One `gateway.call` span wraps each call the pipeline answers — passthrough calls and code-mode native
 * calls alike, accepted or refused — as a child of whatever span is active: the HTTP request's, or for a
 * native call the core's `codemode.call` span, itself a child of the execution's `codemode.execute`.
 * Attributes, set when the call ends: `gateway.client`, `gateway.tool` (redacted, bounded),
 * `gateway.decision` (the audit reason), `gateway.outcome` (`ok`, `tool_error`, or the gateway error
 * code), `gateway.redactions`, and `gateway.execution_id` for native calls. Never arguments, results or
 * error texts. While the span is active, http downstream requests carry it as a W3C `traceparent`.
 *
 * @module
 */
import { context, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  type CallContext,
  classifyError,
  decisionOrZero,
  type Identity,
  MAX_TOOL_NAME_LENGTH,
  type Result,
} from "../domain/mod.ts";
import type { RedactorPort } from "./ports.ts";

const tracer = trace.getTracer("codemode-gateway");

/** What a call's span is named after. */
export interface TracedCall {
  /** The calling client. */
  readonly client: Identity;
  /** The tool name as the client sent it (recorded redacted and bounded). */
  readonly name: string;
  /** The code-mode execution the call belongs to, if any. */
  readonly executionId?: string;
}

function finish(
  span: Span,
  call: TracedCall,
  ctx: CallContext,
  redactor: RedactorPort,
  result: Result | undefined,
  err: unknown,
): void {
  const outcome = err !== undefined ? classifyError(err).code : result?.isError ? "tool_error" : "ok";
  span.setAttributes({
    "gateway.client": call.client.id,
    // The name is client input: it is recorded as the audit records it.
    "gateway.tool": redactor.redactText(call.name.slice(0, MAX_TOOL_NAME_LENGTH)).value,
    "gateway.decision": decisionOrZero(ctx.trace.decision).reason,
    "gateway.outcome": outcome,
    "gateway.redactions": ctx.trace.redactions,
  });
  if (call.executionId !== undefined) span.setAttribute("gateway.execution_id", call.executionId);
  if (outcome !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
  span.end();
}

/**
 * Runs one call (`run`) inside its `gateway.call` span and records how it ended from `ctx.trace`. A
 * non-recording span (tracing off, or not sampled) costs no attribute work and changes no context.
 */
export async function traceCall(
  call: TracedCall,
  ctx: CallContext,
  redactor: () => RedactorPort,
  run: () => Promise<Result>,
): Promise<Result> {
  const parent = context.active();
  const span = tracer.startSpan("gateway.call", undefined, parent);
  if (!span.isRecording()) {
    span.end();
    return await run();
  }
  let result: Result | undefined;
  try {
    result = await context.with(trace.setSpan(parent, span), run);
  } catch (err) {
    finish(span, call, ctx, redactor(), undefined, err);
    throw err;
  }
  finish(span, call, ctx, redactor(), result, undefined);
  return result;
}
