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
