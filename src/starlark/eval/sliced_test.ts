/**
 * Sliced runs (sliced.ts): a program started with `Program.start`/`startCall` and paused at every poll
 * must end exactly as its ordinary run does — the same value or the same error and traceback, the same
 * printed lines, the same step count — while returning to its host between slices; and runs paused on
 * one JS thread must not disturb each other.
 */
import assert from "node:assert/strict";
import {
  Builtin,
  call,
  compile,
  type Dialect,
  HOST_TURN,
  type StarFunction,
  startCall,
  Thread,
  type Value,
} from "../mod.ts";
import { INTERRUPT_POLL_STEPS } from "../values/value.ts";
import { ordinary, sliced } from "./sliced_runs_test.ts";
import { seededRandom } from "../seeded_random_test.ts";

const DIALECT: Partial<Dialect> = { while: true, recursion: true, set: true };

function thread(printed: string[]): Thread {
  return new Thread({ dialect: DIALECT, maxSteps: 50_000_000, print: (_t, msg) => void printed.push(msg) });
}

/** Program fragments, each a function `fK(n)` that loops, calls, recurses or fails in its own way. */
const FRAGMENTS: readonly ((k: number) => string)[] = [
  (k) => `def f${k}(n):\n    t = 0\n    for i in range(n):\n        t += i * i % 7\n    return t\n`,
  (k) => `def f${k}(n):\n    return len([x * 2 for x in range(n) if x % 3])\n`,
  (k) =>
    `def f${k}(n):\n    d = {}\n    i = 0\n    while i < n:\n        d[i % 13] = d.get(i % 13, 0) + 1\n        i += 1\n    return sorted(d.items())[0][1]\n`,
  (k) =>
    `def sq${k}(x):\n    return x * x\ndef f${k}(n):\n    acc = [0] * 5\n    for i, v in enumerate(range(n)):\n        acc[i % 5] += sq${k}(v % 9)\n    return acc[0]\n`,
  (k) =>
    `def r${k}(n):\n    return n if n < 2 else r${k}(n - 1) + r${k}(n - 2)\ndef f${k}(n):\n    return r${k}(10 + n % 8)\n`,
  (k) =>
    `def f${k}(n):\n    out = []\n    for i in range(n // 10):\n        out.append("%d:%s" % (i, str(i)))\n    return len(",".join(out))\n`,
  (k) =>
    `def f${k}(n):\n    xs = [(i * 7919) % 101 for i in range(n // 5)]\n    return sorted(xs, key = lambda x: -x)[0]\n`,
  (k) =>
    `def f${k}(n):\n    s = {}\n    for a, b in zip(range(n // 4), range(n // 4, 0, -1)):\n        s[a % 17] = b\n    return len(s)\n`,
  (k) => `def f${k}(n):\n    print("f${k}", n)\n    return {str(i): i for i in range(n // 8)}["3"]\n`,
  (k) =>
    `def f${k}(n):\n    d = {"a": 0}\n    for i in range(n):\n        if i == n - 1:\n            return d["missing${k}"]\n        d["a"] += 1\n    return 0\n`,
  (k) => `def f${k}(n):\n    return [1, 2][n]\n`,
  // A chain of 240 links, compiled in groups (compile_chain.ts), with calls at both ends.
  (k) =>
    `def one${k}(x):\n    return x % 2\ndef f${k}(n):\n    t = 0\n    for i in range(n // 100):\n        t += one${k}(i)${
      " + i".repeat(240)
    } + one${k}(i + 1)\n    return t\n`,
  (k) =>
    `def key${k}(i):\n    return str(i % 11)\ndef f${k}(n):\n    d = {}\n    for i in range(n // 3):\n        d[key${k}(i)] = i\n    return len(d)\n`,
  (k) =>
    `def key${k}(i):\n    return i % 4\ndef f${k}(n):\n    d = [0] * 4\n    for d[key${k}(n)] in range(n // 2):\n        pass\n    return [d[key${k}(x)] for x in range(n // 4) for d[key${k}(x)] in [x * 2]][-1]\n`,
  (k) =>
    `def key${k}(i):\n    return i % 3\ndef f${k}(n):\n    d = [0, 0, 0]\n    t = 0\n    for i in range(n // 3):\n        t, d[key${k}(i)] = t + 1, [i, t]\n    return d[n % 3]\n`,
  // Loops over a dict's items (pairs.ts), with a call in the body and in a comprehension's condition.
  (k) =>
    `def odd${k}(v):\n    return v % 2\ndef f${k}(n):\n    d = {str(i): i for i in range(n // 20)}\n    t = 0\n    for key, v in d.items():\n        t += odd${k}(v) + len(key)\n    return t + len([key for key, v in d.items() if odd${k}(v)])\n`,
];

