import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  LATEST_PROTOCOL_VERSION,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
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
import { ClientKeys, HostCheck, OriginCheck } from "./auth.ts";
import { HttpEdge } from "./edge.ts";
import { classifyMessage } from "./streamable.ts";

const KEY = "streamable-key-0123456789abcdef";
const TOOLS = new Catalog([
  makeTool({ ref: toolRef("ds", "plain"), inputSchema: { type: "object" } }),
  makeTool({ ref: toolRef("ds", "chatty"), inputSchema: { type: "object" } }),
  makeTool({ ref: toolRef("ds", "wait"), inputSchema: { type: "object" } }),
]);

/** `plain` answers at once; `chatty` logs and reports progress first; `wait` runs until cancelled. */
class Surface {
  readonly cancelled: unknown[] = [];
  listTools(_client: Identity): Catalog {
    return TOOLS;
  }
  callTool(
    _client: Identity,
    name: string,
    args: JsonValue | undefined,
    options: CallOptions,
  ): Promise<Result> {
    const answer = makeResult({
      content: [{ type: "text", text: `${name} ${JSON.stringify(args ?? null)}` }],
    });
    if (name === "ds__plain") return Promise.resolve(answer);
    if (name === "ds__chatty") {
      options.notify?.({ method: "notifications/message", params: { level: "info", data: "working" } });
      options.notify?.({ method: "notifications/progress", params: { progressToken: "gw-1", progress: 1 } });
      return Promise.resolve(answer);
    }
    if (name === "ds__wait") {
      return new Promise((_resolve, reject) => {
        options.signal?.addEventListener("abort", () => {
          this.cancelled.push(options.signal?.reason);
          reject(new GatewayError("cancelled"));
        }, { once: true });
      });
    }
    return Promise.reject(new GatewayError("unknown_tool"));
  }
}

function makeEdge(surface = new Surface()): HttpEdge {
  return new HttpEdge({
    surface,
    settings: {
      keys: new ClientKeys([{ id: "alice", apiKey: KEY }]),
      hosts: new HostCheck(true),
      origins: new OriginCheck([]),
    },
    audit: () => Promise.resolve(),
  });
}

