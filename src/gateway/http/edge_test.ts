import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type AuditRecord,
  Catalog,
  GatewayError,
  type Identity,
  type JsonValue,
  makeResult,
  makeTool,
  type Result,
  toolRef,
} from "../domain/mod.ts";
import type { CallOptions } from "../pipeline/mod.ts";
import { bearerToken, ClientKeys, HostCheck, hostName, OriginCheck } from "./auth.ts";
import { HttpEdge, readCappedBody } from "./edge.ts";

const ALICE = "alice-key-0123456789abcdef";
const BOB = "bob-key-fedcba9876543210xx";
const OPS = "ops-key-5a5a5a5a5a5a5a5a5a";

const FULL = new Catalog(
  Array.from({ length: 7 }, (_, i) =>
    makeTool({
      ref: toolRef("ds", `t${i}`),
      description: `tool ${i}`,
      inputSchema: { type: "object", properties: { x: { type: "string" } } },
    })),
);

/** A fake pipeline: alice sees t0..t4, bob only t0; t6 is "denied" for everybody; echo of x. */
class FakeSurface {
  readonly calls: { client: string; name: string }[] = [];
  listTools(client: Identity): Catalog {
    return FULL.filter((t) => client.id === "alice" ? t.ref.tool < "t5" : t.ref.tool === "t0");
  }
  callTool(
    client: Identity,
    name: string,
    args: JsonValue | undefined,
    options: CallOptions,
  ): Promise<Result> {
    this.calls.push({ client: client.id, name });
    if (this.listTools(client).lookup(name) === undefined) {
      return Promise.reject(new GatewayError("unknown_tool", "denied or missing"));
    }
    if (name === "ds__t1") {
      return Promise.reject(new GatewayError("downstream_unavailable", "secret internals"));
    }
    options.notify?.({
      method: "notifications/progress",
      params: { progressToken: 99, progress: 1, total: 1 },
    });
    const x = (args as { x?: string } | undefined)?.x ?? "";
    return Promise.resolve(makeResult({ content: [{ type: "text", text: `echo ${x}` }] }));
  }
}

