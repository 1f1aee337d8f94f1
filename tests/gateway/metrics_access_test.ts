/**
 * Metrics are operator data: `/metrics` opens only to an operator key (the `operators:` list), a client
 * key gets exactly the answer of no key, an operator key is no client key at the MCP endpoint, and a
 * call a client may not make is labelled like one to a downstream that does not exist — through the
 * whole gateway, with real stdio downstreams.
 */
import assert from "node:assert/strict";
import { Gateway } from "../../src/gateway/mod.ts";
import { loadConfig as parseConfig, secretValues } from "../../src/gateway/config/mod.ts";
import { connect, loadConfig, randomKey, stdioDownstream } from "./_helpers.ts";

const SERVER = new URL("./fixtures/leaky_stdio_server.ts", import.meta.url).pathname;

function configYaml(dir: string): string {
  const leaky = (name: string) =>
    stdioDownstream(name, ["run", "--allow-env", "--allow-read", JSON.stringify(SERVER)]);
  return `
listen: 127.0.0.1:0
clients:
  - { id: alice, api_key_env: M_ALICE_KEY }
  - { id: bob, api_key_env: M_BOB_KEY }
operators:
  - { id: ops, api_key_env: M_OPS_KEY }
downstreams:
${leaky("good")}
${leaky("evil")}
policy:
  clients:
    alice: { allow: ["good__*", "evil__*"] }
    bob: { allow: ["good__*"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
auth_rate_limit: { burst: 1000 }
`;
}

/** Status, body and headers (without the date) of a response, to compare answers whole. */
async function answer(res: Response) {
  const headers = [...res.headers].filter(([k]) => k !== "date");
  return { status: res.status, body: await res.text(), headers };
}

Deno.test("metrics are served to operators only", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "gw-metrics-" });
  const env = { M_ALICE_KEY: randomKey(), M_BOB_KEY: randomKey(), M_OPS_KEY: randomKey() };
  const gateway = await Gateway.create(await loadConfig(dir, configYaml(dir), env), {
    startTimeoutMs: 60_000,
    log: () => {},
  });
  const { url } = await gateway.serve();
  const metricsUrl = new URL("/metrics", url);
  const get = (key?: string) =>
    fetch(metricsUrl, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });
  try {
    await t.step("a client key gets the answer of no key; an operator key reads the metrics", async () => {
      const none = await answer(await get());
      assert.equal(none.status, 401);
      assert.ok(!none.body.includes("gateway_"), none.body);
      for (const key of [env.M_ALICE_KEY, env.M_BOB_KEY, randomKey(), `${env.M_OPS_KEY}x`]) {
        assert.deepEqual(await answer(await get(key)), none);
      }
      const ops = await get(env.M_OPS_KEY);
      assert.equal(ops.status, 200);
      assert.match(await ops.text(), /^gateway_downstream_up\{downstream="evil"\} 1$/m);
    });

    await t.step("an operator key is not a client key at the MCP endpoint", async () => {
      const post = (key?: string) =>
        fetch(url, {
          method: "POST",
          headers: {
            ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        });
      const none = await answer(await post());
      assert.equal(none.status, 401);
      assert.deepEqual(await answer(await post(env.M_OPS_KEY)), none);
    });

    await t.step(
      "a call to a forbidden downstream is labelled like one to a missing downstream",
      async () => {
        const bob = await connect(url, env.M_BOB_KEY);
        try {
          for (const name of ["evil__split", "ghost__split"]) {
            await assert.rejects(bob.callTool({ name, arguments: { index: 0 } }), /unknown tool/);
          }
        } finally {
          await bob.close();
        }
        const text = await (await get(env.M_OPS_KEY)).text();
        const bobSeries = text.split("\n").filter((l) =>
          l.startsWith("gateway_calls_total{") && /"bob"/.test(l)
        );
        // Both calls fold into one series: nothing in it says that "evil" exists and "ghost" does not.
        assert.deepEqual(bobSeries, [
          'gateway_calls_total{client="bob",downstream="_unknown",decision="denied_default",outcome="unknown_tool"} 2',
        ]);
        assert.match(text, /^gateway_call_duration_seconds_count\{downstream="_unknown"\} 2$/m);
        assert.ok(!/^gateway_call_duration_seconds_count\{downstream="evil"\}/m.test(text), text);
      },
    );
  } finally {
    await gateway.close();
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("operators: a key shared with a client is refused, and the key is never quoted", () => {
  const shared = randomKey();
  const yaml = (opsEnv: string) => `
clients: [{ id: alice, api_key_env: C_ALICE }]
operators: [{ id: ops, api_key_env: ${opsEnv} }, { id: ops2, api_key_env: C_OPS2 }]
downstreams: {}
`;
  const env: Record<string, string> = { C_ALICE: shared, C_OPS: shared, C_OPS2: randomKey() };
  for (const opsEnv of ["C_OPS", "C_ALICE"]) {
    const r = parseConfig(yaml(opsEnv), (n) => env[n]);
    assert.equal(r.ok, false, opsEnv);
    const text = JSON.stringify(r.ok ? [] : r.problems);
    assert.match(text, /operator ops has the same API key as client alice/);
    assert.ok(!text.includes(shared));
  }
  const twin = parseConfig(yaml("C_OPS2"), (n) => env[n]);
  assert.match(
    JSON.stringify(twin.ok ? [] : twin.problems),
    /operator ops2 has the same API key as operator ops/,
  );
  const short = parseConfig(yaml("C_SHORT"), (n) => ({ ...env, C_SHORT: "short-key" })[n]);
  assert.match(JSON.stringify(short.ok ? [] : short.problems), /C_SHORT must be at least 16/);
  const opsKey = randomKey();
  const ok = parseConfig(yaml("C_OPS"), (n) => ({ ...env, C_OPS: opsKey })[n]);
  assert.ok(ok.ok);
  assert.deepEqual(ok.config.operators.map((o) => o.id), ["ops", "ops2"]);
  // An operator key is redacted like any key the gateway holds.
  assert.ok(secretValues(ok.config).includes(opsKey));
});
