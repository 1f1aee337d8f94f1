/**
 * RFC 7662 token introspection, for authorization servers that issue opaque access tokens: the token is
 * sent to the server's introspection endpoint with this resource server's own client credentials, and
 * the answer's claims are checked like a JWT's (`active`, `iss`, `aud`, `exp`, `nbf`). The token goes
 * only to the configured endpoint; the answer is used and dropped.
 *
 * @module
 */
import type { JWTPayload } from "jose";

/** How to reach the introspection endpoint. */
export interface IntrospectionSettings {
  /** The endpoint URL (https, or http on loopback). */
  readonly endpoint: string;
  /** This resource server's client id at the authorization server. */
  readonly clientId: string;
  /** Its client secret (secret: never log it). */
  readonly clientSecret: string;
}

/** The outcome: the active token's claims, or why there are none (credential-free). */
export type IntrospectionResult =
  | { readonly ok: true; readonly claims: JWTPayload }
  | { readonly ok: false; readonly reason: string };

// RFC 6749 §2.3.1: the id and secret are form-encoded before they are put in the Basic credentials.
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");

/** Asks the endpoint about `token`. */
export async function introspect(
  settings: IntrospectionSettings,
  token: string,
  timeoutMs: number,
): Promise<IntrospectionResult> {
  let body: unknown;
  try {
    const response = await fetch(settings.endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
        authorization: `Basic ${
          btoa(`${formEncode(settings.clientId)}:${formEncode(settings.clientSecret)}`)
        }`,
      },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }),
      redirect: "error",
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { ok: false, reason: `the introspection endpoint answered ${response.status}` };
    }
    body = await response.json();
  } catch {
    return { ok: false, reason: "the introspection endpoint could not be reached" };
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return { ok: false, reason: "the introspection answer is not a JSON object" };
  }
  if ((body as { active?: unknown }).active !== true) return { ok: false, reason: "the token is not active" };
  return { ok: true, claims: body as JWTPayload };
}

/**
 * Checks introspected claims as a JWT's would be: `iss` (when given) exactly the issuer, `aud` containing
 * the resource (required: RFC 8707), `exp`/`nbf` (when given) within the clock skew. `undefined` when
 * they pass, else the reason.
 */
export function checkIntrospectedClaims(
  claims: JWTPayload,
  expected: { readonly issuer: string; readonly audience: string; readonly skewSeconds: number },
  nowSeconds: number = Math.floor(Date.now() / 1000),
): string | undefined {
  if (claims.iss !== undefined && claims.iss !== expected.issuer) return "the token is from another issuer";
  const aud = typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
  if (!aud.includes(expected.audience)) return "the token is for another resource";
  if (
    claims.exp !== undefined &&
    !(typeof claims.exp === "number" && claims.exp > nowSeconds - expected.skewSeconds)
  ) {
    return "the token has expired";
  }
  if (
    claims.nbf !== undefined &&
    !(typeof claims.nbf === "number" && claims.nbf <= nowSeconds + expected.skewSeconds)
  ) {
    return "the token is not yet valid";
  }
  return undefined;
}
