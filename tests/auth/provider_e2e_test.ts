/**
 * End to end with a real authorization server: the `oidc-provider` fixture on loopback issues JWT
 * access tokens for the gateway's resource indicator, and the gateway accepts them —
 * a machine client by the client-credentials grant (and again after the provider rotates its signing
 * key), and the official MCP SDK client's own OAuth flow: discovery from the gateway's 401, dynamic
 * registration, authorization code with PKCE (login and consent driven over HTTP), token, retry, and a
 * refresh token.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
// @ts-types="@modelcontextprotocol/sdk/shared/auth"
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { Gateway } from "../../src/gateway/mod.ts";
import { loadConfig, stdioDownstream, text } from "../gateway/_helpers.ts";
import { signIn, startProvider } from "./provider.ts";

const ECHO = new URL("./fixtures/echo_server.ts", import.meta.url).pathname;
const MACHINE = { id: "svc-ci", secret: "machine-secret-0123456789abcdef" };

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

function yaml(dir: string, port: number, issuer: string): string {
  return `
listen: 127.0.0.1:${port}
oauth:
  issuer: ${issuer}
  audience: http://127.0.0.1:${port}/mcp
  required_scopes: [mcp]
  scopes_supported: [mcp, tools:read]
clients:
  - { id: alice, oauth_subjects: ["user-alice"] }
  - { id: ci, oauth_subjects: ["${MACHINE.id}"] }
downstreams:
${stdioDownstream("echo", ["run", "--allow-env", "--allow-read", JSON.stringify(ECHO)])}
policy:
  clients:
    alice: { allow: ["echo__*"] }
    ci: { allow: ["echo__read_only"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
`;
}

/** An MCP client's OAuth state, kept in memory the way a desktop client keeps it on disk. */
class MemoryAuth implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  readonly redirectUrl = "http://127.0.0.1:1/callback";
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "oauth e2e",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native",
    } as OAuthClientMetadata;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

Deno.test("provider e2e: client credentials, key rotation, and the MCP SDK's own OAuth flow", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "gw-oidc-" });
  const port = freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const provider = await startProvider(resource, MACHINE);
  const gateway = await Gateway.create(await loadConfig(dir, yaml(dir, port, provider.issuer), {}), {
    startTimeoutMs: 60_000,
    log: () => {},
  });
  const { url } = await gateway.serve();
  assert.equal(String(url), resource);
  const withToken = async (token: string) => {
    const client = new Client({ name: "machine", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };
  try {
    let first = "";
    await t.step("a machine client's client-credentials token signs in as its client", async () => {
      first = await provider.clientCredentials("mcp");
      assert.equal(decodeProtectedHeader(first).typ, "at+jwt");
      assert.equal(decodeJwt(first).aud, resource);
      const client = await withToken(first);
      try {
        assert.deepEqual((await client.listTools()).tools.map((x) => x.name), ["echo__read_only"]);
        assert.equal(text(await client.callTool({ name: "echo__read_only", arguments: {} })), "ok");
      } finally {
        await client.close();
      }
    });

    await t.step("a token without the required scope is 403 insufficient_scope", async () => {
      const narrow = await provider.clientCredentials("tools:read");
      const res = await fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${narrow}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      assert.equal(res.status, 403);
      assert.match(res.headers.get("www-authenticate")!, /error="insufficient_scope"/);
      await res.body?.cancel();
    });

    await t.step("rotation: new tokens work after the provider rotates, old ones keep working", async () => {
      const kid = await provider.rotate();
      const rotated = await provider.clientCredentials("mcp");
      assert.equal(decodeProtectedHeader(rotated).kid, kid);
      assert.notEqual(decodeProtectedHeader(first).kid, kid);
      for (const token of [rotated, first]) {
        const client = await withToken(token);
        try {
          assert.equal(text(await client.callTool({ name: "echo__read_only", arguments: {} })), "ok");
        } finally {
          await client.close();
        }
      }
    });

    await t.step(
      "the MCP SDK client signs in: 401 → discovery → registration → PKCE → token → retry",
      async () => {
        const auth = new MemoryAuth();
        const client = new Client({ name: "desktop", version: "1.0.0" });
        const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: auth });
        await assert.rejects(client.connect(transport), UnauthorizedError);
        assert.ok(auth.info?.client_id, "the client registered itself");
        const authorization = auth.authorizationUrl!;
        assert.equal(authorization.searchParams.get("resource"), resource);
        assert.equal(authorization.searchParams.get("code_challenge_method"), "S256");
        assert.match(authorization.searchParams.get("scope") ?? "", /\bmcp\b/);
        const back = await signIn(authorization.href, "user-alice", auth.redirectUrl);
        const code = back.searchParams.get("code");
        assert.ok(code, `the provider redirected back with a code: ${back}`);
        await transport.finishAuth(code);
        const token = auth.saved!.access_token;
        assert.equal(decodeJwt(token).sub, "user-alice");
        assert.equal(decodeJwt(token).aud, resource);
        const signedIn = new Client({ name: "desktop", version: "1.0.0" });
        await signedIn.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: auth }));
        try {
          assert.deepEqual((await signedIn.listTools()).tools.map((x) => x.name).sort(), [
            "echo__echo",
            "echo__read_only",
          ]);
          assert.equal(
            text(await signedIn.callTool({ name: "echo__echo", arguments: { text: "hello" } })),
            "hello",
          );
        } finally {
          await signedIn.close();
        }

        // The refresh token yields a new access token for the same resource, accepted as well.
        assert.ok(auth.saved!.refresh_token, "a refresh token was issued");
        const res = await fetch(`${provider.issuer}/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "refresh_token",
            refresh_token: auth.saved!.refresh_token!,
            client_id: auth.info!.client_id,
            resource,
          }),
        });
        const refreshed = await res.json();
        assert.equal(res.status, 200, JSON.stringify(refreshed));
        assert.notEqual(refreshed.access_token, token);
        const again = await withToken(refreshed.access_token);
        try {
          assert.equal(
            text(await again.callTool({ name: "echo__echo", arguments: { text: "again" } })),
            "again",
          );
        } finally {
          await again.close();
        }
      },
    );
  } finally {
    await gateway.close();
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
});
