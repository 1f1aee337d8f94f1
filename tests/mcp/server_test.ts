/**
 * The adapter through a real SDK client over the SDK's in-memory transport: the tool list, results,
 * every error code's fixed text, bad arguments, unknown tools and the resolvers.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type Subject, withSubject } from "../../authz.ts";
import { ERROR_CODES } from "../../mod.ts";
import {
  BAD_ARGUMENT_TEXTS,
  contextSubject,
  createMcpServer,
  ERROR_TEXTS,
  type Service,
  staticSubject,
  type SubjectResolver,
  UNKNOWN_TOOL_TEXT,
} from "../../mcp.ts";
import { FAKE_DESCRIPTIONS, FakeService } from "./fake_service.ts";

interface Connected {
  client: Client;
  service: FakeService;
  close(): Promise<void>;
}

async function connect(
  resolver: SubjectResolver = staticSubject({ id: "tester" }),
  service: FakeService = new FakeService(),
): Promise<Connected> {
  const server = createMcpServer(service, resolver);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    service,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

type CallResult = Awaited<ReturnType<Client["callTool"]>>;

function text(result: CallResult): string {
  const content = result.content as { type: string; text: string }[];
  assert.equal(content.length, 1);
  assert.equal(content[0].type, "text");
  return content[0].text;
}

function assertError(result: CallResult, expected: string): void {
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent, undefined);
  assert.equal(text(result), expected);
}

Deno.test("tools/list has exactly the three tools with one required string and output schemas", async () => {
  const c = await connect();
  try {
    const { tools } = await c.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["search_api", "describe_api", "execute"]);
    const args = { search_api: "query", describe_api: "name", execute: "source" } as const;
    for (const tool of tools) {
      const arg = args[tool.name as keyof typeof args];
      assert.deepEqual(tool.inputSchema.required, [arg]);
      assert.equal(tool.inputSchema.additionalProperties, false);
      assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}), [arg]);
      assert.equal((tool.inputSchema.properties?.[arg] as { type: string }).type, "string");
      assert.equal(tool.outputSchema?.type, "object");
      assert.equal(tool.outputSchema?.additionalProperties, false);
      assert.ok((tool.description ?? "").length > 100, `${tool.name} has a teaching description`);
    }
    const execute = tools[2].description ?? "";
    for (const must of ["def main():", "keyword arguments only", "json", "math", "sum(", "while", "load()"]) {
      assert.ok(execute.includes(must), `execute description mentions ${must}`);
    }
    // The service's limits are quoted.
    assert.match(execute, /65,536 bytes of source/);
    assert.deepEqual(tools[2].outputSchema?.required, ["result"]);
    assert.deepEqual(tools[0].outputSchema?.required, ["results", "truncated"]);
  } finally {
    await c.close();
  }
});

Deno.test("search_api, describe_api and execute return structured content and one JSON text mirror", async () => {
  const c = await connect();
  try {
    const search = await c.client.callTool({ name: "search_api", arguments: { query: "stored record" } });
    assert.equal(search.isError, undefined);
    assert.deepEqual(search.structuredContent, {
      results: [{
        name: "records.lookup",
        signature: "records.lookup(*, key: str, limit: int | None)",
        summary: "Look up one stored record by key",
      }],
      truncated: false,
    });
    assert.deepEqual(JSON.parse(text(search)), search.structuredContent);

    const describe = await c.client.callTool({ name: "describe_api", arguments: { name: "records.status" } });
    assert.deepEqual(describe.structuredContent, FAKE_DESCRIPTIONS[1]);
    assert.deepEqual(JSON.parse(text(describe)), FAKE_DESCRIPTIONS[1]);

    for (const value of [null, 42, 1.5, "héllo", [1, [2, "x"]], { a: { b: [true, null] } }]) {
      const r = await c.client.callTool({
        name: "execute",
        arguments: { source: `json ${JSON.stringify(value)}` },
      });
      assert.equal(r.isError, undefined);
      assert.deepEqual(r.structuredContent, { result: value });
      assert.deepEqual(JSON.parse(text(r)), { result: value });
    }
    assert.deepEqual(c.service.calls.map((x) => x.op), [
      "search",
      "describe",
      "execute",
      "execute",
      "execute",
      "execute",
      "execute",
      "execute",
    ]);
  } finally {
    await c.close();
  }
});

Deno.test("every error code is one fixed text; only four codes carry a detail", async () => {
  const c = await connect();
  try {
    for (const code of ERROR_CODES) {
      const plain = await c.client.callTool({ name: "execute", arguments: { source: `fail ${code}` } });
      assertError(plain, ERROR_TEXTS[code]);
      const detailed = await c.client.callTool({
        name: "execute",
        arguments: { source: `fail ${code} name 'x' is not defined` },
      });
      const withDetail = ["invalid_program", "invalid_arguments", "resource_limit", "capability_failure"]
        .includes(code);
      assertError(detailed, withDetail ? `${ERROR_TEXTS[code]}: name 'x' is not defined` : ERROR_TEXTS[code]);
      // Host-facing messages and causes never leak.
      assert.doesNotMatch(text(detailed), /host-only|secret/);
    }
    assert.equal(new Set(Object.values(ERROR_TEXTS)).size, ERROR_CODES.length, "texts are distinct");
    assertError(
      await c.client.callTool({ name: "execute", arguments: { source: "throw" } }),
      "internal error",
    );
    assertError(
      await c.client.callTool({ name: "describe_api", arguments: { name: "records.nope" } }),
      "capability not found",
    );
    assertError(
      await c.client.callTool({ name: "search_api", arguments: { query: "x".repeat(300) } }),
      "resource limit exceeded",
    );
  } finally {
    await c.close();
  }
});

Deno.test("details are cleaned of control characters and bounded", async () => {
  const c = await connect();
  try {
    const r = await c.client.callTool({
      name: "execute",
      arguments: { source: `fail invalid_program bad\u0007 thing\u001b[31m ${"y".repeat(5000)}` },
    });
    const t = text(r);
    assert.ok(t.startsWith("invalid program: bad thing[31m yyy"));
    assert.ok(t.length <= "invalid program: ".length + 2048);
    assert.ok(t.endsWith("…"));
  } finally {
    await c.close();
  }
});

Deno.test("bad tool arguments are a fixed tool error and never reach the service", async () => {
  const c = await connect();
  try {
    const bad: [string, Record<string, unknown> | undefined][] = [
      ["search_api", {}],
      ["search_api", { query: 5 }],
      ["search_api", { query: "a", extra: "b" }],
      ["describe_api", { query: "records.lookup" }],
      ["describe_api", { name: null }],
      ["execute", { source: ["def main():"] }],
      ["execute", undefined],
    ];
    for (const [name, args] of bad) {
      const r = await c.client.callTool({ name, arguments: args });
      assertError(r, BAD_ARGUMENT_TEXTS[name as keyof typeof BAD_ARGUMENT_TEXTS]);
    }
    assert.equal(c.service.calls.length, 0);
  } finally {
    await c.close();
  }
});

Deno.test("an unknown tool is a JSON-RPC invalid-params error", async () => {
  const c = await connect();
  try {
    await assert.rejects(
      () => c.client.callTool({ name: "run_python", arguments: { source: "x" } }),
      (err: Error & { code?: number }) => {
        assert.equal(err.code, -32602);
        // The client adds "MCP error -32602: " once; the server's message must not carry it too.
        assert.equal(err.message, `MCP error -32602: ${UNKNOWN_TOOL_TEXT}`);
        return true;
      },
    );
    assert.equal(c.service.calls.length, 0);
  } finally {
    await c.close();
  }
});

Deno.test("the resolver runs for every valid call; failures and empty ids are unauthenticated", async () => {
  const seen: unknown[] = [];
  const results: (Subject | undefined | Error)[] = [
    { id: "alice" },
    { id: "" },
    undefined,
    new Error("token abc123 expired"),
  ];
  const resolver: SubjectResolver = {
    resolve(ctx) {
      seen.push(ctx.authInfo);
      const next = results.shift();
      if (next instanceof Error) throw next;
      return next;
    },
  };
  const c = await connect(resolver);
  try {
    const ok = await c.client.callTool({ name: "execute", arguments: { source: "subject" } });
    assert.deepEqual(ok.structuredContent, { result: { subject: "alice", context: "alice" } });
    for (let i = 0; i < 3; i++) {
      assertError(
        await c.client.callTool({ name: "search_api", arguments: { query: "x" } }),
        "unauthenticated",
      );
    }
    // Invalid calls do not run the resolver.
    await c.client.callTool({ name: "search_api", arguments: {} });
    assert.equal(seen.length, 4);
    assert.equal(c.service.calls.length, 1);
  } finally {
    await c.close();
  }
});

Deno.test("discovery runs with the resolved subject in context", async () => {
  const c = await connect(staticSubject({ id: "bob" }));
  try {
    await c.client.callTool({ name: "search_api", arguments: { query: "record" } });
    await c.client.callTool({ name: "describe_api", arguments: { name: "records.lookup" } });
    assert.deepEqual(c.service.calls.map((x) => x.contextSubject?.id), ["bob", "bob"]);
  } finally {
    await c.close();
  }
});

Deno.test("contextSubject reads the subject installed around the server's message handling", async () => {
  const service = new FakeService();
  const server = createMcpServer(service, contextSubject());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // Install a subject around every message the server receives, as authentication middleware would.
  const deliver = serverSide.onmessage!;
  serverSide.onmessage = (message, extra) => withSubject({ id: "carol" }, () => deliver(message, extra));
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    const r = await client.callTool({ name: "execute", arguments: { source: "subject" } });
    assert.deepEqual(r.structuredContent, { result: { subject: "carol", context: "carol" } });
  } finally {
    await client.close();
    await server.close();
  }
  // Without a subject in context the call is unauthenticated.
  const c = await connect(contextSubject());
  try {
    assertError(await c.client.callTool({ name: "execute", arguments: { source: "x" } }), "unauthenticated");
  } finally {
    await c.close();
  }
});

Deno.test("a cancelled call aborts the service's signal", async () => {
  const c = await connect();
  try {
    const ac = new AbortController();
    const pending = c.client.callTool({ name: "execute", arguments: { source: "wait" } }, undefined, {
      signal: ac.signal,
    });
    while (c.service.calls.length === 0) await new Promise((r) => setTimeout(r, 1));
    ac.abort(new Error("user gave up"));
    await assert.rejects(pending);
    while (c.service.aborts.length === 0) await new Promise((r) => setTimeout(r, 1));
    assert.equal(c.service.aborts.length, 1);
  } finally {
    await c.close();
  }
});

Deno.test("construction rejects a missing service or resolver", () => {
  assert.throws(() => createMcpServer(null as unknown as Service, staticSubject({ id: "x" })), {
    code: "invalid_registration",
  });
  assert.throws(() => createMcpServer(new FakeService(), {} as SubjectResolver), {
    code: "invalid_registration",
  });
  assert.throws(() => staticSubject({ id: "" }), { code: "invalid_registration" });
});
