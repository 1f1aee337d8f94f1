/**
 * On the gateway, the catalog listed in `execute`'s description is each client's own: exactly the tools
 * that client may call (a denied tool is never listed, so denied stays indistinguishable from missing),
 * with the signatures its `describe_api` gives; a program written from the listing runs. A typo of a
 * denied tool's name gets no suggestion of it, and calling it reads exactly as calling a missing one.
 */
import assert from "node:assert/strict";
import { Gateway } from "../../src/gateway/gateway.ts";
import { codeModeTools } from "../../src/gateway/codemode/mod.ts";
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

/** The listed lines of a description (`- signature ...`), by capability name. */
function listed(description: string): Map<string, string> {
  const section = description.split("Capabilities (the whole catalog you may call")[1];
  if (section === undefined) return new Map();
  const lines = section.split("\n").slice(1).filter((l) => l.startsWith("- "));
  return new Map(lines.map((l) => [l.slice(2).split("(")[0], l]));
}

Deno.test("gateway: each client's execute description lists its own tools, never a denied one", async () => {
  await prefetchServers();
  const dir = await Deno.makeTempDir({ prefix: "gw-listing-" });
  const env = { LS_ALICE_KEY: randomKey(), LS_BOB_KEY: randomKey(), LS_CAROL_KEY: randomKey() };
  const config = await loadConfig(
    dir,
    `
listen: 127.0.0.1:0
mode: codemode
codemode: { max_execution_time: 20000 }
clients:
  - { id: alice, api_key_env: LS_ALICE_KEY }
  - { id: bob, api_key_env: LS_BOB_KEY }
  - { id: carol, api_key_env: LS_CAROL_KEY }
downstreams:
${everythingDownstream()}
${memoryDownstream(dir)}
policy:
  clients:
    alice: { allow: ["memory__*"] }
    bob: { allow: ["everything__echo", "everything__get-sum", "memory__read_graph"] }
    carol: { allow: ["everything__*", "memory__*"], deny: [everything__echo, memory__delete_entities] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
`,
    env,
  );
  const gateway = await Gateway.create(config, { startTimeoutMs: START_TIMEOUT_MS, log: () => {} });
  const clients = [];
  try {
    await waitFor(
      () => gateway.downstreams.every((d) => d.state === "up"),
      START_TIMEOUT_MS,
      "downstreams up",
    );
    const { url } = await gateway.serve();
    const sizes = new Map<string, number>();
    for (
      const [id, key] of [["alice", env.LS_ALICE_KEY], ["bob", env.LS_BOB_KEY], ["carol", env.LS_CAROL_KEY]]
    ) {
      const client = await connect(url, key);
      clients.push(client);
      const description = (await client.listTools()).tools.find((x) => x.name === "execute")!.description!;
      const lines = listed(description);
      const visible = gateway.listTools(id).tools.map((x) =>
        `${x.ref.downstream}.${x.ref.tool.replace(/[^A-Za-z0-9_]/g, "_")}`
      );
      sizes.set(id, lines.size);
      // Listed: all of the client's tools or (past the budget) none, never a tool it may not call.
      if (lines.size > 0) assert.deepEqual([...lines.keys()].sort(), visible.sort(), id);
      for (const name of lines.keys()) assert.ok(visible.includes(name), `${id}: ${name}`);
      if (id === "carol") {
        assert.ok(!lines.has("everything.echo") && !description.includes("everything.echo("), description);
        assert.ok(!lines.has("memory.delete_entities"), description);
        // A denied tool reads exactly as a missing one, and no hint suggests it.
        const shown = async (member: string) => {
          const r = await client.callTool({
            name: "execute",
            arguments: { source: `def main():\n    return everything.${member}(message="x")\n` },
          });
          return text(r).replaceAll(`.${member} `, ".NAME ");
        };
        const missing = await shown("zzzz");
        assert.match(
          missing,
          /^invalid program: .*module has no \.NAME field or method \(hint: everything has /,
        );
        assert.equal(await shown("echo"), missing);
        for (const typo of ["ehco", "ech", "Echo", "echoo"]) {
          const answer = await shown(typo);
          assert.doesNotMatch(answer, /echo/i, answer);
        }
      }
      for (const [name, line] of [...lines].slice(0, 3)) {
        const d = await client.callTool({ name: "describe_api", arguments: { name } });
        const signature = (d.structuredContent as { signature: string }).signature;
        assert.ok(line.startsWith(`- ${signature}`), `${line} vs ${signature}`);
      }
    }
    // The small catalogs are listed (bob's three tools, alice's memory tools).
    assert.equal(sizes.get("bob"), 3);
    assert.ok(sizes.get("alice")! > 3 && sizes.get("carol")! > 10, JSON.stringify([...sizes]));
    // bob writes a program from the listing alone, and it runs through the gateway.
    const bob = clients[1];
    const r = await bob.callTool({
      name: "execute",
      arguments: { source: 'def main():\n    return everything.echo(message="hi")["text"]\n' },
    });
    assert.equal(r.isError, undefined, text(r));
    assert.match(text(r), /hi/);
    // Switched off programmatically: nothing is listed.
    assert.equal(
      listed(codeModeTools(undefined, gateway.listTools("bob").tools, false)[2].description!).size,
      0,
    );
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await gateway.close();
    await Deno.remove(dir, { recursive: true });
  }
});
