/**
 * Token validation cost with a cached JWKS (`deno bench -A bench/auth_bench.ts`): one OAuth adapter
 * per algorithm whose issuer's keys were fetched once from a real issuer on loopback, so each iteration
 * is what a request pays — header checks, key lookup, signature verification and claim checks.
 * Target: ≤ 50 µs p50 for ES256 and RS256. The platform's signature check alone (WebCrypto) is measured
 * as the floor, and the request path for a token seen before (remembered: no signature check). Last,
 * a tool call through the whole gateway over HTTP with an API key and with an OAuth token, side by side.
 */
import { OAuthAuthenticator, RequestAuthenticator } from "../src/auth/mod.ts";
import { Gateway } from "../src/gateway/mod.ts";
import { connect, loadConfig, randomKey, stdioDownstream } from "../tests/gateway/_helpers.ts";
import { makeKey, TestIssuer } from "../tests/auth/issuer.ts";

const RESOURCE = "https://gw.example.test/mcp";
const issuer = await TestIssuer.start([
  await makeKey("ES256", "es"),
  await makeKey("RS256", "rs"),
  await makeKey("EdDSA", "ed"),
]);

async function prepared(alg: string) {
  const key = issuer.keys.find((k) => k.alg === alg)!;
  const oauth = new OAuthAuthenticator(
    // Nothing remembered: each iteration checks the signature, as for a token seen the first time.
    {
      issuer: issuer.issuer,
      audience: RESOURCE,
      requiredScopes: ["mcp"],
      algorithms: [alg],
      verifiedCacheSize: 0,
    },
    { subjects: (s) => (s === "user-alice" ? "alice" : undefined) },
  );
  const token = await issuer.mint({ sub: "user-alice", aud: RESOURCE, scope: "mcp" }, {
    key,
    expiresIn: 3600,
  });
  const outcome = await oauth.verify(token);
  if (!outcome.ok) throw new Error(`the ${alg} token was refused: ${outcome.refusal.reason}`);
  return { oauth, token };
}

const cases = {
  ES256: await prepared("ES256"),
  RS256: await prepared("RS256"),
  EdDSA: await prepared("EdDSA"),
};

for (const [alg, { oauth, token }] of Object.entries(cases)) {
  Deno.bench(
    { name: `verify ${alg} (cached JWKS)`, group: "verify", baseline: alg === "ES256" },
    async () => {
      const outcome = await oauth.verify(token);
      if (!outcome.ok) throw new Error("refused");
    },
  );
}

// The platform's own cost of one signature check, the floor under every JWT library.
const data = new TextEncoder().encode(cases.ES256.token.slice(0, cases.ES256.token.lastIndexOf(".")));
const ec = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
const ecdsa = { name: "ECDSA", hash: "SHA-256" };
const signature = await crypto.subtle.sign(ecdsa, ec.privateKey, data);
Deno.bench({ name: "WebCrypto ECDSA P-256 verify alone (floor)", group: "verify" }, async () => {
  if (!(await crypto.subtle.verify(ecdsa, ec.publicKey, signature, data))) throw new Error("bad");
});

// A client's next calls with the same token: the accepted outcome is remembered.
const remembering = new OAuthAuthenticator(
  { issuer: cases.ES256.oauth.settings.issuer, audience: RESOURCE, requiredScopes: ["mcp"] },
  { subjects: (s) => (s === "user-alice" ? "alice" : undefined), jwks: cases.ES256.oauth.jwks },
);
const request = new RequestAuthenticator({ apiKeys: () => undefined, oauth: remembering });
const header = `Bearer ${cases.ES256.token}`;
if (!(await request.verifyHeader(header)).ok) throw new Error("refused");
Deno.bench({ name: "authenticate header, token seen before (remembered)", group: "request" }, async () => {
  const outcome = await request.verifyHeader(header);
  if (!outcome.ok) throw new Error("refused");
});

// A whole tool call through the gateway (HTTP edge, pipeline, a stdio downstream): key versus token.
const dir = await Deno.makeTempDir({ prefix: "auth-bench-" });
const echo = new URL("../tests/auth/fixtures/echo_server.ts", import.meta.url).pathname;
const apiKey = randomKey();
const gateway = await Gateway.create(
  await loadConfig(
    dir,
    `
listen: 127.0.0.1:0
oauth: { issuer: ${issuer.issuer}, audience: ${RESOURCE}, required_scopes: [mcp] }
clients:
  - { id: alice, api_key_env: BENCH_KEY, oauth_subjects: ["user-alice"] }
downstreams:
${stdioDownstream("echo", ["run", "--allow-env", "--allow-read", JSON.stringify(echo)])}
policy: { clients: { alice: { allow: ["echo__*"] } } }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
`,
    { BENCH_KEY: apiKey },
  ),
  { startTimeoutMs: 60_000, log: () => {} },
);
const { url } = await gateway.serve();
const viaKey = await connect(String(url), apiKey);
const viaToken = await connect(String(url), cases.ES256.token);
const call = { name: "echo__echo", arguments: { text: "hello" } };
Deno.bench({ name: "gateway tool call, API key", group: "gateway", baseline: true }, async () => {
  await viaKey.callTool(call);
});
Deno.bench({ name: "gateway tool call, OAuth ES256 token", group: "gateway" }, async () => {
  await viaToken.callTool(call);
});
globalThis.addEventListener("unload", () => {
  // deno bench ends the process after the last bench; closing here keeps no child behind.
  void viaKey.close();
  void viaToken.close();
  void gateway.close();
  void issuer.close();
});
