/**
 * End to end over Streamable HTTP: the real serve CLI with `--http`, API keys from the environment, and
 * a real SDK client; plus the CLI's refusals and usage errors.
 */
import assert from "node:assert/strict";
import { DEMO_PROGRAM } from "../../examples/demo.ts";
import { runCli, startHttpCli } from "./cli_helpers.ts";
import { connectClient, rawPost, rawStatusWithHost } from "./http_helpers.ts";

const KEY = "k-" + "0123456789abcdef".repeat(2);

Deno.test("HTTP CLI with API keys: 401 without a key, 403 for a foreign Origin, tools work with the key", async () => {
  const cli = await startHttpCli([], { CODEMODE_API_KEYS: `ops=${KEY}` });
  try {
    assert.equal((await rawPost(cli.url)).status, 401);
    assert.equal((await rawPost(cli.url, { authorization: "Bearer not-the-right-key-at-all" })).status, 401);
    assert.equal(
      (await rawPost(cli.url, { authorization: `Bearer ${KEY}`, origin: "https://evil.example.com" })).status,
      403,
    );
    assert.equal(await rawStatusWithHost(cli.port, "/mcp", "evil.example.com"), 403);
    const health = await fetch(new URL("/healthz", cli.url));
    assert.deepEqual(await health.json(), { status: "ok" });

    const client = await connectClient(cli.url, { authorization: `Bearer ${KEY}` });
    const { tools } = await client.listTools();
    assert.equal(tools.length, 3);
    const search = await client.callTool({ name: "search_api", arguments: { query: "exchange rate" } });
    assert.equal((search.structuredContent as { results: { name: string }[] }).results[0].name, "fx.convert");
    const run = await client.callTool({ name: "execute", arguments: { source: DEMO_PROGRAM } });
    assert.equal(run.isError, undefined);
    assert.equal((run.structuredContent as { result: unknown[] }).result.length, 2);
    const big = await client.callTool({ name: "execute", arguments: { source: "#".repeat(70_000) } });
    assert.deepEqual(big.content, [{
      type: "text",
      text: "resource limit exceeded: the program is 70,000 bytes: maxSourceBytes exceeded " +
        "(limit: 65,536 bytes): send a shorter program",
    }]);
    await client.close();

    // The executor pool's metrics: authenticated like the MCP endpoint, driven by the executions above.
    const metricsUrl = new URL("/metrics", cli.url);
    const anonymous = await fetch(metricsUrl);
    await anonymous.body?.cancel();
    assert.equal(anonymous.status, 401);
    const metrics = await fetch(metricsUrl, { headers: { authorization: `Bearer ${KEY}` } });
    assert.equal(metrics.status, 200);
    assert.match(metrics.headers.get("content-type") ?? "", /^text\/plain/);
    const text = await metrics.text();
    assert.match(text, /^codemode_executor_degraded 0$/m);
    assert.match(text, /^codemode_executor_slots_max 8$/m);
    // One execution ran; the oversized program was refused before it reached the executor.
    assert.match(text, /^codemode_executor_executions_total 1$/m);
  } finally {
    assert.equal(await cli.stop(), 0);
  }
});

Deno.test("HTTP CLI refuses a non-loopback address without keys, and bad arguments", async () => {
  const open = await runCli(["--http", "0.0.0.0:0"]);
  assert.equal(open.code, 2);
  assert.match(open.stderr, /refusing to serve on 0\.0\.0\.0 without API keys/);
  const badKeys = await runCli(["--http", "127.0.0.1:0"], { CODEMODE_API_KEYS: "ops=short" });
  assert.equal(badKeys.code, 2);
  assert.match(badKeys.stderr, /at least 16/);
  assert.doesNotMatch(badKeys.stderr, /short/);
  const unknown = await runCli(["--verbose"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown argument "--verbose"/);
  const badHttp = await runCli(["--http", "localhost"]);
  assert.equal(badHttp.code, 2);
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--http HOST:PORT/);
});

Deno.test("HTTP CLI without keys on loopback: anonymous subject, DNS-rebinding protection", async () => {
  const cli = await startHttpCli(["--subject", "dev"]);
  try {
    const client = await connectClient(cli.url);
    const r = await client.callTool({
      name: "execute",
      arguments: { source: 'def main():\n    return crm.customer(id="c-104")["city"]\n' },
    });
    assert.deepEqual(r.structuredContent, { result: "Berlin" });
    await client.close();
    assert.equal(await rawStatusWithHost(cli.port, "/mcp", `localhost:${cli.port}`), 200);
    assert.equal(await rawStatusWithHost(cli.port, "/mcp", `attacker.example:${cli.port}`), 403);
    assert.equal((await rawPost(cli.url, { origin: `http://attacker.example:${cli.port}` })).status, 403);
  } finally {
    assert.equal(await cli.stop(), 0);
  }
});

Deno.test("HTTP CLI: configured hosts add to the loopback defaults, never replace them", async () => {
  // Without keys (loopback mode): status 200 means the Host passed; the body answers initialize.
  const cli = await startHttpCli(["--allowed-host", "mcp.example.com"], {
    CODEMODE_ALLOWED_HOSTS: "other.example.com:9",
  });
  try {
    assert.equal(await rawStatusWithHost(cli.port, "/mcp", `localhost:${cli.port}`), 200);
    assert.equal(await rawStatusWithHost(cli.port, "/mcp", `127.0.0.1:${cli.port}`), 200);
    assert.equal(await rawStatusWithHost(cli.port, "/mcp", "mcp.example.com"), 200);
    assert.equal(await rawStatusWithHost(cli.port, "/mcp", "other.example.com:9"), 200);
    assert.equal(await rawStatusWithHost(cli.port, "/mcp", "other.example.com:10"), 403);
    assert.equal(await rawStatusWithHost(cli.port, "/mcp", "evil.example.com"), 403);
  } finally {
    assert.equal(await cli.stop(), 0);
  }
});
