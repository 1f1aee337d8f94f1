/**
 * The CodeMode server's per-subject execute limits end to end: the serve CLI over Streamable HTTP with
 * API keys, the limits stated in its environment, and a real SDK client per subject.
 */
import assert from "node:assert/strict";
import { childEnv, CONFIG, spawnListening, startHttpCli } from "../mcp/cli_helpers.ts";
import { connectClient } from "../mcp/http_helpers.ts";
import { textOf } from "./_harness.ts";

Deno.test("serve --http: execute is rate limited per subject from the environment", async () => {
  const keys = { alice: "alice-serve-key-0123456789", bob: "bob-serve-key-0123456789ab" };
  const cli = await startHttpCli([], {
    CODEMODE_API_KEYS: `alice=${keys.alice},bob=${keys.bob}`,
    CODEMODE_EXECUTE_RATE: "2/h",
  });
  try {
    const alice = await connectClient(cli.url, { authorization: `Bearer ${keys.alice}` });
    const bob = await connectClient(cli.url, { authorization: `Bearer ${keys.bob}` });
    const source = "def main():\n    return 1 + 1\n";
    const run = (c: typeof alice) => c.callTool({ name: "execute", arguments: { source } });
    const results = [await run(alice), await run(alice), await run(alice)];
    assert.deepEqual(results.map((r) => r.isError === true), [false, false, true]);
    assert.match(
      textOf(results[2]),
      /^resource limit exceeded: rate limited: retry after \d+ s \(rule "execute rate"\)$/,
    );
    assert.notEqual((await run(bob)).isError, true, "bob has his own bucket");
    await alice.close();
    await bob.close();
  } finally {
    await cli.stop();
  }
});

Deno.test("deploy.ts under deno serve: execute quota per subject; a malformed limit stops it at start", async () => {
  const key = "deploy-limits-key-0123456789";
  const deploy = new URL("../../deploy.ts", import.meta.url).pathname;
  const args = [
    "serve",
    "--config",
    CONFIG,
    "--allow-env",
    "--allow-read",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    deploy,
  ];
  const server = await spawnListening(
    args,
    childEnv({
      CODEMODE_API_KEYS: `edge=${key}`,
      DENO_DEPLOYMENT_ID: "test",
      CODEMODE_EXECUTE_QUOTA: "2/day",
    }),
    /Listening on (http:\/\/[^/\s]+)/,
  );
  try {
    const client = await connectClient(`${server.address}/mcp`, { authorization: `Bearer ${key}` });
    const source = "def main():\n    return 2\n";
    const results = [];
    for (let i = 0; i < 3; i++) {
      results.push(await client.callTool({ name: "execute", arguments: { source } }));
    }
    assert.deepEqual(results.map((r) => r.isError === true), [false, false, true]);
    assert.match(
      textOf(results[2]),
      /^resource limit exceeded: quota exceeded: retry after \d+ s \(rule "execute quota"\)$/,
    );
    await client.close();
  } finally {
    await server.stop();
  }
  const bad = await new Deno.Command(Deno.execPath(), {
    args,
    env: childEnv({ CODEMODE_API_KEYS: `edge=${key}`, CODEMODE_EXECUTE_RATE: "often" }),
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(bad.success, false);
  assert.match(new TextDecoder().decode(bad.stderr), /CODEMODE_EXECUTE_RATE: must be "N\/s\|min\|h"/);
});
