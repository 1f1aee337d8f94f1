/**
 * The OAuth 2.1 resource-server adapter: a bearer JWT access token (RFC 9068) is accepted when its
 * signature verifies under the issuer's published keys with an allowed asymmetric algorithm, its `iss`
 * is exactly the configured issuer, its `aud` contains this resource (RFC 8707: a token minted for
 * another server is refused), it is within `exp`/`nbf` (with a small clock skew), it grants the required
 * scopes, and its subject claim maps to a configured client.
 *
 * `typ`: `at+jwt` (RFC 9068) is preferred; `JWT` and no `typ` are accepted by default because several
 * providers issue access tokens so (set `requireAtJwt` to refuse them); any other `typ` is refused.
 *
 * Tokens are never logged or returned: refusal reasons name the failed check, never the token. An
 * accepted token is remembered in memory (at most a minute, never past its `exp`) so that a client's
 * next calls with it skip the signature check, which costs hundreds of microseconds.
 *
 * @module
 */
import { decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from "jose";
import { accepted, type AuthOutcome, refused } from "./domain.ts";
import { checkFetchableUrl } from "./discovery.ts";
import { JwksCache } from "./jwks.ts";
import { checkIntrospectedClaims, introspect, type IntrospectionSettings } from "./introspection.ts";

/** The default algorithm allow-list. */
export const DEFAULT_ALGORITHMS: readonly string[] = Object.freeze(["RS256", "ES256", "EdDSA"]);
/** Algorithms that may be allowed: asymmetric signatures only (never `none`, never HMAC). */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = Object.freeze([
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
]);
/** Claims a subject may be read from. */
export const SUBJECT_CLAIMS: readonly string[] = Object.freeze(["sub", "client_id", "azp"]);
/** The longest an accepted token is remembered without checking it again, in milliseconds. */
const VERIFIED_TTL_MS = 60_000;
/** Default clock-skew allowance for `exp`, `nbf` and `iat`, in seconds. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 30;

/** Configuration of the OAuth adapter (the `oauth:` block, flags or environment). */
export interface OAuthSettings {
  /** The issuer identifier, compared exactly with `iss`; metadata is discovered from it. */
  readonly issuer: string;
  /** This resource's canonical URI: must be in `aud`; also `resource` of the protected-resource metadata. */
  readonly audience: string;
  /** The JWKS URL, overriding discovery. */
  readonly jwksUri?: string;
  /** Scopes every token must grant (default none). */
  readonly requiredScopes?: readonly string[];
  /** The claim naming the subject: `sub` (default), `client_id` or `azp`. */
  readonly subjectClaim?: string;
  /** Allowed signature algorithms (default RS256, ES256, EdDSA). */
  readonly algorithms?: readonly string[];
  /** Clock-skew allowance in seconds (default 30). */
  readonly clockSkewSeconds?: number;
  /** Refuse tokens whose `typ` is not `at+jwt` (default false: `JWT` and no `typ` are accepted too). */
  readonly requireAtJwt?: boolean;
  /** Scopes advertised in the metadata (default: the required scopes). */
  readonly scopesSupported?: readonly string[];
  /** Least time between two JWKS fetches in milliseconds (default 60000). */
  readonly jwksCooldownMs?: number;
  /** Deadline of a metadata or JWKS fetch in milliseconds (default 5000). */
  readonly fetchTimeoutMs?: number;
  /**
   * Accepted tokens remembered, so a client's next call with the same token skips the signature check
   * (default 10000; 0 turns it off). An entry lasts at most a minute and never past the token's `exp`.
   */
  readonly verifiedCacheSize?: number;
  /**
   * RFC 7662 introspection of tokens that are not JWTs (opaque tokens), with this resource server's
   * client credentials (absent: only JWTs are accepted).
   */
  readonly introspection?: IntrospectionSettings;
}

/** Maps a token's subject to a configured client id (`undefined`: no client). */
export type SubjectMapper = (subject: string) => string | undefined;

/** Throws with a clear message unless `settings` is usable; returns them normalised. */
export function checkOAuthSettings(settings: OAuthSettings): OAuthSettings {
  checkFetchableUrl(settings.issuer, "oauth issuer");
  if (settings.jwksUri !== undefined) checkFetchableUrl(settings.jwksUri, "oauth jwks_uri");
  if (settings.introspection !== undefined) {
    checkFetchableUrl(settings.introspection.endpoint, "oauth introspection endpoint");
    if (settings.introspection.clientId === "" || settings.introspection.clientSecret === "") {
      throw new Error("oauth introspection needs a client id and secret");
    }
  }
  try {
    new URL(settings.audience);
  } catch {
    throw new Error(`oauth audience must be the resource's URL: ${JSON.stringify(settings.audience)}`);
  }
  const algorithms = settings.algorithms ?? DEFAULT_ALGORITHMS;
  if (algorithms.length === 0) throw new Error("oauth algorithms must not be empty");
  for (const alg of algorithms) {
    if (!ASYMMETRIC_ALGORITHMS.includes(alg)) {
      throw new Error(
        `oauth algorithm ${JSON.stringify(alg)} is not allowed (asymmetric only: ${
          ASYMMETRIC_ALGORITHMS.join(", ")
        })`,
      );
    }
  }
  const claim = settings.subjectClaim ?? "sub";
  if (!SUBJECT_CLAIMS.includes(claim)) {
    throw new Error(
      `oauth subject_claim must be one of ${SUBJECT_CLAIMS.join(", ")} (got ${JSON.stringify(claim)})`,
    );
  }
  const skew = settings.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  if (!Number.isFinite(skew) || skew < 0 || skew > 300) {
    throw new Error("oauth clock skew must be 0..300 seconds");
  }
  for (const s of [...(settings.requiredScopes ?? []), ...(settings.scopesSupported ?? [])]) {
    if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)) {
      throw new Error(`oauth scope ${JSON.stringify(s)} is not a valid scope token`);
    }
  }
  return Object.freeze({ ...settings, algorithms, subjectClaim: claim, clockSkewSeconds: skew });
}

