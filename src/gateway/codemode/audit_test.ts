import assert from "node:assert/strict";
import { CodeModeError } from "../../errors.ts";
import {
  type AuditRecord,
  Catalog,
  GatewayError,
  isGatewayError,
  makeResult,
  makeTool,
  toolRef,
} from "../domain/mod.ts";
import { CodeModeService } from "./service.ts";
import {
  codeModeRecord,
  dottedReferences,
  MAX_REFUSALS_PER_EXECUTION,
  outcomeOf,
  refusedToolNames,
  sha256Hex,
} from "./audit.ts";

Deno.test("code-mode audit: references are found in code, never in strings or comments", () => {
  // Generated: one reference placed in code in several syntactic positions, and hidden in every kind
  // of literal and comment (which must not count).
  const inCode = [
    (r: string) => `def main():\n    return ${r}(x=1)\n`,
    (r: string) => `f = ${r}\n`,
    (r: string) => `x = [${r}(), 2]\n`,
    (r: string) => `y = {"k": ${r}}\n`,
    (r: string) => `z = lambda: ${r}()\n`,
    (r: string) => `if True: ${r}()\n`,
    (r: string) => `w = 1 + ${r.replace(".", " .")}()\n`,
    (r: string) => `v = (${r.replace(".", ". ")})\n`,
  ];
  const hidden = [
    (r: string) => `s = "${r}"\n`,
    (r: string) => `s = '${r}'\n`,
    (r: string) => `s = """a\n${r}\n"""\n`,
    (r: string) => `s = '''${r} ' " '''\n`,
    (r: string) => `s = r"${r}\\"still ${r}"\n`,
    (r: string) => `s = b'${r}'\n`,
    (r: string) => `s = rb"${r}"\n`,
    (r: string) => `# ${r}()\n`,
    (r: string) => `s = "\\"${r}"  # ${r}\n`,
  ];
  for (const ref of ["memory.read_graph", "evil.x", "my_files.get_env", "_a.b2"]) {
    for (const [i, form] of inCode.entries()) {
      assert.deepEqual(dottedReferences(form(ref)), [ref], `code form ${i}: ${form(ref)}`);
    }
    for (const [i, form] of hidden.entries()) {
      assert.deepEqual(dottedReferences(form(ref) + "n = 1\n"), [], `hidden form ${i}: ${form(ref)}`);
    }
  }
  // Only the root of a chain; no repeats; numbers are not attributes; order of first appearance.
  assert.deepEqual(dottedReferences("a.b.c()\nq.r\na.b\nx = 1.5\ny = d.get(1).e\n"), ["a.b", "q.r", "d.get"]);
  assert.deepEqual(dottedReferences('x = "unterminated\ny.z'), ["y.z"]);
});

Deno.test("code-mode audit: references map to the gateway tool names a client cannot reach", () => {
  const tool = (ds: string, name: string) =>
    makeTool({ ref: toolRef(ds, name), description: name, inputSchema: { type: "object" } });
  const all = [tool("memory", "read_graph"), tool("memory", "delete_entities"), tool("my-files", "get-env")];
  const visible = new Set(["memory.read_graph"]);
  const refs = [
    "memory.read_graph", // visible: not refused
    "memory.delete_entities", // forbidden tool
    "my_files.get_env", // a mapped name maps back to the real one
    "memory.nope", // missing under a known downstream
    "down.tool", // a configured downstream with no tools listed
    "d.get", // not a downstream: a local variable
    "json.encode", // a module
  ];
  assert.deepEqual(refusedToolNames(refs, visible, all, ["memory", "my-files", "down"]), [
    "memory__delete_entities",
    "my-files__get-env",
    "memory__nope",
    "down__tool",
  ]);
  const many = Array.from({ length: 100 }, (_, i) => `memory.t${i}`);
  assert.equal(refusedToolNames(many, visible, all, ["memory"]).length, MAX_REFUSALS_PER_EXECUTION);
});

Deno.test("code-mode audit: the record carries the outcome and the source's hash, never the source", async () => {
  const source = 'def main():\n    return "s3cr3t-in-source"\n';
  const hash = await sha256Hex(source);
  assert.match(hash, /^[0-9a-f]{64}$/);
  assert.notEqual(hash, await sha256Hex(source + " "));
  const rec = codeModeRecord({
    clientId: "alice",
    tool: "execute",
    outcome: outcomeOf(new CodeModeError("invalid_program", "x")),
    latencyMs: 12.34567,
    now: new Date(0),
    executionId: "e-1",
    nativeCalls: 3,
    sourceSha256: hash,
  });
  assert.deepEqual(
    [rec.tool_name, rec.outcome, rec.error, rec.native_calls, rec.execution_id, rec.latency_ms, rec.allowed],
    ["execute", "invalid_program", "invalid_program", 3, "e-1", 12.346, true],
  );
  assert.ok(!JSON.stringify(rec).includes("s3cr3t"));
  assert.equal(outcomeOf(undefined), "ok");
  assert.equal(outcomeOf(new GatewayError("audit_unavailable")), "audit_unavailable");
  const aborted = new AbortController();
  aborted.abort(new DOMException("x", "AbortError"));
  assert.equal(outcomeOf(aborted.signal.reason, aborted.signal), "cancelled");
  assert.equal(outcomeOf(new Error("boom")), "internal");
});

Deno.test("code-mode audit: a record that cannot be written fails the execution closed", async () => {
  const schema = { type: "object", properties: { text: { type: "string" } } };
  const tools = [
    makeTool({ ref: toolRef("svc", "echo"), description: "Echo", inputSchema: schema }),
    makeTool({ ref: toolRef("svc", "admin"), description: "Admin", inputSchema: schema }),
  ];
  const records: AuditRecord[] = [];
  const refused: [string, string, string | undefined][] = [];
  let sinkDown = false;
  const service = new CodeModeService({
    listTools: () => new Catalog([tools[0]]),
    versions: () => [],
    callTool: (_c, _n, args) =>
      Promise.resolve(makeResult({ content: [{ type: "text", text: String(args.text) }] })),
    redact: (v) => v,
    log: () => {},
    audit: (r) => {
      records.push(r);
      return Promise.resolve();
    },
    refuse: (client, name, executionId) => {
      refused.push([client, name, executionId]);
      return sinkDown ? Promise.reject(new GatewayError("audit_unavailable")) : Promise.resolve();
    },
    allTools: () => tools,
    downstreamNames: () => ["svc"],
  }, { sandbox: "inline" });
  try {
    const ok = await service.execute("alice", 'def main():\n    return svc.echo(text="a")["text"]\n');
    assert.equal(ok.value, "a");
    assert.deepEqual(records.map((r) => [r.tool_name, r.outcome, r.native_calls]), [["execute", "ok", 1]]);
    const source = "def main():\n    return svc.admin()\n";
    await assert.rejects(service.execute("alice", source), (e) => e instanceof CodeModeError);
    assert.deepEqual(refused.at(-1)?.slice(0, 2), ["alice", "svc__admin"]);
    assert.equal(refused.at(-1)?.[2], records.at(-1)?.execution_id, "the refusal names its execution");
    sinkDown = true;
    await assert.rejects(service.execute("alice", source), (e) => isGatewayError(e, "audit_unavailable"));
  } finally {
    await service.close();
  }
});
