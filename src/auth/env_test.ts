/** The OAuth settings of `serve --http` and the Deploy entry, read from flags and environment. */
import assert from "node:assert/strict";
import { oauthFromEnv } from "./mod.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("oauth env: off without an issuer; both issuer and audience are needed", () => {
  assert.equal(oauthFromEnv(env({})), undefined);
  assert.throws(() => oauthFromEnv(env({ CODEMODE_OAUTH_ISSUER: "https://a.example.test" })), /audience/);
  assert.throws(() => oauthFromEnv(env({}), { audience: "https://r.example.test/mcp" }), /issuer/);
});

Deno.test("oauth env: every variable is read, flags take precedence, subjects map or pass through", () => {
  const vars = {
    CODEMODE_OAUTH_ISSUER: "https://a.example.test",
    CODEMODE_OAUTH_AUDIENCE: "https://r.example.test/mcp",
    CODEMODE_OAUTH_JWKS_URI: "https://a.example.test/keys",
    CODEMODE_OAUTH_REQUIRED_SCOPES: "mcp, tools:read",
    CODEMODE_OAUTH_SUBJECT_CLAIM: "azp",
    CODEMODE_OAUTH_ALGORITHMS: "ES256,EdDSA",
    CODEMODE_OAUTH_SUBJECTS: "client-abc=web, svc=ci",
  };
  const config = oauthFromEnv(env(vars), { issuer: "https://b.example.test" })!;
  assert.deepEqual(config.settings, {
    issuer: "https://b.example.test",
    audience: "https://r.example.test/mcp",
    jwksUri: "https://a.example.test/keys",
    requiredScopes: ["mcp", "tools:read"],
    subjectClaim: "azp",
    algorithms: ["ES256", "EdDSA"],
  });
  assert.equal(config.subjects("client-abc"), "web");
  assert.equal(config.subjects("svc"), "ci");
  assert.equal(config.subjects("other"), undefined);
  const open = oauthFromEnv(env({ ...vars, CODEMODE_OAUTH_SUBJECTS: "" }))!;
  assert.equal(open.subjects("anyone"), "anyone");
  assert.throws(() => oauthFromEnv(env({ ...vars, CODEMODE_OAUTH_SUBJECTS: "no-pair" })), /subject=id/);
});
