/**
 * Authentication for every HTTP surface (the gateway, `serve --http`, the Deploy entry): one port,
 * `authenticate(request)` → an identity or a refusal, with two adapters — API keys and OAuth 2.1 bearer
 * JWTs validated against the issuer's published keys — and the RFC 9728 metadata that lets MCP clients
 * discover the authorization server. Tokens never leave this module: not in logs, audit or downstreams.
 *
 * @module
 */
export {
  accepted,
  type Authenticator,
  type AuthIdentity,
  type AuthMethod,
  type AuthOutcome,
  type AuthRefusal,
  refusal,
  type RefusalKind,
  refused,
} from "./domain.ts";
export { type BearerHeader, MAX_AUTHORIZATION_LENGTH, parseBearer } from "./header.ts";
export { checkFetchableUrl, discoverJwksUri, metadataUrls } from "./discovery.ts";
export { JwksCache, type JwksCacheOptions, type VerifyKey } from "./jwks.ts";
export {
  ASYMMETRIC_ALGORITHMS,
  checkOAuthSettings,
  DEFAULT_ALGORITHMS,
  DEFAULT_CLOCK_SKEW_SECONDS,
  grantedScopes,
  OAuthAuthenticator,
  type OAuthAuthenticatorOptions,
  type OAuthSettings,
  SUBJECT_CLAIMS,
  type SubjectMapper,
} from "./oauth.ts";
export {
  PROTECTED_RESOURCE_PATH,
  ProtectedResource,
  type ResourceMetadataOptions,
  resourceMetadataUrl,
} from "./metadata.ts";
export {
  ApiKeyAuthenticator,
  type ApiKeyCheck,
  RequestAuthenticator,
  type RequestAuthenticatorOptions,
} from "./authenticator.ts";
export { type OAuthResource, oauthResource } from "./resource.ts";
export { OAUTH_ENV, type OAuthEnvConfig, oauthFromEnv } from "./env.ts";
export {
  checkIntrospectedClaims,
  introspect,
  type IntrospectionResult,
  type IntrospectionSettings,
} from "./introspection.ts";
