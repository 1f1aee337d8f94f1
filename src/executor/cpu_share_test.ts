import assert from "node:assert/strict";
import { CpuShare, LONG_RUN_MS, type Runner } from "./cpu_share.ts";
import { SharedChannel } from "./protocol.ts";

function runner(): Runner & { state: string; channel: SharedChannel } {
  const channel = SharedChannel.create(16);
  return { channel, state: "busy", setDuty: (d: number) => channel.setDuty(d) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("cpu share: long runners are held to the room the cores leave while a short one runs", async () => {
  const share = new CpuShare(2);
  try {
    const long = [runner(), runner(), runner(), runner()];
    for (const r of long) share.started(r);
    await sleep(LONG_RUN_MS + 15);
    // Alone, long runners run at full speed (the interval recomputes the shares meanwhile).
    share.ended(long[0]);
    await sleep(15);
    for (const r of long.slice(1)) assert.equal(r.channel.duty(), 0, "no short execution: unthrottled");
    const short = runner();
    share.started(short);
    // Three long runners, one core of room: a third of a CPU each; the short one is not throttled.
    for (const r of long.slice(1)) assert.equal(r.channel.duty(), 333);
    assert.equal(short.channel.duty(), 0);
    share.ended(short);
    for (const r of long.slice(1)) assert.equal(r.channel.duty(), 0, "the short one ended: unthrottled");
    // A runner that stopped being busy without `ended` (an interrupt) is dropped at the next update.
    long[1].state = "draining";
    long[2].state = "draining";
    share.started(short);
    assert.equal(long[3].channel.duty(), 0, "one long runner fits the room");
  } finally {
    share.close();
  }
});

Deno.test("cpu share: many long runners get at least the minimum share; more cores, no throttling", async () => {
  const two = new CpuShare(2), eight = new CpuShare(8);
  try {
    const many = Array.from({ length: 20 }, runner);
    const few = Array.from({ length: 4 }, runner);
    for (const r of many) two.started(r);
    for (const r of few) eight.started(r);
    await sleep(LONG_RUN_MS + 15);
    two.started(runner());
    eight.started(runner());
    for (const r of many) assert.equal(r.channel.duty(), 100);
    for (const r of few) assert.equal(r.channel.duty(), 0);
  } finally {
    two.close();
    eight.close();
  }
});

Deno.test("shared channel: a nap returns at once when the run is interrupted", () => {
  const ch = SharedChannel.create(16);
  ch.interrupt(2);
  const t0 = performance.now();
  ch.nap(1_000);
  assert.ok(performance.now() - t0 < 100, "the nap did not wait for its full length");
  ch.reset();
  assert.equal(ch.duty(), 0);
  ch.setDuty(250);
  assert.equal(ch.duty(), 250);
  const t1 = performance.now();
  ch.nap(30);
  assert.ok(performance.now() - t1 >= 25, "an uninterrupted nap sleeps");
});
