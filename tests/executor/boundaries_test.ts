/**
 * The host never trusts the sandbox, tested at the limits (issue 22, class 6). A lying sandbox — a
 * worker and a child process that check no budget themselves (`fixtures/boundary_*.ts`) — sends native
 * call arguments and final values of generated shapes (long strings, long lists, wide dicts, deep
 * nesting, mixtures) sized exactly at a budget and one unit past it: at the limit the host accepts,
 * one past it refuses with `resource_limit` naming that budget, for maxValueDepth and maxValueBytes
 * (arguments and final values), maxNativeCalls and maxIntermediateValueBytes. Loosening any host check
 * by one therefore fails here, even though the real sandbox would have refused first.
 *
 * The engine's memory check is held from outside too: programs allocating about 1.5 times
 * maxMemoryBytes in several ways end with `resource_limit` naming maxMemoryBytes on every executor,
 * while the same programs at about half the budget succeed (the check is neither 2× looser nor 2×
 * stricter than it says).
 */
import assert from "node:assert/strict";
import { ProcessPool } from "../../src/executor/process_pool.ts";
import { WorkerPool } from "../../src/executor/pool.ts";
import { InlineExecutor } from "../../src/executor/inline.ts";
import type { CapabilityStub, Executor } from "../../src/executor/contract.ts";
import { isCodeModeError } from "../../src/errors.ts";
import { encodeHostValue } from "../../src/executor/host_codec.ts";
import { type BoundaryScript, encodeUnlimited, expand, UNLIMITED } from "./fixtures/boundary_script.ts";
import { request } from "./helpers.ts";

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url);

const STUBS: readonly (CapabilityStub & { output: CapabilityStub["input"] })[] = [
  {
    name: "any.take",
    input: { kind: "struct", fields: [{ name: "value", type: { kind: "json" } }] },
    output: { kind: "struct", fields: [{ name: "n", type: { kind: "int" } }] },
  },
  {
    name: "blob.make",
    input: { kind: "struct", fields: [{ name: "size", type: { kind: "int" } }] },
    output: { kind: "struct", fields: [{ name: "data", type: { kind: "str" } }] },
  },
];

/** A seeded PRNG (mulberry32), so the shapes are the same on every run. */
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

/** Generated value shapes in the fixtures' notation: one of each family, sizes drawn at random. */
function shapes(rnd: () => number): { name: string; value: unknown }[] {
  const n = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo));
  const out: { name: string; value: unknown }[] = [];
  for (let i = 0; i < 3; i++) {
    const chars = n(10, 3000);
    out.push({ name: `string of ${chars}`, value: { $str: chars } });
    out.push({ name: "list of ints", value: { $list: [n(5, 1500), n(0, 300)] } });
    const keys = n(3, 200);
    out.push({
      name: `dict of ${keys} keys`,
      value: Object.fromEntries(Array.from({ length: keys }, (_, k) => [`k${k}`, n(0, 1000)])),
    });
    out.push({ name: "deep list", value: { $nest: [n(3, 40), "leaf"] } });
    out.push({
      name: "mixture",
      value: {
        a: { $nest: [n(2, 20), { b: { $str: n(1, 200) } }] },
        c: { $list: [n(1, 50), [1.5, true, null]] },
      },
    });
  }
  return out;
}

/** Nesting levels of a plain value; a scalar is one level (the codec's count). */
function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce((m: number, x) => Math.max(m, depthOf(x)), 0);
  if (v !== null && typeof v === "object") {
    return 1 + Object.values(v).reduce((m: number, x) => Math.max(m, depthOf(x)), 0);
  }
  return 1;
}

interface Probe {
  readonly label: string;
  readonly script: BoundaryScript;
  readonly budgets: Record<string, number>;
  /** "ok", or the budget the host must name. */
  readonly expect: string;
}

