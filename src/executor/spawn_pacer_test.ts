import assert from "node:assert/strict";
import { SpawnPacer } from "./spawn_pacer.ts";

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* a creation that blocks the thread */ }
}

Deno.test("spawn pacer: one job per macrotask, each followed by a gap as long as it took", async () => {
  const pacer = new SpawnPacer();
  try {
    const ran: number[] = [];
    const ticks: number[] = [];
    const ticker = setInterval(() => ticks.push(performance.now()), 1);
    const done = Promise.withResolvers<void>();
    for (let i = 0; i < 4; i++) {
      pacer.schedule(() => {
        ran.push(performance.now());
        busy(20);
        if (ran.length === 4) done.resolve();
      });
    }
    assert.equal(ran.length, 0, "nothing runs synchronously");
    await done.promise;
    clearInterval(ticker);
    for (let i = 1; i < ran.length; i++) {
      assert.ok(
        ran[i] - ran[i - 1] >= 39,
        `job ${i} started ${(ran[i] - ran[i - 1]).toFixed(1)} ms after the previous`,
      );
      // Other tasks (the ticker) ran between two jobs.
      assert.ok(
        ticks.some((t) => t > ran[i - 1] + 20 && t < ran[i]),
        `the event loop turned between jobs ${i - 1} and ${i}`,
      );
    }
  } finally {
    pacer.close();
  }
});

Deno.test("spawn pacer: close drops queued jobs", async () => {
  const pacer = new SpawnPacer();
  let ran = 0;
  pacer.schedule(() => ran++);
  pacer.schedule(() => ran++);
  pacer.close();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(ran, 0);
});
