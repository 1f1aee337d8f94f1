/**
 * OAuth on the library's HTTP handler (`createHttpHandler`'s `oauth` option, used by `serve --http`)
 * and on the real `deploy.ts` under `deno serve` configured by `CODEMODE_OAUTH_*`: the same metadata,
 * challenges and token checks as the gateway, from the one shared auth module; a token's subject
 * becomes the subject of the tool calls (through the mapping function), and is never handed on.
 */
import assert from "node:assert/strict";
import { parseServeArgs } from "../../src/mcp/serve_cli.ts";
import { childEnv, CONFIG, spawnListening } from "../mcp/cli_helpers.ts";
import { FakeService } from "../mcp/fake_service.ts";
import { connectClient, loopbackHosts, rawPost, serveHandler } from "../mcp/http_helpers.ts";
import { makeKey, TestIssuer } from "./issuer.ts";

const KEY = "serve-key-0123456789abcdef";
const DEPLOY = new URL("../../deploy.ts", import.meta.url).pathname;

Deno.test("serve --http handler: OAuth next to API keys, subjects mapped, metadata and challenges", async () => {
  const issuer = await TestIssuer.start([await makeKey("RS256", "r1")]);
  const service = new FakeService();
  const served = serveHandler(service, (port) => ({
    apiKeys: [{ subject: "keyed", key: KEY }],
    allowedHosts: loopbackHosts(port),
    oauth: {
      settings: {
        issuer: issuer.issuer,
        audience: `http://127.0.0.1:${port}/mcp`,
        requiredScopes: ["mcp"],
      },
      subjects: (s) => (s === "user-alice" ? "alice" : undefined),
    },
  }));
  const resource = served.url;
  try {
    for (
      const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]
    ) {
      const meta = await (await fetch(`${served.origin}${path}`)).json();
      assert.deepEqual(meta, {
        resource,
        authorization_servers: [issuer.issuer],
        scopes_supported: ["mcp"],
        bearer_methods_supported: ["header"],
      });
    }
    const none = await rawPost(served.url);
    assert.equal(none.status, 401);
    assert.equal(
      none.headers.get("www-authenticate"),
      `Bearer resource_metadata="${served.origin}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
    );
    const mint = (claims: Record<string, unknown>) => issuer.mint({ aud: resource, scope: "mcp", ...claims });
    const expired = await rawPost(served.url, {
      authorization: `Bearer ${await mint({ sub: "user-alice", exp: Math.floor(Date.now() / 1000) - 600 })}`,
    });
    assert.equal(expired.status, 401);
    assert.match(expired.headers.get("www-authenticate")!, /error="invalid_token"/);
    const other = await rawPost(served.url, {
      authorization: `Bearer ${await mint({ sub: "user-alice", aud: "https://elsewhere.example.test/mcp" })}`,
    });
    assert.equal(other.status, 401);
    const stranger = await rawPost(served.url, { authorization: `Bearer ${await mint({ sub: "mallory" })}` });
    assert.equal(stranger.status, 403);
    const unscoped = await rawPost(served.url, {
      authorization: `Bearer ${await mint({ sub: "user-alice", scope: "other" })}`,
    });
    assert.equal(unscoped.status, 403);
    assert.match(unscoped.headers.get("www-authenticate")!, /error="insufficient_scope"/);

    const token = await mint({ sub: "user-alice" });
    for (const [authorization, subject] of [[`Bearer ${token}`, "alice"], [`Bearer ${KEY}`, "keyed"]]) {
      const client = await connectClient(served.url, { authorization });
      try {
        const r = await client.callTool({ name: "execute", arguments: { source: "subject" } });
        assert.deepEqual((r.structuredContent as { result: unknown }).result, { subject, context: subject });
      } finally {
        await client.close();
      }
    }
    // The service saw subjects, never the token.
    assert.ok(!JSON.stringify(service.calls).includes(token.split(".")[2]));
  } finally {
    await served.close();
    await issuer.close();
  }
});

Deno.test("serve CLI: --oauth-issuer and --oauth-audience are parsed", () => {
  const args = parseServeArgs([
    "--http",
    "127.0.0.1:0",
    "--oauth-issuer",
    "https://auth.example.test",
    "--oauth-audience=https://mcp.example.test/mcp",
  ]);
  assert.equal(args.oauthIssuer, "https://auth.example.test");
  assert.equal(args.oauthAudience, "https://mcp.example.test/mcp");
});

Deno.test("deploy.ts under deno serve: OAuth only (no API keys) from CODEMODE_OAUTH_*", async () => {
  const issuer = await TestIssuer.start([await makeKey("ES256", "e1")], { discovery: "openid" });
  const audience = "https://codemode.example.test/mcp";
  const server = await spawnListening(
    [
      "serve",
      "--config",
      CONFIG,
      "--allow-env",
      "--allow-read",
      "--allow-net",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      DEPLOY,
    ],
    childEnv({
      DENO_DEPLOYMENT_ID: "test",
      CODEMODE_OAUTH_ISSUER: issuer.issuer,
      CODEMODE_OAUTH_AUDIENCE: audience,
      CODEMODE_OAUTH_REQUIRED_SCOPES: "mcp",
      CODEMODE_OAUTH_SUBJECTS: "client-abc=web",
    }),
    /Listening on (http:\/\/[^/\s]+)/,
  );
  try {
    const url = `${server.address}/mcp`;
    const meta = await (await fetch(`${server.address}/.well-known/oauth-protected-resource/mcp`)).json();
    assert.equal(meta.resource, audience);
    const none = await rawPost(url);
    assert.equal(none.status, 401);
    assert.match(
      none.headers.get("www-authenticate")!,
      /resource_metadata="https:\/\/codemode\.example\.test\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const token = await issuer.mint({ sub: "client-abc", aud: audience, scope: "mcp" });
    const client = await connectClient(url, { authorization: `Bearer ${token}` });
    try {
      const r = await client.callTool({ name: "search_api", arguments: { query: "stock" } });
      assert.notEqual(r.isError, true);
    } finally {
      await client.close();
    }
    const unmapped = await rawPost(url, {
      authorization: `Bearer ${await issuer.mint({ sub: "someone", aud: audience, scope: "mcp" })}`,
    });
    assert.equal(unmapped.status, 403);
  } finally {
    await server.stop();
    await issuer.close();
  }
});
