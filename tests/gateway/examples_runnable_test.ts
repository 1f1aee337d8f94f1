/**
 * The examples a model is shown come from the catalog it has, and they run. On the library: seeded
 * random non-demo catalogs (every input type, read and write verbs, hints or none) whose examples are
 * run through `execute` — the call and the whole program — and must never fail as an invalid program, a
 * missing name or invalid arguments; their searches find something and their name describes; the MCP
 * server quotes them (never the demo's `crm.customer`); an empty catalog shows a template. On the
 * gateway: clients with different visible tools are listed different examples, each naming only tools
 * that client may call, and each example program runs through that client's `execute`; and over 150
 * random downstream tool schemas (enums, defaults, bounds, keyword and dashed names) the example binds and
 * its one downstream call carries arguments the tool's own schema accepts.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Builder, CapabilityError, isCodeModeError, type StructSchema, t } from "../../mod.ts";
import type { TypeSchema } from "../../src/schema.ts";
import {
  catalogExamples,
  createMcpServer,
  executeDescription,
  staticSubject,
  TEMPLATE_EXAMPLES,
} from "../../mcp.ts";
import { allowAll } from "../../authz.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import {
  type JsonObject,
  type JsonValue,
  makeResult,
  makeTool,
  toolRef,
} from "../../src/gateway/domain/mod.ts";
import { clientCapabilities, exampleCapabilities } from "../../src/gateway/codemode/mod.ts";
import {
  connect,
  everythingDownstream,
  loadConfig,
  memoryDownstream,
  prefetchServers,
  randomKey,
  START_TIMEOUT_MS,
  text,
  waitFor,
} from "./_helpers.ts";

/** The failures an example must never produce: the program, the name or the arguments are wrong. */
const WRONG_EXAMPLE = new Set(["invalid_program", "not_found", "invalid_arguments"]);

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const NAMESPACES = ["billing", "tickets", "geo", "notes", "files", "mail", "users", "inventory", "reports"];
const VERBS = [
  "get",
  "list",
  "search",
  "delete",
  "create",
  "update",
  "send",
  "lookup",
  "fetchThing",
  "archive",
  "run",
  "describe",
];
const NOUNS = ["item", "items", "user", "record", "page", "event", "invoice", "v2", "by_date", "all"];
const FIELDS = [
  "id",
  "customer_id",
  "query",
  "limit",
  "email",
  "url",
  "path",
  "since",
  "amount",
  "lat",
  "lng",
  "include_archived",
  "tags",
  "filters",
  "options",
  "payload",
  "year",
  "message",
  "currency",
  "flag",
];

function randomType(r: () => number, depth: number): TypeSchema {
  const scalars = [t.str(), t.int(), t.float(), t.bool()];
  const x = r();
  if (depth > 2 || x < 0.55) return scalars[Math.floor(r() * scalars.length)];
  if (x < 0.65) return t.json();
  if (x < 0.75) return t.list(randomType(r, depth + 1));
  if (x < 0.82) return t.dict(randomType(r, depth + 1));
  if (x < 0.9) return t.nullable(randomType(r, depth + 1));
  return t.struct(randomShape(r, depth + 1, 3));
}

function randomShape(r: () => number, depth: number, most: number): Record<string, TypeSchema> {
  const shape: Record<string, TypeSchema> = {};
  const n = Math.floor(r() * (most + 1));
  for (let i = 0; i < n; i++) {
    const name = FIELDS[Math.floor(r() * FIELDS.length)];
    const type = randomType(r, depth);
    shape[name] = r() < 0.3 ? t.optional(type) : type;
  }
  return shape;
}

/** A value of an output type (what a well-behaved handler returns). */
function valueOf(schema: TypeSchema): unknown {
  switch (schema.kind) {
    case "str":
      return "s";
    case "int":
      return 1;
    case "float":
      return 1.5;
    case "bool":
      return true;
    case "list":
      return [valueOf(schema.of)];
    case "dict":
      return { k: valueOf(schema.of) };
    case "nullable":
    case "json":
      return null;
    case "optional":
      return valueOf(schema.of);
    case "struct":
      return Object.fromEntries(
        schema.fields.filter((f) => f.type.kind !== "optional").map((f) => [f.name, valueOf(f.type)]),
      );
  }
}

