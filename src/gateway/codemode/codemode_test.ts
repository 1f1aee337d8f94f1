import assert from "node:assert/strict";
import { allowAll } from "../../../authz.ts";
import { Builder, t } from "../../core/mod.ts";
import type { CodeModeError } from "../../errors.ts";
import { loadConfig } from "../config/mod.ts";
import { Catalog, GatewayError, type JsonObject, makeResult, makeTool, toolRef } from "../domain/mod.ts";
import {
  clientCapabilities,
  CodeModeService,
  fromDownstream,
  identifierFor,
  mapInput,
  mapOutput,
  mapSchema,
  nameTools,
  nativeFailure,
  safeDetail,
  toDownstream,
} from "./mod.ts";

const notation = (schema: unknown) => {
  const m = mapSchema(schema as never);
  return JSON.stringify(m.type);
};

Deno.test("codemode names: identifier-safe, keywords and leading digits handled", () => {
  assert.equal(identifierFor("get-env"), "get_env");
  assert.equal(identifierFor("read.file"), "read_file");
  assert.equal(identifierFor("2fa-code"), "_2fa_code");
  assert.equal(identifierFor(""), "_");
  assert.equal(identifierFor("from"), "from_");
  assert.equal(identifierFor("lambda"), "lambda_");
  assert.equal(identifierFor("héllo"), "h_llo");
  assert.equal(identifierFor("ok_name"), "ok_name");
});

Deno.test("codemode names: collisions and reserved roots are refused with a diagnostic naming both", () => {
  const tools = [
    { downstream: "everything", tool: "get-env" },
    { downstream: "everything", tool: "get_env" },
    { downstream: "everything", tool: "echo" },
    { downstream: "json", tool: "encode" },
    { downstream: "my-files", tool: "read" },
    { downstream: "my_files", tool: "read" },
  ];
  const label = (x: { downstream: string; tool: string }) => `${x.downstream}__${x.tool}`;
  const { named, diagnostics } = nameTools(tools, (x) => x, label);
  assert.deepEqual(named.map((n) => n.capability), ["everything.echo"]);
  assert.equal(diagnostics.length, 5);
  assert.ok(diagnostics.some((d) => d.includes("everything__get-env") && d.includes("everything__get_env")));
  assert.ok(
    diagnostics.some((d) => d.startsWith("tool everything__get_env") && d.includes("everything__get-env")),
  );
  assert.ok(diagnostics.some((d) => d.includes("json__encode") && d.includes("reserved")));
  assert.ok(diagnostics.some((d) => d.startsWith("tool my-files__read") && d.includes("my_files__read")));
});

Deno.test("codemode schema: exact kinds", () => {
  assert.equal(notation({ type: "string" }), '{"kind":"str"}');
  assert.equal(notation({ type: "string", enum: ["a", "b"] }), '{"kind":"str"}');
  assert.equal(notation({ enum: ["a", "b"] }), '{"kind":"str"}');
  assert.equal(notation({ type: "integer" }), '{"kind":"int"}');
  assert.equal(notation({ type: "number" }), '{"kind":"float"}');
  assert.equal(notation({ type: "boolean" }), '{"kind":"bool"}');
  assert.equal(notation({ type: "array", items: { type: "string" } }), '{"kind":"list","of":{"kind":"str"}}');
  assert.equal(notation({ type: ["string", "null"] }), '{"kind":"nullable","of":{"kind":"str"}}');
  assert.equal(
    notation({ anyOf: [{ type: "integer" }, { type: "null" }] }),
    '{"kind":"nullable","of":{"kind":"int"}}',
  );
  assert.equal(
    notation({ type: "object", additionalProperties: { type: "number" } }),
    '{"kind":"dict","of":{"kind":"float"}}',
  );
  assert.equal(
    notation({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "integer" } },
      required: ["a"],
    }),
    '{"kind":"struct","fields":[{"name":"a","type":{"kind":"str"}},{"name":"b","type":{"kind":"optional","of":{"kind":"int"}}}]}',
  );
  assert.equal(notation({ const: 3 }), '{"kind":"int"}');
});

