/**
 * The gateway as an OAuth 2.1 resource server, through its real HTTP edge with a real stdio downstream
 * and a real token issuer on loopback: RFC 9728 metadata at both well-known paths, the 401/403
 * challenges the MCP authorization specification asks for, a token signing in as its mapped client
 * (whose policy applies exactly as with its key), an OAuth-only client, API keys still working next to
 * OAuth, and no token in the audit.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Gateway } from "../../src/gateway/mod.ts";
import { secretValues } from "../../src/gateway/config/mod.ts";
import { loadConfig, randomKey, stdioDownstream, text } from "../gateway/_helpers.ts";
import { makeKey, TestIssuer } from "./issuer.ts";

const ECHO = new URL("./fixtures/echo_server.ts", import.meta.url).pathname;
const RESOURCE = "https://gw.example.test/mcp";
const METADATA = "https://gw.example.test/.well-known/oauth-protected-resource/mcp";

function yaml(dir: string, issuer: string): string {
  return `
listen: 127.0.0.1:0
oauth:
  issuer: ${issuer}
  audience: ${RESOURCE}
  required_scopes: [mcp]
  scopes_supported: [mcp, tools:read]
clients:
  - { id: alice, api_key_env: OA_ALICE_KEY, oauth_subjects: ["user-alice", "svc-ci"] }
  - { id: claude-web, oauth_subjects: ["client-abc"] }
downstreams:
${stdioDownstream("echo", ["run", "--allow-env", "--allow-read", JSON.stringify(ECHO)])}
policy:
  clients:
    alice: { allow: ["echo__*"] }
    claude-web: { allow: ["echo__read_only"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
auth_rate_limit: { burst: 1000 }
`;
}

/** An SDK client with a fixed bearer token. */
async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "oauth-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

