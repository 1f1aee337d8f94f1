/**
 * Limits inside one gateway (memory store), end to end over HTTP with the SDK client and a real stdio
 * downstream: the refusal a client sees, its audit record and metrics, authorization before limits,
 * quotas and concurrency, hot reload, and code-mode native calls counted as the client's.
 */
import assert from "node:assert/strict";
import { isSecurityRecord } from "../../src/gateway/domain/mod.ts";
import type { AuditRecord } from "../../src/gateway/mod.ts";
import { auditRecords, configOf, connect, gatewayYaml, KEYS, startReplica, textOf } from "./_harness.ts";

Deno.test("gateway limits: a rate-limited call is the tool's error result, audited and counted per rule", async () => {
  const dir = await Deno.makeTempDir();
  const replica = await startReplica(configOf(gatewayYaml(
    dir,
    `limits:
  rules:
    - { name: bob-search, clients: [bob], tools: ["echo__search_*"], rate: 3/h }
    - { name: everyone, rate: 600/min, burst: 100 }`,
  )));
  try {
    const bob = await connect(replica.url, KEYS.bob);
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(
        await bob.callTool({ name: i % 2 ? "echo__search_a" : "echo__search_b", arguments: { text: "x" } }),
      );
    }
    assert.deepEqual(results.map((r) => r.isError === true), [false, false, false, true, true]);
    const limited = results[3];
    assert.match(textOf(limited), /^rate limited: retry after (\d+) s \(rule "bob-search"\)$/);
    const meta = limited._meta as { retryAfter: number; rule: string; limit: string };
    // One token per 20 minutes.
    assert.ok(meta.retryAfter > 1100 && meta.retryAfter <= 1200, String(meta.retryAfter));
    assert.equal(meta.rule, "bob-search");
    assert.equal(meta.limit, "rate");
    assert.equal(textOf(limited), `rate limited: retry after ${meta.retryAfter} s (rule "bob-search")`);
    // Another tool of the downstream, and another client, are not limited by bob's rule.
    assert.equal(textOf(await bob.callTool({ name: "echo__echo", arguments: { text: "ok" } })), "ok");
    const alice = await connect(replica.url, KEYS.alice);
    assert.equal(textOf(await alice.callTool({ name: "echo__search_a", arguments: { text: "a" } })), "a");
    const metrics = await replica.metricsText();
    assert.match(metrics, /gateway_limit_refusals_total\{rule="bob-search",limit="rate"\} 2/);
    assert.match(metrics, /gateway_calls_total\{[^}]*decision="rate_limited"[^}]*\} 2/);
    assert.match(metrics, /gateway_limits_degraded 0/);
    await bob.close();
    await alice.close();
  } finally {
    await replica.gateway.close();
  }
  const records = (await auditRecords(dir)) as unknown as AuditRecord[];
  const limitedRecords = records.filter((r) => r.decision === "rate_limited");
  assert.equal(limitedRecords.length, 2);
  for (const r of limitedRecords) {
    assert.equal(r.allowed, false);
    assert.equal(r.client_id, "bob");
    assert.equal(r.limit_rule, "bob-search");
    assert.match(r.error, /^rate limited: retry after \d+ s/);
    assert.ok(isSecurityRecord(r), "a limited call's record is never shed");
  }
  assert.equal(records.filter((r) => r.decision === "allowed").length, 5);
});

Deno.test("gateway limits: a forbidden or missing tool never spends a token", async () => {
  const dir = await Deno.makeTempDir();
  const replica = await startReplica(configOf(gatewayYaml(dir, `limits:\n  rules:\n    - { rate: 2/h }`)));
  try {
    const alice = await connect(replica.url, KEYS.alice);
    for (const name of ["echo__search_b", "echo__nope", "other__echo"]) {
      for (let i = 0; i < 4; i++) {
        await assert.rejects(alice.callTool({ name, arguments: {} }), /unknown tool/);
      }
    }
    const ok = [];
    for (let i = 0; i < 3; i++) {
      ok.push(await alice.callTool({ name: "echo__echo", arguments: { text: "y" } }));
    }
    assert.deepEqual(ok.map((r) => r.isError === true), [false, false, true]);
    assert.match(textOf(ok[2]), /rate limited/);
    await alice.close();
  } finally {
    await replica.gateway.close();
  }
  const records = (await auditRecords(dir)) as unknown as AuditRecord[];
  // The refusals of the forbidden and missing tools keep their own decisions; no limit shows in them.
  assert.deepEqual(
    [...new Set(records.filter((r) => r.tool_name !== "echo__echo").map((r) => r.decision))].sort(),
    ["denied_default", "denied_explicit", "not_found"],
  );
  assert.ok(records.every((r) => r.tool_name === "echo__echo" || r.limit_rule === undefined));
});

