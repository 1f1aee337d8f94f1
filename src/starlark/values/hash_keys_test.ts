/**
 * Tests of hash keys that cost in proportion to their content: a tuple's key is built from every element,
 * a bytes value's is a wide copy of its data, and a table holding an equal long string compares the two
 * whole. Each must be charged (steps for the work, memory for a key a table keeps) and a big tuple's key
 * must be built with polls, with the same key as the plain path builds.
 */
import assert from "node:assert/strict";
import { seededRandom as rng } from "../seeded_random_test.ts";
import { call } from "./call.ts";
import { execFile } from "../mod.ts";
import { chargeKeyHash } from "./ops_bulk.ts";
import { Bytes, Float, hashKey, List, ResourceError, Thread, Tuple } from "./value.ts";
import type { Value } from "./value.ts";

/** A random hashable tuple: scalars of every key kind, nested tuples, some of them long. */
function randomTuple(r: () => number, size: number, depth: number): Tuple {
  const elems: Value[] = [];
  for (let i = 0; i < size; i++) {
    const pick = r();
    if (pick < 0.2) elems.push(Math.floor(r() * 2000) - 1000);
    else if (pick < 0.3) elems.push(r() < 0.5 ? -0 : 2 ** 60 + i);
    else if (pick < 0.4) elems.push(BigInt(2) ** BigInt(70 + i % 9));
    else if (pick < 0.5) elems.push(new Float(r() < 0.3 ? NaN : r() * 10));
    else if (pick < 0.6) elems.push("s" + "x".repeat(Math.floor(r() * 5)));
    else if (pick < 0.7) elems.push(new Bytes("b" + String.fromCharCode(Math.floor(r() * 256))));
    else if (pick < 0.8) elems.push(r() < 0.5 ? null : r() < 0.5);
    else if (depth > 0) elems.push(randomTuple(r, Math.floor(r() * 6), depth - 1));
    else elems.push(i);
  }
  return new Tuple(elems);
}

/** A structurally equal tuple made of new tuple objects (so no cached key is shared with `t`). */
function copyTuple(t: Tuple): Tuple {
  return new Tuple(t.elems.map((e) => e instanceof Tuple ? copyTuple(e) : e));
}

function thread(options: { maxSteps?: number; maxMemory?: number } = {}, onPoll = () => {}): Thread {
  return new Thread({ ...options, checkInterrupt: () => void onPoll() });
}

Deno.test("hash keys: a big tuple's key, built with polls, is the key the plain path builds", () => {
  for (let seed = 1; seed <= 12; seed++) {
    const r = rng(seed);
    // Big at the top, or big through nesting, or deeper than the recursive builder goes.
    let t = randomTuple(r, seed % 3 === 0 ? 3 : 5000 + Math.floor(r() * 3000), 3);
    if (seed % 3 === 0) t = new Tuple([t, randomTuple(r, 6000, 2)]);
    if (seed % 4 === 0) { for (let i = 0; i < 80; i++) t = new Tuple([t, i]); }
    const plain = hashKey(copyTuple(t));
    let polls = 0;
    chargeKeyHash(thread({}, () => polls++), t);
    assert.equal(hashKey(t), plain, `seed ${seed}`);
    assert.ok(polls >= 1, `seed ${seed}: ${polls} polls`);
  }
});

Deno.test("hash keys: a tuple of a million elements polls while its key is built and is charged first", () => {
  const t = new Tuple(Array.from({ length: 1_000_000 }, (_, i) => i));
  let polls = 0;
  const th = thread({}, () => polls++);
  chargeKeyHash(th, t);
  assert.ok(polls >= 200, `${polls} polls`);
  assert.ok(th.steps >= 16_000_000, `${th.steps} steps`);
  // The key is kept with the tuple: a second lookup is charged the comparison only.
  const before = th.steps;
  chargeKeyHash(th, t);
  assert.ok(th.steps - before < 1_000_000, `${th.steps - before} steps`);
  // Its memory is charged before it is built: with a small budget nothing is built.
  const small = thread({ maxMemory: 16 << 20 });
  assert.throws(() => chargeKeyHash(small, copyTuple(t)), ResourceError);
});

