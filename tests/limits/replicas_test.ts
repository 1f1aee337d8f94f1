/**
 * Three gateway replicas on loopback, each with its own listener and downstream, sharing one real
 * redis-server: a rate holds across them (and does not with the memory store, where each counts alone),
 * a concurrency cap holds under 50 parallel calls, a killed replica process's slots come back within the
 * lease, a quota survives a restart of every replica, and a Redis outage follows `on_store_error`
 * (audited, counted, `/healthz` degraded) and recovers by itself.
 */
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import type { AuditRecord } from "../../src/gateway/mod.ts";
import {
  auditRecords,
  configOf,
  connect,
  gatewayYaml,
  KEYS,
  type RedisServer,
  redisUnavailable,
  type Replica,
  startRedis,
  startReplica,
  textOf,
} from "./_harness.ts";

const unavailable = redisUnavailable();
if (unavailable !== undefined) console.log(`SKIPPING Redis replica tests: ${unavailable}`);
const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, ignore: unavailable !== undefined, fn, sanitizeResources: false, sanitizeOps: false });

/**
 * The counting tests run three replicas, their downstreams and Redis on a shared 2-core machine: a store
 * answer can take longer than the 50 ms default there, which would turn a count into a store error (the
 * outage test below keeps the default).
 */
const NOISY = "store_timeout_ms: 2000";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function replicas(n: number, yaml: (i: number) => string): Promise<Replica[]> {
  return await Promise.all(Array.from({ length: n }, (_, i) => startReplica(configOf(yaml(i)))));
}

async function closeAll(rs: readonly Replica[]): Promise<void> {
  await Promise.all(rs.map((r) => r.gateway.close()));
}

/**
 * Fires `total` calls round-robin over the replicas' URLs, `parallel` at a time, as alice; resolves the
 * number that succeeded and the time it took.
 */
async function fire(
  urls: readonly string[],
  total: number,
  parallel: number,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ ok: number; limited: number; seconds: number; texts: string[] }> {
  const clients = await Promise.all(urls.map((u) => connect(u, KEYS.alice)));
  let next = 0;
  let ok = 0;
  let limited = 0;
  const texts: string[] = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < total) {
      const i = next++;
      const r = await clients[i % clients.length].callTool({ name: tool, arguments: args });
      if (r.isError === true) {
        limited++;
        texts.push(textOf(r));
      } else ok++;
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => c.close()));
  return { ok, limited, seconds, texts };
}

test("replicas: rate 120/min, burst 120 holds across 3 replicas sharing Redis (600 calls)", async () => {
  const redis = await startRedis();
  const dirs = await Promise.all([0, 1, 2].map(() => Deno.makeTempDir()));
  const rs = await replicas(3, (i) =>
    gatewayYaml(
      dirs[i],
      `limits:\n  store: ${redis.url}\n  ${NOISY}\n  rules:\n    - { name: shared, clients: [alice], rate: 120/min, burst: 120 }`,
    ));
  try {
    const { ok, limited, seconds, texts } = await fire(rs.map((r) => r.url), 600, 32, "echo__echo", {
      text: "x",
    });
    // The bucket refills 2 tokens a second while the calls run.
    const refill = Math.ceil(2 * seconds);
    console.log(
      `shared Redis: ${ok} of 600 succeeded in ${seconds.toFixed(2)} s (refill allowance ${refill})`,
    );
    assert.ok(seconds <= 10, `fired within 10 s (${seconds} s)`);
    assert.ok(ok >= 118 && ok <= 122 + refill, `${ok} succeeded`);
    assert.equal(ok + limited, 600);
    const odd = texts.filter((t) => !/^rate limited: retry after \d+ s \(rule "shared"\)$/.test(t));
    assert.deepEqual([...new Set(odd)], []);
  } finally {
    await closeAll(rs);
    await redis.stop();
  }
});

test("replicas: with the memory store each replica counts alone (3 × the limit)", async () => {
  const dirs = await Promise.all([0, 1, 2].map(() => Deno.makeTempDir()));
  const rs = await replicas(
    3,
    (i) =>
      gatewayYaml(
        dirs[i],
        `limits:\n  rules:\n    - { name: alone, clients: [alice], rate: 120/min, burst: 120 }`,
      ),
  );
  try {
    const { ok, seconds } = await fire(rs.map((r) => r.url), 600, 32, "echo__echo", { text: "x" });
    const refill = 3 * Math.ceil(2 * seconds);
    console.log(`memory store: ${ok} of 600 succeeded in ${seconds.toFixed(2)} s`);
    assert.ok(ok >= 358 && ok <= 362 + refill, `${ok} succeeded`);
  } finally {
    await closeAll(rs);
  }
});