/** For each shape: arguments and final value, at and one past maxValueDepth and maxValueBytes. */
function probes(): Probe[] {
  const out: Probe[] = [];
  const roomy = { maxValueDepth: 100_000, maxValueBytes: UNLIMITED.maxBytes };
  for (const { name, value } of shapes(prng(22_06))) {
    const plain = expand(value);
    const depth = depthOf(plain);
    const argBytes = encodeUnlimited({ value }).length;
    const finalBytes = encodeUnlimited(value).length;
    const call = { calls: [{ cap: 0, args: { value } }] };
    const final = { final: value };
    // The argument map is a level of its own.
    out.push({
      label: `${name} argument at maxValueDepth`,
      script: call,
      budgets: { ...roomy, maxValueDepth: depth + 1 },
      expect: "ok",
    });
    out.push({
      label: `${name} argument past maxValueDepth`,
      script: call,
      budgets: { ...roomy, maxValueDepth: depth },
      expect: "maxValueDepth",
    });
    out.push({
      label: `${name} argument at maxValueBytes`,
      script: call,
      budgets: { ...roomy, maxValueBytes: argBytes },
      expect: "ok",
    });
    out.push({
      label: `${name} argument past maxValueBytes`,
      script: call,
      budgets: { ...roomy, maxValueBytes: argBytes - 1 },
      expect: "maxValueBytes",
    });
    out.push({
      label: `${name} final at maxValueDepth`,
      script: final,
      budgets: { ...roomy, maxValueDepth: depth },
      expect: "ok",
    });
    out.push({
      label: `${name} final past maxValueDepth`,
      script: final,
      budgets: { ...roomy, maxValueDepth: depth - 1 },
      expect: "maxValueDepth",
    });
    out.push({
      label: `${name} final at maxValueBytes`,
      script: final,
      budgets: { ...roomy, maxValueBytes: finalBytes },
      expect: "ok",
    });
    out.push({
      label: `${name} final past maxValueBytes`,
      script: final,
      budgets: { ...roomy, maxValueBytes: finalBytes - 1 },
      expect: "maxValueBytes",
    });
  }
  for (const calls of [1, 4, 9]) {
    const script = { calls: Array.from({ length: calls }, () => ({ cap: 0, args: { value: 1 } })) };
    out.push({
      label: `${calls} calls at maxNativeCalls`,
      script,
      budgets: { maxNativeCalls: calls },
      expect: "ok",
    });
    out.push({
      label: `${calls} calls past maxNativeCalls`,
      script,
      budgets: { maxNativeCalls: calls - 1 || 1 },
      expect: calls === 1 ? "ok" : "maxNativeCalls",
    });
  }
  for (const [calls, size] of [[1, 700], [3, 250], [6, 33]]) {
    const resultBytes = encodeHostValue({ data: "x".repeat(size) }, UNLIMITED, STUBS[1].output).length;
    const script = { calls: Array.from({ length: calls }, () => ({ cap: 1, args: { size } })) };
    const total = calls * resultBytes;
    out.push({
      label: `${calls} results at maxIntermediateValueBytes`,
      script,
      budgets: { maxIntermediateValueBytes: total },
      expect: "ok",
    });
    out.push({
      label: `${calls} results past maxIntermediateValueBytes`,
      script,
      budgets: { maxIntermediateValueBytes: total - 1 },
      expect: "maxIntermediateValueBytes",
    });
  }
  return out;
}

