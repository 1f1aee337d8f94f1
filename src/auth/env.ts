/**
 * The OAuth settings of the surfaces configured by environment and flags (`deno task serve --http`,
 * the Deploy entry), read one way for both:
 *
 * | variable | meaning |
 * |---|---|
 * | `CODEMODE_OAUTH_ISSUER` | the issuer (turns OAuth on; needs the audience) |
 * | `CODEMODE_OAUTH_AUDIENCE` | this server's resource URI (the MCP endpoint's public URL) |
 * | `CODEMODE_OAUTH_JWKS_URI` | the JWKS URL, overriding discovery |
 * | `CODEMODE_OAUTH_REQUIRED_SCOPES` | scopes every token must grant, comma- or space-separated |
 * | `CODEMODE_OAUTH_SUBJECT_CLAIM` | `sub` (default), `client_id` or `azp` |
 * | `CODEMODE_OAUTH_ALGORITHMS` | the algorithm allow-list, comma-separated |
 * | `CODEMODE_OAUTH_SUBJECTS` | `subject=id` pairs, comma-separated: only these subjects sign in, as these ids |
 *
 * Without `CODEMODE_OAUTH_SUBJECTS` every valid token signs in as its own subject.
 *
 * @module
 */
import type { OAuthSettings, SubjectMapper } from "./oauth.ts";

/** The environment variables, by role. */
export const OAUTH_ENV = Object.freeze({
  issuer: "CODEMODE_OAUTH_ISSUER",
  audience: "CODEMODE_OAUTH_AUDIENCE",
  jwksUri: "CODEMODE_OAUTH_JWKS_URI",
  requiredScopes: "CODEMODE_OAUTH_REQUIRED_SCOPES",
  subjectClaim: "CODEMODE_OAUTH_SUBJECT_CLAIM",
  algorithms: "CODEMODE_OAUTH_ALGORITHMS",
  subjects: "CODEMODE_OAUTH_SUBJECTS",
});

/** The OAuth configuration of an environment-configured surface. */
export interface OAuthEnvConfig {
  /** The settings. */
  readonly settings: OAuthSettings;
  /** The subject mapping. */
  readonly subjects: SubjectMapper;
}

const list = (value: string | undefined) => (value ?? "").split(/[,\s]+/).filter((s) => s !== "");

/**
 * Reads the settings from `env`, with `overrides` (command-line flags) taking precedence; `undefined`
 * when neither names an issuer. Throws with a message naming the variable when one is malformed.
 */
export function oauthFromEnv(
  env: (name: string) => string | undefined,
  overrides: { readonly issuer?: string; readonly audience?: string } = {},
): OAuthEnvConfig | undefined {
  const issuer = overrides.issuer ?? env(OAUTH_ENV.issuer);
  const audience = overrides.audience ?? env(OAUTH_ENV.audience);
  if (issuer === undefined && audience === undefined) return undefined;
  if (issuer === undefined || audience === undefined) {
    throw new Error(
      `OAuth needs both the issuer and the audience (--oauth-issuer/${OAUTH_ENV.issuer} and ` +
        `--oauth-audience/${OAUTH_ENV.audience})`,
    );
  }
  const jwksUri = env(OAUTH_ENV.jwksUri);
  const subjectClaim = env(OAUTH_ENV.subjectClaim);
  const algorithms = list(env(OAUTH_ENV.algorithms));
  const settings: OAuthSettings = {
    issuer,
    audience,
    ...(jwksUri ? { jwksUri } : {}),
    requiredScopes: list(env(OAUTH_ENV.requiredScopes)),
    ...(subjectClaim ? { subjectClaim } : {}),
    ...(algorithms.length > 0 ? { algorithms } : {}),
  };
  const pairs = env(OAUTH_ENV.subjects);
  if (pairs === undefined || pairs.trim() === "") return { settings, subjects: (s) => s };
  const map = new Map<string, string>();
  for (const pair of pairs.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const eq = pair.lastIndexOf("=");
    if (eq <= 0 || eq === pair.length - 1) {
      throw new Error(`${OAUTH_ENV.subjects} expects subject=id pairs, comma-separated`);
    }
    map.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return { settings, subjects: (s) => map.get(s) };
}