test("replicas: concurrency 4 holds across 3 replicas under 50 parallel calls", async () => {
  const redis = await startRedis();
  const dirs = await Promise.all([0, 1, 2].map(() => Deno.makeTempDir()));
  const rs = await replicas(3, (i) =>
    gatewayYaml(
      dirs[i],
      `limits:\n  store: ${redis.url}\n  ${NOISY}\n  rules:\n    - { name: four, downstreams: [echo], concurrency: 4 }`,
    ));
  try {
    const clients = await Promise.all(rs.map((r) => connect(r.url, KEYS.alice)));
    // Warm each replica's session first, so all 50 calls are in flight together.
    await Promise.all(clients.map((c) => c.listTools()));
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 50 }, async (_, i) => {
      const r = await clients[i % 3].callTool({ name: "echo__hold", arguments: { ms: 1500 } });
      return { error: r.isError === true, text: textOf(r), at: performance.now() - started };
    }));
    const ok = results.filter((r) => !r.error);
    const refused = results.filter((r) => r.error);
    assert.equal(ok.length, 4, JSON.stringify(results.slice(0, 5)));
    assert.ok(refused.every((r) => /^concurrency limited: retry after 1 s \(rule "four"\)$/.test(r.text)));
    assert.ok(refused.every((r) => r.at < 1_400), "refused at once, not queued");
    // All slots are back once the calls completed.
    const again = await Promise.all(
      [0, 1, 2, 3].map((i) => clients[i % 3].callTool({ name: "echo__hold", arguments: { ms: 1 } })),
    );
    assert.ok(again.every((r) => r.isError !== true));
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    await closeAll(rs);
    await redis.stop();
  }
});

test("replicas: a killed replica process's slots come back within the lease", async () => {
  const redis = await startRedis();
  const dir = await Deno.makeTempDir();
  const limits =
    `limits:\n  store: ${redis.url}\n  ${NOISY}\n  lease_ms: 2000\n  rules:\n    - { name: two, downstreams: [echo], concurrency: 2 }`;
  const file = `${dir}/gateway.yaml`;
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  await Deno.writeTextFile(
    file,
    gatewayYaml(dir, limits).replace("listen: 127.0.0.1:0", `listen: 127.0.0.1:${port}`),
  );
  const cli = new URL("../../src/gateway/cli.ts", import.meta.url).pathname;
  const proc = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      cli,
      "--config",
      file,
    ],
    env: { ALICE_KEY: KEYS.alice, BOB_KEY: KEYS.bob },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const otherDir = await Deno.makeTempDir();
  const other = await startReplica(configOf(gatewayYaml(otherDir, limits)));
  try {
    const url = `http://127.0.0.1:${port}/mcp`;
    const deadline = Date.now() + 60_000;
    while (
      (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.body?.cancel(), () => "down")) === "down"
    ) {
      if (Date.now() > deadline) throw new Error("the replica process did not start");
      await sleep(100);
    }
    const doomed = await connect(url, KEYS.alice);
    // Two long calls hold both slots on the process replica.
    // Its downstream may still be starting: wait until it lists the tool.
    while (!(await doomed.listTools()).tools.some((t) => t.name === "echo__hold")) {
      if (Date.now() > deadline) throw new Error("the replica process's downstream did not start");
      await sleep(100);
    }
    // Two long calls hold both slots on the process replica (they end when it is killed).
    let early: unknown;
    const holding = [0, 1].map(() => doomed.callTool({ name: "echo__hold", arguments: { ms: 60_000 } }));
    holding.forEach((p) => p.then((r) => early ??= r, (e) => early ??= e));
    // Wait until Redis holds both slots (probing through a replica would take a slot itself).
    const raw = new Redis(redis.url);
    raw.on("error", () => {});
    const until = Date.now() + 30_000;
    for (;;) {
      const keys = await raw.keys("codemode:limits:*:c:alice");
      if (keys.length === 1 && await raw.zcard(keys[0]) === 2) break;
      if (early !== undefined) throw new Error(`a holding call ended early: ${JSON.stringify(early)}`);
      if (Date.now() > until) throw new Error("the slots were never taken");
      await sleep(20);
    }
    raw.disconnect();
    const alice = await connect(other.url, KEYS.alice);
    assert.match(
      textOf(await alice.callTool({ name: "echo__hold", arguments: { ms: 1 } })),
      /^concurrency limited/,
    );
    proc.kill("SIGKILL");
    await proc.status;
    const killed = Date.now();
    let back = false;
    while (!back && Date.now() - killed < 6_000) {
      back = (await alice.callTool({ name: "echo__hold", arguments: { ms: 1 } })).isError !== true;
      if (!back) await sleep(50);
    }
    const took = Date.now() - killed;
    console.log(`a killed replica's slot came back after ${took} ms (lease 2000 ms)`);
    assert.ok(back, "a slot came back");
    assert.ok(took <= 2_000 + 700, `within the lease (${took} ms)`);
    // Renewed every lease/3 until the kill: the slot cannot come back much before two thirds of it.
    assert.ok(took >= 1_000, `held by its lease until it ran out (${took} ms)`);
    await doomed.close().catch(() => {});
    await alice.close();
  } finally {
    try {
      proc.kill("SIGKILL");
    } catch { /* already dead */ }
    await proc.status;
    await other.gateway.close();
    await redis.stop();
  }
});

