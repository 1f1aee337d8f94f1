/**
 * The optional Rego authorizer of the gateway: argument-level decisions on top of the policy, for
 * passthrough and code-mode native calls alike, with its denials in the audit (`denied_authz`).
 */
import assert from "node:assert/strict";
import type { CodeModeError } from "../../src/errors.ts";
import { Gateway, GatewayError } from "../../src/gateway/mod.ts";
import { compile, opaTest } from "../rego/_helpers.ts";
import { loadConfig, randomKey, START_TIMEOUT_MS, stdioDownstream } from "./_helpers.ts";

const SERVER = new URL("../../src/gateway/downstream/testdata/dynamic_server.ts", import.meta.url).pathname;

const POLICY = `package gateway.args

# Deny by default; the gateway's policy already decided which tools each client may call.
default allow := false

allow if {
	input.capability.id == "dyn__say"
	not contains(object.get(input.arguments, "text", ""), "forbidden")
}

allow if input.capability.id != "dyn__say"
`;

opaTest("rego: argument-level decisions for passthrough and native calls, audited", async (opa) => {
  const dir = await Deno.makeTempDir({ prefix: "gw-rego-" });
  const compiled = await compile(opa, { "args.rego": POLICY }, ["gateway/args/allow"]);
  await Deno.writeFile(`${dir}/args.tar.gz`, compiled.bundle);
  const env = { RG_KEY: randomKey() };
  const config = await loadConfig(
    dir,
    `
listen: 127.0.0.1:0
mode: both
authz: { rego: { policy: ${JSON.stringify(`${dir}/args.tar.gz`)}, decision: data.gateway.args.allow } }
clients: [{ id: rita, api_key_env: RG_KEY }]
downstreams:
${stdioDownstream("dyn", ["run", "--allow-env", "--allow-read", JSON.stringify(SERVER)])}
policy:
  clients:
    rita: { allow: ["dyn__say", "dyn__add_tool"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)}, fsync_ms: 50 }
`,
    env,
  );
  const gateway = await Gateway.create(config, { startTimeoutMs: START_TIMEOUT_MS, log: () => {} });
  try {
    const ok = await gateway.callTool("rita", "dyn__say", { text: "fine" });
    assert.deepEqual(ok.payload.content, [{ type: "text", text: "fine" }]);
    const denied = await gateway.callTool("rita", "dyn__say", { text: "a forbidden word" }).catch((e) => e);
    assert.ok(denied instanceof GatewayError);
    assert.equal(denied.code, "denied");
    assert.equal(denied.publicText, "the call was denied by the authorization policy");

    const { value } = await gateway.execute(
      "rita",
      'def main():\n    return dyn.say(text="in code")["text"]\n',
    );
    assert.equal(value, "in code");
    const failed = await gateway.execute(
      "rita",
      'def main():\n    dyn.say(text="first")\n    return dyn.say(text="forbidden")\n',
    ).then(() => assert.fail("expected a denial"), (e: CodeModeError) => e);
    assert.equal(failed.code, "permission_denied");
    assert.equal(failed.detail, undefined, "a denial carries no detail");

    // The text the rule sees is the client's own, before redaction; the audit says who decided.
    await new Promise((r) => setTimeout(r, 200));
    const lines = (await Deno.readTextFile(`${dir}/audit.jsonl`)).split("\n").filter((l) => l !== "")
      .map((l) =>
        JSON.parse(l) as {
          decision: string;
          allowed: boolean;
          error: string;
          execution_id?: string;
          tool_name: string;
        }
      )
      // Each execution's own `execute` record is left aside: the native calls' records are checked here.
      .filter((l) => l.tool_name !== "execute");
    assert.deepEqual(lines.map((l) => [l.decision, l.allowed, l.execution_id !== undefined]), [
      ["allowed", true, false],
      ["denied_authz", false, false],
      ["allowed", true, true],
      ["allowed", true, true],
      ["denied_authz", false, true],
    ]);
    assert.equal(lines[4].error, "the call was denied by the authorization policy");

    // A reload without the authorizer lifts the argument rule.
    const plain = await loadConfig(
      dir,
      (await Deno.readTextFile(`${dir}/gateway.yaml`)).replace(/^authz:.*$/m, ""),
      env,
      "plain.yaml",
    );
    await gateway.reload(plain);
    const after = await gateway.callTool("rita", "dyn__say", { text: "forbidden now allowed" });
    assert.equal(after.isError, false);
  } finally {
    await gateway.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
