/**
 * The vocabulary of authentication, shared by every HTTP surface: who a request is (an identity), why it
 * is refused (a refusal that says which HTTP status and `WWW-Authenticate` error it earns), and the port
 * every credential adapter implements. A leaf: it imports nothing.
 *
 * @module
 */

/** How a request proved who it is. */
export type AuthMethod = "api_key" | "oauth";

/** The authenticated caller: a configured client. */
export interface AuthIdentity {
  /** The configured client id (policy, mode, limits and audit use it). */
  readonly id: string;
  /** How it was proven. */
  readonly method: AuthMethod;
  /** The token's subject (the configured claim's value) for OAuth; absent for an API key. */
  readonly subject?: string;
  /** The scopes the token grants (OAuth only; empty for an API key). */
  readonly scopes: readonly string[];
}

/**
 * Why a request is refused. `missing`: no credentials (401, no error code, as RFC 6750 §3.1 asks);
 * `invalid_request`: a malformed `Authorization` header (401); `invalid_token`: a presented credential
 * that is not valid (401); `insufficient_scope`: a valid token without a required scope (403);
 * `unknown_subject`: a valid token whose subject maps to no configured client (403).
 */
export type RefusalKind =
  | "missing"
  | "invalid_request"
  | "invalid_token"
  | "insufficient_scope"
  | "unknown_subject";

/** A refused request. `reason` is safe to log and audit: it never holds the credential. */
export interface AuthRefusal {
  /** The class of refusal. */
  readonly kind: RefusalKind;
  /** The HTTP status it earns (401 or 403). */
  readonly status: 401 | 403;
  /** A short, credential-free description (for audit records and the response body). */
  readonly reason: string;
}

/** The outcome of authenticating one request. */
export type AuthOutcome =
  | { readonly ok: true; readonly identity: AuthIdentity }
  | { readonly ok: false; readonly refusal: AuthRefusal };

/** The port: every credential adapter (API keys, OAuth bearer JWTs) and their combination implement it. */
export interface Authenticator {
  /** Decides who `request` is, from its headers only (the body is never read). */
  authenticate(request: Request): Promise<AuthOutcome>;
}

const STATUS: Readonly<Record<RefusalKind, 401 | 403>> = {
  missing: 401,
  invalid_request: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  unknown_subject: 403,
};

/** A refusal of `kind` with its status. */
export function refusal(kind: RefusalKind, reason: string): AuthRefusal {
  return Object.freeze({ kind, status: STATUS[kind], reason });
}

/** A refused outcome. */
export function refused(kind: RefusalKind, reason: string): AuthOutcome {
  return Object.freeze({ ok: false as const, refusal: refusal(kind, reason) });
}

/** An accepted outcome. */
export function accepted(identity: AuthIdentity): AuthOutcome {
  return Object.freeze({ ok: true as const, identity: Object.freeze(identity) });
}
