/**
 * Code mode on the gateway end to end: a real SDK client over Streamable HTTP, the memory and
 * everything reference servers behind the gateway, programs that compose their tools, and the audit
 * file read back (one record per native call, carrying the execution id).
 */
import assert from "node:assert/strict";
import { Gateway } from "../../src/gateway/gateway.ts";
import { EXECUTION_ID_META } from "../../src/gateway/codemode/mod.ts";
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

const TOKEN = "cm-token-9Hq2Zx7Lw3Pv5Rb8";

function configYaml(dir: string, aliceDeny = "memory__delete_entities"): string {
  return `
listen: 127.0.0.1:0
mode: codemode
codemode: { max_execution_time: 20000, max_concurrent_executions: 4 }
call_timeout_ms: 15000
clients:
  - { id: alice, api_key_env: CM_ALICE_KEY }
  - { id: bob, api_key_env: CM_BOB_KEY, mode: both }
downstreams:
${everythingDownstream(["secrets: { SERVICE_TOKEN: CM_SERVICE_TOKEN }", "call_timeout_ms: 4000"])}
${memoryDownstream(dir)}
policy:
  clients:
    alice: { allow: ["everything__*", "memory__*"], deny: [${aliceDeny}] }
    bob: { allow: [memory__read_graph, memory__search_nodes, everything__echo] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)}, fsync_ms: 50 }
`;
}

interface AuditLine {
  client_id: string;
  tool_name: string;
  decision: string;
  allowed: boolean;
  error: string;
  redactions: number;
  execution_id?: string;
}

async function auditLines(dir: string): Promise<AuditLine[]> {
  const raw = await Deno.readTextFile(`${dir}/audit.jsonl`).catch(() => "");
  return raw.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

type Client = Awaited<ReturnType<typeof connect>>;

async function run(client: Client, source: string) {
  const r = await client.callTool({ name: "execute", arguments: { source } });
  return {
    isError: r.isError === true,
    text: text(r),
    result: (r.structuredContent as { result?: unknown } | undefined)?.result,
    executionId: (r._meta as Record<string, string> | undefined)?.[EXECUTION_ID_META],
  };
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, text: text(r), structured: r.structuredContent as never };
}

