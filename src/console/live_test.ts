/**
 * The console's live model: the audit ring keeps the newest records in order and says how many it
 * skipped; the figures count per client and per downstream over their windows; streams get batches (one
 * audit event per period whatever the rate), a reader that stops reading is dropped instead of growing
 * the buffer, and restarts and breaker states are tracked from events.
 */
import assert from "node:assert/strict";
import type { AuditEntry, ConsoleSources, DownstreamReport } from "./domain.ts";
import { ConsoleLive } from "./live.ts";
import { AuditRing } from "./ring.ts";
import { classify, LiveStats } from "./stats.ts";
import { SseStream } from "./sse.ts";

function record(over: Partial<AuditEntry> = {}): AuditEntry {
  return {
    timestamp: new Date(0).toISOString(),
    client_id: "alice",
    tool_name: "echo__echo",
    decision: "allowed",
    allowed: true,
    latency_ms: 1,
    error: "",
    ...over,
  };
}

Deno.test("ring: keeps the newest records in order and counts what it skipped, for generated sizes", () => {
  for (const capacity of [1, 2, 7, 64]) {
    for (const pushed of [0, 1, capacity - 1, capacity, capacity + 1, 3 * capacity + 2]) {
      const ring = new AuditRing(capacity);
      for (let i = 1; i <= pushed; i++) ring.push(record({ latency_ms: i }));
      for (const after of [0, Math.floor(pushed / 2), pushed]) {
        for (const max of [1, 3, 1000]) {
          const slice = ring.since(after, max);
          const want = [];
          for (let i = Math.max(after + 1, pushed - capacity + 1, pushed - max + 1); i <= pushed; i++) {
            want.push(i);
          }
          assert.deepEqual(
            slice.records.map((r) => r.latency_ms),
            want,
            `${capacity}/${pushed}/${after}/${max}`,
          );
          assert.equal(slice.last, pushed);
          assert.equal(slice.skipped, pushed - after - want.length);
        }
      }
    }
  }
});

Deno.test("stats: classifies records as the page does", () => {
  assert.equal(classify(record()), "ok");
  assert.equal(
    classify(record({ decision: "denied_default", allowed: false, error: "unknown tool" })),
    "denied",
  );
  assert.equal(classify(record({ decision: "not_found", allowed: false })), "denied");
  for (const d of ["rate_limited", "quota_exceeded", "concurrency_limited", "limits_unavailable"]) {
    assert.equal(classify(record({ decision: d, allowed: false })), "limited");
  }
  assert.equal(classify(record({ error: "the tool call timed out" })), "error");
  assert.equal(classify(record({ tool_name: "execute", outcome: "resource_limit" })), "error");
  assert.equal(classify(record({ tool_name: "execute", outcome: "ok" })), "ok");
});

Deno.test("stats: per-client counts and latency quantiles over a sliding window", () => {
  let now = 1_000_000;
  const stats = new LiveStats({ windowMs: 60_000, slots: 6, now: () => now });
  stats.setDownstreams(["echo"]);
  // 100 calls of 1..100 ms: p50 ≈ 50, p99 ≈ 99 (within one histogram bucket, about 25%).
  for (let i = 1; i <= 100; i++) stats.add(record({ latency_ms: i }));
  stats.add(record({ client_id: "bob", decision: "denied_default", allowed: false }));
  stats.add(record({ client_id: "bob", decision: "quota_exceeded", allowed: false }));
  stats.add(record({ client_id: "bob", error: "the tool call timed out" }));
  const [alice, bob] = stats.clients();
  assert.equal(alice.id, "alice");
  assert.equal(alice.calls, 100);
  assert.ok(alice.p50Ms! >= 50 && alice.p50Ms! <= 50 * 1.25, String(alice.p50Ms));
  assert.ok(alice.p99Ms! >= 99 && alice.p99Ms! <= 99 * 1.25, String(alice.p99Ms));
  assert.deepEqual({ ...bob, p50Ms: 0, p99Ms: 0 }, {
    id: "bob",
    calls: 3,
    denials: 1,
    limited: 1,
    errors: 1,
    p50Ms: 0,
    p99Ms: 0,
  });
  // Past the window, a client's old slots no longer count, and a quiet client is forgotten.
  now += 30_000;
  stats.add(record({ client_id: "bob" }));
  now += 35_000;
  assert.deepEqual(stats.clients().map((c) => [c.id, c.calls]), [["bob", 1]]);
  now += 60_000;
  assert.deepEqual(stats.clients(), []);
});

