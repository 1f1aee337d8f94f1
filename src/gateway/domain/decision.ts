/**
 * Policy outcomes: every decision carries a reason code, and the absence of a decision is a denial.
 *
 * @module
 */
import type { ToolRef } from "./names.ts";

/** A stable, machine-readable reason attached to every policy decision (audited and metered). */
export type ReasonCode =
  /** An allow rule matched the client and tool, and no deny rule did. */
  | "allowed"
  /** No rule allowed the tool: deny by default. */
  | "denied_default"
  /** A deny rule matched, overriding any allow rule (most restrictive wins). */
  | "denied_explicit"
  /** Policy allowed the tool; the argument-level authorizer (Rego) denied this call, or failed. */
  | "denied_authz"
  /**
   * Policy would allow the name (an allow pattern such as `memory__*` matched), but no such tool is in
   * the catalog. The client is answered exactly as for a denied tool; only the audit tells them apart.
   */
  | "not_found";

/** Every reason code. */
export const REASON_CODES: readonly ReasonCode[] = Object.freeze([
  "allowed",
  "denied_default",
  "denied_explicit",
  "denied_authz",
  "not_found",
]);

/** The outcome of evaluating a client's access to a tool. Immutable. */
export interface Decision {
  /** Whether the call may proceed. */
  readonly allow: boolean;
  /** Why. */
  readonly reason: ReasonCode;
}

const ALLOWED: Decision = Object.freeze({ allow: true, reason: "allowed" });
const DENIED_DEFAULT: Decision = Object.freeze({ allow: false, reason: "denied_default" });
const DENIED_EXPLICIT: Decision = Object.freeze({ allow: false, reason: "denied_explicit" });
const DENIED_AUTHZ: Decision = Object.freeze({ allow: false, reason: "denied_authz" });
const NOT_FOUND: Decision = Object.freeze({ allow: false, reason: "not_found" });

/**
 * The zero value of a decision: a denial by default. Anything that has no decision (a call rejected
 * before policy ran, a malformed name) is audited with this one, so an outcome never lacks a reason and
 * a missing decision never allows.
 */
export const ZERO_DECISION: Decision = DENIED_DEFAULT;

/** The allow decision. */
export function allowed(): Decision {
  return ALLOWED;
}

/**
 * A refusal with its reason (`denied_default`, `denied_explicit`, `denied_authz`, or `not_found` for a
 * name policy would allow but that no tool has).
 */
export function denied(reason: Exclude<ReasonCode, "allowed"> = "denied_default"): Decision {
  return reason === "denied_explicit"
    ? DENIED_EXPLICIT
    : reason === "denied_authz"
    ? DENIED_AUTHZ
    : reason === "not_found"
    ? NOT_FOUND
    : DENIED_DEFAULT;
}

/** `d`, or {@link ZERO_DECISION} when there is none; a malformed value also denies. */
export function decisionOrZero(d: Decision | undefined | null): Decision {
  if (d === undefined || d === null) return ZERO_DECISION;
  return d.allow === true && d.reason === "allowed"
    ? ALLOWED
    : d.reason === "denied_explicit"
    ? DENIED_EXPLICIT
    : d.reason === "denied_authz"
    ? DENIED_AUTHZ
    : d.reason === "not_found"
    ? NOT_FOUND
    : DENIED_DEFAULT;
}

/** An authenticated gateway client, resolved from its API key. */
export interface Identity {
  /** The configured client id (for example `claude-desktop`). */
  readonly id: string;
}

/**
 * Evaluates whether a client may call a tool: deny by default, deny beats allow. A pure in-memory lookup
 * that never fails; the outcome always carries a reason.
 */
export interface Decider {
  /** The decision for `client` calling `tool`. */
  decide(client: Identity, tool: ToolRef): Decision;
}