/** The scopes a token grants: `scope` (space-separated, RFC 9068) or `scp` (a list or a string). */
export function grantedScopes(payload: JWTPayload): string[] {
  const scope = payload.scope ?? payload.scp;
  if (typeof scope === "string") return scope.split(" ").filter((s) => s.length > 0);
  if (Array.isArray(scope)) return scope.filter((s): s is string => typeof s === "string");
  return [];
}

const TYP_AT_JWT = new Set(["at+jwt", "application/at+jwt"]);
const TYP_JWT = new Set(["jwt", "application/jwt"]);

/** Options of an {@link OAuthAuthenticator} besides the settings. */
export interface OAuthAuthenticatorOptions {
  /** The subject mapping. */
  readonly subjects: SubjectMapper;
  /** A JWKS cache to share (default: a new one for the settings). */
  readonly jwks?: JwksCache;
}

/** Validates bearer JWTs and maps them to clients. */
export class OAuthAuthenticator {
  readonly settings: OAuthSettings;
  readonly #subjects: SubjectMapper;
  readonly #algorithms: ReadonlySet<string>;
  readonly #required: readonly string[];
  readonly #claim: string;
  readonly #verified = new Map<string, { readonly outcome: AuthOutcome; readonly until: number }>();
  readonly #cacheSize: number;
  /** The issuer's keys. */
  readonly jwks: JwksCache;

  /** Creates the adapter (throws on unusable settings). */
  constructor(settings: OAuthSettings, options: OAuthAuthenticatorOptions) {
    this.settings = checkOAuthSettings(settings);
    this.#subjects = options.subjects;
    this.#algorithms = new Set(this.settings.algorithms);
    this.#required = this.settings.requiredScopes ?? [];
    this.#claim = this.settings.subjectClaim ?? "sub";
    this.#cacheSize = Math.max(0, Math.floor(this.settings.verifiedCacheSize ?? 10_000));
    this.jwks = options.jwks ?? new JwksCache({
      issuer: this.settings.issuer,
      jwksUri: this.settings.jwksUri,
      cooldownMs: this.settings.jwksCooldownMs,
      timeoutMs: this.settings.fetchTimeoutMs,
    });
  }

  /** Whether `token` looks like a JWS compact serialization (three base64url parts). */
  static looksLikeJwt(token: string): boolean {
    return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
  }

  /** Authenticates a presented bearer token. */
  async verify(token: string): Promise<AuthOutcome> {
    // The exact token string was verified before (same bytes, so the same signature and claims).
    const seen = this.#verified.get(token);
    if (seen !== undefined) {
      if (Date.now() < seen.until) return seen.outcome;
      this.#verified.delete(token);
    }
    const outcome = await this.#verify(token);
    if (outcome.ok && this.#cacheSize > 0) this.#remember(token, outcome);
    return outcome;
  }

  #remember(token: string, outcome: AuthOutcome): void {
    const exp = this.#expiry.get(outcome);
    if (exp === undefined) return;
    const until = Math.min(exp * 1000, Date.now() + VERIFIED_TTL_MS);
    if (this.#verified.size >= this.#cacheSize) {
      // Oldest first: Map iteration follows insertion order.
      this.#verified.delete(this.#verified.keys().next().value!);
    }
    this.#verified.set(token, { outcome, until });
  }

