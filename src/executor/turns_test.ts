import assert from "node:assert/strict";
import { Turns } from "./turns.ts";

Deno.test("turns: the least key goes first, equal keys first come first served", async () => {
  const turns = new Turns();
  const order: string[] = [];
  const ask = (name: string, key: number) => turns.next(key).then(() => void order.push(name));
  await Promise.all([ask("a", 5), ask("b", 1), ask("c", 5), ask("d", 0), ask("e", 1)]);
  assert.deepEqual(order, ["d", "b", "e", "a", "c"]);
  assert.equal(turns.waiting, 0);
});

Deno.test("turns: each turn is its own task, so timers fire between busy slices", async () => {
  const turns = new Turns();
  let fired = 0;
  const timer = setInterval(() => fired++, 5);
  const busy = (ms: number) => {
    const t = performance.now();
    while (performance.now() - t < ms);
  };
  try {
    // Two runs taking 4 ms slices in turn for 200 ms: a chain of microtasks would starve the timer.
    const run = async () => {
      const end = performance.now() + 200;
      while (performance.now() < end) {
        await turns.next(0);
        busy(4);
      }
    };
    await Promise.all([run(), run()]);
  } finally {
    clearInterval(timer);
  }
  assert.ok(fired >= 10, `the 5 ms timer fired ${fired} times in 200 ms`);
});

Deno.test("turns: an aborted wait gives its turn up and rejects with the reason", async () => {
  const turns = new Turns();
  const controller = new AbortController();
  const order: string[] = [];
  const first = turns.next(0).then(() => void order.push("first"));
  const gone = turns.next(1, controller.signal).then(() => void order.push("gone"));
  const last = turns.next(2).then(() => void order.push("last"));
  controller.abort(new Error("stop"));
  await assert.rejects(gone, /stop/);
  await Promise.all([first, last]);
  assert.deepEqual(order, ["first", "last"]);
  await assert.rejects(turns.next(0, controller.signal), /stop/);
});
