import assert from "node:assert/strict";
import { AuditWriter } from "../audit/mod.ts";
import {
  type AuditRecord,
  type Call,
  type CallContext,
  Catalog,
  type Dispatcher,
  GatewayError,
  isGatewayError,
  type JsonObject,
  makeResult,
  makeTool,
  type Notification,
  type Result,
  toolRef,
} from "../domain/mod.ts";
import { Policy } from "../policy/mod.ts";
import { REDACTED, Redactor } from "../redact/mod.ts";
import { Resilience } from "../resilience/mod.ts";
import { type AuditPort, type CallInfo, Pipeline, type RedactorPort } from "./mod.ts";

const SECRET = "service-token-XYZ-123";

const CATALOG = new Catalog(
  ["memory__read_graph", "memory__delete_entities", "memory__echo", "memory__big", "web__fetch"].map((n) => {
    const [ds, tool] = n.split("__");
    return makeTool({ ref: toolRef(ds, tool), description: n, inputSchema: { type: "object" } });
  }),
);

/** A dispatcher answering from a table, recording what it was asked. */
class FakeDispatcher implements Dispatcher {
  calls: Call[] = [];
  handler: (call: Call, ctx: CallContext) => Promise<Result> = (call) =>
    Promise.resolve(makeResult({ content: [{ type: "text", text: `ok ${JSON.stringify(call.args)}` }] }));
  dispatch(call: Call, ctx: CallContext): Promise<Result> {
    this.calls.push(call);
    return this.handler(call, ctx);
  }
  probe(): Promise<void> {
    return Promise.resolve();
  }
}

/** An audit port collecting records; `fail` makes security records fail closed. */
class MemoryAudit implements AuditPort {
  records: AuditRecord[] = [];
  fail = false;
  submit(record: AuditRecord): Promise<void> {
    this.records.push(record);
    const security = !record.allowed || record.redactions > 0;
    return this.fail && security
      ? Promise.reject(new GatewayError("audit_unavailable", "sink down"))
      : Promise.resolve();
  }
}

function setup(options: { maxResultBytes?: number; redactor?: RedactorPort } = {}) {
  const dispatcher = new FakeDispatcher();
  const audit = new MemoryAudit();
  const observed: [AuditRecord, CallInfo][] = [];
  const pipeline = new Pipeline({
    dispatcher,
    audit,
    catalog: () => CATALOG,
    policy: new Policy({
      alice: { allow: ["memory__*"], deny: ["memory__delete_entities"] },
      bob: { allow: ["web__fetch"], deny: [] },
    }),
    redactor: options.redactor ??
      new Redactor({
        secrets: [SECRET],
        patterns: [{ name: "aws", regex: "AKIA[0-9A-Z]{16}", anchor: "AKIA" }],
      }),
    maxResultBytes: options.maxResultBytes ?? 1 << 20,
    resilience: new Resilience({ failureThreshold: 3, openMs: 60_000, callTimeoutMs: 5_000 }),
    observer: { observeCall: (r, info) => observed.push([r, info]) },
  });
  return { pipeline, dispatcher, audit, observed };
}

const ALICE = { id: "alice" };