function post(body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Request {
  return new Request("http://127.0.0.1:8790/mcp", {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal,
    headers: {
      host: "127.0.0.1:8790",
      authorization: `Bearer ${KEY}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
  });
}

/** The JSON-RPC messages of an SSE body, in order. */
async function events(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  return text.split("\n\n").filter((e) => e.trim() !== "").map((e) => {
    const data = e.split("\n").find((l) => l.startsWith("data: "));
    assert.ok(data !== undefined, e);
    return JSON.parse(data.slice(6));
  });
}

Deno.test("streamable: messages are classified by the JSON-RPC rules", () => {
  const kinds = (m: unknown) => classifyMessage(m).kind;
  assert.equal(kinds({ jsonrpc: "2.0", id: 1, method: "ping" }), "request");
  assert.equal(kinds({ jsonrpc: "2.0", id: "a", method: "ping", params: {} }), "request");
  assert.equal(kinds({ jsonrpc: "2.0", method: "notifications/initialized" }), "notification");
  assert.equal(kinds({ jsonrpc: "2.0", id: 3, result: {} }), "response");
  assert.equal(kinds({ jsonrpc: "2.0", id: 3, error: { code: 1, message: "x" } }), "response");
  for (
    const bad of [
      { jsonrpc: "1.0", id: 1, method: "ping" },
      { id: 1, method: "ping" },
      { jsonrpc: "2.0", id: null, method: "ping" },
      { jsonrpc: "2.0", id: 1.5, method: "ping" },
      { jsonrpc: "2.0", id: { a: 1 }, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: 7 },
      { jsonrpc: "2.0", id: 1, method: "ping", params: [1] },
      { jsonrpc: "2.0", id: 1, result: {}, error: {} },
      { jsonrpc: "2.0", id: 1 },
      [],
      null,
      "ping",
    ]
  ) {
    assert.equal(kinds(bad), "invalid", JSON.stringify(bad));
  }
});

Deno.test("streamable: stateless initialize, version negotiation and the version header", async () => {
  const edge = makeEdge();
  const init = (version: string) => ({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  const known = await edge.handle(post(init("2025-06-18")));
  assert.equal(known.status, 200);
  // No session is issued: any replica can answer the next request.
  assert.equal(known.headers.get("mcp-session-id"), null);
  const body = await known.json();
  assert.equal(body.result.protocolVersion, "2025-06-18");
  assert.deepEqual(body.result.capabilities, { tools: {}, logging: {} });
  assert.equal(
    (await (await edge.handle(post(init("1999-01-01")))).json()).result.protocolVersion,
    LATEST_PROTOCOL_VERSION,
  );
  // A session id from elsewhere changes nothing.
  const listed = await edge.handle(
    post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": "from-another-replica" }),
  );
  assert.equal(listed.status, 200);
  assert.equal((await listed.json()).result.tools.length, 3);
  const badVersion = await edge.handle(
    post({ jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-protocol-version": "1999-01-01" }),
  );
  assert.equal(badVersion.status, 400);
  assert.ok(!(await badVersion.text()).includes("1999"), "client input is not echoed");
  const ping = await edge.handle(
    post({ jsonrpc: "2.0", id: "p", method: "ping" }, { "mcp-protocol-version": "2025-06-18" }),
  );
  assert.deepEqual(await ping.json(), { jsonrpc: "2.0", id: "p", result: {} });
});

Deno.test("streamable: notifications and responses are 202; other methods, params and headers", async () => {
  const edge = makeEdge();
  for (
    const message of [
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      { jsonrpc: "2.0", id: 9, result: {} },
    ]
  ) {
    const res = await edge.handle(post(message));
    assert.equal(res.status, 202, JSON.stringify(message));
    assert.equal(await res.text(), "");
  }
  const answer = async (message: unknown) => (await (await edge.handle(post(message))).json());
  assert.equal((await answer({ jsonrpc: "2.0", id: 1, method: "resources/list" })).error.code, -32601);
  assert.equal(
    (await answer({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 5 } })).error.code,
    -32602,
  );
  assert.equal((await answer({ jsonrpc: "2.0", id: 1, method: "tools/call" })).error.code, -32602);
  assert.equal(
    (await answer({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "ds__plain", arguments: [1] },
    }))
      .error.code,
    -32602,
  );
  assert.equal(
    (await answer({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { cursor: 3 } })).error.code,
    -32602,
  );
  assert.deepEqual(
    await answer({ jsonrpc: "2.0", id: 4, method: "logging/setLevel", params: { level: "debug" } }),
    { jsonrpc: "2.0", id: 4, result: {} },
  );
  assert.equal(
    (await answer({ jsonrpc: "2.0", id: 4, method: "logging/setLevel", params: { level: "loud" } })).error
      .code,
    -32602,
  );
  const unknown = await answer({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "ds__nope" } });
  assert.deepEqual(unknown, { jsonrpc: "2.0", id: 5, error: { code: -32602, message: "unknown tool" } });
  const batch = await edge.handle(post([{ jsonrpc: "2.0", id: 1, method: "ping" }]));
  assert.equal(batch.status, 400);
  assert.equal((await batch.json()).error.code, -32600);
  const invalid = await edge.handle(post({ jsonrpc: "2.0", id: null, method: "ping" }));
  assert.equal(invalid.status, 400);
  assert.equal((await invalid.json()).error.code, -32600);
  const noSse = await edge.handle(
    post({ jsonrpc: "2.0", id: 1, method: "ping" }, { accept: "application/json" }),
  );
  assert.equal(noSse.status, 406);
  await noSse.body?.cancel();
  const text = await edge.handle(
    post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "content-type": "text/plain" }),
  );
  assert.equal(text.status, 415);
  await text.body?.cancel();
  for (const method of ["GET", "DELETE", "PUT"]) {
    const res = await edge.handle(
      new Request("http://127.0.0.1:8790/mcp", {
        method,
        headers: { host: "127.0.0.1", authorization: `Bearer ${KEY}`, "mcp-session-id": "s" },
      }),
    );
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get("allow"), "POST, OPTIONS");
    await res.body?.cancel();
  }
});

Deno.test("streamable: a result alone is JSON; notifications first make an SSE stream", async () => {
  const edge = makeEdge();
  const plain = await edge.handle(
    post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ds__plain", arguments: { a: 1 } } }),
  );
  assert.equal(plain.headers.get("content-type"), "application/json");
  assert.deepEqual((await plain.json()).result.content, [{ type: "text", text: 'ds__plain {"a":1}' }]);

  const chatty = await edge.handle(
    post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "ds__chatty", _meta: { progressToken: "mine" } },
    }),
  );
  assert.equal(chatty.headers.get("content-type"), "text/event-stream");
  const sent = await events(chatty);
  assert.deepEqual(sent.map((m) => m.method ?? `result ${m.id}`), [
    "notifications/message",
    "notifications/progress",
    "result 2",
  ]);
  // The client's own progress token, not the downstream's.
  assert.equal((sent[1].params as { progressToken: string }).progressToken, "mine");
  // Without a token of its own the client gets no progress, and still its log line.
  const quiet = await edge.handle(
    post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "ds__chatty" } }),
  );
  assert.deepEqual((await events(quiet)).map((m) => m.method ?? "result"), [
    "notifications/message",
    "result",
  ]);
});

Deno.test("streamable: a client that hangs up cancels its call", async () => {
  const surface = new Surface();
  const edge = makeEdge(surface);
  const hangUp = new AbortController();
  const pending = edge.handle(
    post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ds__wait" } }, {}, hangUp.signal),
  );
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(surface.cancelled.length, 0);
  hangUp.abort();
  const res = await pending;
  await res.body?.cancel();
  assert.equal(surface.cancelled.length, 1);
  assert.equal((surface.cancelled[0] as DOMException).name, "AbortError");
});

Deno.test("streamable: the SDK client gets logging and progress during a call", async () => {
  const edge = makeEdge();
  const client = new Client({ name: "t", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8790/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${KEY}` } },
      fetch: (url, init) => edge.handle(new Request(url, init)),
    }),
  );
  try {
    const logs: unknown[] = [];
    const progress: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    const result = await client.callTool({ name: "ds__chatty", arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    assert.deepEqual(result.content, [{ type: "text", text: "ds__chatty {}" }]);
    assert.deepEqual(logs, ["working"]);
    assert.deepEqual(progress, [{ progress: 1 }]);
    await client.setLoggingLevel("warning");
    assert.deepEqual(await client.ping(), {});
  } finally {
    await client.close();
  }
});
