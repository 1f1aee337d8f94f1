/**
 * The `oauth:` section (the gateway as an OAuth 2.1 resource server) and each client's `oauth_subjects`:
 * the token subjects that sign in as that client. The settings are checked by the auth module's own
 * rules (https issuer, asymmetric algorithms, a known subject claim ...), so the file and the library
 * refuse the same things with the same messages.
 *
 * @module
 */
import { checkOAuthSettings, type OAuthSettings } from "../../auth/mod.ts";
import type { ClientConfig } from "./types.ts";
import { child, type Located, type Reader } from "./yaml_tree.ts";

const KEYS = [
  "issuer",
  "audience",
  "jwks_uri",
  "required_scopes",
  "scopes_supported",
  "subject_claim",
  "algorithms",
  "clock_skew_seconds",
  "require_at_jwt",
  "introspection",
] as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Reads a secret from the environment, reporting an unset variable at `at` (the main loader's rule). */
export type SecretReader = (at: Located, envName: string, what: string) => string | undefined;

/**
 * Validates the `oauth:` block; `undefined` when absent (or with problems, which are reported).
 * `introspection: { endpoint, client_id, client_secret_env }` turns on RFC 7662 for opaque tokens.
 */
export function loadOAuth(r: Reader, at: Located, secretOf: SecretReader): OAuthSettings | undefined {
  if (!r.present(at)) return undefined;
  const entries = r.map(at, KEYS);
  if (entries === undefined) return undefined;
  const get = (key: (typeof KEYS)[number]) => child(entries, at, key);
  const issuer = r.string(get("issuer"));
  const audience = r.string(get("audience"));
  const optional = <T>(key: (typeof KEYS)[number], read: (a: Located) => T | undefined): T | undefined =>
    r.present(get(key)) ? read(get(key)) : undefined;
  const jwksUri = optional("jwks_uri", (a) => r.string(a));
  const requiredScopes = optional("required_scopes", (a) => r.strings(a));
  const scopesSupported = optional("scopes_supported", (a) => r.strings(a));
  const subjectClaim = optional("subject_claim", (a) => r.string(a));
  const algorithms = optional("algorithms", (a) => r.strings(a));
  const clockSkewSeconds = optional("clock_skew_seconds", (a) => r.integer(a, 0, 300));
  const requireAtJwt = optional("require_at_jwt", (a) => {
    const v = r.string(a, true);
    if (v !== undefined && v !== "true" && v !== "false") r.problems.add(a, "must be true or false");
    return v;
  });
  const introspection = optional("introspection", (a) => {
    const entries = r.map(a, ["endpoint", "client_id", "client_secret_env"]);
    if (entries === undefined) return undefined;
    const endpoint = r.string(child(entries, a, "endpoint"));
    const clientId = r.string(child(entries, a, "client_id"));
    const envAt = child(entries, a, "client_secret_env");
    const envName = r.string(envAt);
    if (envName !== undefined && !ENV_NAME.test(envName)) {
      r.problems.add(envAt, `"${envName}" is not an environment variable name`);
      return undefined;
    }
    const clientSecret = envName === undefined
      ? undefined
      : secretOf(envAt, envName, "OAuth introspection secret");
    if (endpoint === undefined || clientId === undefined || clientSecret === undefined) return undefined;
    return { endpoint, clientId, clientSecret };
  });
  if (issuer === undefined || audience === undefined) return undefined;
  const settings: OAuthSettings = {
    issuer,
    audience,
    ...(jwksUri === undefined ? {} : { jwksUri }),
    ...(requiredScopes === undefined ? {} : { requiredScopes: Object.freeze(requiredScopes) }),
    ...(scopesSupported === undefined ? {} : { scopesSupported: Object.freeze(scopesSupported) }),
    ...(subjectClaim === undefined ? {} : { subjectClaim }),
    ...(algorithms === undefined ? {} : { algorithms: Object.freeze(algorithms) }),
    ...(clockSkewSeconds === undefined ? {} : { clockSkewSeconds }),
    ...(requireAtJwt === undefined ? {} : { requireAtJwt: requireAtJwt === "true" }),
    ...(introspection === undefined ? {} : { introspection: Object.freeze(introspection) }),
  };
  try {
    return checkOAuthSettings(settings);
  } catch (e) {
    r.problems.add(at, (e as Error).message);
    return undefined;
  }
}

/**
 * Validates a client's `oauth_subjects` (a list of distinct non-empty strings, each belonging to one
 * client only: `seen` maps the subjects of the clients read so far to their ids).
 */
export function loadOAuthSubjects(
  r: Reader,
  at: Located,
  clientId: string | undefined,
  seen: Map<string, string>,
): string[] | undefined {
  if (!r.present(at)) return undefined;
  const subjects = r.strings(at);
  if (subjects === undefined) return undefined;
  if (subjects.length === 0) {
    r.problems.add(at, "must list at least one subject");
    return undefined;
  }
  for (const s of subjects) {
    const owner = seen.get(s);
    if (owner !== undefined && owner !== clientId) {
      r.problems.add(at, `subject "${s}" already signs in as client ${owner}`);
    } else if (owner === clientId) {
      r.problems.add(at, `subject "${s}" is listed twice`);
    }
    if (clientId !== undefined) seen.set(s, clientId);
  }
  return subjects;
}

/** The subject → client id mapping of the configured clients. */
export function subjectMap(clients: readonly ClientConfig[]): (subject: string) => string | undefined {
  const map = new Map<string, string>();
  for (const c of clients) for (const s of c.oauthSubjects ?? []) map.set(s, c.id);
  return (subject) => map.get(subject);
}
