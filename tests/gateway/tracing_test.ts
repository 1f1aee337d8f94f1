/**
 * The gateway's own OpenTelemetry spans, read from Deno's console exporter (`OTEL_DENO=true
 * OTEL_EXPORTER_OTLP_PROTOCOL=console`) in a child process, as the core's spans are: one `gateway.call`
 * span per call — allowed or refused — with the client, the tool, the decision, the outcome and the
 * redaction count (never an argument or a result); a code-mode native call's span hangs under the core's
 * `codemode.call`, itself under the execution's `codemode.execute`; and a real http downstream (a CodeMode
 * MCP server over Streamable HTTP on loopback) receives a W3C `traceparent` of the call's trace.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

const PROGRAM = (dir: string) => `
import { Builder, t } from "${new URL("mod.ts", ROOT).href}";
import { allowAll } from "${new URL("authz.ts", ROOT).href}";
import { createHttpHandler } from "${new URL("mcp.ts", ROOT).href}";
import { Gateway } from "${new URL("src/gateway/gateway.ts", ROOT).href}";
import { loadConfig } from "${new URL("src/gateway/config/mod.ts", ROOT).href}";

const b = new Builder({ authorizer: allowAll(), executor: "inline" });
b.register({
  name: "records.lookup",
  summary: "Look up a record",
  input: t.struct({ key: t.str() }),
  output: t.struct({ key: t.str() }),
  handler: ({ key }) => ({ key: key + " AKIA0123456789ABCDEF" }),
});
const lib = await b.build();
const handler = createHttpHandler(lib, { allowedHosts: ["127.0.0.1"] });
const seen = [];
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request, info) => {
  seen.push(request.headers.get("traceparent") ?? "");
  return handler(request, info);
});
const text = \`
listen: 127.0.0.1:0
mode: both
clients:
  - { id: alice, api_key_env: TR_ALICE_KEY }
downstreams:
  lib: { transport: http, url: "http://127.0.0.1:\${server.addr.port}/mcp" }
policy:
  clients:
    alice: { allow: ["lib__*"], deny: [lib__describe_api] }
redaction:
  patterns: [{ name: aws, regex: "AKIA[0-9A-Z]{16}", anchor: "AKIA" }]
audit: { sink: "file:${dir}/audit.jsonl" }
\`;
const loaded = loadConfig(text, (n) => (n === "TR_ALICE_KEY" ? "alice-key-0123456789abcdef" : undefined));
if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
const gateway = await Gateway.create(loaded.config, { log: () => {}, codeModeSandbox: "inline" });
const out = {};
let mark = seen.length;
const passthrough = await gateway.callTool("alice", "lib__execute", {
  source: 'def main():\\n    return records.lookup(key="hunter2")\\n',
});
out.passthrough = { text: JSON.stringify(passthrough.payload), traceparents: seen.slice(mark) };
mark = seen.length;
out.denied = await gateway.callTool("alice", "lib__describe_api", { name: "records.lookup" })
  .then(() => "answered", (err) => err.code);
out.deniedRequests = seen.length - mark;
mark = seen.length;
const run = await gateway.execute("alice", 'def main():\\n    return lib.search_api(query="records lookup")\\n');
out.native = { executionId: run.executionId, value: run.value, traceparents: seen.slice(mark) };
await gateway.close();
await server.shutdown();
await lib.close();
console.log("RESULT " + JSON.stringify(out));
`;

interface SpanRecord {
  readonly name: string;
  readonly traceId: string;
  readonly id: string;
  readonly parent: string | undefined;
  readonly attributes: Record<string, string>;
}

/** Parses the console exporter's span blocks: a `SPAN name [trace/span]` line, then indented fields. */
function spans(text: string): SpanRecord[] {
  const out: SpanRecord[] = [];
  let current: {
    name: string;
    traceId: string;
    id: string;
    parent?: string;
    attributes: Record<string, string>;
  } | undefined;
  for (const line of text.split("\n")) {
    const head = /^SPAN (\S+) \[([0-9a-f]+)\/([0-9a-f]+)\]/.exec(line);
    if (head) {
      current = { name: head[1], traceId: head[2], id: head[3], attributes: {} };
      out.push(current as SpanRecord);
      continue;
    }
    if (!/^\s/.test(line)) {
      current = undefined;
      continue;
    }
    const field = /^\s+([\w.]+): (.*)$/.exec(line);
    if (current && field) {
      if (field[1] === "parent") current.parent = field[2].trim();
      else current.attributes[field[1]] = field[2].trim().replace(/^"(.*)"$/, "$1");
    }
  }
  return out;
}

