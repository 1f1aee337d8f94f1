/**
 * The Redis store against a real redis-server on a free loopback port: the same bucket, window and slot
 * semantics as the memory store, on the server's clock; all-or-nothing checks; keys that expire; slots
 * shared by two stores (two replicas) and leases that bring back a dead replica's slots; a store that is
 * down or slow is an error the evaluator decides, and recovery needs no call.
 */
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { type LimitRequest, Limits, type LimitsSettings } from "../../src/limits/mod.ts";
import { RedisStore } from "../../src/limits/redis.ts";
import { type RedisServer, redisUnavailable, startRedis } from "./_harness.ts";

const unavailable = redisUnavailable();
if (unavailable !== undefined) console.log(`SKIPPING Redis store tests: ${unavailable}`);
const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, ignore: unavailable !== undefined, fn, sanitizeResources: false, sanitizeOps: false });

async function withRedis(fn: (redis: RedisServer, raw: Redis) => Promise<void>): Promise<void> {
  const redis = await startRedis();
  const raw = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  raw.on("error", () => {});
  await raw.connect();
  try {
    await fn(redis, raw);
  } finally {
    raw.disconnect();
    await redis.stop();
  }
}

async function store(url: string, leaseMs = 30_000): Promise<RedisStore> {
  const s = new RedisStore(url, { leaseMs });
  assert.ok(await s.ready(5_000), "connected");
  return s;
}