async function failure(p: Promise<unknown>): Promise<GatewayError> {
  const err = await p.then(() => undefined, (e) => e);
  assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${err}`);
  return err;
}

Deno.test("pipeline: an allowed call reaches the downstream and leaves one audit record", async () => {
  const { pipeline, dispatcher, audit, observed } = setup();
  const result = await pipeline.call(ALICE, "memory__read_graph", { q: 1 }, { executionId: "exec-7" });
  assert.deepEqual(result.payload.content, [{ type: "text", text: 'ok {"q":1}' }]);
  assert.equal(dispatcher.calls.length, 1);
  assert.deepEqual(dispatcher.calls[0].tool, { downstream: "memory", tool: "read_graph" });
  assert.equal(audit.records.length, 1);
  const r = audit.records[0];
  assert.equal(r.client_id, "alice");
  assert.equal(r.tool_name, "memory__read_graph");
  assert.equal(r.decision, "allowed");
  assert.equal(r.allowed, true);
  assert.equal(r.breaker_state, "closed");
  assert.equal(r.redactions, 0);
  assert.equal(r.truncated, false);
  assert.equal(r.error, "");
  assert.equal(r.execution_id, "exec-7");
  assert.ok(r.latency_ms >= 0 && !Number.isNaN(Date.parse(r.timestamp)));
  assert.deepEqual(observed.map(([, i]) => i), [{ downstream: "memory", errorCode: undefined }]);
});

Deno.test("pipeline: denied and missing tools get exactly the same answer; the audit keeps the reason", async () => {
  const { pipeline, dispatcher, audit } = setup();
  const explicit = await failure(pipeline.call(ALICE, "memory__delete_entities", {}));
  const byDefault = await failure(pipeline.call(ALICE, "web__fetch", {}));
  const missing = await failure(pipeline.call(ALICE, "memory__no_such_tool", {}));
  const malformed = await failure(pipeline.call(ALICE, "memory____x", {}));
  const unknownClient = await failure(pipeline.call({ id: "mallory" }, "memory__read_graph", {}));
  for (const e of [explicit, byDefault, missing, malformed, unknownClient]) {
    assert.equal(e.code, "unknown_tool");
    assert.equal(e.publicText, "unknown tool");
    assert.equal(e.detail, undefined);
  }
  assert.equal(dispatcher.calls.length, 0);
  assert.deepEqual(audit.records.map((r) => [r.decision, r.allowed, r.error]), [
    ["denied_explicit", false, "unknown tool"],
    ["denied_default", false, "unknown tool"],
    ["not_found", false, "unknown tool"],
    ["denied_default", false, "unknown tool"],
    ["denied_default", false, "unknown tool"],
  ]);
});

Deno.test("pipeline: a missing tool under an allow pattern is audited not_found, answered as a denial", async () => {
  const { pipeline, dispatcher, audit } = setup();
  // Generated names: missing under alice's memory__* pattern, denied explicitly, denied by default.
  const suffixes = ["nope", "x", "read_graph2", "READ_GRAPH", "a-b", "big_", "echo0", "z".repeat(60)];
  const cases: [string, string][] = [
    ...suffixes.map((s): [string, string] => [`memory__${s}`, "not_found"]),
    ["memory__delete_entities", "denied_explicit"],
    ...suffixes.map((s): [string, string] => [`web__${s}`, "denied_default"]),
    ["web__fetch", "denied_default"],
  ];
  const answers = new Set<string>();
  for (const [name, reason] of cases) {
    for (const args of [{}, 7, undefined]) {
      const e = await failure(pipeline.call(ALICE, name, args as never));
      answers.add(JSON.stringify([e.code, e.publicText, e.detail, e.message === undefined]));
      const last = audit.records.at(-1)!;
      assert.deepEqual([last.tool_name, last.decision, last.allowed, last.error], [
        name,
        reason,
        false,
        "unknown tool",
      ]);
    }
    // What code mode audits for a name a program could not reach is the same record.
    await pipeline.refuse(ALICE, name, { executionId: "x-1" });
    const refused = audit.records.at(-1)!;
    assert.deepEqual([refused.tool_name, refused.decision, refused.execution_id], [name, reason, "x-1"]);
  }
  assert.equal(answers.size, 1, "every refusal answers the client identically");
  assert.equal(dispatcher.calls.length, 0);
});

Deno.test("pipeline: arguments must be an object, without revealing whether a denied tool exists", async () => {
  const { pipeline, dispatcher, audit } = setup();
  assert.equal((await failure(pipeline.call(ALICE, "memory__echo", [1, 2]))).code, "invalid_arguments");
  assert.equal((await failure(pipeline.call(ALICE, "web__fetch", "x"))).code, "unknown_tool");
  // A denied tool and a missing one in an allowed namespace answer the same to bad arguments.
  const denied = await failure(pipeline.call(ALICE, "memory__delete_entities", 7));
  const missing = await failure(pipeline.call(ALICE, "memory__zzz", 7));
  assert.deepEqual([denied.code, missing.code], ["unknown_tool", "unknown_tool"]);
  await pipeline.call(ALICE, "memory__echo", undefined);
  assert.deepEqual(dispatcher.calls.map((c) => c.args), [{}]);
  assert.deepEqual(audit.records.map((r) => r.decision), [
    "allowed",
    "denied_default",
    "denied_explicit",
    "not_found",
    "allowed",
  ]);
});

Deno.test("pipeline: secrets are redacted from results, arguments, errors and notifications, and counted", async () => {
  const { pipeline, dispatcher, audit } = setup();
  const seen: Notification[] = [];
  let late: ((n: Notification) => void) | undefined;
  dispatcher.handler = (call, ctx) => {
    ctx.notify({ method: "notifications/message", params: { level: "info", data: `token ${SECRET}` } });
    late = ctx.notify;
    return Promise.resolve(makeResult({
      content: [{ type: "text", text: `env: SERVICE_TOKEN=${SECRET} AKIAABCDEFGHIJKLMNOP` }],
      structuredContent: { echoed: call.args },
    }));
  };
  const result = await pipeline.call(ALICE, "memory__echo", { text: `my ${SECRET}` }, {
    notify: (n) => seen.push(n),
  });
  assert.equal(dispatcher.calls[0].args.text, `my ${REDACTED}`, "arguments are redacted on the way in");
  assert.deepEqual(result.payload.content, [{
    type: "text",
    text: `env: SERVICE_TOKEN=${REDACTED} ${REDACTED}`,
  }]);
  assert.deepEqual(seen, [{
    method: "notifications/message",
    params: { level: "info", data: `token ${REDACTED}` },
  }]);
  late!({ method: "notifications/message", params: { data: "after the end" } });
  assert.equal(seen.length, 1, "notifications after the call are dropped");
  assert.equal(audit.records[0].redactions, 4); // argument, notification, two in the result
  assert.ok(!JSON.stringify(audit.records).includes(SECRET));

  dispatcher.handler = () =>
    Promise.reject(new GatewayError("downstream_error", "rpc -32602", { detail: `bad value ${SECRET}` }));
  const e = await failure(pipeline.call(ALICE, "memory__echo", {}));
  assert.equal(e.publicText, `the tool's server reported an error: bad value ${REDACTED}`);
  assert.equal(audit.records[1].error, e.publicText);
  assert.equal(audit.records[1].redactions, 1);

  // Even a secret in the called name never reaches the audit log.
  await failure(pipeline.call(ALICE, `memory__${SECRET}`, {}));
  await failure(pipeline.call(ALICE, `x${SECRET}`, {}));
  assert.deepEqual(audit.records.slice(2).map((r) => [r.tool_name, r.redactions]), [
    [`memory__${REDACTED}`, 1],
    [`x${REDACTED}`, 1],
  ]);
});