Deno.test("stats: calls and errors per second per known downstream; denials and other names are not calls", () => {
  let now = 5_000_000;
  const stats = new LiveStats({ rateSeconds: 10, now: () => now });
  stats.setDownstreams(["echo", "memory"]);
  stats.add(record());
  stats.add(record({ error: "the tool call timed out" }));
  stats.add(record({ decision: "denied_default", allowed: false }));
  stats.add(record({ tool_name: "unknown__x" }));
  stats.add(record({ tool_name: "execute" }));
  now += 2000;
  stats.add(record({ tool_name: "memory__read" }));
  const rates = stats.rates();
  assert.equal(rates.start, 5_002 - 9);
  assert.deepEqual(Object.keys(rates.downstreams), ["echo", "memory"]);
  assert.deepEqual(rates.downstreams.echo.calls, [0, 0, 0, 0, 0, 0, 0, 2, 0, 0]);
  assert.deepEqual(rates.downstreams.echo.errors, [0, 0, 0, 0, 0, 0, 0, 1, 0, 0]);
  assert.deepEqual(rates.downstreams.memory.calls, [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  // Ten seconds later the old points have left the series.
  now += 10_000;
  assert.deepEqual(stats.rates().downstreams.echo.calls, new Array(10).fill(0));
});

Deno.test("stats: the number of clients tracked is bounded", () => {
  const stats = new LiveStats({ maxClients: 4 });
  for (let i = 0; i < 50; i++) stats.add(record({ client_id: `c${i}` }));
  const clients = stats.clients();
  assert.equal(clients.length, 5);
  assert.deepEqual(clients.find((c) => c.id === "…")?.calls, 46);
});

Deno.test("sse: a reader that stops reading is dropped once its buffer is full", async () => {
  let closed = 0;
  const stream = new SseStream(1000, () => closed++);
  const reader = stream.body.getReader();
  const chunk = new Uint8Array(300);
  assert.equal(stream.send(chunk), true);
  // Reading frees room: what was read no longer counts.
  await reader.read();
  for (let i = 0; i < 3; i++) assert.equal(stream.send(chunk), true);
  assert.equal(stream.send(chunk), false, "the fourth unread chunk would pass the bound");
  assert.equal(stream.open, false);
  assert.equal(closed, 1);
  assert.equal(stream.send(chunk), false);
  // The reader still gets what was queued, then the end.
  for (let i = 0; i < 3; i++) assert.equal((await reader.read()).value?.length, 300);
  assert.equal((await reader.read()).done, true);
});

Deno.test("sse: an event larger than the buffer still goes out when nothing waits", () => {
  const stream = new SseStream(100, () => {});
  assert.equal(stream.send(new Uint8Array(500)), true);
  assert.equal(stream.send(new Uint8Array(1)), false);
});

function sources(reports: DownstreamReport[] = [], openMs = 30_000): ConsoleSources {
  return { downstreams: () => reports, config: () => ({ mode: "passthrough" }), breakerOpenMs: () => openMs };
}

/** The events of a stream read so far, as [event, data] pairs. */
async function events(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  n: number,
): Promise<[string, unknown][]> {
  const out: [string, unknown][] = [];
  let text = "";
  while (out.length < n) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    let end;
    while ((end = text.indexOf("\n\n")) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)![1];
      out.push([event, JSON.parse(/^data: (.*)$/m.exec(block)![1])]);
    }
  }
  return out;
}