function makeEdge(
  audit: AuditRecord[] = [],
  surface = new FakeSurface(),
  health?: () => "ok" | "degraded",
) {
  return new HttpEdge({
    health,
    surface,
    settings: {
      keys: new ClientKeys([{ id: "alice", apiKey: ALICE }, { id: "bob", apiKey: BOB }]),
      operators: new ClientKeys([{ id: "ops", apiKey: OPS }]),
      hosts: new HostCheck(true),
      origins: new OriginCheck(["https://app.example.com"]),
    },
    audit: (r) => {
      audit.push(r);
      return Promise.resolve();
    },
    metrics: { text: () => "# HELP x y\nx 1\n", contentType: "text/plain; version=0.0.4" },
    maxBodyBytes: 4096,
    bodyTimeoutMs: 300,
    pageSize: 2,
  });
}

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request("http://127.0.0.1:8790/mcp", {
    method: "POST",
    body,
    headers: {
      host: "127.0.0.1:8790",
      authorization: `Bearer ${ALICE}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
  });
}

async function connect(edge: HttpEdge, key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8790/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => edge.handle(new Request(url, init)),
  });
  const client = new Client({ name: "t", version: "1" });
  await client.connect(transport);
  return client;
}

Deno.test("auth helpers: bearer parsing, host names, origins, keys of any length", () => {
  assert.equal(bearerToken(`Bearer ${ALICE}`), ALICE);
  assert.equal(bearerToken(`bearer\t${ALICE} `), ALICE);
  assert.equal(bearerToken(`Bearer ${ALICE} extra`), undefined);
  assert.equal(bearerToken(`Basic ${ALICE}`), undefined);
  assert.equal(bearerToken(null), undefined);
  assert.equal(hostName("[::1]:80"), "[::1]");
  assert.equal(hostName("evil.com/x"), undefined);
  const hosts = new HostCheck(true);
  assert.ok(hosts.allows("localhost:1") && hosts.allows("127.0.0.1") && hosts.allows("[::1]:8790"));
  assert.ok(!hosts.allows("attacker.example:8790") && !hosts.allows(null) && !hosts.allows("127.0.0.1 x"));
  assert.ok(new HostCheck(false).allows("gw.example.com"));
  assert.ok(!new HostCheck(false, ["gw.example.com"]).allows("other.example.com"));
  const origins = new OriginCheck(["https://App.example.com/"]);
  assert.ok(origins.allows(null) && origins.allows("https://app.example.com"));
  assert.ok(!origins.allows("https://app.example.com.evil") && !origins.allows("null"));
  const keys = new ClientKeys([{ id: "alice", apiKey: ALICE }, { id: "bob", apiKey: BOB }]);
  assert.deepEqual(keys.check(BOB), { id: "bob" });
  for (const wrong of ["", "x", ALICE.slice(0, -1), ALICE + "0", ALICE.repeat(200), "ä".repeat(24)]) {
    assert.equal(keys.check(wrong), undefined);
  }
  // A key that repeats another, or is its prefix, matches only itself (keys are compared cyclically).
  const nested = new ClientKeys([{ id: "short", apiKey: "ab".repeat(5) }, {
    id: "long",
    apiKey: "ab".repeat(10),
  }]);
  assert.deepEqual(nested.check("ab".repeat(10)), { id: "long" });
  assert.deepEqual(nested.check("ab".repeat(5)), { id: "short" });
  for (const wrong of ["ab", "ab".repeat(15), "ab".repeat(2048), "ab".repeat(3000), "ba".repeat(5)]) {
    assert.equal(nested.check(wrong), undefined, wrong.slice(0, 12));
  }
});

Deno.test("HTTP edge: 401 with WWW-Authenticate and an audit record without the key", async () => {
  const audit: AuditRecord[] = [];
  const edge = makeEdge(audit);
  for (
    const auth of [
      undefined,
      "Bearer wrong-key-0000000000000",
      `Bearer ${ALICE}x`,
      `Token ${ALICE}`,
      "Bearer",
    ]
  ) {
    const headers: Record<string, string> = {};
    const req = post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', headers);
    if (auth === undefined) req.headers.delete("authorization");
    else req.headers.set("authorization", auth);
    const res = await edge.handle(req);
    assert.equal(res.status, 401, String(auth));
    assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer /);
    const text = await res.text();
    assert.ok(!text.includes(ALICE) && !text.includes("wrong-key"));
  }
  assert.equal(audit.length, 5);
  for (const r of audit) {
    assert.equal(r.decision, "unauthenticated");
    assert.equal(r.allowed, false);
    assert.ok(!JSON.stringify(r).includes("wrong-key") && !JSON.stringify(r).includes(ALICE));
  }
});

Deno.test("HTTP edge: /healthz is 503 while the code-mode sandbox pool is degraded", async () => {
  let status: "ok" | "degraded" = "degraded";
  const edge = makeEdge([], new FakeSurface(), () => status);
  const down = await edge.handle(new Request("http://127.0.0.1:8790/healthz"));
  assert.equal(down.status, 503);
  assert.deepEqual(await down.json(), { status: "degraded" });
  status = "ok";
  const up = await edge.handle(new Request("http://127.0.0.1:8790/healthz"));
  assert.equal(up.status, 200);
  assert.deepEqual(await up.json(), { status: "ok" });
});

Deno.test("HTTP edge: Host and Origin checks, healthz, metrics behind an operator key, methods", async () => {
  const edge = makeEdge();
  assert.equal((await edge.handle(post("{}", { host: "evil.example:8790" }))).status, 403);
  assert.equal((await edge.handle(post("{}", { origin: "https://evil.example" }))).status, 403);
  const health = await edge.handle(new Request("http://127.0.0.1:8790/healthz"));
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: "ok" });
  const anon = await edge.handle(
    new Request("http://127.0.0.1:8790/metrics", { headers: { host: "127.0.0.1" } }),
  );
  assert.equal(anon.status, 401);
  await anon.body?.cancel();
  // A client key opens no operator data: refused exactly like no key.
  const client = await edge.handle(
    new Request("http://127.0.0.1:8790/metrics", {
      headers: { host: "127.0.0.1", authorization: `Bearer ${BOB}` },
    }),
  );
  assert.equal(client.status, 401);
  await client.body?.cancel();
  const metrics = await edge.handle(
    new Request("http://127.0.0.1:8790/metrics", {
      headers: { host: "127.0.0.1", authorization: `Bearer ${OPS}` },
    }),
  );
  assert.equal(metrics.status, 200);
  assert.match(await metrics.text(), /^x 1$/m);
  const get = await edge.handle(
    new Request("http://127.0.0.1:8790/mcp", {
      headers: { host: "127.0.0.1", authorization: `Bearer ${BOB}` },
    }),
  );
  assert.equal(get.status, 405);
  await get.body?.cancel();
  assert.equal((await edge.handle(new Request("http://127.0.0.1:8790/other"))).status, 404);
  const preflight = await edge.handle(
    new Request("http://127.0.0.1:8790/mcp", {
      method: "OPTIONS",
      headers: { host: "127.0.0.1", origin: "https://app.example.com" },
    }),
  );
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), "https://app.example.com");
});

Deno.test("HTTP edge: hostile bodies are clean errors and the edge keeps serving", async () => {
  const edge = makeEdge();
  const cases: [BodyInit, number, number][] = [
    ["{not json", 400, -32700],
    ["[]", 400, -32600],
    [
      '[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]',
      400,
      -32600,
    ],
    ['"a string"', 400, -32600],
    ["null", 400, -32600],
    [new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]), 400, -32700],
    ['{"jsonrpc":"1.0","id":1}', 400, -32600],
    ["x".repeat(5000), 413, -32600],
  ];
  for (const [body, status, code] of cases) {
    const res = await edge.handle(post(body));
    assert.equal(res.status, status, String(body).slice(0, 40));
    assert.equal((await res.json()).error.code, code);
  }
  // A body without Content-Length that grows past the cap is cut off, not read to its end.
  let pulled = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(c) {
      pulled++;
      c.enqueue(new Uint8Array(1024).fill(0x20));
    },
  });
  const big = await edge.handle(post(endless));
  assert.equal(big.status, 413);
  await big.body?.cancel();
  assert.ok(pulled < 10, `pulled ${pulled} chunks`);
  const lying = post("{}", { "content-length": "99999999999" });
  assert.equal((await readCappedBody(lying, 4096, 1000)).ok, false);
  // A client that never finishes its body gets 408 after the deadline.
  const stalled = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode('{"jsonrpc":'));
    },
  });
  const slow = await edge.handle(post(stalled));
  assert.equal(slow.status, 408);
  await slow.body?.cancel();
  // Still serving.
  const client = await connect(edge, ALICE);
  assert.equal((await client.listTools()).tools.length, 2);
  await client.close();
});

Deno.test("HTTP edge: paginated per-client listing; forbidden, missing and malformed tools answer alike", async () => {
  const surface = new FakeSurface();
  const edge = makeEdge([], surface);
  const alice = await connect(edge, ALICE);
  const bob = await connect(edge, BOB);
  try {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await alice.listTools(cursor === undefined ? {} : { cursor });
      assert.ok(page.tools.length <= 2);
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(names, ["ds__t0", "ds__t1", "ds__t2", "ds__t3", "ds__t4"]);
    assert.deepEqual((await bob.listTools()).tools.map((t) => t.name), ["ds__t0"]);
    // A cursor naming a tool bob may not see reveals nothing either.
    assert.deepEqual((await bob.listTools({ cursor: "ds__t3" })).tools, []);

    const answers: string[] = [];
    for (
      const name of ["ds__t3", "ds__t6", "ds__nope", "nope", "a____b", "", "x".repeat(3000), "ds__t0\r\nX: y"]
    ) {
      const err = await bob.callTool({ name, arguments: {} }).then(() => undefined, (e: Error) => e);
      assert.ok(err instanceof Error, name);
      answers.push(`${(err as { code?: number }).code} ${err.message}`);
    }
    assert.equal(new Set(answers).size, 1, answers.join("\n"));
    assert.equal(answers[0], "-32602 MCP error -32602: unknown tool");

    const progress: unknown[] = [];
    const ok = await bob.callTool({ name: "ds__t0", arguments: { x: "hi" } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    assert.deepEqual(ok.content, [{ type: "text", text: "echo hi" }]);
    // The downstream's token was replaced by the client's own, so the SDK matched it to this call.
    assert.deepEqual(progress, [{ progress: 1, total: 1 }]);
    const failed = await alice.callTool({ name: "ds__t1", arguments: {} });
    assert.equal(failed.isError, true);
    assert.ok(!JSON.stringify(failed).includes("secret internals"));
  } finally {
    await alice.close();
    await bob.close();
  }
});