Deno.test("gateway limits: quota and concurrency refusals carry their own decisions", async () => {
  const dir = await Deno.makeTempDir();
  const replica = await startReplica(configOf(gatewayYaml(
    dir,
    `limits:
  rules:
    - { name: daily, clients: [alice], tools: ["echo__echo"], quota: 2/day }
    - { name: slots, tools: ["echo__hold"], concurrency: 2 }`,
  )));
  try {
    const alice = await connect(replica.url, KEYS.alice);
    const echoes = [];
    for (let i = 0; i < 3; i++) {
      echoes.push(await alice.callTool({ name: "echo__echo", arguments: { text: "q" } }));
    }
    assert.deepEqual(echoes.map((r) => r.isError === true), [false, false, true]);
    assert.match(textOf(echoes[2]), /^quota exceeded: retry after \d+ s \(rule "daily"\)$/);
    const untilMidnight = Math.ceil(
      (Date.UTC(
        new Date().getUTCFullYear(),
        new Date().getUTCMonth(),
        new Date().getUTCDate() + 1,
      ) - Date.now()) / 1000,
    );
    const retry = (echoes[2]._meta as { retryAfter: number }).retryAfter;
    assert.ok(Math.abs(retry - untilMidnight) <= 2, `${retry} vs ${untilMidnight}`);

    // Four calls at once against two slots: two hold, two are refused at once (never queued).
    const started = performance.now();
    const held = await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        await new Promise((r) => setTimeout(r, i < 2 ? 0 : 150));
        const r = await alice.callTool({ name: "echo__hold", arguments: { ms: 600 } });
        return { r, at: performance.now() - started };
      }),
    );
    const refused = held.filter((h) => h.r.isError === true);
    assert.equal(refused.length, 2);
    for (const h of refused) {
      assert.match(textOf(h.r), /^concurrency limited: retry after 1 s \(rule "slots"\)$/);
      assert.ok(h.at < 550, `refused at ${h.at} ms, not after waiting for a slot`);
    }
    // The slots came back when the calls completed.
    assert.equal(textOf(await alice.callTool({ name: "echo__hold", arguments: { ms: 1 } })), "held");
    await alice.close();
  } finally {
    await replica.gateway.close();
  }
  const decisions = ((await auditRecords(dir)) as unknown as AuditRecord[]).map((r) => r.decision);
  assert.equal(decisions.filter((d) => d === "quota_exceeded").length, 1);
  assert.equal(decisions.filter((d) => d === "concurrency_limited").length, 2);
});

Deno.test("gateway limits: a reload keeps a kept rule's counters; a changed rule starts fresh", async () => {
  const dir = await Deno.makeTempDir();
  const yaml = (rules: string) => gatewayYaml(dir, `limits:\n  rules:\n${rules}`);
  const kept = `    - { name: kept, clients: [alice], tools: ["echo__echo"], rate: 2/h }`;
  const changing = `    - { name: changing, clients: [alice], tools: ["echo__search_a"], rate: 2/h }`;
  const replica = await startReplica(configOf(yaml(`${kept}\n${changing}`)));
  try {
    const call = (name: string) => replica.gateway.callTool("alice", name, { text: "r" });
    for (let i = 0; i < 2; i++) {
      assert.equal((await call("echo__echo")).isError, false);
      assert.equal((await call("echo__search_a")).isError, false);
    }
    assert.equal((await call("echo__echo")).isError, true);
    assert.equal((await call("echo__search_a")).isError, true);
    await replica.gateway.reload(configOf(yaml(`${changing.replace("2/h", "3/h")}\n${kept}`)));
    assert.equal((await call("echo__echo")).isError, true, "the kept rule still has no token");
    for (let i = 0; i < 3; i++) assert.equal((await call("echo__search_a")).isError, false, "fresh");
    assert.equal((await call("echo__search_a")).isError, true);
    // Removing the section removes the limits; adding it back starts them afresh.
    await replica.gateway.reload(configOf(gatewayYaml(dir, "")));
    for (let i = 0; i < 5; i++) assert.equal((await call("echo__echo")).isError, false);
    await replica.gateway.reload(configOf(yaml(kept)));
    assert.equal((await call("echo__echo")).isError, false);
  } finally {
    await replica.gateway.close();
  }
});

Deno.test("gateway limits: code-mode native calls spend the client's limits; a refusal ends the program naming the rule", async () => {
  const dir = await Deno.makeTempDir();
  const replica = await startReplica(configOf(gatewayYaml(
    dir,
    `limits:\n  rules:\n    - { name: bob-echo, clients: [bob], tools: ["echo__echo"], rate: 3/h }`,
  )));
  try {
    const bob = await connect(replica.url, KEYS.bob);
    // One passthrough call, then a program that makes three: the third native call is refused.
    assert.notEqual((await bob.callTool({ name: "echo__echo", arguments: { text: "p" } })).isError, true);
    const source =
      `def main():\n    out = []\n    for i in range(3):\n        out.append(echo.echo(text = str(i))["text"])\n    return out\n`;
    const r = await bob.callTool({ name: "execute", arguments: { source } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /rate limited: retry after \d+ s \(rule "bob-echo"\)/);
    // Passthrough is refused too: the program spent the client's tokens.
    const after = await bob.callTool({ name: "echo__echo", arguments: { text: "p" } });
    assert.match(textOf(after), /^rate limited/);
    await bob.close();
  } finally {
    await replica.gateway.close();
  }
  const records = (await auditRecords(dir)) as unknown as AuditRecord[];
  const native = records.filter((r) => r.tool_name === "echo__echo" && r.execution_id !== undefined);
  assert.deepEqual(native.map((r) => r.decision), ["allowed", "allowed", "rate_limited"]);
  const execute = records.find((r) => r.tool_name === "execute");
  assert.ok(execute !== undefined && execute.outcome !== "ok", JSON.stringify(execute));
});
