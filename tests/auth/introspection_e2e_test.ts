/**
 * Opaque access tokens (RFC 7662) end to end: the `oidc-provider` fixture issues opaque tokens for the
 * gateway's resource, and the gateway, configured with its own introspection client, asks the provider
 * about each one — an active token for this resource signs in as its client; a made-up or revoked token
 * is refused; the introspection secret never reaches the audit.
 */
import assert from "node:assert/strict";
import { Gateway } from "../../src/gateway/mod.ts";
import { connect, loadConfig, stdioDownstream, text } from "../gateway/_helpers.ts";
import { startProvider } from "./provider.ts";

const ECHO = new URL("./fixtures/echo_server.ts", import.meta.url).pathname;
const MACHINE = { id: "svc-ci", secret: "machine-secret-0123456789abcdef" };
const INTROSPECTOR = { id: "gateway-rs", secret: "introspector-secret-0123456789" };
const RESOURCE = "https://gw.example.test/mcp";

Deno.test("introspection e2e: opaque tokens are introspected at the provider", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw-introspect-" });
  const provider = await startProvider(RESOURCE, MACHINE, { format: "opaque", introspector: INTROSPECTOR });
  const gateway = await Gateway.create(
    await loadConfig(
      dir,
      `
listen: 127.0.0.1:0
oauth:
  issuer: ${provider.issuer}
  audience: ${RESOURCE}
  required_scopes: [mcp]
  subject_claim: client_id
  introspection: { endpoint: ${provider.issuer}/token/introspection, client_id: ${INTROSPECTOR.id}, client_secret_env: RS_SECRET }
clients:
  - { id: ci, oauth_subjects: ["${MACHINE.id}"] }
downstreams:
${stdioDownstream("echo", ["run", "--allow-env", "--allow-read", JSON.stringify(ECHO)])}
policy: { clients: { ci: { allow: ["echo__*"] } } }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
`,
      { RS_SECRET: INTROSPECTOR.secret },
    ),
    { startTimeoutMs: 60_000, log: () => {} },
  );
  const { url } = await gateway.serve();
  const post = (token: string) =>
    fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
  try {
    const token = await provider.clientCredentials("mcp");
    assert.equal(token.split(".").length, 1, "an opaque token, not a JWT");
    const client = await connect(String(url), token);
    try {
      assert.equal(
        text(await client.callTool({ name: "echo__echo", arguments: { text: "opaque" } })),
        "opaque",
      );
    } finally {
      await client.close();
    }
    const madeUp = await post("an-opaque-token-the-provider-never-issued");
    assert.equal(madeUp.status, 401);
    assert.match(
      madeUp.headers.get("www-authenticate")!,
      /error="invalid_token", error_description="the token is not active"/,
    );
    await madeUp.body?.cancel();
    const narrow = await post(await provider.clientCredentials("tools:read"));
    assert.equal(narrow.status, 403);
    await narrow.body?.cancel();
    await gateway.close();
    const audit = await Deno.readTextFile(`${dir}/audit.jsonl`);
    assert.ok(!audit.includes(INTROSPECTOR.secret));
    assert.ok(!audit.includes(token));
  } finally {
    await gateway.close();
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
});