Deno.test("live: a new page gets the configuration, the figures and the recent records; then batches", async () => {
  const live = new ConsoleLive(sources([{ name: "echo", transport: "stdio", state: "up", tools: 3 }]), {
    batchRecords: 50,
    figuresEvery: 2,
  });
  try {
    for (let i = 0; i < 60; i++) live.record(record({ latency_ms: i }));
    const stream = live.openStream()!;
    const reader = stream.body.getReader();
    const first = await events(reader, 3);
    assert.deepEqual(first.map(([e]) => e), ["config", "figures", "audit"]);
    const audit = first[2][1] as { records: AuditEntry[]; skipped: number };
    assert.equal(audit.records.length, 50);
    assert.equal(audit.skipped, 10);
    assert.equal(audit.records.at(-1)!.latency_ms, 59);
    // 10,000 records between two batches: one audit event with the newest 50, the rest counted.
    for (let i = 0; i < 10_000; i++) live.record(record({ latency_ms: 1000 + i }));
    live.tick();
    live.tick();
    const next = await events(reader, 2);
    assert.deepEqual(next.map(([e]) => e), ["audit", "figures"]);
    const batch = next[0][1] as { records: AuditEntry[]; skipped: number };
    assert.equal(batch.records.length, 50);
    assert.equal(batch.skipped, 10_000 - 50);
    assert.equal(batch.records.at(-1)!.latency_ms, 10_999);
    const figures = next[1][1] as { clients: { calls: number }[]; downstreams: { name: string }[] };
    assert.equal(figures.clients[0].calls, 10_060);
    assert.equal(figures.downstreams[0].name, "echo");
  } finally {
    live.close();
  }
});

Deno.test("live: streams are bounded in number, and a stream that is never read is dropped", async () => {
  const live = new ConsoleLive(sources(), { maxStreams: 2, streamBufferBytes: 4096 });
  try {
    const a = live.openStream()!;
    const b = live.openStream()!;
    assert.equal(live.openStream(), undefined);
    const reader = b.body.getReader();
    const reading = (async () => {
      while (!(await reader.read()).done) { /* drained */ }
    })();
    // Nobody reads `a`: records pile up in its buffer until it is dropped, freeing its place; `b` is
    // read and stays.
    for (let i = 0; i < 200 && a.open; i++) {
      live.record(record({ error: "x".repeat(100) }));
      live.tick();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    assert.equal(a.open, false);
    assert.equal(b.open, true);
    assert.equal(live.streams, 1);
    assert.ok(live.openStream(), "a dropped stream's place is free again");
    live.close();
    await reading;
  } finally {
    live.close();
  }
  assert.equal(live.streams, 0);
});

Deno.test("live: restarts and the breaker's state and half-open time come from the gateway's events", () => {
  let now = 1_000;
  const live = new ConsoleLive(
    sources([{ name: "echo", transport: "stdio", state: "up", tools: 1 }], 10_000),
    { now: () => now },
  );
  assert.deepEqual(live.downstreams(), [{
    name: "echo",
    transport: "stdio",
    state: "up",
    tools: 1,
    restarts: 0,
    breaker: "",
  }]);
  live.downstreamState("echo", "up");
  live.downstreamState("echo", "down");
  live.downstreamState("echo", "starting");
  live.downstreamState("echo", "up");
  live.breakerState("echo", "open");
  const [open] = live.downstreams();
  assert.equal(open.restarts, 1);
  assert.equal(open.breaker, "open");
  assert.equal(open.halfOpensAt, 11_000);
  // Its time is up: a probe will be let through on the next call.
  now = 11_000;
  assert.equal(live.downstreams()[0].breaker, "half_open");
  live.breakerState("echo", "closed");
  assert.equal(live.downstreams()[0].breaker, "closed");
  assert.equal(live.downstreams()[0].halfOpensAt, undefined);
});