Deno.test("codemode schema: what cannot be typed exactly is json, never dropped", () => {
  for (
    const s of [
      {},
      true,
      { anyOf: [{ type: "string" }, { type: "integer" }] },
      { oneOf: [{ type: "string" }, { type: "object" }] },
      { allOf: [{ type: "string" }] },
      { type: ["string", "integer"] },
      { type: "object" },
      { type: "object", properties: { a: { type: "string" } }, additionalProperties: true },
      { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } },
      { $ref: "#/definitions/x" },
      { enum: [1, "a"] },
      { type: "null" },
    ]
  ) {
    assert.equal(notation(s), '{"kind":"json"}', JSON.stringify(s));
  }
  assert.equal(notation({ type: "array" }), '{"kind":"list","of":{"kind":"json"}}');
  // Nesting past the bound is json too.
  let deep: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 40; i++) deep = { type: "array", items: deep };
  assert.match(notation(deep), /"kind":"json"/);
});

Deno.test("codemode schema: inputs keep defaults and enums in notes; renamed keys go back and forth", () => {
  const input = mapInput({
    type: "object",
    properties: {
      "message-type": { type: "string", enum: ["error", "success"], description: "Kind\nof message" },
      count: { type: "number", default: 3 },
      nested: { type: "object", properties: { "x-id": { type: "string" } }, required: ["x-id"] },
    },
    required: ["message-type"],
  });
  assert.ok(typeof input !== "string");
  assert.deepEqual(input.type.fields.map((f) => [f.name, f.type.kind]), [
    ["message_type", "str"],
    ["count", "optional"],
    ["nested", "optional"],
  ]);
  assert.deepEqual(input.notes, [
    { name: "message_type", text: '(one of "error", "success") Kind of message' },
    { name: "count", text: "(default 3)" },
  ]);
  const wire = toDownstream({ message_type: "error", nested: { x_id: "7" } }, input.rename);
  assert.deepEqual(wire, { "message-type": "error", nested: { "x-id": "7" } });
  assert.equal(
    mapInput({ type: "object", properties: { "a-b": {}, a_b: {} } }).toString().includes("a_b"),
    true,
  );

  const out = mapOutput({
    type: "object",
    properties: { "total-count": { type: "integer" }, items: { type: "array", items: { type: "string" } } },
    required: ["total-count"],
  });
  assert.ok(out !== undefined);
  assert.deepEqual(fromDownstream({ "total-count": 2, items: ["a"], extra: 1 }, out.rename), {
    total_count: 2,
    items: ["a"],
  });
  assert.equal(mapOutput(undefined), undefined);
  assert.equal(mapOutput({ type: "object" }), undefined);
});

Deno.test("codemode: safe details are one printable line of at most 256 bytes", () => {
  assert.equal(safeDetail("bad\nvalue\u0007 here"), "bad value here");
  assert.equal(safeDetail("  \n "), undefined);
  const long = safeDetail("é".repeat(400))!;
  assert.ok(new TextEncoder().encode(long).length <= 256 && long.endsWith("..."));
});

Deno.test("codemode: gateway failures are classified with fixed texts; cancellation keeps its reason", () => {
  const live = new AbortController().signal;
  const cases: [GatewayError, string, string | undefined][] = [
    [new GatewayError("breaker_open"), "capability_failure", "the tool is temporarily unavailable"],
    [new GatewayError("timeout"), "capability_failure", "the tool call timed out"],
    [
      new GatewayError("downstream_unavailable", "pipe broke at /secret/path"),
      "capability_failure",
      "the tool's server is unavailable",
    ],
    [
      new GatewayError("downstream_error", "x", { detail: "no\nsuch id" }),
      "capability_failure",
      "the tool's server reported an error: no such id",
    ],
    [new GatewayError("unknown_tool"), "permission_denied", undefined],
    [new GatewayError("internal", "boom"), "internal", undefined],
  ];
  for (const [err, code, detail] of cases) {
    const out = nativeFailure("a.b", err, live) as CodeModeError;
    assert.equal(out.code, code, err.code);
    assert.equal(out.detail, detail, err.code);
    assert.ok(!out.message.includes("/secret/path"));
  }
  const ac = new AbortController();
  const reason = new DOMException("gone", "AbortError");
  ac.abort(reason);
  assert.equal(nativeFailure("a.b", new GatewayError("cancelled"), ac.signal), reason);
});

