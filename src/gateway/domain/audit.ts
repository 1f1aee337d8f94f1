/**
 * The audit record written for every call (and every failed authentication), after redaction.
 *
 * @module
 */
import type { BreakerState } from "./call.ts";
import type { ReasonCode } from "./decision.ts";

/**
 * The decision field of a record: a policy reason, `unauthenticated` for a failed authentication, or
 * `rate_limited` when an address's failed authentications start being refused unread.
 */
export type AuditDecision = ReasonCode | "unauthenticated" | "rate_limited";

/**
 * One JSONL audit line. Field names are the wire format (snake_case). Every string in it has been
 * redacted; the presented key of a failed authentication is never part of it.
 */
export interface AuditRecord {
  /** When the call completed, RFC 3339 UTC with milliseconds. */
  readonly timestamp: string;
  /** The calling client's id (`""` for a failed authentication). */
  readonly client_id: string;
  /** The namespaced tool name as called (`""` when the event is not a tool call). */
  readonly tool_name: string;
  /** The policy reason code (or `unauthenticated`). */
  readonly decision: AuditDecision;
  /** Whether policy permitted the call. */
  readonly allowed: boolean;
  /** End-to-end latency in milliseconds (fractional). */
  readonly latency_ms: number;
  /** The breaker state observed (`""` when none was consulted). */
  readonly breaker_state: BreakerState;
  /** Values redacted from the arguments, result, error and notifications of the call. */
  readonly redactions: number;
  /** Whether the result was over the size cap and replaced unscanned. */
  readonly truncated: boolean;
  /** The redacted client-facing error text, `""` when the call succeeded. */
  readonly error: string;
  /** The CodeMode execution the call came from, if any. */
  readonly execution_id?: string;
}

/**
 * Whether a record is a security record, which is never shed and must be written before the call may
 * answer: a denial (including failed authentication) or a call where something was redacted.
 */
export function isSecurityRecord(r: AuditRecord): boolean {
  return !r.allowed || r.redactions > 0 || r.decision === "unauthenticated" || r.decision === "rate_limited";
}

/**
 * The record of a failed authentication (the presented key is deliberately not a parameter), or with
 * `decision: "rate_limited"` of the failure after which its address is refused for a while.
 */
export function authFailureRecord(
  now: Date,
  latencyMs: number,
  error = "unauthenticated",
  decision: "unauthenticated" | "rate_limited" = "unauthenticated",
): AuditRecord {
  return Object.freeze({
    timestamp: now.toISOString(),
    client_id: "",
    tool_name: "",
    decision,
    allowed: false,
    latency_ms: latencyMs,
    breaker_state: "",
    redactions: 0,
    truncated: false,
    error,
  });
}
