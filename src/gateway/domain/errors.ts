/**
 * The gateway's error classification: every failure a call can end with carries one
 * {@link GatewayErrorCode}, and each code has one fixed client-facing text, so nothing internal (a
 * downstream's stack, a file path, a key) reaches a client.
 *
 * @module
 */

/** The classification of a failed gateway call. */
export type GatewayErrorCode =
  /** The tool does not exist for this client: missing, forbidden by policy, or a malformed name. */
  | "unknown_tool"
  /** A namespaced name that does not parse (used inside the gateway; clients see `unknown_tool`). */
  | "invalid_tool_name"
  /** The client's arguments are not a JSON object or violate a gateway limit. */
  | "invalid_arguments"
  /** The presented credentials are missing or wrong. */
  | "unauthenticated"
  /** The argument-level authorizer (Rego) denied this call of a tool the client may call. */
  | "denied"
  /** The argument-level authorizer failed (an undefined or non-boolean decision, an evaluation error). */
  | "authz_failure"
  /** The call exceeded the per-call timeout. */
  | "timeout"
  /** The client cancelled the call. Never trips a breaker. */
  | "cancelled"
  /** A circuit breaker is open: the call was answered at once without reaching the downstream. */
  | "breaker_open"
  /** The downstream could not be reached, crashed, or its transport failed. Trips its breaker. */
  | "downstream_unavailable"
  /** The downstream answered the call with a protocol error (its redacted text may be shown). */
  | "downstream_error"
  /** The bounded per-client session pool of a downstream is exhausted. */
  | "pool_exhausted"
  /** A security audit record could not be written in time: the call fails closed. */
  | "audit_unavailable"
  /** The gateway is shutting down or reloading and takes no new calls. */
  | "unavailable"
  /** A bug or an unclassified failure. */
  | "internal";

/** Every code, in documentation order. */
export const GATEWAY_ERROR_CODES: readonly GatewayErrorCode[] = Object.freeze([
  "unknown_tool",
  "invalid_tool_name",
  "invalid_arguments",
  "unauthenticated",
  "denied",
  "authz_failure",
  "timeout",
  "cancelled",
  "breaker_open",
  "downstream_unavailable",
  "downstream_error",
  "pool_exhausted",
  "audit_unavailable",
  "unavailable",
  "internal",
]);

const PUBLIC_TEXT: Readonly<Record<GatewayErrorCode, string>> = Object.freeze({
  unknown_tool: "unknown tool",
  // A malformed name is answered exactly like a missing tool: the client learns nothing from the shape.
  invalid_tool_name: "unknown tool",
  invalid_arguments: "invalid arguments",
  unauthenticated: "unauthenticated",
  denied: "the call was denied by the authorization policy",
  authz_failure: "the authorization policy failed",
  timeout: "the tool call timed out",
  cancelled: "the tool call was cancelled",
  breaker_open: "the tool is temporarily unavailable",
  downstream_unavailable: "the tool's server is unavailable",
  downstream_error: "the tool's server reported an error",
  pool_exhausted: "too many concurrent sessions for this tool's server",
  audit_unavailable: "the call could not be audited and was refused",
  unavailable: "the gateway is not accepting calls",
  internal: "internal gateway error",
});

/** The fixed client-facing text of a code. */
export function publicErrorText(code: GatewayErrorCode): string {
  return PUBLIC_TEXT[code];
}

/** Options of a {@link GatewayError}. */
export interface GatewayErrorOptions {
  /** The internal cause, for the operator's logs only; never shown to a client or written to audit. */
  readonly cause?: unknown;
  /**
   * Text from the downstream that may be shown to the client after redaction (for `downstream_error`,
   * `invalid_arguments`). The redact(out) stage rewrites it; nothing else ever reaches the client.
   */
  readonly detail?: string;
}

/**
 * A classified gateway failure. `message` is for the operator; {@link GatewayError.publicText} is what a
 * client and the audit log see.
 */
export class GatewayError extends Error {
  /** The classification. */
  readonly code: GatewayErrorCode;
  /** Downstream-provided, client-visible detail (redacted before it leaves the gateway). */
  readonly detail: string | undefined;
  /** Creates a classified error. */
  constructor(code: GatewayErrorCode, message?: string, options: GatewayErrorOptions = {}) {
    super(message ?? PUBLIC_TEXT[code], options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    this.detail = options.detail;
  }

  /** The client-facing text: the code's fixed text, then the (redacted) detail if any. */
  get publicText(): string {
    return this.detail === undefined || this.detail === ""
      ? PUBLIC_TEXT[this.code]
      : `${PUBLIC_TEXT[this.code]}: ${this.detail}`;
  }

  /** A copy with another detail (the redact stage uses it; errors, like calls, are not mutated). */
  withDetail(detail: string | undefined): GatewayError {
    return new GatewayError(this.code, this.message, { cause: this.cause, detail });
  }
}

/** Whether `err` is a {@link GatewayError}, optionally of the given code. */
export function isGatewayError(err: unknown, code?: GatewayErrorCode): err is GatewayError {
  return err instanceof GatewayError && (code === undefined || err.code === code);
}

/**
 * Classifies any thrown value: a {@link GatewayError} keeps its code, an abort with a `TimeoutError`
 * reason is `timeout`, any other abort is `cancelled`, everything else is `internal` (the cause is kept
 * for the operator).
 */
export function classifyError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const name = (err as { name?: unknown } | null)?.name;
  if (name === "TimeoutError") return new GatewayError("timeout", undefined, { cause: err });
  if (name === "AbortError") return new GatewayError("cancelled", undefined, { cause: err });
  return new GatewayError("internal", undefined, { cause: err });
}

/** Which breaker a failure counts against: transport failures trip the downstream's, timeouts the tool's. */
export type BreakerScope = "downstream" | "tool" | "none";

/**
 * The breaker a failure of `code` counts against. Cancellation, policy, argument and audit failures count
 * against none: a client can neither trip a breaker by cancelling nor by calling what it may not call.
 */
export function breakerScopeOf(code: GatewayErrorCode): BreakerScope {
  switch (code) {
    case "downstream_unavailable":
      return "downstream";
    case "timeout":
      return "tool";
    default:
      return "none";
  }
}
