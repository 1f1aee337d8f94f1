/**
 * The Streamable HTTP handler on a real `Deno.serve` listener with a real SDK client: API keys (401),
 * Host and Origin validation (403), the body cap (413), `/healthz`, methods, keyless loopback mode and
 * cancellation by disconnect.
 */
import assert from "node:assert/strict";
import { withSubject } from "../../authz.ts";
import { contextSubject, createHttpHandler, ERROR_TEXTS, parseApiKeys } from "../../mcp.ts";
import { FakeService } from "./fake_service.ts";
import { connectClient, loopbackHosts, rawPost, rawStatusWithHost, serveHandler } from "./http_helpers.ts";

const ALICE = "alice-key-0123456789abcdef";
const BOB = "bob-key-fedcba9876543210";
const KEYS = parseApiKeys(`alice=${ALICE}, bob=${BOB}`);

function keyed(service = new FakeService(), extra: Record<string, unknown> = {}) {
  return serveHandler(service, (port) => ({
    apiKeys: KEYS,
    allowedHosts: loopbackHosts(port),
    allowedOrigins: ["https://app.example.com"],
    ...extra,
  }));
}

Deno.test("with API keys: a real client lists, searches, describes and executes as the key's subject", async () => {
  const service = new FakeService();
  const served = keyed(service);
  try {
    const client = await connectClient(served.url, { authorization: `Bearer ${BOB}` });
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["search_api", "describe_api", "execute"]);
    const search = await client.callTool({ name: "search_api", arguments: { query: "record" } });
    assert.equal((search.structuredContent as { results: unknown[] }).results.length, 2);
    const describe = await client.callTool({ name: "describe_api", arguments: { name: "records.lookup" } });
    assert.equal(
      (describe.structuredContent as { signature: string }).signature.startsWith("records."),
      true,
    );
    const who = await client.callTool({ name: "execute", arguments: { source: "subject" } });
    assert.deepEqual(who.structuredContent, { result: { subject: "bob", context: "bob" } });
    const failed = await client.callTool({
      name: "execute",
      arguments: { source: "fail permission_denied" },
    });
    assert.equal(failed.isError, true);
    await client.close();
  } finally {
    await served.close();
  }
});

Deno.test("a missing or wrong API key is 401 with a Bearer challenge", async () => {
  const served = keyed();
  try {
    for (
      const auth of [
        undefined,
        "Bearer wrong-key-0123456789abc",
        `Basic ${btoa(`alice:${ALICE}`)}`,
        `Bearer ${ALICE}x`,
      ]
    ) {
      const res = await rawPost(served.url, auth === undefined ? {} : { authorization: auth });
      assert.equal(res.status, 401, `auth ${auth}`);
      assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="codemode"');
      assert.deepEqual((res.body as { error: { code: number } }).error.code, -32001);
    }
    const ok = await rawPost(served.url, { authorization: `bearer ${ALICE}` });
    assert.equal(ok.status, 200);
    await assert.rejects(() => connectClient(served.url, { authorization: "Bearer nope-nope-nope-nope" }));
  } finally {
    await served.close();
  }
});

Deno.test("a foreign Origin or Host is 403 before authentication", async () => {
  const served = keyed();
  const auth = { authorization: `Bearer ${ALICE}` };
  try {
    for (
      const origin of ["http://evil.example.com", "null", "https://app.example.com.evil.net", "file://x"]
    ) {
      const res = await rawPost(served.url, { ...auth, origin });
      assert.equal(res.status, 403, origin);
      assert.equal(res.headers.get("access-control-allow-origin"), null);
    }
    // No key and a foreign Origin: still 403 (the Origin check comes first).
    assert.equal((await rawPost(served.url, { origin: "http://evil.example.com" })).status, 403);
    for (const origin of ["https://app.example.com", served.origin, `http://localhost:${served.port}`]) {
      const res = await rawPost(served.url, { ...auth, origin });
      assert.equal(res.status, 200, origin);
      assert.equal(res.headers.get("access-control-allow-origin"), origin);
    }
    assert.equal(await rawStatusWithHost(served.port, "/mcp", "evil.example.com"), 403);
    assert.equal(await rawStatusWithHost(served.port, "/mcp", `127.0.0.1:${served.port + 1}`), 403);
    assert.equal(await rawStatusWithHost(served.port, "/mcp", `localhost:${served.port}`), 401);
  } finally {
    await served.close();
  }
});