function generated(seed: number): string {
  const rand = seededRandom(seed);
  const picks = Array.from(
    { length: 2 + Math.floor(rand() * 4) },
    () => Math.floor(rand() * FRAGMENTS.length),
  );
  const n = 2000 + Math.floor(rand() * 20000);
  let src = "";
  picks.forEach((f, k) => src += FRAGMENTS[f](k));
  src += `TOP = [f0(${n % 50}) for _ in range(3)]\n`;
  src += "def main():\n    out = []\n";
  picks.forEach((_, k) => src += `    out.append(f${k}(${n + k}))\n`);
  src += "    return out\n";
  return src;
}

Deno.test("sliced: generated programs end as their ordinary runs do, pausing all along", () => {
  let paused = 0, failed = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const src = generated(seed);
    const p = compile(src, { dialect: DIALECT, sliced: true });
    const want = ordinary(p, DIALECT);
    const got = sliced(p, DIALECT);
    const { pauses, ...ending } = got;
    assert.deepEqual(ending, want, `seed ${seed}:\n${src}`);
    if (seed % 4 === 0) {
      // Paused at every loop turn and call, too.
      const { pauses: _, ...everyStep } = sliced(p, DIALECT, true);
      assert.deepEqual(everyStep, want, `seed ${seed}, a pause at every step:\n${src}`);
    }
    // A pause is due at every poll; every loop of these programs turns there (or calls). Built-ins
    // charge their work in bulk (`sorted`, `join`), so not every poll finds a turn.
    if (want.error === undefined) {
      assert.ok(
        pauses >= Math.floor(want.steps / INTERRUPT_POLL_STEPS / 8),
        `seed ${seed}: ${pauses} pauses`,
      );
    } else {
      failed++;
    }
    if (pauses > 0) paused++;
  }
  assert.ok(paused >= 30 && failed >= 5, `paused ${paused}, failed ${failed}`);
});

Deno.test("sliced: a program compiled without slicing still runs, its loops without pausing", () => {
  const src = "def main():\n    t = 0\n    for i in range(100000):\n        t += i\n    return t\n";
  const ended = sliced(compile(src, { dialect: DIALECT }), DIALECT);
  assert.equal(ended.value, "4999950000");
  // No loop pauses: only the end of main's body, back on the explicit stack, can find the pause due.
  assert.ok(ended.pauses <= 1);
});

Deno.test("sliced: runs paused on one thread take turns without disturbing each other", () => {
  // Deep recursion (explicit stack) in one, a loop in the other: their call depths and innermost
  // stacks are swapped in and out at each resume.
  const a = compile(
    "def r(n):\n    return 0 if n == 0 else r(n - 1) + 1\ndef main():\n    return r(20000)\n",
    {
      dialect: DIALECT,
      sliced: true,
    },
  );
  const b = compile(
    "def main():\n    t = 0\n    for i in range(300000):\n        t += i % 3\n    return t\n",
    { dialect: DIALECT, sliced: true },
  );
  const runs = [a, b].map((p) => {
    const th = thread([]);
    const g = p.run(th);
    return { th, call: startCall(th, g.get("main") as StarFunction, []) };
  });
  let turns = 0;
  while (runs.some((r) => !r.call.done)) {
    for (const r of runs) {
      if (r.call.done) continue;
      r.th.pauseAt = -Infinity;
      r.call.resume();
      turns++;
    }
  }
  assert.equal(runs[0].call.value, 20000);
  assert.equal(runs[1].call.value, 300000);
  assert.ok(turns > 40, `${turns} turns`);
  // Nothing of theirs is left behind: an ordinary deep call still runs to the full default depth.
  const th = thread([]);
  const g = a.run(th);
  assert.equal(startCall(th, g.get("r") as StarFunction, [99_000]).resume(), true);
});

Deno.test("sliced: a built-in yielding HOST_TURN pauses the run there, and nowhere else waits", () => {
  let asked = 0;
  const fetch = new Builtin(
    "fetch",
    (_t, args) => (args[0] as number) * 10,
    undefined,
    function* (_t, args) {
      asked++;
      yield HOST_TURN;
      return (args[0] as number) * 10;
    },
  );
  const src = "def main():\n    t = 0\n    for i in range(5):\n        t += fetch(i)\n    return t\n";
  const p = compile(src, { dialect: DIALECT, sliced: true, predeclared: ["fetch"] });
  const th = thread([]);
  const top = p.start(th, { fetch } as Record<string, Value>);
  assert.equal(top.top.resume(), true);
  const main = startCall(th, top.globals().get("main") as StarFunction, []);
  let pauses = 0;
  while (!main.resume()) pauses++;
  assert.equal(main.value, 100);
  assert.equal(asked, 5);
  assert.equal(pauses, 5);
  // An ordinary run calls the plain form.
  const th2 = thread([]);
  const g = p.run(th2, { fetch } as Record<string, Value>);
  assert.equal(call(th2, g.get("main")!, [], []), 100);
  assert.equal(asked, 5);
});
