/**
 * Fairness and honest slots, shared by both pools (tested on the worker pool, whose spawns are
 * cheaper): round-robin service across subjects, the per-subject share of the slots, the per-subject
 * bound on waiting executions, a JSON-RPC batch over HTTP under the same bounds, and the degraded state
 * of a pool whose sandbox does not stop when asked, as `/healthz` reports it.
 */
import assert from "node:assert/strict";
import { allowAll, Builder, CodeModeError, t } from "../../mod.ts";
import { createHttpHandler } from "../../mcp.ts";
import { WorkerPool } from "../../src/executor/pool.ts";
import { makeDispatch, rejection, request, sleep } from "./helpers.ts";
import { slack } from "../timing.ts";

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url);
const lookup = (key: string) => `def main():\n    return records.lookup(key="${key}")["key"]\n`;

function isCode(e: unknown, code: string): boolean {
  return e instanceof CodeModeError && e.code === code;
}

async function until(cond: () => boolean, ms = slack(3_000)): Promise<void> {
  for (const t0 = performance.now(); !cond() && performance.now() - t0 < ms;) await sleep(10);
}

Deno.test("fairness: waiting executions are served round-robin across subjects", async () => {
  const pool = new WorkerPool({ maxConcurrentExecutions: 1, warmWorkers: 0 });
  try {
    const log: { cap: number; args: Record<string, unknown> }[] = [];
    const dispatch = makeDispatch(log);
    const budgets = { maxExecutionTime: 60_000 };
    const runs = [
      ...["a1", "a2", "a3", "a4"].map((k) =>
        pool.run(request(lookup(k), { subjectId: "a", dispatch, budgets }))
      ),
      ...["b1", "b2"].map((k) => pool.run(request(lookup(k), { subjectId: "b", dispatch, budgets }))),
    ];
    assert.deepEqual(await Promise.all(runs), ["a1", "a2", "a3", "a4", "b1", "b2"]);
    // Subject a came first and keeps a reusable worker, yet b is served at every other turn.
    assert.deepEqual(log.map((l) => l.args.key), ["a1", "b1", "a2", "b2", "a3", "a4"]);
  } finally {
    await pool.close();
  }
});

Deno.test("fairness: one subject holds at most its share of the slots", async () => {
  for (const share of [undefined, 2]) {
    // Default share: half of the 4 slots.
    const pool = new WorkerPool({ maxConcurrentExecutions: 4, maxSlotsPerSubject: share, warmWorkers: 0 });
    try {
      const inFlight = new Map<string, number>();
      const peak = new Map<string, number>();
      const finished: string[] = [];
      const hold = (subject: string) => async (_c: number, args: Record<string, unknown>) => {
        inFlight.set(subject, (inFlight.get(subject) ?? 0) + 1);
        peak.set(subject, Math.max(peak.get(subject) ?? 0, inFlight.get(subject)!));
        await sleep(100);
        inFlight.set(subject, inFlight.get(subject)! - 1);
        finished.push(`${subject}:${args.key}`);
        return { key: args.key, count: 1 };
      };
      const budgets = { maxExecutionTime: 60_000 };
      // Subject b already has two idle workers, so spawn time does not decide the order below (the two
      // warm-up runs wait for each other, so they run on two workers).
      let arrived = 0;
      let release!: () => void;
      const together = new Promise<void>((r) => (release = r));
      const meet = async (_c: number, args: Record<string, unknown>) => {
        if (++arrived === 2) release();
        await together;
        return { key: args.key, count: 1 };
      };
      await Promise.all(
        ["w0", "w1"].map((k) => pool.run(request(lookup(k), { subjectId: "b", dispatch: meet, budgets }))),
      );
      assert.equal(pool.stats().idle, 2);
      const a = Array.from(
        { length: 6 },
        (_, i) => pool.run(request(lookup(`${i}`), { subjectId: "a", dispatch: hold("a"), budgets })),
      );
      await until(() => pool.stats().busy >= 2);
      const b = [0, 1].map((i) =>
        pool.run(request(lookup(`${i}`), { subjectId: "b", dispatch: hold("b"), budgets }))
      );
      await Promise.all([...a, ...b]);
      assert.equal(peak.get("a"), 2, `subject a never held more than its share (${share ?? "default"})`);
      assert.equal(pool.stats().spawned, 4, "a never took b's idle workers");
      assert.ok(pool.stats().peakLive <= 4);
      const lastA = finished.lastIndexOf("a:5");
      assert.ok(finished.indexOf("b:1") < lastA, `b did not wait for all of a: ${finished.join(" ")}`);
    } finally {
      await pool.close();
    }
  }
});

