import assert from "node:assert/strict";
import { type AuditRecord, Catalog } from "../domain/mod.ts";
import { ClientKeys, HostCheck, OriginCheck } from "./auth.ts";
import { HttpEdge } from "./edge.ts";
import { FailureLimiter } from "./ratelimit.ts";

Deno.test("rate limit: a bucket per address drains by failure and refills at its rate", () => {
  let now = 0;
  const limiter = new FailureLimiter({ burst: 3, refillPerMinute: 6 }, () => now);
  assert.equal(limiter.fail("a"), false);
  assert.equal(limiter.fail("a"), false);
  assert.equal(limiter.retryAfterMs("a"), 0);
  // The third failure empties the bucket: that is the moment the address becomes limited.
  assert.equal(limiter.fail("a"), true);
  assert.equal(limiter.retryAfterMs("a"), 10_000);
  assert.equal(limiter.retryAfterMs("b"), 0, "another address is not affected");
  now = 4_000;
  assert.equal(limiter.retryAfterMs("a"), 6_000);
  now = 10_000;
  assert.equal(limiter.retryAfterMs("a"), 0);
  // One token regained: one more try, which limits the address again at once.
  assert.equal(limiter.fail("a"), true);
  assert.equal(limiter.retryAfterMs("a"), 10_000);
  now = 1_000_000;
  assert.equal(limiter.fail("a"), false, "a long pause refills the whole burst");
});

Deno.test("rate limit: burst 0 is off; the tracked addresses are bounded", () => {
  const off = new FailureLimiter({ burst: 0, refillPerMinute: 1 });
  for (let i = 0; i < 100; i++) assert.equal(off.fail("a"), false);
  assert.equal(off.retryAfterMs("a"), 0);
  assert.equal(off.size, 0);
  const small = new FailureLimiter({ burst: 1, refillPerMinute: 1 }, () => 0, 3);
  for (const a of ["a", "b", "c", "d", "e"]) small.fail(a);
  assert.equal(small.size, 3);
  // The longest-tracked were forgotten first.
  assert.equal(small.retryAfterMs("a"), 0);
  assert.ok(small.retryAfterMs("e") > 0);
});

Deno.test("rate limit: the edge answers 429 with Retry-After, before the key is looked at, and audits once", async () => {
  const key = "rate-limit-key-0123456789abcdef";
  const audit: AuditRecord[] = [];
  let limited = 0;
  let now = 0;
  const edge = new HttpEdge({
    surface: { listTools: () => new Catalog([]), callTool: () => Promise.reject(new Error("unused")) },
    settings: {
      keys: new ClientKeys([{ id: "alice", apiKey: key }]),
      hosts: new HostCheck(true),
      origins: new OriginCheck([]),
      authLimit: new FailureLimiter({ burst: 2, refillPerMinute: 60 }, () => now),
    },
    audit: (r) => {
      audit.push(r);
      return Promise.resolve();
    },
    onRateLimited: () => limited++,
  });
  const from = (hostname: string) => ({ remoteAddr: { transport: "tcp" as const, hostname, port: 40000 } });
  const ping = (auth: string) =>
    new Request("http://127.0.0.1:8790/mcp", {
      method: "POST",
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      headers: {
        host: "127.0.0.1:8790",
        authorization: `Bearer ${auth}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
    });
  const status = async (auth: string, address: string) => {
    const res = await edge.handle(ping(auth), from(address));
    await res.body?.cancel();
    return [res.status, res.headers.get("retry-after")];
  };
  assert.deepEqual(await status("wrong-1", "10.0.0.1"), [401, null]);
  assert.deepEqual(await status("wrong-2", "10.0.0.1"), [401, null]);
  // Limited now: even the right key is refused unread, so a guess while limited tells nothing.
  assert.deepEqual(await status(key, "10.0.0.1"), [429, "1"]);
  assert.deepEqual(await status("wrong-3", "10.0.0.1"), [429, "1"]);
  assert.equal(limited, 2);
  assert.deepEqual(await status(key, "10.0.0.2"), [200, null]);
  now = 1_000;
  assert.deepEqual(await status(key, "10.0.0.1"), [200, null]);
  // A request made in-process has no address and is not limited.
  for (let i = 0; i < 5; i++) {
    const res = await edge.handle(ping("wrong"));
    assert.equal(res.status, 401);
    await res.body?.cancel();
  }
  const decisions = audit.map((r) => r.decision);
  assert.deepEqual(decisions.slice(0, 2), ["unauthenticated", "rate_limited"]);
  assert.equal(decisions.filter((d) => d === "rate_limited").length, 1);
  assert.equal(audit.length, 7, "one record per failed authentication, none per refused request");
});
