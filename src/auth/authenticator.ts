/**
 * The port's composition: one `authenticate(request)` over the `Authorization` header, trying the API
 * keys first (a constant-time comparison, done for every token so that a request's time does not say
 * which kind of credential it held) and then, for a token shaped like a JWT, the OAuth adapter. Either
 * adapter may be absent; with both present a client may use either.
 *
 * @module
 */
import { accepted, type Authenticator, type AuthOutcome, refused } from "./domain.ts";
import { parseBearer } from "./header.ts";
import { OAuthAuthenticator } from "./oauth.ts";

/** The API-key adapter: the client id a presented key belongs to, or `undefined`. */
export type ApiKeyCheck = (presented: string) => string | undefined;

/** The adapters of a {@link RequestAuthenticator}. */
export interface RequestAuthenticatorOptions {
  /** API keys (absent: none accepted). */
  readonly apiKeys?: ApiKeyCheck;
  /** OAuth bearer JWTs (absent: none accepted). */
  readonly oauth?: OAuthAuthenticator;
}

/** The API-key adapter as a port of its own. */
export class ApiKeyAuthenticator implements Authenticator {
  readonly #check: ApiKeyCheck;

  /** Wraps a key check. */
  constructor(check: ApiKeyCheck) {
    this.#check = check;
  }

  /** See {@link Authenticator.authenticate}. */
  authenticate(request: Request): Promise<AuthOutcome> {
    return new RequestAuthenticator({ apiKeys: this.#check }).authenticate(request);
  }
}

/** API keys and OAuth tokens behind one port. */
export class RequestAuthenticator implements Authenticator {
  readonly #keys: ApiKeyCheck | undefined;
  /** The OAuth adapter, if configured. */
  readonly oauth: OAuthAuthenticator | undefined;

  /** Combines the adapters. */
  constructor(options: RequestAuthenticatorOptions) {
    this.#keys = options.apiKeys;
    this.oauth = options.oauth;
  }

  /** See {@link Authenticator.authenticate}. */
  async authenticate(request: Request): Promise<AuthOutcome> {
    return await this.verifyHeader(request.headers.get("authorization"));
  }

  /** Authenticates the value of an `Authorization` header (`null`: none). */
  async verifyHeader(header: string | null): Promise<AuthOutcome> {
    const parsed = parseBearer(header);
    // Every request runs the key comparison once, whatever it holds.
    const token = parsed.kind === "bearer" ? parsed.token : "";
    const id = this.#keys?.(token);
    if (parsed.kind === "none") return refused("missing", "no bearer token");
    if (parsed.kind === "malformed") {
      return refused("invalid_request", "the Authorization header is malformed");
    }
    if (id !== undefined) return accepted({ id, method: "api_key", scopes: [] });
    if (this.oauth !== undefined && (this.oauth.introspects || OAuthAuthenticator.looksLikeJwt(token))) {
      return await this.oauth.verify(token);
    }
    if (this.oauth === undefined) return refused("invalid_token", "unknown API key");
    return refused(
      "invalid_token",
      this.#keys === undefined ? "the token is not a JWT" : "unknown API key or token",
    );
  }
}
