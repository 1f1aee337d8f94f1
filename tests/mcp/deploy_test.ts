/**
 * The Deno Deploy entry: the executor choice, the refusal to start without keys, and the real
 * `deploy.ts` under `deno serve` (its default `{ fetch }` export) with the inline executor, as on Deploy.
 */
import assert from "node:assert/strict";
import { chooseExecutor, createDeployHandler } from "../../src/mcp/deploy.ts";
import { childEnv, CONFIG, spawnListening } from "./cli_helpers.ts";
import { connectClient, rawPost } from "./http_helpers.ts";

const KEY = "deploy-key-0123456789abcdef";
const DEPLOY = new URL("../../deploy.ts", import.meta.url).pathname;

function env(vars: Record<string, string>) {
  return (name: string) => vars[name];
}

Deno.test("the executor is inline on Deno Deploy, worker elsewhere, unless CODEMODE_EXECUTOR says", () => {
  assert.equal(chooseExecutor(env({})), "worker");
  assert.equal(chooseExecutor(env({ DENO_DEPLOYMENT_ID: "abc123" })), "inline");
  assert.equal(chooseExecutor(env({ DENO_DEPLOYMENT_ID: "abc123", CODEMODE_EXECUTOR: "worker" })), "worker");
  assert.equal(chooseExecutor(env({ CODEMODE_EXECUTOR: "inline" })), "inline");
  assert.throws(() => chooseExecutor(env({ CODEMODE_EXECUTOR: "thread" })), /worker" or "inline/);
});

Deno.test("the Deploy handler refuses to start without API keys", async () => {
  await assert.rejects(() => createDeployHandler(env({})), /refusing to start without API keys/);
  await assert.rejects(() => createDeployHandler(env({ CODEMODE_API_KEYS: "a=short" })), /at least 16/);
});

Deno.test("deploy.ts under deno serve: inline executor, keys, allowed hosts", async () => {
  const server = await spawnListening(
    [
      "serve",
      "--config",
      CONFIG,
      "--allow-env",
      "--allow-read",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      DEPLOY,
    ],
    childEnv({
      CODEMODE_API_KEYS: `edge=${KEY}`,
      DENO_DEPLOYMENT_ID: "test",
      CODEMODE_ALLOWED_ORIGINS: "https://console.example.com",
    }),
    /Listening on (http:\/\/[^/\s]+)/,
  );
  try {
    const url = `${server.address}/mcp`;
    assert.equal((await rawPost(url)).status, 401);
    assert.equal(
      (await rawPost(url, { authorization: `Bearer ${KEY}`, origin: "https://evil.example" })).status,
      403,
    );
    const ok = await rawPost(url, { authorization: `Bearer ${KEY}`, origin: "https://console.example.com" });
    assert.equal(ok.status, 200);
    const client = await connectClient(url, { authorization: `Bearer ${KEY}` });
    const r = await client.callTool({
      name: "execute",
      arguments: {
        source: `def main():
    s = inventory.stock(sku="TENT-2P")
    return {"sku": s["sku"], "available": s["available_total"]}
`,
      },
    });
    assert.deepEqual(r.structuredContent, { result: { sku: "TENT-2P", available: 16 } });
    await client.close();
  } finally {
    await server.stop();
  }
});

async function runDeploy(args: string[], vars: Record<string, string>): Promise<Deno.CommandOutput> {
  return await new Deno.Command(Deno.execPath(), {
    args: [args[0], "--config", CONFIG, "--allow-env", "--allow-read", ...args.slice(1), DEPLOY],
    env: childEnv(vars),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test("deploy.ts without keys: one line on stderr and exit code 1, no stack trace", async () => {
  const out = await runDeploy(["run", "--quiet"], {});
  assert.equal(out.code, 1);
  const lines = new TextDecoder().decode(out.stderr).split("\n").filter((l) => l.trim() !== "");
  assert.deepEqual(lines.filter((l) => !l.startsWith("warning:")), [
    'codemode: refusing to start without API keys: set CODEMODE_API_KEYS="subject=key,..." or ' +
    "CODEMODE_OAUTH_ISSUER and CODEMODE_OAUTH_AUDIENCE",
  ]);
});

Deno.test("deno run deploy.ts exits after Deno's warning instead of hanging", async () => {
  // Nothing is built before a request, so a module that is only run holds no workers.
  const out = await runDeploy(["run", "--quiet"], { CODEMODE_API_KEYS: `edge=${KEY}` });
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
});

Deno.test("deploy.ts under deno serve with the worker executor exits on SIGTERM", async () => {
  const server = await spawnListening(
    [
      "serve",
      "--config",
      CONFIG,
      "--allow-env",
      "--allow-read",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      DEPLOY,
    ],
    childEnv({ CODEMODE_API_KEYS: `edge=${KEY}`, CODEMODE_EXECUTOR: "worker" }),
    /Listening on (http:\/\/[^/\s]+)/,
  );
  let stopped = false;
  try {
    // One real execution, so the worker pool exists and holds workers when the signal comes.
    const client = await connectClient(`${server.address}/mcp`, { authorization: `Bearer ${KEY}` });
    const r = await client.callTool({
      name: "execute",
      arguments: { source: "def main():\n    return 1\n" },
    });
    assert.deepEqual(r.structuredContent, { result: 1 });
    await client.close();
    // stop() sends SIGTERM and resolves with the exit code once the process has ended.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const code = await Promise.race([
      server.stop(),
      new Promise<string>((resolve) => timer = setTimeout(() => resolve("still running"), 30_000)),
    ]);
    clearTimeout(timer);
    stopped = code !== "still running";
    assert.equal(code, 0);
  } finally {
    if (!stopped) {
      server.kill();
      await server.stop();
    }
  }
});