Deno.test("fairness: a subject's waiting executions are bounded; other subjects still get in", async () => {
  const pool = new WorkerPool({ maxConcurrentExecutions: 1, maxQueuedPerSubject: 2, warmWorkers: 0 });
  try {
    const budgets = { maxExecutionTime: 60_000 };
    const slow = "def main():\n    return slow.wait(ms=200)\n";
    const first = pool.run(request(slow, { subjectId: "a", budgets }));
    await until(() => pool.stats().busy === 1, slack(10_000));
    const queued = [1, 2].map(() => pool.run(request(slow, { subjectId: "a", budgets })));
    const refused = await rejection(pool.run(request(slow, { subjectId: "a", budgets })));
    assert.ok(isCode(refused, "resource_limit"), String(refused));
    assert.match((refused as Error).message, /more than 2 executions of this subject are waiting/);
    assert.equal(pool.stats().refused, 1);
    const other = pool.run(request(slow, { subjectId: "b", budgets }));
    assert.deepEqual(await Promise.all([first, ...queued, other]), Array(4).fill({ waited: 200 }));
  } finally {
    await pool.close();
  }
});

Deno.test("honest slots: a worker that ignores its interrupt keeps its slot and degrades the pool", async () => {
  const pool = new WorkerPool({ workerUrl: fixture("spin_worker.ts"), drainGraceMs: 100, warmWorkers: 0 });
  try {
    await pool.probe(30_000); // a ready worker, so the run starts at once
    const spin = 2_500;
    const e = await rejection(pool.run(request(`${spin}`, { budgets: { maxExecutionTime: 200 } })));
    assert.ok(isCode(e, "resource_limit"), "the caller gets its deadline at once");
    await until(() => pool.health().status === "degraded");
    assert.deepEqual(pool.health(), { status: "degraded", stuck: 1, live: 1, max: 8 });
    assert.equal(pool.stats().live, 1, "the spinning worker still holds its slot");
    await until(() => pool.stats().live === 0, slack(spin + 2_000));
    assert.equal(pool.stats().live, 0, "once it answered, it was really stopped and its slot freed");
    assert.equal(pool.health().status, "ok");
    assert.equal(pool.stats().everStuck, 1);
  } finally {
    await pool.close();
  }
});

Deno.test("HTTP: /healthz reports a degraded pool with 503", async () => {
  let status: "ok" | "degraded" = "ok";
  const service = {
    search: () => ({ results: [], truncated: false }),
    describe: (): never => {
      throw new CodeModeError("not_found", "none");
    },
    execute: () => Promise.resolve(null),
  };
  const handler = createHttpHandler(service, {
    apiKeys: [{ subject: "alice", key: "k-0123456789abcdef0123" }],
    health: () => ({ status, stuck: status === "ok" ? 0 : 2 }),
  });
  const get = () => handler(new Request("http://127.0.0.1/healthz"));
  const ok = await get();
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), { status: "ok" });
  status = "degraded";
  const bad = await get();
  assert.equal(bad.status, 503);
  assert.deepEqual(await bad.json(), { status: "degraded", stuckSandboxes: 2 });
});

Deno.test("HTTP: a JSON-RPC batch counts against the same bounds as separate requests", async () => {
  const inFlight = new Map<string, number>();
  const peak = new Map<string, number>();
  const builder = new Builder({
    authorizer: allowAll(),
    executor: new WorkerPool({ maxConcurrentExecutions: 2, maxSlotsPerSubject: 1 }),
    limits: { maxExecutionTime: 60_000 },
  });
  builder.register({
    id: "test.hold",
    name: "test.hold",
    summary: "Hold a slot for a while",
    input: t.struct({ ms: t.int() }),
    output: t.struct({ n: t.int() }),
    handler: async ({ ms }, { subject }) => {
      inFlight.set(subject.id, (inFlight.get(subject.id) ?? 0) + 1);
      peak.set(subject.id, Math.max(peak.get(subject.id) ?? 0, inFlight.get(subject.id)!));
      await sleep(ms);
      inFlight.set(subject.id, inFlight.get(subject.id)! - 1);
      return { n: ms };
    },
  });
  const server = await builder.build();
  const key = "k-0123456789abcdef0123";
  const handler = createHttpHandler(server, {
    apiKeys: [{ subject: "alice", key }],
    maxBatchExecutions: 3,
    limits: { maxConcurrentExecutions: 2 },
  });
  const call = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "execute", arguments: { source: "def main():\n    return test.hold(ms=60)\n" } },
  });
  const post = (body: unknown) =>
    handler(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify(body),
      }),
    );
  try {
    const tooMany = await post([call(1), call(2), call(3), call(4)]);
    assert.equal(tooMany.status, 400);
    const refusal = await tooMany.json();
    assert.equal(refusal.error.code, -32600);
    assert.match(refusal.error.message, /at most 3 execute calls \(got 4\)/);
    assert.equal(peak.size, 0, "nothing of a refused batch ran");

    const accepted = await post([call(1), call(2), call(3)]);
    assert.equal(accepted.status, 200);
    const answers = await accepted.json() as { id: number; result: { isError?: boolean } }[];
    assert.deepEqual(answers.map((a) => [a.id, a.result.isError ?? false]).sort(), [[1, false], [2, false], [
      3,
      false,
    ]]);
    assert.equal(peak.get("alice"), 1, "the batch's executions took one slot of the subject at a time");
  } finally {
    await server.close();
  }
});
