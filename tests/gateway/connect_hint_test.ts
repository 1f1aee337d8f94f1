/**
 * `deno task gateway` prints how to connect on start (stderr), and it works: over HTTP the printed URL,
 * with the client's own key in place of the placeholder, lists that client's tools; with `--stdio` the
 * printed entry, spawned from another directory as a desktop client would, serves that client.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { connect, DENO, memoryDownstream, prefetchServers, randomKey, waitFor } from "./_helpers.ts";

const CLI = new URL("../../src/gateway/cli.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const HINT = /To connect an MCP client[^\n]*\n( {2}\{\n[\s\S]*?\n {2}\})\n/;

interface Entry {
  readonly command?: string;
  readonly args?: string[];
  readonly url?: string;
  readonly headers?: Record<string, string>;
}

async function printedEntry(args: string[], env: Record<string, string>): Promise<Entry> {
  const child = new Deno.Command(DENO, {
    args: ["run", "--config", CONFIG, "-A", CLI, ...args],
    env,
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const pump = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  try {
    await waitFor(() => HINT.test(stderr), 120_000, `connect hint in gateway stderr:\n${stderr}`);
    return (JSON.parse(HINT.exec(stderr)![1]).mcpServers as Record<string, Entry>).gateway;
  } finally {
    await child.stdin.close().catch(() => {});
    child.kill("SIGTERM");
    await child.status;
    await pump;
  }
}

Deno.test("gateway CLI prints a client entry for HTTP and for --stdio, and both connect", async () => {
  await prefetchServers();
  const dir = await Deno.makeTempDir({ prefix: "gw-hint-" });
  const key = randomKey();
  const env = { HINT_ALICE_KEY: key, PATH: Deno.env.get("PATH") ?? "" };
  const extra = Deno.env.get("NODE_EXTRA_CA_CERTS");
  if (extra !== undefined) Object.assign(env, { NODE_EXTRA_CA_CERTS: extra });
  const file = `${dir}/gateway.yaml`;
  await Deno.writeTextFile(
    file,
    `
listen: 127.0.0.1:0
clients:
  - { id: alice, api_key_env: HINT_ALICE_KEY }
downstreams:
${memoryDownstream(dir)}
policy:
  default: deny
  clients:
    alice: { allow: ["memory__*"] }
`,
  );
  try {
    // HTTP: while this CLI runs, its printed URL answers with the client's key in the placeholder's place.
    const child = new Deno.Command(DENO, {
      args: ["run", "--config", CONFIG, "-A", CLI, "--config", file],
      env,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let stderr = "";
    const pump = (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
    })();
    try {
      await waitFor(() => HINT.test(stderr), 120_000, `connect hint in gateway stderr:\n${stderr}`);
      const entry = (JSON.parse(HINT.exec(stderr)![1]).mcpServers as Record<string, Entry>).gateway;
      assert.match(entry.headers!.Authorization, /^Bearer <the client's key/);
      assert.ok(!stderr.includes(key), "the key itself is never printed");
      const client = await connect(entry.url!, key);
      try {
        const tools = (await client.listTools()).tools.map((t) => t.name);
        assert.ok(tools.includes("memory__read_graph"), tools.join(", "));
      } finally {
        await client.close();
      }
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await pump;
    }

    // --stdio: the printed command serves the same client when spawned elsewhere.
    const stdio = await printedEntry(["--config", file, "--stdio", "alice"], env);
    assert.ok(stdio.command !== undefined && stdio.args!.includes("alice"), JSON.stringify(stdio));
    const client = new Client({ name: "hint", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command: stdio.command!, args: stdio.args!, cwd: dir, env, stderr: "pipe" }),
    );
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(tools.includes("memory__read_graph"), tools.join(", "));
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
