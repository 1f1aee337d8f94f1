/**
 * A call as it moves through the security pipeline, its result, and the middleware types that compose
 * the pipeline.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "./catalog.ts";
import type { Decision, Identity } from "./decision.ts";
import type { ToolRef } from "./names.ts";

/**
 * A single in-flight tool invocation. Immutable: a stage that rewrites something (inbound redaction)
 * creates a new call with {@link withArgs}; nothing mutates a call another stage may hold.
 */
export interface Call {
  /** The authenticated identity that issued the call. */
  readonly client: Identity;
  /** The resolved downstream tool. */
  readonly tool: ToolRef;
  /** The namespaced name the client called (`tool` formatted). */
  readonly name: string;
  /** The client's arguments object. */
  readonly args: JsonObject;
  /** Set when the call comes from a CodeMode execution (a Starlark native call); audited. */
  readonly executionId?: string;
}

/** A copy of `call` with other arguments. */
export function withArgs(call: Call, args: JsonObject): Call {
  return Object.freeze({ ...call, args });
}

/**
 * The outcome of a tool call flowing back through the pipeline. `payload` is the whole MCP
 * `CallToolResult` object (`content`, `structuredContent`, `isError`, `_meta` ...) as decoded JSON, so the
 * redactor rewrites decoded string values (a secret split by JSON escapes is whole again) without the
 * pipeline knowing the downstream's content shape. Immutable: redaction produces a new result.
 */
export interface Result {
  /** The `CallToolResult` object. */
  readonly payload: JsonObject;
  /** Whether the downstream reported a tool execution error (`payload.isError`). */
  readonly isError: boolean;
}

/** A result from a payload (`isError` read from it). */
export function makeResult(payload: JsonObject): Result {
  return Object.freeze({ payload, isError: payload.isError === true });
}

/** An error result with one text content item (what the size cap and similar replacements answer). */
export function errorResult(text: string): Result {
  return makeResult({ content: [{ type: "text", text }], isError: true });
}

/** A notification sent by the downstream during a call (`notifications/progress`, `.../message`). */
export interface Notification {
  /** The JSON-RPC method. */
  readonly method: string;
  /** Its params. */
  readonly params: JsonObject;
}

/** The state of a circuit breaker as observed by a call; `""` when no breaker was consulted. */
export type BreakerState = "closed" | "open" | "half_open" | "";

/**
 * What the stages observed about one call, read by the audit stage when it writes the record. It is the
 * one mutable value of a call, owned by the pipeline entry and written only by stages.
 */
export interface CallTrace {
  /** The policy decision; absent means the zero decision (denied by default). */
  decision?: Decision;
  /** Values redacted so far (arguments, result, error text, notifications). */
  redactions: number;
  /** Whether the result was over the size cap and replaced unscanned. */
  truncated: boolean;
  /** The most severe breaker state seen (open > half_open > closed). */
  breakerState: BreakerState;
  /** Set by the limits stage when a limit refused the call: the audited decision and the rule. */
  limited?: {
    readonly decision: "rate_limited" | "quota_exceeded" | "concurrency_limited" | "limits_unavailable";
    readonly rule: string;
  };
  /** Set by the limits stage when the limits store failed for this call. */
  limitStoreError?: boolean;
}

/** A fresh trace. */
export function newTrace(): CallTrace {
  return { redactions: 0, truncated: false, breakerState: "" };
}

/** The per-call context beside the call: cancellation, the notification channel and the trace. */
export interface CallContext {
  /** Aborted when the client cancels (or the gateway shuts down). */
  readonly signal: AbortSignal;
  /** Delivers a downstream notification to the calling client (stages wrap it to redact). */
  readonly notify: (notification: Notification) => void;
  /** The observations of the stages. */
  readonly trace: CallTrace;
}

/** A copy of `ctx` with another signal or notification channel. */
export function withContext(
  ctx: CallContext,
  change: { signal?: AbortSignal; notify?: (n: Notification) => void },
): CallContext {
  return Object.freeze({ ...ctx, ...change });
}

/** Executes a call. The pipeline composes handlers; the innermost is backed by a {@link Dispatcher}. */
export type Handler = (call: Call, ctx: CallContext) => Promise<Result>;

/**
 * One element of the per-call security chain. It wraps the next handler: it may short-circuit before
 * calling `next` (a policy denial) or call it and post-process the result (outbound redaction).
 */
export interface Stage {
  /** A short name for diagnostics. */
  readonly name: string;
  /** Handles the call, usually by calling `next`. */
  handle(call: Call, ctx: CallContext, next: Handler): Promise<Result>;
}

/**
 * The port the pipeline terminates in: routes a call to its downstream session and executes it.
 * Implemented by the downstream layer. It must honour `ctx.signal`, throw classified errors
 * (`downstream_unavailable` for transport failures, `downstream_error` for protocol errors, with the
 * downstream's text as `detail`), and never retry.
 */
export interface Dispatcher {
  /** Executes the call on its downstream. */
  dispatch(call: Call, ctx: CallContext): Promise<Result>;
  /**
   * A real liveness probe of a downstream (an MCP ping), used by the downstream breaker in half-open.
   * Resolves when the downstream answered; rejects otherwise.
   */
  probe(downstream: string, signal: AbortSignal): Promise<void>;
}

/** A JSON-safe copy check used by stages: whether `v` is a plain JSON object. */
export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
