/**
 * Fair admission under a flood (issue 22, class 5), on both pools: heavy subjects that flood the pool
 * with programs holding their slots for a long time never fill the last reserved slot, so a light
 * subject's trivial program starts while every heavy run is still going, and its idle sandbox is not
 * evicted for the flood (its next program reuses it). Deterministic: the heavy runs block in a native
 * call until the test releases them, after the light subject has been served.
 */
import assert from "node:assert/strict";
import { WorkerPool } from "../../src/executor/pool.ts";
import { ProcessPool } from "../../src/executor/process_pool.ts";
import type { Executor } from "../../src/executor/contract.ts";
import type { PoolStats } from "../../src/executor/pool.ts";
import { request, sleep } from "./helpers.ts";
import { slack } from "../timing.ts";

type Pool = Executor & { stats(): PoolStats };

const HOLD = "def main():\n    return records.lookup(key = 'heavy')['count']\n";
const LIGHT = "def main():\n    return 1 + 1\n";

async function until(cond: () => boolean, ms: number): Promise<void> {
  for (const t0 = performance.now(); !cond() && performance.now() - t0 < ms;) await sleep(10);
}

async function flood(pool: Pool, heavySubjects: number): Promise<void> {
  const budgets = { maxExecutionTime: 120_000 };
  let holding = 0;
  let peak = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const dispatch = async () => {
    holding++;
    peak = Math.max(peak, holding);
    await released;
    holding--;
    return { key: "heavy", count: 1 };
  };
  const heavy = Array.from(
    { length: heavySubjects * 10 },
    (_, i) =>
      pool.run(request(HOLD, { subjectId: `heavy-${i % heavySubjects}`, dispatch, budgets })).catch((e) => e),
  );
  try {
    // Eight slots, one reserved: the flood takes seven (an unfair pool would let it take all eight).
    await until(() => holding >= 7, slack(30_000));
    await sleep(100);
    const light = pool.run(request(LIGHT, { subjectId: "light", budgets }));
    const first = await Promise.race([light, sleep(slack(15_000)).then(() => "still waiting")]);
    assert.equal(first, 2, "the light subject ran while every heavy run still held its slot");
    assert.equal(holding, 7);
    // Its sandbox stayed for it: the next program needs no spawn.
    const spawned = pool.stats().spawned;
    assert.equal(await pool.run(request(LIGHT, { subjectId: "light", budgets })), 2);
    assert.equal(pool.stats().spawned, spawned, "the light subject's idle sandbox was not evicted");
  } finally {
    release();
    await Promise.all(heavy);
  }
  assert.equal(peak, 7, "the heavy subjects held every slot but the reserved one");
}

for (const heavy of [1, 2, 4]) {
  Deno.test(`admission: ${heavy} flooding subject(s) leave a worker pool's reserved slot to a light one`, async () => {
    const pool = new WorkerPool({ maxConcurrentExecutions: 8, maxSlotsPerSubject: 8, warmWorkers: 0 });
    try {
      await flood(pool, heavy);
    } finally {
      await pool.close();
    }
  });
}

Deno.test("admission: 4 flooding subjects leave a process pool's reserved slot to a light one", async () => {
  const pool = new ProcessPool({ maxConcurrentExecutions: 8, warmWorkers: 0, spawnTimeoutMs: 30_000 });
  try {
    await flood(pool, 4);
  } finally {
    await pool.close();
  }
});