Deno.test("codemode: the json type round-trips through binding, the sandbox codecs and describe", async () => {
  for (const executor of ["inline", "worker"] as const) {
    const builder = new Builder({ authorizer: allowAll(), executor });
    builder.register({
      name: "data.echo",
      summary: "Echo any JSON value",
      input: t.struct({ value: t.json(), tag: t.optional(t.json()) }),
      output: t.struct({ value: t.json(), kinds: t.list(t.str()) }),
      handler: ({ value }) => ({
        value,
        kinds: [value === null ? "null" : Array.isArray(value) ? "array" : typeof value],
      }),
    });
    const server = await builder.build();
    try {
      assert.equal(server.describe("data.echo").signature, "data.echo(*, value: json, tag: json | None)");
      assert.deepEqual(server.describe("data.echo").output, [
        { name: "value", type: "json", required: true },
        { name: "kinds", type: "list[str]", required: true },
      ]);
      const out = await server.execute(
        { id: "u" },
        `def main():
    a = data.echo(value={"n": 1, "f": 2.5, "s": "x", "l": [None, True, [1]], "d": {}})
    b = data.echo(value=None)
    c = data.echo(value=7)
    return [a, b, c, type(a["value"]["f"]), type(c["value"])]
`,
      );
      assert.deepEqual(out, [
        { value: { n: 1, f: 2.5, s: "x", l: [null, true, [1]], d: {} }, kinds: ["object"] },
        { value: null, kinds: ["null"] },
        { value: 7, kinds: ["number"] },
        "float",
        "int",
      ]);
      // Values that are not JSON are refused as invalid arguments, never passed on.
      for (const bad of ["lambda x: x", "{1: 2}", 'float("nan")']) {
        await assert.rejects(
          server.execute({ id: "u" }, `def main():\n    return data.echo(value=${bad})\n`),
          (e: CodeModeError) => e.code === "invalid_arguments",
          `${executor}: ${bad}`,
        );
      }
    } finally {
      await server.close();
    }
  }
});

Deno.test("codemode capabilities: each tool maps, isError is a capability failure with its text", async () => {
  const tools = [
    makeTool({
      ref: toolRef("svc", "get-thing"),
      description: "Get a thing.\nMore words.",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    }),
    makeTool({
      ref: toolRef("svc", "stats"),
      description: "Stats",
      inputSchema: { type: "object", properties: {} },
      outputSchema: { type: "object", properties: { total: { type: "integer" } }, required: ["total"] },
    }),
  ];
  const seen: unknown[] = [];
  const caps = clientCapabilities(tools, (tool, args) => {
    seen.push([tool.name, args]);
    if (tool.name === "svc__stats") {
      return Promise.resolve(makeResult({ content: [], structuredContent: { total: 4, hidden: "x" } }));
    }
    if (args.id === "bad") {
      return Promise.resolve(
        makeResult({ content: [{ type: "text", text: "no such\nthing" }], isError: true }),
      );
    }
    return Promise.resolve(makeResult({ content: [{ type: "text", text: `thing ${args.id}` }] }));
  });
  assert.deepEqual(caps.diagnostics, []);
  const builder = new Builder({ authorizer: allowAll(), executor: "inline" });
  for (const d of caps.definitions) builder.register(d);
  const server = await builder.build();
  try {
    assert.equal(server.describe("svc.get_thing").summary, "Get a thing.");
    const out = await server.execute(
      { id: "u" },
      'def main():\n    return [svc.get_thing(id="a")["text"], svc.stats()]\n',
    );
    assert.deepEqual(out, ["thing a", { total: 4 }]);
    await assert.rejects(
      server.execute({ id: "u" }, 'def main():\n    return svc.get_thing(id="bad")\n'),
      (e: CodeModeError) => e.code === "capability_failure" && e.detail === "svc.get_thing: no such thing",
    );
    assert.deepEqual(seen[0], ["svc__get-thing", { id: "a" }]);
  } finally {
    await server.close();
  }
});