/** A seeded catalog of 1-8 capabilities; some handlers fail (a missing record), the rest answer. */
function randomCatalog(seed: number): Builder {
  const r = rng(seed);
  const builder = new Builder({ authorizer: allowAll(), executor: "inline" });
  const names = new Set<string>();
  const count = 1 + Math.floor(r() * 8);
  for (let i = 0; names.size < count && i < 100; i++) {
    const ns = NAMESPACES[Math.floor(r() * NAMESPACES.length)];
    const verb = VERBS[Math.floor(r() * VERBS.length)];
    const noun = NOUNS[Math.floor(r() * NOUNS.length)];
    const name = r() < 0.3 ? `${ns}.${verb}` : `${ns}.${noun}.${verb}`;
    // A name may not be a prefix namespace of another.
    if ([...names].some((n) => n === name || n.startsWith(`${name}.`) || name.startsWith(`${n}.`))) continue;
    names.add(name);
    const output = t.struct(randomShape(r, 1, 3)) as StructSchema;
    const fails = r() < 0.3;
    builder.register({
      name,
      summary: `The ${verb} operation on ${noun}`,
      input: t.struct(randomShape(r, 0, 4)),
      output,
      handler: () => {
        if (fails) throw new CapabilityError("no such record");
        return valueOf(output) as never;
      },
    });
  }
  return builder;
}

async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return "ok";
  } catch (err) {
    assert.ok(isCodeModeError(err), `a classified error, got ${err}`);
    return err.code;
  }
}

Deno.test("library: examples drawn from 120 random non-demo catalogs bind, run and are found", async () => {
  const codes = new Map<string, number>();
  for (let seed = 1; seed <= 120; seed++) {
    const server = await randomCatalog(seed).build();
    try {
      const examples = catalogExamples(server.capabilities());
      assert.equal(examples.template, false);
      const names = server.capabilities().map((c) => c.name);
      assert.ok(names.includes(examples.describe), `seed ${seed}: ${examples.describe} in ${names}`);
      assert.ok(examples.call.startsWith(`${examples.describe}(`), examples.call);
      assert.equal(server.describe(examples.describe).name, examples.describe);
      for (const q of examples.searches) {
        assert.ok(server.search(q).results.length > 0, `seed ${seed}: search "${q}" finds something`);
      }
      for (const source of [`def main():\n    return ${examples.call}\n`, `${examples.program}\n`]) {
        const code = await outcome(() => server.execute({ id: "u" }, source));
        codes.set(code, (codes.get(code) ?? 0) + 1);
        assert.ok(!WRONG_EXAMPLE.has(code), `seed ${seed}: ${code} for\n${source}`);
      }
    } finally {
      await server.close();
    }
  }
  // The catalogs exercise both answers and handler failures.
  assert.ok(
    (codes.get("ok") ?? 0) > 20 && (codes.get("capability_failure") ?? 0) > 5,
    JSON.stringify([...codes]),
  );
});

