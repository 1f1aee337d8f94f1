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
export type AuditDecision =
  | ReasonCode
  | "unauthenticated"
  | "rate_limited"
  /** A limit rule refused an authorized call: its quota window is used up. */
  | "quota_exceeded"
  /** A limit rule refused an authorized call: too many of its calls are in flight. */
  | "concurrency_limited"
  /** The limits store could not answer and `on_store_error: deny` refused the call. */
  | "limits_unavailable";

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
  /**
   * Whether the call was let through: policy permitted it and the tool exists (`false` for every
   * denial, a failed authentication and `not_found`).
   */
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
  /** The CodeMode execution the call came from (or, on an `execute` record, the execution itself). */
  readonly execution_id?: string;
  /**
   * The peer address of a failed authentication (`""` when the transport has none, such as stdio), so
   * an operator can tell who is guessing keys; only on `unauthenticated` and `rate_limited` records.
   */
  readonly remote_addr?: string;
  /**
   * On the record of a code-mode tool (`execute`, `search_api`, `describe_api`): `ok`, or the
   * CodeMode error code it ended with (`invalid_program`, `not_found`, `resource_limit`, `cancelled`...).
   */
  readonly outcome?: string;
  /** On an `execute` record: how many native calls the program made (each has its own record). */
  readonly native_calls?: number;
  /** On an `execute` record: the SHA-256 (hex) of the program's UTF-8 source; never the source. */
  readonly source_sha256?: string;
  /** On a call refused by a limit (`rate_limited`, `quota_exceeded`, `concurrency_limited`): the rule. */
  readonly limit_rule?: string;
  /**
   * `error` when the limits store could not answer for this call (it was then refused or let through
   * unchecked, by `on_store_error`); such a record is a security record either way.
   */
  readonly limit_store?: "error";
}

/**
 * Whether a record is a security record, which is never shed and must be written before the call may
 * answer: a denial (including failed authentication and a call a limit refused), a call where something
 * was redacted, or a call the limits store could not decide.
 */
export function isSecurityRecord(r: AuditRecord): boolean {
  return !r.allowed || r.redactions > 0 || r.decision === "unauthenticated" ||
    r.decision === "rate_limited" ||
    r.limit_store !== undefined;
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
  remoteAddr = "",
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
    remote_addr: remoteAddr,
  });
}
