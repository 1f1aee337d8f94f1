/**
 * Notifications during a call, through the whole gateway: a downstream's log line and progress message
 * that carry its injected secret reach the calling HTTP client redacted, the audit record counts them,
 * and `callTool` (the CodeMode entry) receives the same redacted notifications. A log line carries no
 * request attribution, so only a per-client session forwards it; progress carries its call's token and
 * is forwarded from either kind of session.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Notification } from "../../src/gateway/mod.ts";
import { Gateway } from "../../src/gateway/mod.ts";
import { connect, loadConfig, randomKey, stdioDownstream, text } from "./_helpers.ts";

const SERVER = new URL("../../src/gateway/downstream/testdata/dynamic_server.ts", import.meta.url).pathname;
const SECRET = "dyn-secret-5e6f7a8b9c";

for (const mode of ["per_client", "shared"] as const) {
  Deno.test(`${mode}: progress and log lines are redacted on their way to the caller and counted`, async () => {
    await notificationsThrough(mode);
  });
}

async function notificationsThrough(mode: "per_client" | "shared"): Promise<void> {
  const perClient = mode === "per_client";
  const dir = await Deno.makeTempDir({ prefix: "gw-notify-" });
  const key = randomKey();
  const config = await loadConfig(
    dir,
    `
listen: 127.0.0.1:0
clients: [{ id: alice, api_key_env: N_KEY }]
downstreams:
${
      stdioDownstream("dyn", ["run", "--allow-env", "--allow-read", JSON.stringify(SERVER)], [
        "secrets: { DYN_SECRET: N_SECRET }",
        `session_mode: ${mode}`,
      ])
    }
policy:
  default: deny
  clients: { alice: { allow: ["dyn__*"] } }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
`,
    { N_KEY: key, N_SECRET: SECRET },
  );
  const gateway = await Gateway.create(config, { startTimeoutMs: 60_000, log: () => {} });
  const { url } = await gateway.serve();
  const client = await connect(url, key);
  try {
    const logs: unknown[] = [];
    const progress: { message?: string }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    const result = await client.callTool({ name: "dyn__say", arguments: { text: "hello" } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    assert.equal(text(result), "hello");
    assert.deepEqual(logs, perClient ? ["hello [REDACTED]"] : []);
    assert.deepEqual(progress.map((p) => p.message), ["hello [REDACTED]"]);

    const inProcess: Notification[] = [];
    await gateway.callTool("alice", "dyn__say", { text: "native" }, { notify: (n) => inProcess.push(n) });
    assert.ok(inProcess.length >= 1);
    assert.equal(inProcess.some((n) => n.method === "notifications/message"), perClient);
    assert.ok(inProcess.every((n) => !JSON.stringify(n).includes(SECRET)));
    assert.ok(inProcess.some((n) => JSON.stringify(n).includes("native [REDACTED]")));
  } finally {
    await client.close();
    await gateway.close();
  }
  const records = (await Deno.readTextFile(`${dir}/audit.jsonl`)).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  assert.equal(records.length, 2);
  assert.equal(records[0].tool_name, "dyn__say");
  const expected = perClient ? 2 : 1;
  assert.ok(records[0].redactions >= expected, `log line and progress message: ${records[0].redactions}`);
  assert.ok(!JSON.stringify(records).includes(SECRET));
  await Deno.remove(dir, { recursive: true });
}
