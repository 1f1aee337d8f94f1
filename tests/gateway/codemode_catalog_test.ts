/**
 * A client's code-mode catalog follows the gateway: a downstream's `tools/list_changed` and a reload of
 * policy rebuild it, and a program already running when policy changes has its next native call denied
 * by the pipeline (classified, audited), never answered from a stale catalog.
 */
import assert from "node:assert/strict";
import { Gateway } from "../../src/gateway/gateway.ts";
import type { CodeModeError } from "../../src/errors.ts";
import { loadConfig, randomKey, START_TIMEOUT_MS, stdioDownstream, waitFor } from "./_helpers.ts";

const SERVER = new URL("../../src/gateway/downstream/testdata/dynamic_server.ts", import.meta.url).pathname;

function configYaml(dir: string, aliceDeny: string): string {
  return `
listen: 127.0.0.1:0
mode: codemode
codemode: { max_execution_time: 20000, max_concurrent_executions: 2 }
clients:
  - { id: alice, api_key_env: CC_ALICE }
  - { id: carol, api_key_env: CC_CAROL }
downstreams:
${stdioDownstream("dyn", ["run", "--allow-env", "--allow-read", JSON.stringify(SERVER)])}
policy:
  clients:
    alice: { allow: ["dyn__*"], deny: [${aliceDeny}] }
    carol: { allow: ["dyn__say"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)}, fsync_ms: 50 }
`;
}

Deno.test("the code-mode catalog follows list_changed and reloads; a stale call is denied", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw-cmc-" });
  const env = { CC_ALICE: randomKey(), CC_CAROL: randomKey() };
  const gateway = await Gateway.create(await loadConfig(dir, configYaml(dir, ""), env), {
    startTimeoutMs: START_TIMEOUT_MS,
    log: () => {},
  });
  const run = async (client: string, source: string) => (await gateway.execute(client, source)).value;
  const failure = (client: string, source: string) =>
    gateway.execute(client, source).then(() => assert.fail("expected a failure"), (e: CodeModeError) => e);
  try {
    assert.equal(await run("alice", 'def main():\n    return dyn.say(text="hi")["text"]\n'), "hi");
    // carol's server is her own: the tools alice may call are not there.
    const hidden = await failure("carol", "def main():\n    return dyn.add_tool()\n");
    assert.equal(hidden.code, "invalid_program");

    // A tool added downstream is callable once the gateway re-listed it.
    assert.equal(
      await run("alice", 'def main():\n    return dyn.add_tool()["text"]\n'),
      "registered added_1",
    );
    await waitFor(() => gateway.listTools("alice").lookup("dyn__added_1") !== undefined, 10_000, "re-list");
    assert.equal(await run("alice", 'def main():\n    return dyn.added_1()["text"]\n'), "added_1");

    // Policy changes while a program runs: its next call is refused by the pipeline.
    const audit = async () =>
      (await Deno.readTextFile(`${dir}/audit.jsonl`).catch(() => "")).split("\n").filter((l) => l !== "")
        .map((l) =>
          JSON.parse(l) as { tool_name: string; decision: string; allowed: boolean; execution_id?: string }
        );
    const said = async () =>
      (await audit()).filter((l) => l.tool_name === "dyn__say" && l.execution_id !== undefined);
    const before = (await said()).length;
    const running = failure(
      "alice",
      'def main():\n    dyn.say(text="zero")\n    dyn.say(text="first", delay_ms=1500)\n    return dyn.say(text="second")\n',
    );
    // Past its first call (so its server is the one from before the reload) before the policy changes.
    await waitFor(async () => (await said()).length > before, 10_000, "the first native call");
    await gateway.reload(await loadConfig(dir, configYaml(dir, "dyn__say"), env));
    const denied = await running;
    assert.equal(denied.code, "permission_denied");
    await waitFor(async () => (await said()).length === before + 3, 10_000, "three records");
    const records = (await said()).slice(before);
    assert.deepEqual(records.map((l) => [l.decision, l.allowed]), [
      ["allowed", true],
      ["allowed", true],
      ["denied_explicit", false],
    ]);
    assert.equal(new Set(records.map((l) => l.execution_id)).size, 1);

    // Programs started after the reload see the new catalog: the tool is gone for alice only.
    const gone = await failure("alice", 'def main():\n    return dyn.say(text="x")\n');
    assert.equal(gone.code, "invalid_program");
    assert.equal(await run("carol", 'def main():\n    return dyn.say(text="c")["text"]\n'), "c");
  } finally {
    await gateway.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