const rate = (key: string, burst: number, count: number, periodMs: number): LimitRequest => ({
  kind: "rate",
  key,
  burst,
  count,
  periodMs,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("redis store: a bucket admits its burst, refills on the server's clock, and its key expires", async () => {
  await withRedis(async (redis, raw) => {
    const s = await store(redis.url);
    try {
      const req = [rate("b1", 5, 10, 1000)];
      const verdicts = [];
      for (let i = 0; i < 7; i++) verdicts.push(await s.check(req));
      assert.deepEqual(verdicts.map((v) => v.ok), [true, true, true, true, true, false, false]);
      const refused = verdicts[5];
      assert.ok(!refused.ok);
      assert.ok(refused.refused[0].retryAfterMs > 0 && refused.refused[0].retryAfterMs <= 100);
      await sleep(250);
      const after = [];
      for (let i = 0; i < 4; i++) after.push((await s.check(req)).ok);
      assert.ok(after.filter((x) => x).length >= 2 && after.filter((x) => x).length <= 3, String(after));
      // Idle keys vanish: time to refill fully, plus a second.
      const ttl = await raw.pttl("codemode:limits:b1");
      assert.ok(ttl > 0 && ttl <= 1_500, `pttl ${ttl}`);
    } finally {
      await s.close();
    }
  });
});

test("redis store: a refused check spends nothing; quota windows are keyed by window and expire", async () => {
  await withRedis(async (redis, raw) => {
    const s = await store(redis.url);
    try {
      const bucket = rate("shared", 3, 3, 86_400_000);
      const quota: LimitRequest = { kind: "quota", key: "q", limit: 1, periodMs: 86_400_000, offsetMs: 0 };
      const slots: LimitRequest = { kind: "concurrency", key: "c", limit: 5 };
      assert.ok((await s.check([bucket, quota, slots])).ok);
      for (let i = 0; i < 5; i++) {
        const v = await s.check([bucket, quota, slots]);
        assert.ok(!v.ok);
        assert.deepEqual(v.refused.map((r) => r.index), [1]);
      }
      assert.equal(await raw.zcard("codemode:limits:c"), 1, "no slot taken by a refused check");
      const rest = [];
      for (let i = 0; i < 4; i++) rest.push((await s.check([bucket])).ok);
      assert.deepEqual(rest, [true, true, false, false], "two tokens were left");
      const dayStart = Math.floor(Date.now() / 86_400_000) * 86_400_000;
      const keys = await raw.keys("codemode:limits:q:*");
      assert.deepEqual(keys, [`codemode:limits:q:${dayStart}`]);
      const expiresAt = Date.now() + await raw.pttl(keys[0]);
      assert.ok(Math.abs(expiresAt - (dayStart + 86_400_000 + 60_000)) < 5_000, "expires after its window");
    } finally {
      await s.close();
    }
  });
});

test("redis store: slots are shared by replicas; a dead replica's slots come back after the lease", async () => {
  await withRedis(async (redis) => {
    const a = await store(redis.url, 1_000);
    const b = await store(redis.url, 1_000);
    try {
      const slots: LimitRequest = { kind: "concurrency", key: "gh", limit: 2 };
      const held = [await a.check([slots]), await a.check([slots])];
      assert.ok(held.every((v) => v.ok));
      assert.equal((await b.check([slots])).ok, false, "the other replica sees them");
      // A live replica renews its leases: past the lease, the slots are still held.
      await sleep(1_500);
      assert.equal((await b.check([slots])).ok, false, "renewed while the holder lives");
      // The holder dies without releasing: no renewal, and the lease runs out.
      a.kill();
      const died = Date.now();
      let admitted = false;
      while (!admitted && Date.now() - died < 3_000) {
        admitted = (await b.check([slots])).ok;
        if (!admitted) await sleep(50);
      }
      assert.ok(admitted, "a slot came back");
      assert.ok(Date.now() - died <= 1_000 + 500, `within the lease (${Date.now() - died} ms)`);
      // A clean release is immediate.
      const v = await b.check([slots]);
      assert.ok(v.ok);
      assert.equal((await b.check([slots])).ok, false);
      b.release(v.leases);
      await sleep(20);
      assert.ok((await b.check([slots])).ok);
    } finally {
      await b.close();
      await a.close();
    }
  });
});

test("redis store: down or slow is a store error; health is degraded and recovers without a call", async () => {
  const redis = await startRedis();
  const settings: LimitsSettings = {
    store: redis.url,
    onStoreError: "deny",
    storeTimeoutMs: 50,
    leaseMs: 5_000,
    rules: [{
      name: "r",
      clients: ["*"],
      tools: ["*"],
      downstreams: ["*"],
      rate: { count: 100, periodMs: 1000 },
    }],
  };
  const limits = await Limits.open(settings, { probeEveryMs: 50 });
  const subject = { client: "c", tool: "d__t", downstream: "d" };
  // Read through a function: the value changes behind the compiler's narrowing.
  const health = () => limits.health;
  let port = redis.port;
  let second: RedisServer | undefined;
  try {
    assert.ok((await limits.check(subject)).ok);
    // Slow: the server is blocked for 300 ms; the check gives up after 50.
    const blocker = new Redis(redis.url);
    blocker.on("error", () => {});
    await blocker.ping();
    const sleeping = blocker.call("DEBUG", "SLEEP", "0.3");
    await sleep(20);
    const started = performance.now();
    const slow = await limits.check(subject);
    const took = performance.now() - started;
    assert.ok(!slow.ok && "storeError" in slow, JSON.stringify(slow));
    assert.ok(took < 250, `gave up after ${took} ms`);
    assert.equal(health(), "degraded");
    await sleeping;
    blocker.disconnect();
    // Recovers on its own once the server answers again.
    const deadline = Date.now() + 5_000;
    while (health() !== "ok" && Date.now() < deadline) await sleep(20);
    assert.equal(health(), "ok");
    // Down: checks fail at once, then a server on the same port brings it back.
    port = redis.port;
    await redis.stop();
    const down = await limits.check(subject);
    assert.ok(!down.ok && "storeError" in down);
    assert.equal(health(), "degraded");
    second = await startRedis(port);
    const back = Date.now() + 10_000;
    while (health() !== "ok" && Date.now() < back) await sleep(50);
    assert.equal(health(), "ok");
    assert.ok((await limits.check(subject)).ok);
  } finally {
    await limits.close();
    await redis.stop();
    await second?.stop();
  }
});
