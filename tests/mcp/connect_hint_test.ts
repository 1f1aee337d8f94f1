/**
 * `deno task serve` prints how to connect on start (stderr), and what it prints works: the stdio entry,
 * spawned as a client configuration would spawn it, answers `tools/list` through the official SDK client;
 * the HTTP entry's URL answers a tool call; and with API keys the entry shows a placeholder, never a key.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { childEnv, cliArgs } from "./cli_helpers.ts";
import { connectHint } from "../../mcp.ts";

interface Entry {
  readonly command?: string;
  readonly args?: string[];
  readonly type?: string;
  readonly url?: string;
  readonly headers?: Record<string, string>;
}

const HINT = /To connect an MCP client[^\n]*\n( {2}\{\n[\s\S]*?\n {2}\})\n/;

/** Starts the serve CLI with `extra`, reads its stderr until the connect hint is printed, returns it. */
async function startAndReadHint(
  extra: readonly string[],
  env: Record<string, string> = {},
): Promise<{ entry: Entry; stop: () => Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(extra),
    env: childEnv(env),
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  let match: RegExpExecArray | null = null;
  while ((match = HINT.exec(text)) === null) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  clearTimeout(guard);
  const stop = async () => {
    await child.stdin.close().catch(() => {});
    child.kill("SIGTERM");
    await reader.cancel().catch(() => {});
    await child.status;
  };
  if (match === null) {
    await stop();
    throw new Error(`no connect hint on stderr:\n${text}`);
  }
  const servers = JSON.parse(match[1]).mcpServers as Record<string, Entry>;
  return { entry: servers.codemode, stop };
}

Deno.test("serve (stdio) prints a client entry that, spawned as written, serves the three tools", async () => {
  const { entry, stop } = await startAndReadHint(["--executor", "inline", "--subject", "dev"]);
  await stop();
  assert.ok(entry.command !== undefined && Array.isArray(entry.args), JSON.stringify(entry));
  assert.ok(entry.args!.includes("--subject") && entry.args!.includes("dev"), "the options given are kept");
  // The fast start: the bundled launcher, with the serve task's V8 flags.
  assert.ok(entry.args!.some((a) => a.endsWith("/src/mcp/serve_launcher.ts")), JSON.stringify(entry.args));
  assert.ok(entry.args!.some((a) => a.startsWith("--v8-flags=")), JSON.stringify(entry.args));
  const client = new Client({ name: "hint", version: "1.0.0" });
  // Spawned from another directory, as a desktop client would: the entry must not depend on the cwd.
  const elsewhere = await Deno.makeTempDir({ prefix: "codemode-hint-" });
  const transport = new StdioClientTransport({
    command: entry.command!,
    args: entry.args!,
    cwd: elsewhere,
    env: childEnv(),
    stderr: "pipe",
  });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((x) => x.name);
    assert.deepEqual(tools, ["search_api", "describe_api", "execute"]);
    const r = await client.callTool({
      name: "execute",
      arguments: { source: 'def main():\n    return crm.customer(id="c-101")["id"]\n' },
    });
    assert.deepEqual(r.structuredContent, { result: "c-101" });
  } finally {
    await client.close();
    await Deno.remove(elsewhere, { recursive: true });
  }
});

Deno.test("serve (HTTP) prints its URL as a client entry, with a key placeholder when keys are set", async () => {
  const keyless = await startAndReadHint(["--executor", "inline", "--http", "127.0.0.1:0"]);
  try {
    assert.equal(keyless.entry.type, "http");
    assert.equal(keyless.entry.headers, undefined);
    const client = new Client({ name: "hint", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(keyless.entry.url!)));
    try {
      const r = await client.callTool({ name: "describe_api", arguments: { name: "crm.customer" } });
      assert.equal(r.isError, undefined);
    } finally {
      await client.close();
    }
  } finally {
    await keyless.stop();
  }
  const key = "k-" + crypto.randomUUID();
  const keyed = await startAndReadHint(["--executor", "inline", "--http", "127.0.0.1:0"], {
    CODEMODE_API_KEYS: `alice=${key}`,
  });
  await keyed.stop();
  assert.deepEqual(keyed.entry.headers, { Authorization: "Bearer <a key of CODEMODE_API_KEYS>" });
  assert.ok(!JSON.stringify(keyed.entry).includes(key), "never the key itself");
});

Deno.test("connectHint: the entry is an mcpServers object, JSON the client configuration accepts", () => {
  const text = connectHint("x", { kind: "http", url: "http://127.0.0.1:1/mcp", bearer: "<key>" });
  const json = JSON.parse(HINT.exec(text + "\n")![1]);
  assert.deepEqual(json, {
    mcpServers: {
      x: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer <key>" } },
    },
  });
});