Deno.test("library: the MCP server's descriptions quote its own catalog's examples, and they run", async () => {
  const server = await randomCatalog(7).build();
  const mcp = createMcpServer(server, staticSubject({ id: "u" }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "examples", version: "1.0.0" });
  try {
    await mcp.connect(serverSide);
    await client.connect(clientSide);
    const tools = (await client.listTools()).tools;
    const execute = tools.find((x) => x.name === "execute")!;
    const expected = catalogExamples(server.capabilities());
    assert.ok(execute.description!.includes(expected.call), execute.description);
    assert.ok(execute.description!.endsWith(`Example:\n${expected.program}`));
    for (const tool of tools) {
      const shown = JSON.stringify(tool);
      assert.doesNotMatch(shown, /crm\.customer|c-101|shop\.orders|open orders/, tool.name);
    }
    const program = execute.description!.split("Example:\n")[1];
    const r = await client.callTool({ name: "execute", arguments: { source: program } });
    assert.doesNotMatch(text(r), /^(invalid program|invalid arguments|capability not found)/, text(r));
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("library: an empty catalog shows a template that says it is one", async () => {
  const server = await new Builder({ authorizer: allowAll(), executor: "inline" }).build();
  try {
    assert.equal(catalogExamples(server.capabilities()), TEMPLATE_EXAMPLES);
    const description = executeDescription(undefined, TEMPLATE_EXAMPLES);
    assert.match(description, /Example \(a template: this catalog has no capabilities yet/);
    assert.match(description, /namespace\.capability\(key="value"\)/);
    assert.doesNotMatch(description, /crm\.customer|c-101/);
  } finally {
    await server.close();
  }
});

/** The dotted capability names a program calls. */
function calledNames(program: string): string[] {
  return [...program.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\(/g)].map((m) => m[1]);
}

Deno.test("gateway: each client is listed examples from its own tools, and they run", async () => {
  await prefetchServers();
  const dir = await Deno.makeTempDir({ prefix: "gw-examples-" });
  const env = { EX_ALICE_KEY: randomKey(), EX_BOB_KEY: randomKey(), EX_CAROL_KEY: randomKey() };
  const config = await loadConfig(
    dir,
    `
listen: 127.0.0.1:0
mode: codemode
codemode: { max_execution_time: 20000 }
clients:
  - { id: alice, api_key_env: EX_ALICE_KEY }
  - { id: bob, api_key_env: EX_BOB_KEY }
  - { id: carol, api_key_env: EX_CAROL_KEY }
downstreams:
${everythingDownstream()}
${memoryDownstream(dir)}
policy:
  clients:
    alice: { allow: ["memory__*"] }
    bob: { allow: ["everything__*"], deny: [everything__echo] }
    carol: { allow: [everything__echo] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
`,
    env,
  );
  const gateway = await Gateway.create(config, { startTimeoutMs: START_TIMEOUT_MS, log: () => {} });
  const clients: Client[] = [];
  try {
    await waitFor(
      () => gateway.downstreams.every((d) => d.state === "up"),
      START_TIMEOUT_MS,
      "downstreams up",
    );
    const { url } = await gateway.serve();
    const programs = new Map<string, string>();
    for (
      const [id, key, prefix] of [
        ["alice", env.EX_ALICE_KEY, "memory."],
        ["bob", env.EX_BOB_KEY, "everything."],
        ["carol", env.EX_CAROL_KEY, "everything."],
      ] as const
    ) {
      const client = await connect(url, key);
      clients.push(client);
      const tools = (await client.listTools()).tools;
      assert.deepEqual(tools.map((x) => x.name), ["search_api", "describe_api", "execute"]);
      const description = tools[2].description!;
      assert.doesNotMatch(JSON.stringify(tools), /crm\.customer|c-101|shop\.orders/);
      const program = description.split("Example:\n")[1].split("\nHere the capabilities")[0];
      // Every name the example calls is a tool this client may call.
      const visible = new Set(
        gateway.listTools(id).tools.map((x) =>
          `${x.ref.downstream}.${x.ref.tool.replace(/[^A-Za-z0-9_]/g, "_")}`
        ),
      );
      const called = calledNames(program);
      assert.ok(called.length > 0, program);
      for (const name of called) {
        assert.ok(name.startsWith(prefix) && visible.has(name), `${id}: ${name} in ${[...visible]}`);
      }
      // The search example finds it, the describe example describes it.
      const describeName = JSON.stringify(tools[1].inputSchema).match(/e\.g\. \\"([^\\]+)\\"/)?.[1];
      assert.equal(describeName, called[0]);
      const described = await client.callTool({ name: "describe_api", arguments: { name: called[0] } });
      assert.equal(described.isError, undefined, text(described));
      const r = await client.callTool({ name: "execute", arguments: { source: program } });
      assert.doesNotMatch(
        text(r),
        /^(invalid program|invalid arguments|capability not found|permission denied)/,
        `${id}:\n${program}\n-> ${text(r)}`,
      );
      programs.set(id, program);
    }
    assert.notEqual(programs.get("alice"), programs.get("bob"));
    assert.notEqual(programs.get("bob"), programs.get("carol"));
    // carol may call echo only; bob may call everything but echo.
    assert.match(programs.get("carol")!, /everything\.echo\(/);
    assert.doesNotMatch(programs.get("bob")!, /everything\.echo\(/);
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await gateway.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("examples use a host's known value only when it has the parameter's type and is plain", () => {
  const input = t.struct({ unit: t.str(), count: t.int(), ratio: t.float(), on: t.bool(), note: t.str() });
  const examples = catalogExamples([{
    name: "meter.read",
    input,
    values: { unit: "celsius", count: "three", ratio: 2, on: true, note: "line\nbreak" },
  }]);
  // unit, ratio and on take the known values (2 as the float 2.0); count and note keep made-up ones.
  assert.equal(examples.call, 'meter.read(unit="celsius", count=5, ratio=2.0, on=True, note="hello")');
});

/** A random JSON Schema property of a downstream tool (enums, defaults, nesting, nullable unions). */
function randomProperty(r: () => number, depth: number): JsonObject {
  const x = r();
  if (x < 0.2) return { type: "string", enum: ["fast", "slow", "off"].slice(0, 1 + Math.floor(r() * 3)) };
  if (x < 0.35) return { type: "string", ...(r() < 0.5 ? { default: "auto" } : {}) };
  if (x < 0.5) return { type: "integer", minimum: 1, maximum: 50, ...(r() < 0.5 ? { default: 10 } : {}) };
  if (x < 0.6) return { type: "number" };
  if (x < 0.7) return { type: "boolean", ...(r() < 0.5 ? { default: false } : {}) };
  if (x < 0.78 || depth > 1) return { type: ["string", "null"] };
  if (x < 0.88) return { type: "array", items: randomProperty(r, depth + 1) };
  const props: JsonObject = { key: randomProperty(r, depth + 1) };
  return { type: "object", properties: props, required: ["key"] };
}

const TOOL_NAMES = [
  "get-status",
  "list_items",
  "search",
  "delete-all",
  "create_thing",
  "read",
  "echo",
  "convert",
];
const PARAMS = ["from", "to", "query", "mode", "max-results", "id", "dry_run", "options", "lang", "def"];

/** Whether `value` satisfies `schema` (the subset randomProperty writes), as a strict downstream checks. */
function satisfies(schema: JsonObject, value: unknown): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (value === null) return types.includes("null");
  if (Array.isArray(schema.enum) && !schema.enum.includes(value as JsonValue)) return false;
  if (typeof value === "string") return types.includes("string");
  if (typeof value === "boolean") return types.includes("boolean");
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) return false;
    if (typeof schema.maximum === "number" && value > schema.maximum) return false;
    return types.includes("number") || (types.includes("integer") && Number.isInteger(value));
  }
  if (Array.isArray(value)) {
    return types.includes("array") && value.every((v) => satisfies(schema.items as JsonObject, v));
  }
  if (typeof value === "object") {
    const props = (schema.properties ?? {}) as JsonObject;
    return types.includes("object") &&
      ((schema.required ?? []) as string[]).every((k) => Object.hasOwn(value, k)) &&
      Object.entries(value as JsonObject).every(([k, v]) =>
        props[k] !== undefined && satisfies(props[k] as JsonObject, v)
      );
  }
  return false;
}

Deno.test("gateway: examples of 150 random downstream catalogs bind, and reach the downstream valid", async () => {
  let valid = 0;
  let calls = 0;
  for (let seed = 1; seed <= 150; seed++) {
    const r = rng(seed * 7919);
    const tools = [];
    const names = new Set<string>();
    for (let i = 0; i < 1 + Math.floor(r() * 6); i++) {
      const name = TOOL_NAMES[Math.floor(r() * TOOL_NAMES.length)];
      if (names.has(name)) continue;
      names.add(name);
      const properties: JsonObject = {};
      const required: string[] = [];
      for (let j = 0; j < Math.floor(r() * 4); j++) {
        const p = PARAMS[Math.floor(r() * PARAMS.length)];
        properties[p] = randomProperty(r, 0);
        if (r() < 0.7 && !required.includes(p)) required.push(p);
      }
      tools.push(makeTool({
        ref: toolRef(r() < 0.5 ? "svc" : "other-svc", name),
        description: `The ${name} tool`,
        inputSchema: { type: "object", properties, required },
        ...(r() < 0.4 ? { annotations: { readOnlyHint: r() < 0.5 } } : {}),
      }));
    }
    const sent: { tool: string; args: JsonObject }[] = [];
    const { definitions } = clientCapabilities(tools, (tool, args) => {
      sent.push({ tool: tool.name, args });
      return Promise.resolve(makeResult({ content: [{ type: "text", text: "done" }] }));
    });
    const examples = catalogExamples(exampleCapabilities(tools));
    const builder = new Builder({ authorizer: allowAll(), executor: "inline" });
    for (const d of definitions) builder.register(d);
    const server = await builder.build();
    try {
      if (definitions.length === 0) {
        assert.equal(examples.template, true);
        continue;
      }
      assert.ok(definitions.some((d) => d.name === examples.describe), `seed ${seed}: ${examples.describe}`);
      const code = await outcome(() => server.execute({ id: "u" }, `${examples.program}\n`));
      assert.ok(!WRONG_EXAMPLE.has(code), `seed ${seed}: ${code}\n${examples.program}`);
      assert.equal(sent.length, 1, `seed ${seed}: one downstream call`);
      const tool = tools.find((x) => x.name === sent[0].tool)!;
      const props = tool.inputSchema.properties as JsonObject;
      // Each argument has its downstream name and satisfies its schema (enums included).
      const ok = Object.entries(sent[0].args).every(([k, v]) =>
        props[k] !== undefined && satisfies(props[k] as JsonObject, v)
      );
      calls++;
      if (ok) valid++;
      assert.ok(
        Object.keys(sent[0].args).every((k) => Object.hasOwn(props, k)),
        `seed ${seed}: ${JSON.stringify(sent[0])}`,
      );
    } finally {
      await server.close();
    }
  }
  // Enums, defaults and bounds are honoured wherever the schema states a value (a made-up int may still
  // fall outside a stated range without a default).
  assert.ok(calls > 100 && valid >= calls * 0.95, `${valid} of ${calls} example calls satisfy their schema`);
});