Deno.test("healthz, unknown paths, methods and CORS preflight", async () => {
  const served = keyed();
  try {
    const health = await fetch(`${served.origin}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    const missing = await fetch(`${served.origin}/other`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    for (const method of ["GET", "DELETE", "PUT"]) {
      const res = await rawPost(served.url, { authorization: `Bearer ${ALICE}` }, "", method);
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get("allow"), "POST, OPTIONS");
    }
    const preflight = await fetch(served.url, {
      method: "OPTIONS",
      headers: { origin: "https://app.example.com", "access-control-request-method": "POST" },
    });
    await preflight.body?.cancel();
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "https://app.example.com");
    assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /authorization/);
  } finally {
    await served.close();
  }
});

Deno.test("an oversized body is 413; an oversized source is a resource-limit tool error", async () => {
  const served = keyed(new FakeService(), { maxBodyBytes: 200_000 });
  const auth = { authorization: `Bearer ${ALICE}` };
  try {
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "execute", arguments: { source: "x".repeat(300_000) } },
    });
    const res = await rawPost(served.url, { ...auth, "mcp-protocol-version": "2025-06-18" }, huge);
    assert.equal(res.status, 413);
    const client = await connectClient(served.url, auth);
    const r = await client.callTool({ name: "execute", arguments: { source: "y".repeat(70_000) } });
    assert.equal(r.isError, true);
    assert.deepEqual(r.content, [{ type: "text", text: ERROR_TEXTS.resource_limit }]);
    await client.close();
  } finally {
    await served.close();
  }
});

Deno.test("keyless loopback mode: anonymous local subject, Host still checked, remote peers refused", async () => {
  const service = new FakeService();
  const served = serveHandler(
    service,
    (port) => ({ allowedHosts: loopbackHosts(port), anonymousSubject: "dev" }),
  );
  try {
    const client = await connectClient(served.url);
    const r = await client.callTool({ name: "execute", arguments: { source: "subject" } });
    assert.deepEqual(r.structuredContent, { result: { subject: "dev", context: "dev" } });
    await client.close();
    assert.equal(await rawStatusWithHost(served.port, "/mcp", "evil.example.com"), 403);
    assert.equal(await rawStatusWithHost(served.port, "/mcp", `LOCALHOST:${served.port}`), 200);
    assert.equal((await rawPost(served.url, { origin: "http://evil.example.com" })).status, 403);
  } finally {
    await served.close();
  }
  const handler = createHttpHandler(service, { allowedHosts: ["localhost"] });
  const request = () =>
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        host: "localhost",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
  const remote = await handler(request(), {
    remoteAddr: { transport: "tcp", hostname: "192.0.2.7", port: 5000 },
  });
  assert.equal(remote.status, 403);
  await remote.body?.cancel();
  const local = await handler(request(), {
    remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 5000 },
  });
  assert.equal(local.status, 200);
  assert.deepEqual(await local.json(), { jsonrpc: "2.0", id: 1, result: {} });
});

Deno.test("handler options are validated", () => {
  const s = new FakeService();
  assert.throws(() => createHttpHandler(s), { code: "invalid_registration" });
  assert.throws(() => createHttpHandler(s, { allowedHosts: ["*"] }), { code: "invalid_registration" });
  assert.throws(() => createHttpHandler(s, { allowedHosts: ["localhost"], path: "mcp" }), {
    code: "invalid_registration",
  });
  assert.throws(() => createHttpHandler(s, { allowedHosts: ["localhost"], maxBodyBytes: 0 }), {
    code: "invalid_registration",
  });
  assert.throws(() => parseApiKeys("alice=short"), { code: "invalid_registration" });
  assert.throws(() => parseApiKeys(`alice=${ALICE},bob=${ALICE}`), /used by another subject/);
  assert.throws(() => parseApiKeys(`no-equals-sign`), /subject=key/);
  assert.throws(() => parseApiKeys(`bad subject=${ALICE}`), /subject must be/);
  // Errors never quote a key.
  try {
    parseApiKeys(`alice=${ALICE},bob=${ALICE}`);
  } catch (err) {
    assert.doesNotMatch(String(err), new RegExp(ALICE));
  }
  assert.deepEqual(parseApiKeys(""), []);
  // With keys, "*" accepts any Host.
  createHttpHandler(s, { apiKeys: KEYS, allowedHosts: ["*"] });
});

Deno.test("a client that disconnects cancels its execution", async () => {
  const service = new FakeService();
  const served = keyed(service);
  try {
    const ac = new AbortController();
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "execute", arguments: { source: "wait" } },
    });
    const pending = fetch(served.url, {
      method: "POST",
      signal: ac.signal,
      headers: {
        authorization: `Bearer ${ALICE}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body,
    });
    while (service.calls.length === 0) await new Promise((r) => setTimeout(r, 2));
    ac.abort();
    await assert.rejects(pending);
    const deadline = Date.now() + 5_000;
    while (service.aborts.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(service.aborts.length, 1);
  } finally {
    await served.close();
  }
});

Deno.test("stateless: concurrent clients with different keys stay separate", async () => {
  const served = keyed();
  try {
    const [a, b] = await Promise.all([
      connectClient(served.url, { authorization: `Bearer ${ALICE}` }),
      connectClient(served.url, { authorization: `Bearer ${BOB}` }),
    ]);
    const results = await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) => (i % 2 ? a : b).callTool({ name: "execute", arguments: { source: "subject" } }),
      ),
    );
    results.forEach((r, i) => {
      const id = i % 2 ? "alice" : "bob";
      assert.deepEqual(r.structuredContent, { result: { subject: id, context: id } });
    });
    await Promise.all([a.close(), b.close()]);
  } finally {
    await served.close();
  }
});

Deno.test("contextSubject() reads the subject the host's own middleware installed around the handler", async () => {
  const service = new FakeService();
  const ac = new AbortController();
  const late: { handler?: ReturnType<typeof createHttpHandler> } = {};
  // The host's middleware authenticates its own way (here: a header) and installs the subject.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    (req, info) => withSubject({ id: `mw-${req.headers.get("x-user")}` }, () => late.handler!(req, info)),
  );
  const port = server.addr.port;
  late.handler = createHttpHandler(service, {
    allowedHosts: loopbackHosts(port),
    resolver: contextSubject(),
  });
  try {
    const client = await connectClient(`http://127.0.0.1:${port}/mcp`, { "x-user": "carol" });
    const who = await client.callTool({ name: "execute", arguments: { source: "subject" } });
    assert.deepEqual(who.structuredContent, { result: { subject: "mw-carol", context: "mw-carol" } });
    await client.close();
  } finally {
    ac.abort();
    await server.finished;
  }
});
