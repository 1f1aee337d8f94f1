/**
 * Everything that leaves code mode passes the gateway's redactor: the answers of `search_api`,
 * `describe_api` and `execute` (value and failure text) through `answerCodeModeTool`, and the rejection
 * of `CodeModeService.execute` (message and detail), whatever construct made a program's error quote a
 * secret it put together.
 */
import assert from "node:assert/strict";
import { isCodeModeError } from "../../errors.ts";
import { Catalog, type JsonObject, type JsonValue, makeResult, makeTool, toolRef } from "../domain/mod.ts";
import { answerCodeModeTool, CodeModeService } from "./mod.ts";

const SECRET = "s3cr3t-token";

function service(): CodeModeService {
  const tool = makeTool({
    ref: toolRef("svc", "echo"),
    // Metadata is redacted as the catalog is built; this one was not, so only the exit can catch it.
    description: `Echo (signed with ${SECRET})`,
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  });
  return new CodeModeService({
    listTools: () => new Catalog([tool]),
    versions: () => [],
    callTool: (_client, _name, args) =>
      Promise.resolve(makeResult({ content: [{ type: "text", text: String(args.text) }] })),
    // Stands in for the gateway's redactor.
    redact: (v: JsonValue) => JSON.parse(JSON.stringify(v).replaceAll(SECRET, "[REDACTED]")),
    log: () => {},
  }, { sandbox: "inline" });
}

const JOIN =
  '    s = svc.echo(text="s3cr")["text"] + svc.echo(text="3t-to")["text"] + svc.echo(text="ken")["text"]\n';
const FAILING = [
  "fail(s)",
  "int(s)",
  "float(s)",
  "{}[s]",
  'getattr("x", s)',
  '("{" + s + "}").format()',
  '("%(" + s + ")s") % {}',
  "svc.echo(**{s: 1})",
];

Deno.test("codemode redaction: a failure quoting an assembled secret leaves redacted, both ways out", async () => {
  const s = service();
  const signal = new AbortController().signal;
  try {
    for (const expr of FAILING) {
      const source = `def main():\n${JOIN}    return ${expr}\n`;
      const answer = await answerCodeModeTool(s, "alice", "execute", { source }, signal);
      const text = JSON.stringify(answer);
      assert.equal(answer.isError, true, `${expr}: ${text}`);
      assert.ok(!text.includes(SECRET) && text.includes("[REDACTED]"), `${expr}: ${text}`);
      const err = await s.execute("alice", source).then(() => undefined, (e) => e);
      assert.ok(isCodeModeError(err), String(err));
      assert.ok(!`${err.message} ${err.detail}`.includes(SECRET), `${expr}: ${err.message}`);
    }
  } finally {
    await s.close();
  }
});

Deno.test("codemode redaction: search_api and describe_api answers pass the same exit", async () => {
  const s = service();
  const signal = new AbortController().signal;
  try {
    const search = await answerCodeModeTool(s, "alice", "search_api", { query: "echo" }, signal);
    const describe = await answerCodeModeTool(s, "alice", "describe_api", { name: "svc.echo" }, signal);
    for (const answer of [search, describe]) {
      const text = JSON.stringify(answer);
      assert.notEqual(answer.isError, true, text);
      assert.ok(!text.includes(SECRET) && text.includes("[REDACTED]"), text);
    }
    const d = describe.structuredContent as JsonObject;
    assert.match(String(d.description), /^Echo \(signed with \[REDACTED\]\)/);
  } finally {
    await s.close();
  }
});
