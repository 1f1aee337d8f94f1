/**
 * One outcome per program, whichever executor runs it. The inline executor runs a program on the
 * sliced engine (every call an activation on an explicit stack, so it can pause), the worker and
 * process pools on the ordinary one; a program must still use the same steps and end the same way on
 * all three (issue 22: a recursion building 30,000 nested lists returned ok inline but ran out of
 * steps in a worker). Generated programs — the seeded random programs of the reference differential
 * and a family of recursive programs of our own at depths on both sides of the engine's deep-call
 * threshold — run on inline (sliced from their first step), worker and process, and their outcome
 * (value or error code and budget) and step count must agree.
 */
import assert from "node:assert/strict";
import { InlineExecutor } from "../../src/executor/inline.ts";
import { WorkerPool } from "../../src/executor/pool.ts";
import { ProcessPool } from "../../src/executor/process_pool.ts";
import type { Executor } from "../../src/executor/contract.ts";
import { isCodeModeError } from "../../src/errors.ts";
import { ProgramGenerator } from "../starlark/golden/random_programs.ts";
import { request } from "./helpers.ts";

/** A small seeded PRNG (mulberry32): the same programs on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Case {
  readonly source: string;
  readonly steps: number;
}

/**
 * A recursive program: `build` nests a value `depth` levels deep (sometimes through a loop, a
 * comprehension, `sorted` with a key or a mutual recursion), then `main` summarises it. Depths straddle
 * the 100 calls past which an ordinary run moves onto an explicit stack and charges its activations.
 */
function recursiveProgram(rnd: () => number): Case {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const depth = pick([3, 60, 99, 100, 101, 150, 700, 2_500, 9_000, 30_000]);
  const wrap = pick(["[v]", '{"k": v}', "(v, n)", "[v, n % 3]", "[n] + [v]"]);
  const extra = pick([
    "",
    "    for i in range(n % 4):\n        acc.append(i)\n",
    "    acc.extend([i * 2 for i in range(n % 3)])\n",
    "    if n % 7 == 0:\n        acc.append(sorted([n, 1], key = lambda x: -x)[0])\n",
  ]);
  const via = pick(["direct", "mutual", "sorted"]);
  const finish = pick(["len(repr(x))", "len(json.encode(x))", "len(acc)", "repr(x)[:40]", "x == x"]);
  let recurse: string;
  let helpers = "";
  if (via === "mutual") {
    recurse = "other(n - 1, acc)";
    helpers = "def other(n, acc):\n    return build(n, acc)\n";
  } else if (via === "sorted") {
    recurse = "sorted([n - 1], key = lambda m: 0)[0] and build(n - 1, acc) or build(n - 1, acc)";
  } else {
    recurse = "build(n - 1, acc)";
  }
  const source = `${helpers}def build(n, acc):\n    if n <= 0:\n        return []\n${extra}` +
    `    v = ${recurse}\n    return ${wrap}\n` +
    `def main():\n    acc = []\n    x = build(${depth}, acc)\n    return ${finish}\n`;
  const steps = pick([200_000, 1_000_000, 5_000_000]);
  return { source, steps };
}

/** How a run ended, comparably: the value, or the error code and its budget. */
async function ending(ex: Executor, c: Case): Promise<{ end: string; steps: number | undefined }> {
  let steps: number | undefined;
  let end: string;
  try {
    const value = await ex.run(request(c.source, {
      budgets: { maxExecutionSteps: c.steps, maxExecutionTime: 60_000 },
      onSteps: (n) => steps = n,
    }));
    end = `ok ${JSON.stringify(value)}`;
  } catch (e) {
    if (!isCodeModeError(e)) throw e;
    // The budget a resource_limit names is part of the outcome; deadlines would be machine noise.
    assert.doesNotMatch(e.message, /maxExecutionTime/, "no generated program may reach its deadline");
    end = `${e.code} ${e.code === "resource_limit" ? e.detail ?? e.message : e.detail ?? ""}`;
  }
  return { end, steps };
}

async function compareOn(cases: readonly Case[]): Promise<{ differences: string[]; deep: number }> {
  const dialect = { recursion: true, set: true };
  const executors: [string, Executor][] = [
    ["inline (sliced)", new InlineExecutor({ dialect, firstSliceMs: 0 })],
    ["worker", new WorkerPool({ dialect, warmWorkers: 0 })],
    ["process", new ProcessPool({ dialect })],
  ];
  const differences: string[] = [];
  let deep = 0;
  try {
    for (const c of cases) {
      const got: string[] = [];
      for (const [name, ex] of executors) {
        const r = await ending(ex, c);
        assert.ok(r.steps !== undefined && r.steps > 0, `${name} reported no steps for\n${c.source}`);
        got.push(`${name}: ${r.end} after ${r.steps} steps`);
      }
      const same = got.map((g) => g.slice(g.indexOf(":")));
      if (same.some((g) => g !== same[0])) differences.push(`${c.source}\n  ${got.join("\n  ")}`);
      if (/build\((\d{3,})/.exec(c.source)?.[1] !== undefined) deep++;
    }
  } finally {
    for (const [, ex] of executors) await ex.close();
  }
  return { differences, deep };
}

Deno.test("step parity: recursive programs end alike, with the same steps, on inline, worker and process", async () => {
  const rnd = prng(22_04);
  const cases = Array.from({ length: 36 }, () => recursiveProgram(rnd));
  // The program, past the step budget on every executor.
  cases.push({
    source: "def f(n):\n    if n == 0:\n        return []\n    return [f(n - 1)]\n" +
      "def main():\n    x = f(30000)\n    return len(repr(x))\n",
    steps: 1_000_000,
  });
  // Recursion at top level and through a sorted key, on both sides of the deep-call threshold.
  for (const d of [98, 99, 100, 101, 102, 150]) {
    cases.push({
      source: `def build(n, acc):\n    if n == 0:\n        return []\n    return [build(n - 1, acc)]\n` +
        `X = build(${d}, [])\ndef g(n):\n    return sorted([n], key = lambda m: len(build(m, [])))[0]\n` +
        `Y = [g(i) for i in range(${d}, ${d} + 2)]\ndef main():\n    return [len(repr(X)), Y]\n`,
      steps: 1_000_000,
    });
  }
  const { differences, deep } = await compareOn(cases);
  assert.ok(deep >= 15, `only ${deep} programs recursed past the deep-call threshold`);
  assert.deepEqual(differences.slice(0, 3), []);
});

Deno.test("step parity: seeded random programs end alike, with the same steps, on inline, worker and process", async () => {
  const gen = new ProgramGenerator(22_2026);
  const cases = Array.from({ length: 40 }, () => ({ source: gen.program(), steps: 1_000_000 }));
  const { differences } = await compareOn(cases);
  assert.deepEqual(differences.slice(0, 3), []);
});
