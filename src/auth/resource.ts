/**
 * One configured OAuth resource server, as each HTTP surface needs it: the token adapter and the
 * RFC 9728 metadata built from the same settings, so the metadata always names the audience the
 * adapter checks.
 *
 * @module
 */
import { ProtectedResource } from "./metadata.ts";
import type { JwksCache } from "./jwks.ts";
import { OAuthAuthenticator, type OAuthSettings, type SubjectMapper } from "./oauth.ts";

/** The adapter and its metadata. */
export interface OAuthResource {
  /** Validates tokens. */
  readonly authenticator: OAuthAuthenticator;
  /** Serves the metadata and builds challenges. */
  readonly metadata: ProtectedResource;
}

/**
 * Builds both from `settings` (throws with a clear message on unusable settings); `options.jwks` shares
 * a cache of the same issuer's keys (a reload keeps them).
 */
export function oauthResource(
  settings: OAuthSettings,
  subjects: SubjectMapper,
  options: { readonly jwks?: JwksCache } = {},
): OAuthResource {
  const authenticator = new OAuthAuthenticator(settings, { subjects, jwks: options.jwks });
  const s = authenticator.settings;
  const metadata = new ProtectedResource({
    resource: s.audience,
    authorizationServers: [s.issuer],
    scopesSupported: s.scopesSupported ?? s.requiredScopes ?? [],
    requiredScopes: s.requiredScopes ?? [],
  });
  return Object.freeze({ authenticator, metadata });
}