Deno.test("pipeline: an oversized result is replaced unscanned and the record marked truncated", async () => {
  let scanned = 0;
  const real = new Redactor({ secrets: [SECRET] });
  const spy: RedactorPort = {
    redactValue: (v) => {
      scanned++;
      return real.redactValue(v);
    },
    redactText: (t) => real.redactText(t),
  };
  const { pipeline, dispatcher, audit } = setup({ maxResultBytes: 1000, redactor: spy });
  const big: JsonObject = { content: [{ type: "text", text: "x".repeat(2000) + SECRET }] };
  dispatcher.handler = () => Promise.resolve(makeResult(big));
  scanned = 0;
  const result = await pipeline.call(ALICE, "memory__big", {});
  assert.equal(scanned, 1, "only the (empty) arguments were scanned, not the result");
  assert.equal(result.isError, true);
  const size = new TextEncoder().encode(JSON.stringify(big)).length;
  assert.deepEqual(result.payload.content, [{
    type: "text",
    text: `result too large: ${size} bytes exceeds the limit of 1000 bytes`,
  }]);
  assert.equal(audit.records[0].truncated, true);
  assert.match(audit.records[0].error, /result too large/);
});

Deno.test("pipeline: a security record that cannot be written fails the call closed", async () => {
  const { pipeline, dispatcher, audit } = setup();
  audit.fail = true;
  // A plain success is not a security record: it goes through.
  await pipeline.call(ALICE, "memory__echo", {});
  dispatcher.handler = () => Promise.resolve(makeResult({ content: [{ type: "text", text: SECRET }] }));
  assert.equal((await failure(pipeline.call(ALICE, "memory__echo", {}))).code, "audit_unavailable");
  assert.equal(
    (await failure(pipeline.call(ALICE, "memory__delete_entities", {}))).code,
    "audit_unavailable",
  );
  assert.equal((await failure(pipeline.call(ALICE, "bad name", {}))).code, "audit_unavailable");
});