  readonly #expiry = new WeakMap<AuthOutcome, number>();

  /** Whether a token that is not a JWT is introspected (RFC 7662) rather than refused. */
  get introspects(): boolean {
    return this.settings.introspection !== undefined;
  }

  async #verify(token: string): Promise<AuthOutcome> {
    if (!OAuthAuthenticator.looksLikeJwt(token)) {
      if (this.settings.introspection === undefined) {
        return refused("invalid_token", "the token is not a JWT");
      }
      return await this.#introspect(token, this.settings.introspection);
    }
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return refused("invalid_token", "the token header is not readable");
    }
    // Before any key is looked up, so a forged alg never triggers a JWKS fetch.
    if (typeof header.alg !== "string" || !this.#algorithms.has(header.alg)) {
      return refused("invalid_token", "the token's signature algorithm is not allowed");
    }
    const typ = typeof header.typ === "string" ? header.typ.toLowerCase() : undefined;
    if (typ !== undefined && !TYP_AT_JWT.has(typ) && !(TYP_JWT.has(typ) && !this.settings.requireAtJwt)) {
      return refused("invalid_token", "the token is not an access token (typ)");
    }
    if (typ === undefined && this.settings.requireAtJwt) {
      return refused("invalid_token", "the token is not an access token (typ)");
    }
    if (header.crit !== undefined) {
      return refused("invalid_token", "the token has critical header parameters");
    }
    const kid = typeof header.kid === "string" ? header.kid : undefined;
    const key = await this.jwks.key(kid, header.alg);
    if (key === undefined) return refused("invalid_token", "the token's signing key is unknown");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: [header.alg],
        clockTolerance: this.settings.clockSkewSeconds,
        requiredClaims: ["exp"],
      }));
    } catch (e) {
      return refused("invalid_token", describe(e));
    }
    return this.#identify(payload);
  }

  async #introspect(token: string, settings: IntrospectionSettings): Promise<AuthOutcome> {
    const result = await introspect(settings, token, this.settings.fetchTimeoutMs ?? 5_000);
    if (!result.ok) return refused("invalid_token", result.reason);
    const wrong = checkIntrospectedClaims(result.claims, {
      issuer: this.settings.issuer,
      audience: this.settings.audience,
      skewSeconds: this.settings.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS,
    });
    if (wrong !== undefined) return refused("invalid_token", wrong);
    return this.#identify(result.claims);
  }

  /** Scopes and subject of verified claims: the identity, or why there is none. */
  #identify(payload: JWTPayload): AuthOutcome {
    const scopes = grantedScopes(payload);
    const missing = this.#required.filter((s) => !scopes.includes(s));
    if (missing.length > 0) {
      return refused("insufficient_scope", `the token lacks scope ${missing.join(" ")}`);
    }
    const subject = payload[this.#claim];
    if (typeof subject !== "string" || subject.length === 0) {
      return refused("invalid_token", `the token has no ${this.#claim} claim`);
    }
    const id = this.#subjects(subject);
    if (id === undefined) return refused("unknown_subject", "the token's subject is no configured client");
    const outcome = accepted({ id, method: "oauth", subject, scopes: Object.freeze(scopes) });
    if (typeof payload.exp === "number") this.#expiry.set(outcome, payload.exp);
    return outcome;
  }
}

/** A credential-free reason for a failed verification. */
function describe(e: unknown): string {
  if (e instanceof errors.JWTExpired) return "the token has expired";
  if (e instanceof errors.JWTClaimValidationFailed) {
    switch (e.claim) {
      case "nbf":
        return "the token is not yet valid";
      case "iat":
        return "the token was issued in the future";
      case "iss":
        return "the token is from another issuer";
      case "aud":
        return "the token is for another resource";
      default:
        return `the token's ${e.claim} claim is invalid`;
    }
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return "the token's signature does not verify";
  if (e instanceof errors.JOSEAlgNotAllowed) return "the token's signature algorithm is not allowed";
  return "the token is not a valid JWT";
}
