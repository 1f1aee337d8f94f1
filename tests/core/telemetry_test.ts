/**
 * OpenTelemetry spans through Deno's built-in OpenTelemetry (issue 11), read from Deno's console
 * exporter (`OTEL_DENO=true OTEL_EXPORTER_OTLP_PROTOCOL=console`) in a child process: one
 * `codemode.execute` span per execution, a `codemode.call` child per native call (even though the
 * worker pool answers calls outside the execution's async context) with a `codemode.authorize` child
 * that records the decision, the attributes an operator filters on, and no argument values.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

const PROGRAM = `
import { Builder, DeniedError, t } from "${new URL("mod.ts", ROOT).href}";
const b = new Builder({
  authorizer: { authorize: (input) => { if (input.arguments.key === "forbidden") throw new DeniedError("no"); } },
});
b.register({
  id: "demo.records.lookup",
  name: "records.lookup",
  summary: "Look up a record",
  input: t.struct({ key: t.str() }),
  output: t.struct({ key: t.str() }),
  handler: ({ key }) => ({ key }),
});
const s = await b.build();
await s.execute({ id: "user-7" }, 'def main():\\n    return records.lookup(key="hunter2")["key"]\\n');
await s.execute({ id: "user-7" }, 'def main():\\n    return records.lookup(key="forbidden")\\n').catch(() => {});
await s.close();
`;

interface SpanRecord {
  readonly name: string;
  readonly id: string;
  readonly parent: string | undefined;
  readonly attributes: Record<string, string>;
}

/** Parses the console exporter's span blocks: a `SPAN name [trace/span]` line, then indented fields. */
function spans(text: string): SpanRecord[] {
  const out: SpanRecord[] = [];
  let current: { name: string; id: string; parent?: string; attributes: Record<string, string> } | undefined;
  for (const line of text.split("\n")) {
    const head = /^SPAN (\S+) \[([0-9a-f]+)\/([0-9a-f]+)\]/.exec(line);
    if (head) {
      current = { name: head[1], id: head[3], attributes: {} };
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
      else current.attributes[field[1]] = field[2].trim();
    }
  }
  return out;
}

Deno.test("OpenTelemetry: execute, call and authorize spans through Deno's console exporter", async () => {
  const dir = await Deno.makeTempDir({ prefix: "codemode-otel-" });
  try {
    await Deno.writeTextFile(`${dir}/main.ts`, PROGRAM);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-check",
        "--config",
        new URL("deno.json", ROOT).pathname,
        "--allow-read",
        `${dir}/main.ts`,
      ],
      env: { OTEL_DENO: "true", OTEL_EXPORTER_OTLP_PROTOCOL: "console", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, text);
    const all = spans(text);
    const executes = all.filter((s) => s.name === "codemode.execute");
    assert.equal(executes.length, 2, text);
    for (const e of executes) {
      assert.equal(e.attributes["codemode.subject"], "user-7");
      assert.match(e.attributes["codemode.execution_id"] ?? "", /^x/);
    }
    const calls = all.filter((s) => s.name === "codemode.call");
    assert.equal(calls.length, 2, text);
    for (const [i, c] of calls.entries()) {
      assert.equal(c.attributes["codemode.capability.name"], "records.lookup");
      assert.equal(c.attributes["codemode.capability.id"], "demo.records.lookup");
      // Each call hangs under its own execution, across the worker boundary.
      const parent = executes.find((e) => e.id === c.parent);
      assert.ok(parent, `call ${i} has an execute parent`);
      assert.equal(parent.attributes["codemode.execution_id"], c.attributes["codemode.execution_id"]);
    }
    const decisions = all.filter((s) => s.name === "codemode.authorize").map((a) => {
      assert.ok(calls.some((c) => c.id === a.parent), "authorization is a child of its call");
      return a.attributes["codemode.authz.decision"];
    });
    assert.deepEqual(decisions.sort(), ["allow", "deny"]);
    const denied = executes.find((e) => e.attributes["codemode.error_code"] !== undefined);
    assert.equal(denied?.attributes["codemode.error_code"], "permission_denied");
    // Argument values, sources and results never become attributes.
    assert.doesNotMatch(JSON.stringify(all), /hunter2|forbidden/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