Deno.test("codemode config: mode, per-client mode and limits are validated with their paths", () => {
  const env = (n: string) => (n === "K1" || n === "K2" ? `key-${n}-0123456789abcdef` : undefined);
  const good = loadConfig(
    `mode: codemode
codemode: { max_execution_time: 2000, max_native_calls: 20 }
clients:
  - { id: a, api_key_env: K1 }
  - { id: b, api_key_env: K2, mode: both }
downstreams: {}
`,
    env,
  );
  assert.ok(good.ok);
  assert.equal(good.config.mode, "codemode");
  assert.deepEqual(good.config.codemode, { maxExecutionTime: 2000, maxNativeCalls: 20 });
  assert.deepEqual(good.config.clients.map((c) => c.mode), [undefined, "both"]);
  const dflt = loadConfig("clients: []\ndownstreams: {}\n", env);
  assert.ok(dflt.ok && dflt.config.mode === "passthrough" && Object.keys(dflt.config.codemode).length === 0);

  const bad = loadConfig(
    `mode: magic
codemode: { max_execution_time: fast, max_int_bits: 5, maxNativeCalls: 3, max_native_calls: -1 }
clients:
  - { id: a, api_key_env: K1, mode: 7 }
downstreams: {}
`,
    env,
  );
  assert.ok(!bad.ok);
  const paths = bad.problems.map((p) => `${p.path}: ${p.message}`);
  assert.equal(paths.length, 6, paths.join("\n"));
  for (
    const path of ["mode", "codemode.max_execution_time", "codemode.max_int_bits", "codemode.maxNativeCalls"]
  ) {
    assert.ok(paths.some((p) => p.startsWith(`${path}:`)), `${path} in ${paths.join("\n")}`);
  }
  assert.ok(paths.some((p) => p.includes("clients[0].mode")), paths.join("\n"));

  const authz = loadConfig(
    "authz: { rego: { policy: p.wasm, decision: data.a.allow } }\nclients: []\ndownstreams: {}\n",
    env,
  );
  assert.ok(authz.ok);
  assert.deepEqual(authz.config.authz, { rego: { policy: "p.wasm", decision: "data.a.allow" } });
  const badAuthz = loadConfig(
    "authz: { rego: { policy: 3, decision: input.allow, extra: 1 }, opa: {} }\nclients: []\ndownstreams: {}\n",
    env,
  );
  assert.ok(!badAuthz.ok);
  assert.deepEqual(badAuthz.problems.map((p) => p.path).sort(), [
    "authz.opa",
    "authz.rego.decision",
    "authz.rego.extra",
    "authz.rego.policy",
  ]);
});

Deno.test("codemode service: one server per client, rebuilt when stale; ids and redaction around execute", async () => {
  const tools = {
    alice: [makeTool({ ref: toolRef("svc", "echo"), description: "Echo", inputSchema: echoSchema() })],
    bob: [] as ReturnType<typeof makeTool>[],
  };
  let version = {};
  const calls: [string, string, string][] = [];
  const service = new CodeModeService({
    listTools: (id) => new Catalog(tools[id as "alice" | "bob"] ?? []),
    versions: () => [version],
    callTool: (client, name, args, { executionId }) => {
      calls.push([client, name, executionId]);
      return Promise.resolve(makeResult({ content: [{ type: "text", text: String(args.text) }] }));
    },
    // Stands in for the gateway's redactor: the whole secret is only ever seen in the final value.
    redact: (v) => JSON.parse(JSON.stringify(v).replaceAll("s3cr3t-token", "[REDACTED]")),
    log: () => {},
  }, { sandbox: "inline" });
  try {
    const a1 = await service.serverFor("alice");
    assert.equal(await service.serverFor("alice"), a1, "cached while nothing changed");
    assert.notEqual(await service.serverFor("bob"), a1, "never shared across clients");
    assert.equal(a1.describe("svc.echo").name, "svc.echo");
    const out = await service.execute(
      "alice",
      'def main():\n    a = svc.echo(text="s3cr3t")["text"]\n    b = svc.echo(text="-token")["text"]\n    return a + b\n',
    );
    assert.equal(out.value, "[REDACTED]", "a secret put together in the program leaves redacted");
    assert.deepEqual(calls.map((c) => c.slice(0, 2)), [["alice", "svc__echo"], ["alice", "svc__echo"]]);
    assert.ok(calls.every((c) => c[2] === out.executionId));
    version = {};
    const a2 = await service.serverFor("alice");
    assert.notEqual(a2, a1, "rebuilt once the catalog or policy changed");
  } finally {
    await service.close();
  }
});

function echoSchema(): JsonObject {
  return { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
}
