/**
 * The gateway end to end: a real SDK client over Streamable HTTP, the real reference servers behind it
 * (`server-everything` over stdio and over its own Streamable HTTP, `server-memory`, `server-filesystem`
 * on a temporary folder), the audit file read back at the end.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Gateway } from "../../src/gateway/gateway.ts";
import {
  alive,
  connect,
  descendants,
  everythingDownstream,
  EverythingHttp,
  filesDownstream,
  loadConfig,
  memoryDownstream,
  prefetchServers,
  randomKey,
  START_TIMEOUT_MS,
  text,
} from "./_helpers.ts";

const TOKEN = "svc-token-7Qz9xLm2Pw4Rt6Yv";
const AWS_LIKE = "AKIA" + "ABCDEFGHIJ234567";

function configYaml(dir: string, webUrl: string, bobAllow: string): string {
  return `
listen: 127.0.0.1:0
allowed_origins: [https://app.example.com]
call_timeout_ms: 15000
clients:
  - { id: alice, api_key_env: E2E_ALICE_KEY }
  - { id: bob, api_key_env: E2E_BOB_KEY }
operators: [{ id: ops, api_key_env: E2E_OPS_KEY }]
downstreams:
${
    everythingDownstream([
      "secrets: { SERVICE_TOKEN: E2E_SERVICE_TOKEN }",
      "session_mode: per_client",
      "pool: 2",
    ])
  }
  web:
    transport: http
    url: ${webUrl}
    secrets: { x-service-token: E2E_SERVICE_TOKEN }
${memoryDownstream(dir)}
${filesDownstream(dir)}
policy:
  default: deny
  clients:
    alice: { allow: ["everything__*", "web__*", "memory__*", "files__*"], deny: [memory__delete_entities] }
    bob: { allow: [${bobAllow}] }
redaction:
  max_result_bytes: 16384
  patterns: [{ name: aws_access_key, regex: "AKIA[0-9A-Z]{16}", anchor: "AKIA" }]
audit: { sink: ${
    JSON.stringify(`file:${dir}/audit.jsonl`)
  }, buffer: 4096, high_water: 3072, fsync_ms: 100, security_block_ms: 2000 }
breaker: { failure_threshold: 2, open_ms: 1500 }
`;
}

async function callError(client: Awaited<ReturnType<typeof connect>>, name: string): Promise<string> {
  try {
    await client.callTool({ name, arguments: {} });
  } catch (err) {
    return `${(err as { code?: number }).code} ${(err as Error).message}`;
  }
  throw new Error(`${name} unexpectedly succeeded`);
}

Deno.test("gateway end to end with the reference servers", async (t) => {
  await prefetchServers();
  const dir = await Deno.makeTempDir({ prefix: "gw-e2e-" });
  await Deno.mkdir(`${dir}/files`);
  await Deno.writeTextFile(`${dir}/files/small.txt`, "hello from the filesystem server\n");
  await Deno.writeTextFile(`${dir}/files/big.txt`, "x".repeat(40_000));
  const env = {
    E2E_ALICE_KEY: randomKey(),
    E2E_BOB_KEY: randomKey(),
    E2E_OPS_KEY: randomKey(),
    E2E_SERVICE_TOKEN: TOKEN,
  };
  const web = new EverythingHttp();
  await web.start();
  const config = await loadConfig(dir, configYaml(dir, web.url, "everything__echo, memory__read_graph"), env);
  const gateway = await Gateway.create(config, { startTimeoutMs: START_TIMEOUT_MS, log: () => {} });
  const { url } = await gateway.serve();
  const alice = await connect(url, env.E2E_ALICE_KEY);
  const bob = await connect(url, env.E2E_BOB_KEY);
  let toolCalls = 0;
  const counted = <T>(p: Promise<T>) => {
    toolCalls++;
    return p;
  };
  try {
    await t.step("every downstream is up", () => {
      for (const d of gateway.downstreams) assert.equal(d.state, "up", d.name);
    });

    await t.step("per-client filtered listing", async () => {
      const aliceNames = (await alice.listTools()).tools.map((x) => x.name);
      for (const n of ["everything__get-env", "web__echo", "memory__read_graph", "files__list_directory"]) {
        assert.ok(aliceNames.includes(n), n);
      }
      assert.ok(!aliceNames.includes("memory__delete_entities"));
      const bobTools = (await bob.listTools()).tools;
      assert.deepEqual(bobTools.map((x) => x.name).sort(), ["everything__echo", "memory__read_graph"]);
      assert.ok(!JSON.stringify(bobTools).includes("get-env"));
    });

    await t.step("proxied calls to every downstream", async () => {
      const echo = await counted(alice.callTool({ name: "everything__echo", arguments: { message: "hi" } }));
      assert.equal(text(echo), "Echo: hi");
      const webEcho = await counted(
        alice.callTool({ name: "web__echo", arguments: { message: "over http" } }),
      );
      assert.equal(text(webEcho), "Echo: over http");
      await counted(alice.callTool({
        name: "memory__create_entities",
        arguments: { entities: [{ name: "gateway", entityType: "software", observations: ["fronts MCP"] }] },
      }));
      const graph = await counted(bob.callTool({ name: "memory__read_graph", arguments: {} }));
      assert.match(text(graph), /fronts MCP/);
      const listing = await counted(
        alice.callTool({ name: "files__list_directory", arguments: { path: `${dir}/files` } }),
      );
      assert.match(text(listing), /small\.txt/);
    });

    await t.step("denied_default and denied_explicit answer exactly like a missing tool", async () => {
      const answers = [
        await counted(callError(bob, "everything__get-env")),
        await counted(callError(alice, "memory__delete_entities")),
        await counted(callError(alice, "everything__no-such-tool")),
        await counted(callError(alice, "nosuchdownstream__x")),
      ];
      assert.equal(new Set(answers).size, 1, answers.join("\n"));
    });

    await t.step("an injected secret printed by get-env arrives redacted", async () => {
      const result = await counted(alice.callTool({ name: "everything__get-env", arguments: {} }));
      const out = text(result);
      assert.ok(!out.includes(TOKEN));
      assert.match(out, /"SERVICE_TOKEN": "\[REDACTED\]"/);
      assert.ok(!out.includes(env.E2E_ALICE_KEY) && !out.includes("E2E_ALICE_KEY"), "gateway env leaked");
    });

    await t.step("an anchored pattern is redacted in an echo", async () => {
      const result = await counted(
        alice.callTool({ name: "everything__echo", arguments: { message: `key ${AWS_LIKE} end` } }),
      );
      assert.equal(text(result), "Echo: key [REDACTED] end");
    });

    await t.step("an oversized result is replaced by an error result", async () => {
      const result = await counted(
        alice.callTool({ name: "files__read_text_file", arguments: { path: `${dir}/files/big.txt` } }),
      );
      assert.equal(result.isError, true);
      assert.match(text(result), /16384/);
      assert.ok(!text(result).includes("xxxx"));
    });

    await t.step("progress and logging during a call reach the caller", async () => {
      const progress: unknown[] = [];
      const logs: unknown[] = [];
      alice.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
      const done = await counted(alice.callTool(
        { name: "everything__trigger-long-running-operation", arguments: { duration: 1, steps: 2 } },
        undefined,
        { onprogress: (p) => progress.push(p) },
      ));
      assert.match(text(done), /completed/);
      assert.ok(progress.length >= 1);
      await counted(alice.callTool({ name: "everything__toggle-simulated-logging", arguments: {} }));
      // Turn it off again so it stops writing between calls.
      await counted(alice.callTool({ name: "everything__toggle-simulated-logging", arguments: {} }));
      assert.ok(logs.length >= 1, "a log line sent during the call was forwarded");
    });

    await t.step("a killed downstream trips its breaker and recovers after the probe", async () => {
      await web.stop();
      for (let i = 0; i < 2; i++) {
        const r = await counted(alice.callTool({ name: "web__echo", arguments: { message: "down" } }));
        assert.equal(r.isError, true);
        assert.match(text(r), /unavailable/);
      }
      const started = performance.now();
      const open = await counted(alice.callTool({ name: "web__echo", arguments: { message: "open" } }));
      assert.equal(open.isError, true);
      assert.match(text(open), /temporarily unavailable/);
      assert.ok(performance.now() - started < 1000, "an open breaker answers at once");
      const during = await (await fetch(new URL("/metrics", url), {
        headers: { authorization: `Bearer ${env.E2E_OPS_KEY}` },
      })).text();
      assert.match(during, /^gateway_downstream_up\{downstream="web"\} 0$/m);
      assert.match(during, /^gateway_breaker_state\{kind="downstream",name="web"\} 2$/m);
      await web.start();
      await new Promise((r) => setTimeout(r, 1700));
      const back = await counted(alice.callTool({ name: "web__echo", arguments: { message: "back" } }));
      assert.equal(text(back), "Echo: back");
    });

    await t.step("metrics move with real events and need an operator key", async () => {
      const metricsUrl = new URL("/metrics", url);
      const anonymous = await fetch(metricsUrl);
      assert.equal(anonymous.status, 401);
      await anonymous.body?.cancel();
      const res = await fetch(metricsUrl, { headers: { authorization: `Bearer ${env.E2E_OPS_KEY}` } });
      assert.equal(res.status, 200);
      const body = await res.text();
      const value = (pattern: RegExp) => Number(body.match(pattern)?.[1] ?? NaN);
      assert.ok(
        value(
          /^gateway_calls_total\{client="alice",downstream="everything",decision="allowed",outcome="ok"\} (\d+)/m,
        ) >= 3,
      );
      assert.equal(
        value(
          /^gateway_calls_total\{client="bob",downstream="_unknown",decision="denied_default",outcome="\w+"\} (\d+)/m,
        ),
        1,
      );
      assert.equal(value(/^gateway_downstream_up\{downstream="memory"\} (\d+)/m), 1);
      assert.equal(value(/^gateway_downstream_up\{downstream="web"\} (\d+)/m), 1, "up again after the probe");
      assert.equal(value(/^gateway_pool_in_use\{downstream="everything"\} (\d+)/m), 1);
      assert.equal(value(/^gateway_breaker_state\{kind="downstream",name="web"\} (\d+)/m), 0, "closed again");
      assert.ok(value(/^gateway_redactions_total\{downstream="everything"\} (\d+)/m) >= 2);
      assert.equal(value(/^gateway_results_oversized_total\{downstream="files"\} (\d+)/m), 1);
      assert.ok(value(/^gateway_auth_failures_total (\d+)/m) >= 1);
      assert.ok(value(/^gateway_call_duration_seconds_count\{downstream="everything"\} (\d+)/m) >= 3);
    });

    await t.step("a reload changes a client's view and rotates keys", async () => {
      const env2 = { ...env, E2E_BOB_KEY: randomKey() };
      const next = await loadConfig(
        dir,
        configYaml(dir, web.url, "everything__echo, everything__get-sum"),
        env2,
        "gateway2.yaml",
      );
      const outcome = await gateway.reload(next);
      assert.deepEqual(outcome.downstreams, { started: [], restarted: [], stopped: [] });
      const bob2 = await connect(url, env2.E2E_BOB_KEY);
      try {
        assert.deepEqual((await bob2.listTools()).tools.map((x) => x.name).sort(), [
          "everything__echo",
          "everything__get-sum",
        ]);
        const sum = await counted(bob2.callTool({ name: "everything__get-sum", arguments: { a: 2, b: 3 } }));
        assert.match(text(sum), /5/);
        // Bob got a session of his own: the per-client pool now holds two.
        assert.equal(gateway.downstreams.find((d) => d.name === "everything")!.pids.length, 2);
      } finally {
        await bob2.close();
      }
      const stale = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${env.E2E_BOB_KEY}`, "content-type": "application/json" },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      assert.equal(stale.status, 401);
      await stale.body?.cancel();
    });
  } finally {
    await alice.close();
    await bob.close();
    // This gateway's children (test files may share one process under --parallel, so not Deno.pid's).
    const leaders = gateway.downstreams.flatMap((d) => d.pids);
    const children = leaders.flatMap((pid) => [pid, ...descendants(pid)]);
    assert.ok(leaders.length >= 4, `downstream processes: ${leaders}`);
    await gateway.close();
    await web.stop();
    for (const pid of children) assert.ok(!alive(pid), `process ${pid} survived the gateway`);
  }

  await t.step("one audit line per call with the right fields", async () => {
    const lines = (await Deno.readTextFile(`${dir}/audit.jsonl`)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    const calls = lines.filter((l) => l.decision !== "unauthenticated");
    assert.equal(calls.length, toolCalls);
    assert.equal(lines.length - calls.length, 2, "the anonymous /metrics and the stale key");
    for (const l of lines) {
      // A failed authentication also names the peer it came from.
      if (l.decision === "unauthenticated") assert.equal(l.remote_addr, "127.0.0.1");
      assert.deepEqual(
        Object.keys(l).filter((k) => l.decision !== "unauthenticated" || k !== "remote_addr").sort(),
        [
          "allowed",
          "breaker_state",
          "client_id",
          "decision",
          "error",
          "latency_ms",
          "redactions",
          "timestamp",
          "tool_name",
          "truncated",
        ],
      );
      assert.ok(!JSON.stringify(l).includes(TOKEN) && !JSON.stringify(l).includes(env.E2E_BOB_KEY));
    }
    const find = (client: string, tool: string) =>
      calls.find((l) => l.client_id === client && l.tool_name === tool);
    assert.equal(find("bob", "everything__get-env").decision, "denied_default");
    assert.equal(find("alice", "memory__delete_entities").decision, "denied_explicit");
    assert.equal(find("alice", "memory__delete_entities").allowed, false);
    assert.equal(find("alice", "everything__echo").decision, "allowed");
    assert.ok(find("alice", "everything__get-env").redactions >= 1);
    assert.equal(find("alice", "files__read_text_file").truncated, true);
    assert.ok(calls.some((l) => l.tool_name === "web__echo" && l.breaker_state === "open"));
  });
  await Deno.remove(dir, { recursive: true });
});