Deno.test("hash keys: a long string, bytes or tuple key is charged for the comparison with an equal key", () => {
  // Equal but distinct keys: every lookup compares 1 MB (the key kept by the table is another string).
  const programs = [
    "d = {s: 1}\n    for i in range(200):\n        n += d[t] + int(t in d) + d.get(t, 0)",
    "d = {b: 1}\n    for i in range(200):\n        n += d[c] + int(c in d)",
    "d = {(s, 1): 1}\n    for i in range(200):\n        n += d.get((t, 1), 0)",
    'd1 = {s: 1, "k": 2}\n    d2 = {t: 1, "k": 2}\n    for i in range(200):\n        n += int(d1 == d2)',
    "for i in range(200):\n        n += int(b == c) + int(b < c)",
  ];
  for (const body of programs) {
    const source = 'def main():\n    s = "x" * 1000000\n    t = s[:-1] + "x"\n    b = bytes(s)\n' +
      `    c = bytes(t)\n    n = 0\n    ${body}\n    return n\n`;
    // Memory is not what this test measures: the tuple keys' copies are charged too (see below).
    const th = new Thread({ maxMemory: 1 << 30 });
    const { globals } = execFile(source, { thread: th });
    call(th, globals.get("main")!, [], []);
    // At least 1 MB / 64 per comparison, 200 comparisons (the loop alone is a few hundred steps).
    assert.ok(th.steps >= 200 * (1_000_000 >>> 6), `${th.steps} steps for\n${body}`);
  }
});

Deno.test("hash keys: a tuple key with a long string is charged as memory, so a table cannot keep keys for free", () => {
  const source = 'def main(done):\n    s = "x" * 100000\n    d = {}\n    for i in range(100000):\n' +
    "        d[(s, i)] = i\n        done.append(i)\n    return len(d)\n";
  const th = new Thread({ maxMemory: 64 << 20 });
  const { globals } = execFile(source, { thread: th });
  // Each key holds a wide copy of the string (200 KB): the budget stops it after a few hundred.
  const progress = new List();
  assert.throws(() => call(th, globals.get("main")!, [progress], []), ResourceError);
  const done = progress.elems.length;
  assert.ok(done > 100 && done <= 64 * 1024 * 1024 / 200_000, `${done} insertions`);
});

Deno.test("hash keys: small tuple keys are not charged as memory (counting pairs stays within budget)", () => {
  // Keys of about 400 bytes: 300,000 lookups and insertions would be 240 MB if they were charged.
  const source = 'def main():\n    d = {}\n    w = "w" * 150\n    for i in range(150000):\n' +
    "        k = (i % 100, w + str(i % 7))\n        d[k] = d.get(k, 0) + 1\n    return len(d)\n";
  const th = new Thread({ maxMemory: 64 << 20 });
  const { globals } = execFile(source, { thread: th });
  assert.equal(call(th, globals.get("main")!, [], []), 700);
});

Deno.test("chargeKeyHash: a tuple sharing its halves at every level is stopped by the step budget, polled", () => {
  // 30 tuples, 2^31 elements when walked: counting them unpolled froze the thread for 12 s.
  let x = new Tuple([]);
  for (let i = 0; i < 30; i++) x = new Tuple([x, x]);
  let polls = 0;
  const thread = new Thread({ maxSteps: 1_000_000, checkInterrupt: () => void polls++ });
  const t0 = performance.now();
  assert.throws(
    () => chargeKeyHash(thread, x),
    (e: unknown) => e instanceof ResourceError && e.resource === "steps",
  );
  assert.ok(polls >= 100, `${polls} polls`);
  assert.ok(performance.now() - t0 < 2000, "stopped long before the walk would end");
});