Deno.test("gateway oauth: metadata, challenges, mapped clients and their policies", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "gw-oauth-" });
  const issuer = await TestIssuer.start([await makeKey("ES256", "k1")]);
  const env = { OA_ALICE_KEY: randomKey() };
  const gateway = await Gateway.create(await loadConfig(dir, yaml(dir, issuer.issuer), env), {
    startTimeoutMs: 60_000,
    log: () => {},
  });
  const { url } = await gateway.serve();
  const post = (authorization?: string) =>
    fetch(url, {
      method: "POST",
      headers: {
        ...(authorization === undefined ? {} : { authorization }),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: LIST,
    });
  const tokens: string[] = [];
  const mint = async (claims: Record<string, unknown>, options = {}) => {
    const token = await issuer.mint({ aud: RESOURCE, scope: "mcp", ...claims }, options);
    tokens.push(token);
    return token;
  };
  try {
    await t.step(
      "RFC 9728 metadata at the root and path-suffixed well-known paths, unauthenticated",
      async () => {
        for (
          const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]
        ) {
          const res = await fetch(new URL(path, url));
          assert.equal(res.status, 200, path);
          assert.deepEqual(await res.json(), {
            resource: RESOURCE,
            authorization_servers: [issuer.issuer],
            scopes_supported: ["mcp", "tools:read"],
            bearer_methods_supported: ["header"],
          });
        }
        assert.equal((await fetch(new URL("/.well-known/oauth-protected-resource/other", url))).status, 404);
      },
    );

    await t.step("no token: 401 with resource_metadata and scope, no error code", async () => {
      const res = await post();
      assert.equal(res.status, 401);
      assert.equal(
        res.headers.get("www-authenticate"),
        `Bearer resource_metadata="${METADATA}", scope="mcp"`,
      );
      await res.body?.cancel();
    });

    await t.step("bad tokens: 401 invalid_token; malformed headers: 401 invalid_request", async () => {
      const now = Math.floor(Date.now() / 1000);
      const bad = [
        await mint({ sub: "user-alice", exp: now - 600 }),
        await mint({ sub: "user-alice", aud: "https://other.example.test/mcp" }),
        await mint({ sub: "user-alice", iss: "https://evil.example.test" }),
        await mint({ sub: "user-alice" }, { key: await makeKey("ES256", "k1") }),
      ];
      for (const token of bad) {
        const res = await post(`Bearer ${token}`);
        assert.equal(res.status, 401);
        assert.match(
          res.headers.get("www-authenticate")!,
          /^Bearer resource_metadata="[^"]+", error="invalid_token", error_description="[^"]+", scope="mcp"$/,
        );
        await res.body?.cancel();
      }
      const good = await mint({ sub: "user-alice" });
      for (const h of [`Bearer Bearer ${good}`, "Bearer ", `Bearer ${good} ${good}`]) {
        const res = await post(h);
        assert.equal(res.status, 401, h);
        assert.match(res.headers.get("www-authenticate")!, /error="invalid_request"/);
        await res.body?.cancel();
      }
      // RFC 7235: the scheme is case-insensitive.
      const lower = await post(`bearer ${good}`);
      assert.equal(lower.status, 200);
      await lower.body?.cancel();
    });

    await t.step("missing scope: 403 insufficient_scope; unmapped subject: 403", async () => {
      const noScope = await post(`Bearer ${await mint({ sub: "user-alice", scope: "tools:read" })}`);
      assert.equal(noScope.status, 403);
      assert.match(noScope.headers.get("www-authenticate")!, /error="insufficient_scope"/);
      assert.match(noScope.headers.get("www-authenticate")!, /scope="mcp"/);
      await noScope.body?.cancel();
      const stranger = await post(`Bearer ${await mint({ sub: "mallory" })}`);
      assert.equal(stranger.status, 403);
      assert.match((await stranger.json()).error.message, /no configured client/);
    });

    await t.step("a token signs in as its client; the client's policy applies as with its key", async () => {
      const viaToken = await connect(url, await mint({ sub: "svc-ci" }));
      const viaKey = await connect(url, env.OA_ALICE_KEY);
      try {
        const names = (r: { tools: { name: string }[] }) => r.tools.map((x) => x.name).sort();
        assert.deepEqual(names(await viaToken.listTools()), ["echo__echo", "echo__read_only"]);
        assert.deepEqual(names(await viaToken.listTools()), names(await viaKey.listTools()));
        assert.equal(text(await viaToken.callTool({ name: "echo__echo", arguments: { text: "hi" } })), "hi");
      } finally {
        await viaToken.close();
        await viaKey.close();
      }
    });

    await t.step("an OAuth-only client has no key and only its own policy", async () => {
      const web = await connect(url, await mint({ sub: "client-abc" }));
      try {
        assert.deepEqual((await web.listTools()).tools.map((x) => x.name), ["echo__read_only"]);
        // A tool its policy does not allow is, to this client, a tool that does not exist.
        await assert.rejects(web.callTool({ name: "echo__echo", arguments: { text: "x" } }), /unknown tool/);
        assert.equal(text(await web.callTool({ name: "echo__read_only", arguments: {} })), "ok");
      } finally {
        await web.close();
      }
    });

    await t.step("a reload remaps subjects at once and keeps the cached keys", async () => {
      const fetches = issuer.jwksFetches;
      const token = await mint({ sub: "client-abc" });
      const before = await post(`Bearer ${token}`);
      assert.equal(before.status, 200);
      await before.body?.cancel();
      const remapped = yaml(dir, issuer.issuer).replace(
        'oauth_subjects: ["client-abc"]',
        'oauth_subjects: ["client-xyz"]',
      );
      await gateway.reload(await loadConfig(dir, remapped, env));
      const after = await post(`Bearer ${token}`);
      assert.equal(after.status, 403, "the old subject maps to no client any more");
      await after.body?.cancel();
      const moved = await post(`Bearer ${await mint({ sub: "client-xyz" })}`);
      assert.equal(moved.status, 200);
      await moved.body?.cancel();
      assert.equal(issuer.jwksFetches, fetches, "no refetch: the keys survived the reload");
    });

    await t.step("the audit records refusals with reasons and never a token", async () => {
      await gateway.close();
      const audit = await Deno.readTextFile(`${dir}/audit.jsonl`);
      assert.match(audit, /unknown_subject: the token's subject is no configured client/);
      assert.match(audit, /insufficient_scope/);
      assert.match(audit, /"client_id":"claude-web"/);
      for (const token of tokens) {
        const [, payload, signature] = token.split(".");
        assert.ok(!audit.includes(signature), "no token signature in the audit");
        assert.ok(!audit.includes(payload), "no token payload in the audit");
      }
    });
  } finally {
    await gateway.close();
    await issuer.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gateway oauth: the loader refuses a broken oauth block and stray subjects", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw-oauth-cfg-" });
  try {
    const base = (oauth: string, clients: string) =>
      `listen: 127.0.0.1:0\n${oauth}clients:\n${clients}\ndownstreams:\n${
        stdioDownstream("echo", ["run", JSON.stringify(ECHO)])
      }\npolicy: { clients: {} }\n`;
    const cases: [string, string, RegExp][] = [
      ["", '  - { id: web, oauth_subjects: ["a"] }', /oauth_subjects needs an oauth: section/],
      [
        "oauth: { issuer: http://auth.example.test, audience: https://gw.example.test/mcp }\n",
        '  - { id: web, oauth_subjects: ["a"] }',
        /https/,
      ],
      [
        "oauth: { issuer: https://auth.example.test, audience: https://gw.example.test/mcp, algorithms: [HS256] }\n",
        '  - { id: web, oauth_subjects: ["a"] }',
        /HS256.*not allowed/,
      ],
      [
        "oauth: { issuer: https://auth.example.test, audience: https://gw.example.test/mcp }\n",
        '  - { id: web, oauth_subjects: ["a"] }\n  - { id: cli, oauth_subjects: ["a"] }',
        /subject "a" already signs in as client web/,
      ],
      [
        "oauth: { issuer: https://auth.example.test, audience: https://gw.example.test/mcp, subject_claim: email }\n",
        '  - { id: web, oauth_subjects: ["a"] }',
        /subject_claim/,
      ],
      [
        "oauth: { issuer: https://auth.example.test, audience: https://gw.example.test/mcp }\n",
        "  - { id: web }",
        /api_key_env/,
      ],
    ];
    for (const [oauth, clients, problem] of cases) {
      await assert.rejects(loadConfig(dir, base(oauth, clients), {}), problem, oauth + clients);
    }
    const ok = await loadConfig(
      dir,
      base(
        "oauth: { issuer: https://auth.example.test, audience: https://gw.example.test/mcp, require_at_jwt: true }\n",
        '  - { id: web, oauth_subjects: ["a", "b"] }',
      ),
      {},
    );
    assert.equal(ok.oauth?.requireAtJwt, true);
    assert.deepEqual(ok.clients[0].oauthSubjects, ["a", "b"]);
    assert.equal(ok.clients[0].apiKey, "");
    // No key, so nothing to redact: an empty "secret" would match everywhere.
    assert.deepEqual(secretValues(ok), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
