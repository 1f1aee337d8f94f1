/**
 * What the audit log records for code mode, end to end: a real gateway over two stdio MCP servers of
 * our own, SDK clients over Streamable HTTP, and the JSONL file read back. Every `execute`,
 * `search_api` and `describe_api` call has its own record (outcome, duration, native call count, the
 * source's SHA-256, never the source); a tool a program names but its client may not call is audited as
 * the same passthrough call would be (`denied_*`, or `not_found` for a name an allow pattern covers),
 * while the client's answer never tells forbidden from missing; failed authentications carry the peer.
 */
import assert from "node:assert/strict";
import { Gateway } from "../../src/gateway/gateway.ts";
import { EXECUTION_ID_META } from "../../src/gateway/codemode/mod.ts";
import { connect, loadConfig, randomKey, stdioDownstream, text } from "./_helpers.ts";

const SERVER = new URL("../../src/gateway/downstream/testdata/dynamic_server.ts", import.meta.url).pathname;

function configYaml(dir: string): string {
  const ds = (name: string) =>
    stdioDownstream(name, ["run", "--allow-env", "--allow-read", JSON.stringify(SERVER)]);
  return `
listen: 127.0.0.1:0
call_timeout_ms: 15000
codemode: { max_execution_time: 20000 }
clients:
  - { id: alice, api_key_env: ACM_ALICE_KEY, mode: codemode }
  - { id: bob, api_key_env: ACM_BOB_KEY, mode: passthrough }
downstreams:
${ds("dyn")}
${ds("evil")}
policy:
  clients:
    alice: { allow: ["dyn__*"], deny: [dyn__crash] }
    bob: { allow: ["dyn__*"], deny: [dyn__crash] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)}, fsync_ms: 20 }
`;
}

interface Line {
  client_id: string;
  tool_name: string;
  decision: string;
  allowed: boolean;
  error: string;
  latency_ms: number;
  execution_id?: string;
  outcome?: string;
  native_calls?: number;
  source_sha256?: string;
  remote_addr?: string;
  [k: string]: unknown;
}

