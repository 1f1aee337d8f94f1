import assert from "node:assert/strict";
import type { PoolHealth, PoolStats } from "../executor/mod.ts";
import { poolMetrics } from "./metrics.ts";

function stats(over: Partial<PoolStats> = {}): PoolStats {
  return {
    live: 0,
    spawning: 0,
    fresh: 0,
    idle: 0,
    busy: 0,
    draining: 0,
    stopping: 0,
    stuck: 0,
    everStuck: 0,
    waiting: 0,
    refused: 0,
    spawned: 0,
    discarded: 0,
    executions: 0,
    peakLive: 0,
    ...over,
  };
}

function value(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  assert.ok(m, `${name} in\n${text}`);
  return Number(m[1]);
}

Deno.test("pool metrics: every scrape reads the pool; degraded and stuck follow its health", async () => {
  let s = stats({ live: 3, busy: 2, idle: 1, executions: 10, spawned: 3 });
  let h: PoolHealth = { status: "ok", stuck: 0, live: 3, max: 8 };
  const scrape = poolMetrics({ stats: () => s, health: () => h });
  const first = await scrape();
  assert.match(first.contentType, /^text\/plain/);
  assert.equal(value(first.body, "codemode_executor_degraded"), 0);
  assert.equal(value(first.body, "codemode_executor_slots_live"), 3);
  assert.equal(value(first.body, "codemode_executor_slots_max"), 8);
  assert.equal(value(first.body, "codemode_executor_sandboxes_busy"), 2);
  assert.equal(value(first.body, "codemode_executor_executions_total"), 10);
  assert.match(first.body, /^# TYPE codemode_executor_executions_total counter$/m);

  s = stats({ live: 8, stuck: 1, everStuck: 1, executions: 25, spawned: 9, discarded: 1, waiting: 4 });
  h = { status: "degraded", stuck: 1, live: 8, max: 8 };
  const second = (await scrape()).body;
  assert.equal(value(second, "codemode_executor_degraded"), 1);
  assert.equal(value(second, "codemode_executor_stuck_sandboxes"), 1);
  assert.equal(value(second, "codemode_executor_stuck_total"), 1);
  assert.equal(value(second, "codemode_executor_waiting"), 4);
  assert.equal(value(second, "codemode_executor_executions_total"), 25);
  assert.equal(value(second, "codemode_executor_discarded_total"), 1);

  h = { status: "ok", stuck: 0, live: 2, max: 8 };
  s = stats({ live: 2, everStuck: 1, executions: 25, spawned: 9, discarded: 7 });
  const third = (await scrape()).body;
  assert.equal(value(third, "codemode_executor_degraded"), 0);
  assert.equal(value(third, "codemode_executor_stuck_total"), 1, "a counter never goes back");
  assert.equal(value(third, "codemode_executor_discarded_total"), 7);
});

Deno.test("pool metrics: two sources keep separate registries", async () => {
  const a = poolMetrics({
    stats: () => stats({ executions: 1 }),
    health: () => ({ status: "ok", stuck: 0, live: 0, max: 2 }),
  });
  const b = poolMetrics({
    stats: () => stats({ executions: 5 }),
    health: () => ({ status: "ok", stuck: 0, live: 0, max: 4 }),
  });
  assert.equal(value((await a()).body, "codemode_executor_executions_total"), 1);
  assert.equal(value((await b()).body, "codemode_executor_executions_total"), 5);
  assert.equal(value((await a()).body, "codemode_executor_slots_max"), 2);
});