test("replicas: a quota survives a restart of every replica", async () => {
  const redis = await startRedis();
  const dirs = await Promise.all([0, 1, 2].map(() => Deno.makeTempDir()));
  const yaml = (i: number) =>
    gatewayYaml(
      dirs[i],
      `limits:\n  store: ${redis.url}\n  ${NOISY}\n  rules:\n    - { name: q, clients: [alice], quota: 5/day }`,
    );
  let rs = await replicas(3, yaml);
  try {
    for (let i = 0; i < 3; i++) {
      assert.notEqual((await rs[i].gateway.callTool("alice", "echo__echo", { text: "a" })).isError, true);
    }
    await closeAll(rs);
    rs = await replicas(3, yaml);
    const after = [];
    for (let i = 0; i < 4; i++) {
      after.push((await rs[i % 3].gateway.callTool("alice", "echo__echo", {})).isError);
    }
    assert.deepEqual(after, [false, false, true, true]);
  } finally {
    await closeAll(rs);
    await redis.stop();
  }
});

test("replicas: Redis down follows on_store_error, audited and counted; /healthz degrades and recovers", async () => {
  let redis: RedisServer = await startRedis();
  const port = redis.port;
  const dirs = await Promise.all([0, 1].map(() => Deno.makeTempDir()));
  const [deny, allow] = await replicas(2, (i) =>
    gatewayYaml(
      dirs[i],
      `limits:\n  store: ${redis.url}\n  on_store_error: ${
        i === 0 ? "deny" : "allow"
      }\n  rules:\n    - { rate: 100/s }`,
    ));
  const healthz = async (r: Replica) => {
    const res = await fetch(r.url.replace(/\/mcp$/, "/healthz"));
    return { status: res.status, body: await res.json() };
  };
  try {
    assert.deepEqual(await healthz(deny), { status: 200, body: { status: "ok" } });
    await redis.stop();
    const denied = await deny.gateway.callTool("alice", "echo__echo", { text: "d" });
    assert.equal(denied.isError, true);
    assert.equal(textOf(denied.payload), "limits unavailable: retry after 1 s");
    const allowed = await allow.gateway.callTool("alice", "echo__echo", { text: "a" });
    assert.equal(textOf(allowed.payload), "a");
    for (const r of [deny, allow]) {
      assert.deepEqual(await healthz(r), { status: 200, body: { status: "degraded", limits: "degraded" } });
    }
    assert.match(await deny.metricsText(), /gateway_limit_store_errors_total\{action="deny"\} 1/);
    assert.match(await allow.metricsText(), /gateway_limit_store_errors_total\{action="allow"\} 1/);
    assert.match(await allow.metricsText(), /gateway_limits_degraded 1/);
    redis = await startRedis(port);
    const deadline = Date.now() + 10_000;
    while ((await healthz(deny)).body.status !== "ok" && Date.now() < deadline) await sleep(100);
    assert.deepEqual(await healthz(deny), { status: 200, body: { status: "ok" } });
    assert.equal(textOf((await deny.gateway.callTool("alice", "echo__echo", { text: "d" })).payload), "d");
  } finally {
    await closeAll([deny, allow]);
    await redis.stop();
  }
  const denyRecords = (await auditRecords(dirs[0])) as unknown as AuditRecord[];
  const refused = denyRecords.find((r) => r.decision === "limits_unavailable");
  assert.ok(refused && refused.allowed === false && refused.limit_store === "error", JSON.stringify(refused));
  const allowRecords = (await auditRecords(dirs[1])) as unknown as AuditRecord[];
  const passed = allowRecords.find((r) => r.limit_store === "error");
  assert.ok(passed && passed.allowed === true && passed.decision === "allowed", JSON.stringify(passed));
});
