/**
 * `--stdio CLIENT_ID` serves the client's own mode, as HTTP does: the official SDK client spawns the
 * gateway CLI over stdio with no key variable set at all, and a code-mode client lists code mode's three
 * tools, searches its catalog and runs a program whose native calls reach real downstreams from npm
 * (each audited with the execution's id); a `both` client lists the three tools and its catalog.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { loadConfig as loadConfigText } from "../../src/gateway/config/mod.ts";
import { EXECUTION_ID_META } from "../../src/gateway/codemode/mod.ts";
import { DENO, everythingDownstream, memoryDownstream, prefetchServers, text, waitFor } from "./_helpers.ts";

const CLI = new URL("../../src/gateway/cli.ts", import.meta.url).pathname;
const PERMISSIONS = ["--allow-read", "--allow-write", "--allow-env", "--allow-net", "--allow-run"];

function yaml(dir: string): string {
  return `
listen: 127.0.0.1:0
mode: codemode
codemode: { max_execution_time: 20000 }
clients:
  - { id: alice, api_key_env: STDIO_ALICE_KEY }
  - { id: bob, api_key_env: STDIO_BOB_KEY, mode: both }
  - { id: carol, api_key_env: STDIO_CAROL_KEY, mode: passthrough }
downstreams:
${everythingDownstream()}
${memoryDownstream(dir)}
policy:
  clients:
    alice: { allow: ["memory__*", everything__echo] }
    bob: { allow: [everything__echo] }
    carol: { allow: [everything__echo] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)}, fsync_ms: 50 }
`;
}

/** The environment of the gateway: nothing but what Deno and npm need (no key variable of any client). */
function bareEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" };
  for (const name of ["NODE_EXTRA_CA_CERTS", "DENO_DIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Runs `body` with an SDK client of the gateway CLI spawned over stdio as `clientId`. */
async function withStdioGateway(
  file: string,
  clientId: string,
  body: (client: Client) => Promise<void>,
): Promise<string> {
  const client = new Client({ name: "stdio-codemode", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: DENO,
    args: ["run", ...PERMISSIONS, CLI, "--config", file, "--stdio", clientId],
    env: bareEnv(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Uint8Array) => stderr += new TextDecoder().decode(c));
  try {
    await client.connect(transport, { timeout: 120_000 });
    await body(client);
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : err}\ngateway stderr:\n${stderr}`, {
      cause: err,
    });
  } finally {
    await client.close();
    await waitFor(() => /gateway: stopped/.test(stderr), 30_000, `stdio gateway exit:\n${stderr}`);
  }
  return stderr;
}

async function execute(client: Client, source: string) {
  const r = await client.callTool({ name: "execute", arguments: { source } }, undefined, {
    timeout: 120_000,
  });
  return {
    isError: r.isError === true,
    text: text(r),
    result: (r.structuredContent as { result?: unknown } | undefined)?.result,
    executionId: (r._meta as Record<string, string> | undefined)?.[EXECUTION_ID_META],
  };
}

Deno.test("--stdio serves a code-mode client code mode, with no key variable set", async () => {
  await prefetchServers();
  const dir = await Deno.makeTempDir({ prefix: "gw-stdio-cm-" });
  const file = `${dir}/gateway.yaml`;
  await Deno.writeTextFile(file, yaml(dir));
  try {
    const stderr = await withStdioGateway(file, "alice", async (client) => {
      const names = (await client.listTools(undefined, { timeout: 120_000 })).tools.map((t) => t.name);
      assert.deepEqual(names, ["search_api", "describe_api", "execute"]);
      // Passthrough names are not callable in code mode (as over HTTP).
      await assert.rejects(
        client.callTool({ name: "everything__echo", arguments: { message: "x" } }),
        /unknown tool/,
      );
      const found = await client.callTool({ name: "search_api", arguments: { query: "echo" } });
      const results = (found.structuredContent as { results: { name: string }[] }).results.map((r) => r.name);
      assert.ok(results.includes("everything.echo"), JSON.stringify(results));

      // One program composes two downstreams: a write and a read on memory, an echo on everything.
      const run = await execute(
        client,
        `def main():
    memory.create_entities(entities=[{"name": "stdio-node", "entityType": "test", "observations": ["via stdio"]}])
    graph = memory.read_graph()
    echo = everything.echo(message="hello over stdio")
    return {"echo": echo["text"], "graph": [e["name"] for e in graph["entities"]]}
`,
      );
      assert.equal(run.isError, false, run.text);
      const result = run.result as { echo: string; graph: string[] };
      assert.equal(result.echo, "Echo: hello over stdio");
      assert.deepEqual(result.graph, ["stdio-node"]);
      assert.match(run.executionId ?? "", /^[0-9a-f-]{36}$/);

      // A tool alice may not call is missing in code mode too.
      const denied = await execute(client, "def main():\n    return everything.get_env()\n");
      assert.equal(denied.isError, true);
      assert.match(denied.text, /not found|undefined|has no/i);

      const audit = async () =>
        (await Deno.readTextFile(`${dir}/audit.jsonl`).catch(() => "")).split("\n").filter((l) => l !== "")
          .map((l) => JSON.parse(l) as { client_id: string; tool_name: string; execution_id?: string });
      await waitFor(
        async () => (await audit()).filter((r) => r.execution_id === run.executionId).length >= 3,
        10_000,
        "the native calls' audit records",
      );
      const records = (await audit()).filter((r) => r.execution_id === run.executionId);
      assert.deepEqual(
        records.map((r) => r.tool_name).filter((n) => n.includes("__")).sort(),
        ["everything__echo", "memory__create_entities", "memory__read_graph"],
      );
      assert.ok(records.every((r) => r.client_id === "alice"));
    });
    assert.match(stderr, /serving client alice on stdio/);
    assert.doesNotMatch(stderr, /STDIO_ALICE_KEY|is not set/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--stdio serves a `both` client the three tools and its catalog; passthrough stays passthrough", async () => {
  await prefetchServers();
  const dir = await Deno.makeTempDir({ prefix: "gw-stdio-both-" });
  const file = `${dir}/gateway.yaml`;
  await Deno.writeTextFile(file, yaml(dir));
  try {
    await withStdioGateway(file, "bob", async (client) => {
      const names = (await client.listTools(undefined, { timeout: 120_000 })).tools.map((t) => t.name);
      assert.deepEqual(names, ["search_api", "describe_api", "execute", "everything__echo"]);
      const direct = await client.callTool({ name: "everything__echo", arguments: { message: "d" } });
      assert.equal(text(direct), "Echo: d");
      const run = await execute(client, 'def main():\n    return everything.echo(message="p")["text"]\n');
      assert.equal(run.isError, false, run.text);
      assert.equal(run.result, "Echo: p");
    });
    await withStdioGateway(file, "carol", async (client) => {
      const names = (await client.listTools(undefined, { timeout: 120_000 })).tools.map((t) => t.name);
      assert.deepEqual(names, ["everything__echo"]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("config: clientKeys ignored reads no key variable and gives each client a distinct unusable key", () => {
  const text = `
clients:
  - { id: a, api_key_env: UNSET_A }
  - { id: b, api_key_env: UNSET_B }
  - { id: c, api_key_env: "not a name" }
downstreams: {}
`;
  const read: string[] = [];
  const env = (name: string) => {
    read.push(name);
    return name === "UNSET_B" ? "short" : undefined;
  };
  const required = loadConfigText(text, env);
  assert.equal(required.ok, false);
  const ignored = loadConfigText(text.replace(/\n {2}- \{ id: c.*\n/, "\n"), (n) => env(n), {
    clientKeys: "ignored",
  });
  assert.ok(ignored.ok, JSON.stringify(!ignored.ok && ignored.problems));
  read.length = 0;
  const again = loadConfigText(text.replace(/\n {2}- \{ id: c.*\n/, "\n"), env, { clientKeys: "ignored" });
  assert.ok(again.ok);
  assert.deepEqual(read, [], "no key variable is read");
  const keys = again.config.clients.map((c) => c.apiKey);
  assert.equal(new Set(keys).size, 2);
  assert.ok(keys.every((k) => /^[0-9a-f]{32}$/.test(k)));
  // A malformed variable name is still a problem of the file.
  const bad = loadConfigText(text, env, { clientKeys: "ignored" });
  assert.equal(bad.ok, false);
  assert.match(JSON.stringify(!bad.ok && bad.problems), /not an environment variable name/);
});