async function checkLiar(ex: Executor): Promise<string[]> {
  const wrong: string[] = [];
  for (const p of probes()) {
    let reached = 0;
    const dispatch = (cap: number, args: Record<string, unknown>) => {
      reached++;
      return Promise.resolve(cap === 0 ? { n: 1 } : { data: "x".repeat(args.size as number) });
    };
    let got: string;
    try {
      await ex.run(request(JSON.stringify(p.script), {
        capabilities: STUBS,
        dispatch,
        budgets: { maxExecutionTime: 30_000, ...p.budgets },
      }));
      got = "ok";
    } catch (e) {
      if (!isCodeModeError(e)) throw e;
      const budget = /\b(max[A-Za-z]+) exceeded/.exec(e.detail ?? "")?.[1];
      got = e.code === "resource_limit" && budget !== undefined ? budget : `${e.code}: ${e.message}`;
    }
    if (got !== p.expect) wrong.push(`${p.label}: ${got}, want ${p.expect}`);
    // An argument past its budget never reaches the dispatch.
    if (p.expect === "maxValueDepth" || p.expect === "maxValueBytes") {
      if (p.label.includes("argument") && reached !== 0) wrong.push(`${p.label}: dispatched`);
    }
  }
  return wrong;
}

Deno.test("boundaries: a lying worker meets every host check at its exact limit", async () => {
  const pool = new WorkerPool({ workerUrl: fixture("boundary_worker.ts"), warmWorkers: 0 });
  try {
    assert.deepEqual(await checkLiar(pool), []);
  } finally {
    await pool.close();
  }
});

Deno.test("boundaries: a lying child process meets every host check at its exact limit", async () => {
  const pool = new ProcessPool({
    moduleUrl: fixture("boundary_process.ts"),
    warmWorkers: 0,
    spawnTimeoutMs: 30_000,
  });
  try {
    assert.deepEqual(await checkLiar(pool), []);
  } finally {
    await pool.close();
  }
});

const MEMORY = 16 << 20;

/** Programs that hold about `share` of MEMORY in one way each (strings, lists, dicts, a doubling list). */
function allocating(share: number): { name: string; source: string }[] {
  const bytes = Math.floor(MEMORY * share);
  const main = (...body: string[]) => `def main():\n${body.map((l) => `    ${l}\n`).join("")}`;
  return [
    { name: "one string", source: main(`s = "x" * ${bytes}`, "return len(s)") },
    {
      name: "many strings in a list",
      source: main(
        "out = []",
        `for i in range(${Math.floor(bytes / 4096)}):`,
        '    out.append("y" * 4096)',
        "return len(out)",
      ),
    },
    {
      name: "a list of ints",
      // A list slot is charged 8 bytes (a JS array element).
      source: main(`xs = list(range(${Math.floor(bytes / 8)}))`, "return len(xs)"),
    },
    {
      name: "a dict",
      // A dict entry is charged 96 bytes (see the engine's cost model).
      source: main(`d = {i: None for i in range(${Math.floor(bytes / 96)})}`, "return len(d)"),
    },
  ];
}

for (const kind of ["inline", "worker", "process"] as const) {
  Deno.test(`boundaries: ${kind} refuses a program holding 1.5x maxMemoryBytes and runs one holding half`, async () => {
    const ex: Executor = kind === "inline"
      ? new InlineExecutor()
      : kind === "worker"
      ? new WorkerPool({ warmWorkers: 0 })
      : new ProcessPool({ warmWorkers: 0, spawnTimeoutMs: 30_000 });
    const budgets = { maxMemoryBytes: MEMORY, maxExecutionTime: 30_000, maxExecutionSteps: 100_000_000 };
    const wrong: string[] = [];
    try {
      for (const p of allocating(1.5)) {
        try {
          await ex.run(request(p.source, { budgets }));
          wrong.push(`${p.name} at 1.5x: succeeded`);
        } catch (e) {
          const ok = isCodeModeError(e) && e.code === "resource_limit" &&
            /maxMemoryBytes/.test(e.detail ?? "");
          if (!ok) wrong.push(`${p.name} at 1.5x: ${e}`);
        }
      }
      for (const p of allocating(0.5)) {
        try {
          await ex.run(request(p.source, { budgets }));
        } catch (e) {
          wrong.push(`${p.name} at 0.5x: ${e}`);
        }
      }
    } finally {
      await ex.close();
    }
    assert.deepEqual(wrong, []);
  });
}