Deno.test("pipeline: with the real audit writer, one JSONL line per call", async () => {
  const lines: string[] = [];
  const writer = new AuditWriter({
    write: (b) => {
      lines.push(...new TextDecoder().decode(b).split("\n").filter((l) => l !== ""));
      return Promise.resolve();
    },
    sync: () => Promise.resolve(),
    close: () => Promise.resolve(),
  }, { buffer: 100, highWater: 80, fsyncMs: 0, securityBlockMs: 1000 });
  const dispatcher = new FakeDispatcher();
  const pipeline = new Pipeline({
    dispatcher,
    audit: writer,
    catalog: () => CATALOG,
    policy: new Policy({ alice: { allow: ["memory__*"], deny: [] } }),
    redactor: new Redactor(),
    maxResultBytes: 1 << 20,
    resilience: new Resilience({ failureThreshold: 3, openMs: 1000, callTimeoutMs: 1000 }),
  });
  await pipeline.call(ALICE, "memory__echo", {});
  await failure(pipeline.call(ALICE, "web__fetch", {}));
  await writer.close();
  assert.equal(lines.length, 2);
  assert.deepEqual(lines.map((l) => JSON.parse(l).decision), ["allowed", "denied_default"]);
});

Deno.test("pipeline: reconfigure swaps policy for new calls; listTools follows it", async () => {
  const { pipeline } = setup();
  assert.deepEqual(pipeline.listTools(ALICE).tools.map((t) => t.name), [
    "memory__read_graph",
    "memory__echo",
    "memory__big",
  ]);
  assert.deepEqual(pipeline.listTools({ id: "bob" }).tools.map((t) => t.name), ["web__fetch"]);
  pipeline.reconfigure({ policy: new Policy({ alice: { allow: ["web__fetch"], deny: [] } }) });
  assert.deepEqual(pipeline.listTools(ALICE).tools.map((t) => t.name), ["web__fetch"]);
  assert.ok(isGatewayError(await failure(pipeline.call(ALICE, "memory__echo", {})), "unknown_tool"));
  await pipeline.call(ALICE, "web__fetch", {});
});

Deno.test("pipeline: cancellation reaches the downstream and is audited as cancelled", async () => {
  const { pipeline, dispatcher, audit } = setup();
  dispatcher.handler = (_, ctx) =>
    new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
  const controller = new AbortController();
  const p = pipeline.call(ALICE, "memory__echo", {}, { signal: controller.signal });
  setTimeout(() => controller.abort(), 5);
  assert.equal((await failure(p)).code, "cancelled");
  assert.equal(audit.records[0].error, "the tool call was cancelled");
});