Deno.test("code mode end to end through the gateway", async (t) => {
  await prefetchServers();
  const dir = await Deno.makeTempDir({ prefix: "gw-cm-" });
  const env = { CM_ALICE_KEY: randomKey(), CM_BOB_KEY: randomKey(), CM_SERVICE_TOKEN: TOKEN };
  const config = await loadConfig(dir, configYaml(dir), env);
  const logs: string[] = [];
  const gateway = await Gateway.create(config, {
    startTimeoutMs: START_TIMEOUT_MS,
    log: (l) => logs.push(l),
  });
  const { url } = await gateway.serve();
  const alice = await connect(url, env.CM_ALICE_KEY);
  const bob = await connect(url, env.CM_BOB_KEY);
  try {
    await t.step("codemode lists exactly the three tools; both adds the namespaced ones", async () => {
      const aliceTools = (await alice.listTools()).tools.map((x) => x.name);
      assert.deepEqual(aliceTools, ["search_api", "describe_api", "execute"]);
      const bobTools = (await bob.listTools()).tools.map((x) => x.name);
      assert.deepEqual(bobTools.slice(0, 3), ["search_api", "describe_api", "execute"]);
      assert.deepEqual(bobTools.slice(3).sort(), [
        "everything__echo",
        "memory__read_graph",
        "memory__search_nodes",
      ]);
      // A codemode client cannot call a namespaced tool directly.
      await assert.rejects(
        alice.callTool({ name: "everything__echo", arguments: { message: "x" } }),
        /unknown tool/,
      );
      assert.equal(
        text(await bob.callTool({ name: "everything__echo", arguments: { message: "x" } })),
        "Echo: x",
      );
    });

    await t.step("discovery is per client: search and describe show only what each may call", async () => {
      const aliceHits = (await call(alice, "search_api", { query: "entities" })).structured as {
        results: { name: string }[];
      };
      const bobHits = (await call(bob, "search_api", { query: "entities" })).structured as {
        results: { name: string }[];
      };
      const aliceNames = aliceHits.results.map((r) => r.name);
      const bobNames = bobHits.results.map((r) => r.name);
      assert.ok(aliceNames.includes("memory.create_entities"), aliceNames.join());
      assert.ok(!aliceNames.includes("memory.delete_entities"), "a denied tool is not searchable");
      assert.ok(!bobNames.includes("memory.create_entities"), bobNames.join());
      assert.notDeepEqual(aliceNames, bobNames);

      const described = await call(alice, "describe_api", { name: "memory.create_entities" });
      assert.equal(described.isError, false);
      const d = described.structured as { signature: string; input: { name: string; type: string }[] };
      assert.equal(
        d.signature,
        "memory.create_entities(*, entities: list[{name: str, entityType: str, observations: list[str]}])",
      );
      const hidden = await call(bob, "describe_api", { name: "memory.create_entities" });
      const missing = await call(bob, "describe_api", { name: "memory.no_such_tool" });
      assert.equal(hidden.isError, true);
      assert.equal(hidden.text, missing.text);
      assert.equal(hidden.text, "capability not found");
      const env = await call(alice, "describe_api", { name: "everything.get_env" });
      assert.match(JSON.stringify(env.structured), /"name":"text","type":"str"/);
    });

    let composedId = "";
    await t.step("one program composes two downstreams; the secret arrives redacted", async () => {
      const out = await run(
        alice,
        `
def main():
    memory.create_entities(entities=[
        {"name": "gateway", "entityType": "software", "observations": ["fronts MCP"]},
        {"name": "starlark", "entityType": "language", "observations": ["deterministic"]},
    ])
    found = memory.search_nodes(query="software")
    names = [e["name"] for e in found["entities"]]
    echo = everything.echo(message="found " + ", ".join(names))
    env = json.decode(everything.get_env()["text"])
    return {"names": names, "echo": echo["text"], "token": env["SERVICE_TOKEN"]}
`,
      );
      assert.equal(out.isError, false, out.text);
      assert.deepEqual(out.result, { names: ["gateway"], echo: "Echo: found gateway", token: "[REDACTED]" });
      assert.ok(!out.text.includes(TOKEN));
      assert.ok(out.executionId !== undefined && out.executionId.length > 10);
      composedId = out.executionId!;
    });

    await t.step("a denied tool fails exactly like a missing one; failures are classified", async () => {
      const denied = await run(
        alice,
        'def main():\n    return memory.delete_entities(entityNames=["gateway"])\n',
      );
      const missing = await run(
        alice,
        'def main():\n    return memory.delete_entitiez(entityNames=["gateway"])\n',
      );
      assert.equal(denied.isError, true);
      // The same error, up to the name and the engine's spelling hint (drawn from the visible names).
      const shape = (s: string, name: string) =>
        s.replace(name, "NAME").replace(/ \(did you mean [^)]*\)/, "");
      assert.equal(shape(denied.text, "delete_entities"), shape(missing.text, "delete_entitiez"));
      assert.ok(!/did you mean \.delete_entities/.test(missing.text), "the hint never names a hidden tool");
      assert.match(denied.text, /^invalid program: /);
      // The graph still holds the entity: the denied call never ran.
      const graph = await run(
        alice,
        'def main():\n    return [e["name"] for e in memory.read_graph()["entities"]]\n',
      );
      assert.deepEqual(graph.result, ["gateway", "starlark"]);

      // A tool's own error (isError: true) is a capability failure carrying its redacted text.
      const bad = await run(
        alice,
        'def main():\n    return everything.get_annotated_message(messageType="nope")\n',
      );
      assert.equal(bad.isError, true);
      assert.match(bad.text, /^capability failed: /);
      // A timeout is classified with the gateway's fixed text.
      const slow = await run(
        alice,
        "def main():\n    return everything.trigger_long_running_operation(duration=8, steps=2)\n",
      );
      assert.equal(
        slow.text,
        "capability failed: everything.trigger_long_running_operation: the tool call timed out",
      );
    });

    await t.step("every native call leaves its own audit record with the execution id", async () => {
      await waitFor(
        async () => (await auditLines(dir)).some((l) => l.execution_id === composedId),
        10_000,
        "audit",
      );
      const all = (await auditLines(dir)).filter((l) => l.execution_id === composedId);
      // The execution's own record carries its id too (see tests/gateway/audit_codemode_test.ts).
      const records = all.filter((l) => l.tool_name !== "execute");
      assert.deepEqual(records.map((r) => r.tool_name), [
        "memory__create_entities",
        "memory__search_nodes",
        "everything__echo",
        "everything__get-env",
      ]);
      for (const r of records) assert.equal(r.client_id, "alice");
      assert.ok(records[3].redactions >= 1, "the get-env record counts the redaction");
      // The timed-out call's record is written when the gateway gives up on it, which the execution's
      // answer does not wait for: wait for it like the others.
      const isTimedOut = (l: AuditLine) =>
        l.tool_name === "everything__trigger-long-running-operation" && l.error === "the tool call timed out";
      await waitFor(async () => (await auditLines(dir)).some(isTimedOut), 10_000, "timed-out audit");
      const timedOut = (await auditLines(dir)).find(isTimedOut);
      assert.ok(timedOut?.execution_id, "the timed-out native call is audited with its execution");
    });

    await t.step("a client that disconnects cancels its execution and its native call", async () => {
      // The edge is stateless: a request ends when its HTTP connection does, which closing the client's
      // transport does.
      const leaving = await connect(url, env.CM_ALICE_KEY);
      const echoes = async () =>
        (await auditLines(dir)).filter((l) => l.tool_name === "everything__echo").length;
      const before = await echoes();
      const pending = run(
        leaving,
        'def main():\n    everything.echo(message="start")\n' +
          "    return everything.trigger_long_running_operation(duration=3, steps=3)\n",
      ).catch((e) => e);
      // Once the first call is done the long one follows at once; leave while it runs.
      await waitFor(async () => (await echoes()) > before, 10_000, "the first native call");
      await new Promise((r) => setTimeout(r, 300));
      await leaving.close();
      await pending;
      await waitFor(
        async () =>
          (await auditLines(dir)).some((l) =>
            l.tool_name === "everything__trigger-long-running-operation" &&
            l.error === "the tool call was cancelled"
          ),
        5_000,
        "the cancelled native call's audit record",
      );
    });

    await t.step("a call the policy refuses while the program runs is denied and classified", async () => {
      const searches = async () =>
        (await auditLines(dir)).filter((l) => l.tool_name === "memory__search_nodes").length;
      const before = await searches();
      const pending = run(
        alice,
        `
def main():
    memory.search_nodes(query="software")
    everything.trigger_long_running_operation(duration=2, steps=1)
    return memory.read_graph()
`,
      );
      // The program is past its first call (and its server was built) before the policy changes.
      await waitFor(async () => (await searches()) > before, 10_000, "the first native call");
      await gateway.reload(
        await loadConfig(dir, configYaml(dir, "memory__delete_entities, memory__read_graph"), env),
      );
      const out = await pending;
      assert.equal(out.text, "permission denied");
      await waitFor(
        async () => (await auditLines(dir)).filter((l) => l.execution_id === out.executionId).length === 3,
        10_000,
        "three records",
      );
      const records = (await auditLines(dir)).filter((l) => l.execution_id === out.executionId);
      assert.deepEqual(records.map((r) => [r.tool_name, r.decision]), [
        ["memory__search_nodes", "allowed"],
        ["everything__trigger-long-running-operation", "allowed"],
        ["memory__read_graph", "denied_explicit"],
      ]);
      await gateway.reload(await loadConfig(dir, configYaml(dir), env));
    });

    await t.step("bob's program sees only bob's tools", async () => {
      const out = await run(bob, 'def main():\n    return everything.echo(message="b")["text"]\n');
      assert.equal(out.result, "Echo: b");
      const env = await run(bob, "def main():\n    return everything.get_env()\n");
      assert.match(env.text, /^invalid program: .*has no \.get_env field or method/);
    });
  } finally {
    await alice.close();
    await bob.close();
    await gateway.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