async function lines(dir: string): Promise<Line[]> {
  const raw = await Deno.readTextFile(`${dir}/audit.jsonl`).catch(() => "");
  return raw.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

async function sha256(s: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s)));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Waits until the audit file has a record matching `pred` (success records are written asynchronously). */
async function record(dir: string, pred: (l: Line) => boolean, what: string): Promise<Line> {
  const end = Date.now() + 10_000;
  for (;;) {
    const found = (await lines(dir)).find(pred);
    if (found !== undefined) return found;
    if (Date.now() > end) {
      throw new Error(`no audit record for ${what}:\n${JSON.stringify(await lines(dir))}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("audit of code mode: every code-mode call has its record; forbidden names are audited, not told", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "gw-acm-" });
  const env = { ACM_ALICE_KEY: randomKey(), ACM_BOB_KEY: randomKey() };
  const config = await loadConfig(dir, configYaml(dir), env);
  const gateway = await Gateway.create(config, { log: () => {}, codeModeSandbox: "worker" });
  const { url } = await gateway.serve();
  const alice = await connect(url, env.ACM_ALICE_KEY);
  const bob = await connect(url, env.ACM_BOB_KEY);
  const execute = async (source: string) => {
    const r = await alice.callTool({ name: "execute", arguments: { source } });
    return {
      isError: r.isError === true,
      text: text(r),
      id: (r._meta as Record<string, string> | undefined)?.[EXECUTION_ID_META],
    };
  };
  try {
    await t.step(
      "execute: one record with outcome, duration, native calls and the source's hash",
      async () => {
        const source = 'def main():\n    a = dyn.say(text="one")\n    b = dyn.say(text="two")\n' +
          '    return [a["text"], b["text"]]\n';
        const out = await execute(source);
        assert.equal(out.isError, false, out.text);
        const rec = await record(
          dir,
          (l) => l.tool_name === "execute" && l.execution_id === out.id,
          "execute",
        );
        assert.equal(rec.client_id, "alice");
        assert.equal(rec.outcome, "ok");
        assert.equal(rec.error, "");
        assert.equal(rec.native_calls, 2);
        assert.equal(rec.source_sha256, await sha256(source));
        assert.ok(typeof rec.latency_ms === "number" && rec.latency_ms > 0);
        assert.ok(!JSON.stringify(rec).includes("dyn.say"), "the source never reaches the log");
        const native = (await lines(dir)).filter((l) =>
          l.execution_id === out.id && l.tool_name === "dyn__say"
        );
        assert.equal(native.length, 2);

        const failed = await execute('def main():\n    dyn.say(text="x")\n    fail("stop")\n');
        assert.equal(failed.isError, true);
        const frec = await record(
          dir,
          (l) => l.tool_name === "execute" && l.execution_id === failed.id,
          "failed",
        );
        assert.equal(frec.outcome, "invalid_program");
        assert.equal(frec.native_calls, 1);
        assert.ok(!JSON.stringify(frec).includes("stop"), "the program's own words are not logged");
      },
    );

    await t.step(
      "a program naming a forbidden or missing tool is audited like the passthrough call",
      async () => {
        // Generated forms of naming a tool: called, assigned, in a nested def, in a lambda, spaced.
        const forms = [
          (n: string) => `def main():\n    return ${n}(text="x")\n`,
          (n: string) => `def main():\n    f = ${n}\n    return f(text="x")\n`,
          (n: string) => `def helper():\n    return ${n}()\n\ndef main():\n    return helper()\n`,
          (n: string) => `def main():\n    g = lambda: ${n}(text="y")\n    return g()\n`,
          (n: string) => `def main():\n    return ${n.replace(".", " . ")}()\n`,
        ];
        const targets: [string, string, string][] = [
          ["dyn.crash", "dyn__crash", "denied_explicit"],
          ["evil.say", "evil__say", "denied_default"],
          ["evil.nothing_here", "evil__nothing_here", "denied_default"],
          ["dyn.nope", "dyn__nope", "not_found"],
        ];
        for (const [i, form] of forms.entries()) {
          const answers: string[] = [];
          for (const [name, tool, decision] of targets) {
            const out = await execute(form(name));
            assert.equal(out.isError, true, `${name} form ${i}`);
            answers.push(out.text.replace(name.split(".")[0], "ROOT").replace(name.split(".")[1], "NAME"));
            const rec = await record(
              dir,
              (l) => l.execution_id === out.id && l.tool_name === tool,
              `${tool} in form ${i}`,
            );
            assert.equal(rec.decision, decision, `${tool} form ${i}`);
            assert.equal(rec.allowed, false);
            assert.equal(rec.error, "unknown tool");
            assert.equal(rec.client_id, "alice");
            await record(
              dir,
              (l) => l.tool_name === "execute" && l.execution_id === out.id,
              "its execute record",
            );
          }
          // dyn.crash (forbidden) and dyn.nope (missing) read alike to the client, up to the names.
          const stripHint = (s: string) => s.replace(/ \(did you mean [^)]*\)/, "");
          assert.equal(stripHint(answers[0]), stripHint(answers[3]), `form ${i}`);
        }
        // The same calls in passthrough write the same decisions.
        for (const [, tool, decision] of targets) {
          await assert.rejects(bob.callTool({ name: tool, arguments: {} }));
          const rec = await record(dir, (l) => l.client_id === "bob" && l.tool_name === tool, tool);
          assert.equal(rec.decision, decision);
        }
      },
    );

    await t.step("names in strings and comments, and non-downstream roots, are not tool names", async () => {
      const source = '# dyn.crash is forbidden\ndef main():\n    s = "dyn.crash evil.say"\n' +
        "    t = '''evil.say\n    dyn.nope'''\n    d = {\"a\": 1}\n    return d.get(\"a\")\n";
      const out = await execute(source);
      assert.equal(out.isError, false, out.text);
      await record(dir, (l) => l.tool_name === "execute" && l.execution_id === out.id, "execute");
      const named = (await lines(dir)).filter((l) => l.execution_id === out.id && l.tool_name !== "execute");
      assert.deepEqual(named, []);
    });

    await t.step(
      "search_api and describe_api have their records; describe of a hidden tool too",
      async () => {
        const search = await alice.callTool({ name: "search_api", arguments: { query: "say" } });
        assert.equal(search.isError, undefined, text(search));
        await record(dir, (l) => l.tool_name === "search_api" && l.outcome === "ok", "search_api");
        const before = (await lines(dir)).length;
        const hidden = await alice.callTool({ name: "describe_api", arguments: { name: "dyn.crash" } });
        const missing = await alice.callTool({ name: "describe_api", arguments: { name: "dyn.nope" } });
        assert.equal(hidden.isError, true);
        assert.equal(text(hidden).replace("crash", "X"), text(missing).replace("nope", "X"));
        // Success records are written asynchronously: wait for the last one.
        const end = Date.now() + 10_000;
        while ((await lines(dir)).length < before + 4 && Date.now() < end) {
          await new Promise((r) => setTimeout(r, 20));
        }
        const after = (await lines(dir)).slice(before);
        assert.deepEqual(
          after.map((l) => [l.tool_name, l.decision, l.outcome ?? ""]),
          [
            ["dyn__crash", "denied_explicit", ""],
            ["describe_api", "allowed", "not_found"],
            ["dyn__nope", "not_found", ""],
            ["describe_api", "allowed", "not_found"],
          ],
        );
        const found = await alice.callTool({ name: "describe_api", arguments: { name: "dyn.say" } });
        assert.equal(found.isError, undefined);
        await record(dir, (l) => l.tool_name === "describe_api" && l.outcome === "ok", "describe ok");
      },
    );

    await t.step("a code-mode call with bad arguments has its record too", async () => {
      for (const name of ["execute", "search_api", "describe_api"]) {
        const r = await alice.callTool({ name, arguments: { nothing: 1 } });
        assert.equal(r.isError, true);
        await record(dir, (l) => l.tool_name === name && l.outcome === "invalid_arguments", name);
      }
    });

    await t.step("a failed authentication records the peer address", async () => {
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization: "Bearer wrong-key-0123456789", "content-type": "application/json" },
        body: "{}",
      });
      await res.body?.cancel();
      assert.equal(res.status, 401);
      const rec = await record(dir, (l) => l.decision === "unauthenticated", "unauthenticated");
      assert.equal(rec.remote_addr, "127.0.0.1");
      assert.equal(rec.client_id, "");
    });
  } finally {
    await alice.close();
    await bob.close();
    await gateway.close();
    await Deno.remove(dir, { recursive: true });
  }
});