/** Whether `span` is `ancestor` or hangs below it. */
function descendsFrom(
  all: readonly SpanRecord[],
  span: SpanRecord | undefined,
  ancestor: SpanRecord,
): boolean {
  for (let s = span, depth = 0; s !== undefined && depth < 20; depth++) {
    if (s.id === ancestor.id) return true;
    s = all.find((x) => x.id === s!.parent);
  }
  return false;
}

Deno.test("gateway tracing: a span per call, native calls under their execution, traceparent to http downstreams", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw-otel-" });
  try {
    await Deno.writeTextFile(`${dir}/main.ts`, PROGRAM(dir));
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-check",
        "--config",
        new URL("deno.json", ROOT).pathname,
        "-A",
        `${dir}/main.ts`,
      ],
      env: { OTEL_DENO: "true", OTEL_EXPORTER_OTLP_PROTOCOL: "console", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, text);
    const result = JSON.parse(/^RESULT (.*)$/m.exec(text)?.[1] ?? "null");
    assert.ok(result, text);
    const all = spans(text);
    const calls = all.filter((s) => s.name === "gateway.call");
    assert.equal(calls.length, 3, JSON.stringify(calls, null, 1));

    // The passthrough call: allowed, answered, one value redacted; its downstream request carried the
    // call's trace.
    const pass = calls.find((c) => c.attributes["gateway.tool"] === "lib__execute");
    assert.ok(pass, JSON.stringify(calls));
    assert.equal(pass.attributes["gateway.client"], "alice");
    assert.equal(pass.attributes["gateway.decision"], "allowed");
    assert.equal(pass.attributes["gateway.outcome"], "ok");
    assert.ok(Number(pass.attributes["gateway.redactions"]) >= 1, JSON.stringify(pass));
    assert.equal(pass.attributes["gateway.execution_id"], undefined);
    assert.match(result.passthrough.text, /\[REDACTED\]/);
    const passParents = (result.passthrough.traceparents as string[]).filter((t) => t !== "");
    assert.ok(passParents.length >= 1, JSON.stringify(result.passthrough));
    for (const tp of passParents) {
      const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(tp);
      assert.ok(m, tp);
      assert.equal(m[1], pass.traceId, "the downstream request belongs to the call's trace");
      const sent = all.find((s) => s.id === m[2]);
      assert.ok(descendsFrom(all, sent, pass), `${tp} is the call's span or below it`);
    }

    // The refused call: a span with the policy's reason and the error code, and no downstream request.
    const denied = calls.find((c) => c.attributes["gateway.tool"] === "lib__describe_api");
    assert.ok(denied);
    assert.equal(denied.attributes["gateway.decision"], "denied_explicit");
    assert.equal(denied.attributes["gateway.outcome"], "unknown_tool");
    assert.equal(result.denied, "unknown_tool");
    assert.equal(result.deniedRequests, 0);

    // The native call: under codemode.call, under the execution's codemode.execute, with the execution id.
    const native = calls.find((c) => c.attributes["gateway.tool"] === "lib__search_api");
    assert.ok(native);
    assert.equal(native.attributes["gateway.execution_id"], result.native.executionId);
    assert.equal(native.attributes["gateway.outcome"], "ok");
    const call = all.find((s) => s.id === native.parent);
    assert.equal(call?.name, "codemode.call", JSON.stringify(call));
    const execution = all.find((s) => s.id === call!.parent);
    assert.equal(execution?.name, "codemode.execute");
    assert.equal(execution!.attributes["codemode.subject"], "alice");
    const nativeParents = (result.native.traceparents as string[]).filter((t) => t !== "");
    assert.ok(nativeParents.length >= 1);
    assert.ok(nativeParents.every((tp) => tp.split("-")[1] === execution!.traceId));

    // Arguments and results never become attributes.
    const attributes = JSON.stringify(all.map((s) => s.attributes));
    assert.doesNotMatch(attributes, /hunter2|AKIA0123|records lookup/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The same gateway under another OpenTelemetry setup: a host's own context manager, no Deno tracer. */
const FOREIGN_PROGRAM = (dir: string) => `
import { AsyncLocalStorage } from "node:async_hooks";
import { context, ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { Builder, t } from "${new URL("mod.ts", ROOT).href}";
import { allowAll } from "${new URL("authz.ts", ROOT).href}";
import { createHttpHandler } from "${new URL("mcp.ts", ROOT).href}";
import { Gateway } from "${new URL("src/gateway/gateway.ts", ROOT).href}";
import { loadConfig } from "${new URL("src/gateway/config/mod.ts", ROOT).href}";

// A minimal context manager, as an SDK would register (Deno's built-in one is off in this process).
const store = new AsyncLocalStorage();
context.setGlobalContextManager({
  active: () => store.getStore() ?? ROOT_CONTEXT,
  with: (ctx, fn, thisArg, ...args) => store.run(ctx, () => fn.apply(thisArg, args)),
  bind: (_ctx, target) => target,
  enable() { return this; },
  disable() { return this; },
});
const b = new Builder({ authorizer: allowAll(), executor: "inline" });
b.register({
  name: "records.lookup",
  summary: "Look up a record",
  input: t.struct({ key: t.str() }),
  output: t.struct({ key: t.str() }),
  handler: ({ key }) => ({ key }),
});
const lib = await b.build();
const handler = createHttpHandler(lib, { allowedHosts: ["127.0.0.1"] });
const seen = [];
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request, info) => {
  seen.push(request.headers.get("traceparent") ?? "");
  return handler(request, info);
});
const loaded = loadConfig(\`
listen: 127.0.0.1:0
clients:
  - { id: alice, api_key_env: TR_ALICE_KEY }
downstreams:
  lib: { transport: http, url: "http://127.0.0.1:\${server.addr.port}/mcp" }
policy:
  clients:
    alice: { allow: ["lib__*"] }
audit: { sink: "file:${dir}/audit.jsonl" }
\`, (n) => (n === "TR_ALICE_KEY" ? "alice-key-0123456789abcdef" : undefined));
if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
const gateway = await Gateway.create(loaded.config, { log: () => {}, codeModeSandbox: "inline" });
const before = seen.length;
const caller = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  traceFlags: TraceFlags.SAMPLED,
});
await context.with(caller, () => gateway.callTool("alice", "lib__search_api", { query: "records" }));
const during = seen.slice(before);
await gateway.close();
await server.shutdown();
await lib.close();
console.log("RESULT " + JSON.stringify({ during, before: seen.slice(0, before) }));
`;

Deno.test("gateway tracing: with a host's own OpenTelemetry setup, http downstreams get the caller's traceparent", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw-otel-foreign-" });
  try {
    await Deno.writeTextFile(`${dir}/main.ts`, FOREIGN_PROGRAM(dir));
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-check",
        "--config",
        new URL("deno.json", ROOT).pathname,
        "-A",
        `${dir}/main.ts`,
      ],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, text);
    const result = JSON.parse(/^RESULT (.*)$/m.exec(text)?.[1] ?? "null");
    assert.ok(result, text);
    assert.ok(result.during.length >= 1, text);
    for (const tp of result.during) {
      assert.equal(tp, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    }
    // The handshake at start belongs to no call: no trace context is made up for it.
    assert.ok(result.before.every((tp: string) => tp === ""), JSON.stringify(result.before));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
