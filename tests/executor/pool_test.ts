import assert from "node:assert/strict";
import { CodeModeError } from "../../src/errors.ts";
import { WorkerPool } from "../../src/executor/pool.ts";
import { AT_BUDGET_IDLE_MS } from "../../src/executor/scheduler.ts";
import { BUSY_LOOP, makeDispatch, rejection, request, sleep, STUBS } from "./helpers.ts";
import { loadFactor, slack, timed } from "../timing.ts";

const ONE_CALL = 'def main():\n    return records.lookup(key="a", limit=2)\n';

function isCode(e: unknown, code: string): boolean {
  return e instanceof CodeModeError && e.code === code;
}

Deno.test("pool: runs a program with a native call and keeps int vs float", async () => {
  const pool = new WorkerPool({ warmWorkers: 0 });
  try {
    const log: { cap: number; args: Record<string, unknown> }[] = [];
    const src = "def main():\n" +
      '    r = records.lookup(key="k")\n' +
      "    s = math2.scale(x=2.0, by=1.5)\n" +
      '    return [r, s, type(r["count"]), type(s["value"]), 7 // 2, 7 / 2]\n';
    const out = await pool.run(request(src, { dispatch: makeDispatch(log) }));
    assert.deepEqual(out, [{ key: "k", count: 1 }, { value: 3 }, "int", "float", 3, 3.5]);
    assert.deepEqual(log, [{ cap: 0, args: { key: "k" } }, { cap: 1, args: { x: 2, by: 1.5 } }]);
    // A float-typed output that happens to be integral still arrives in Starlark as a float.
    const t = await pool.run(request('def main():\n    return str(math2.scale(x=2.0, by=2.0)["value"])\n'));
    assert.equal(t, "4.0");
  } finally {
    await pool.close();
  }
});

Deno.test("pool: reuses a worker within one subject only", async () => {
  const pool = new WorkerPool({ warmWorkers: 0 });
  try {
    for (let i = 0; i < 3; i++) {
      assert.equal(await pool.run(request(ONE_CALL.replace("return", "x =") + "    return 1\n")), 1);
    }
    assert.equal(pool.stats().spawned, 1);
    assert.equal(pool.stats().idle, 1);
    await pool.run(request("def main():\n    return 2\n", { subjectId: "u2" }));
    assert.equal(pool.stats().spawned, 2, "a second subject never gets the first subject's worker");
    await pool.run(request("def main():\n    return 3\n", { subjectId: "u1" }));
    await pool.run(request("def main():\n    return 4\n", { subjectId: "u2" }));
    assert.equal(pool.stats().spawned, 2);
    assert.equal(pool.stats().idle, 2);
  } finally {
    await pool.close();
  }
});

Deno.test("pool: a reused worker keeps nothing of the previous execution", async () => {
  const pool = new WorkerPool({ warmWorkers: 0 });
  try {
    // One run of `first` takes about 9,000 steps, 3 calls and 2,750 result bytes: a second run fits only
    // if nothing carried over.
    const budgets = { maxExecutionSteps: 12_000, maxNativeCalls: 3, maxIntermediateValueBytes: 3_000 };
    // First execution: a global mutated at top level, a native result mutated in main, and most of
    // every budget (steps, native calls, intermediate bytes).
    const first = "counter = []\n" +
      "counter.append(1)\n" +
      "def main():\n" +
      "    acc = []\n" +
      "    for i in range(3000):\n" +
      "        acc.append(i)\n" +
      "    r = blob.make(size=900)\n" +
      '    r["data"] = "changed"\n' +
      "    blob.make(size=900)\n    blob.make(size=900)\n" +
      '    return [len(acc), r["data"], len(counter)]\n';
    assert.deepEqual(await pool.run(request(first, { budgets })), [3000, "changed", 1]);
    // Second execution in the same worker: no trace of `counter`, a fresh native result, full budgets.
    const probe = "def main():\n    return counter\n";
    const e = await rejection(pool.run(request(probe, { budgets })));
    assert.ok(isCode(e, "invalid_program"));
    assert.match((e as CodeModeError).detail ?? "", /undefined: counter/);
    const fresh = 'def main():\n    return blob.make(size=3)["data"]\n';
    assert.equal(await pool.run(request(fresh, { budgets })), "xxx");
    assert.deepEqual(await pool.run(request(first, { budgets })), [3000, "changed", 1], "budgets are fresh");
    // Mutating a predeclared module or a universe value is impossible, so the next run sees them intact.
    const mutate = "def main():\n    json.x = 1\n";
    assert.ok(isCode(await rejection(pool.run(request(mutate))), "invalid_program"));
    assert.equal(
      await pool.run(request('def main():\n    return json.encode({"a": [1, 2.5]})\n')),
      '{"a":[1,2.5]}',
    );
    assert.equal(pool.stats().spawned, 1, "all of this ran in one worker");
  } finally {
    await pool.close();
  }
});

Deno.test("pool: after a budget end a worker with a small heap is kept, briefly; one with a big heap is replaced", async () => {
  const pool = new WorkerPool({ warmWorkers: 0 });
  try {
    assert.ok(isCode(await rejection(pool.run(request("def main():\n    fail('no')\n"))), "invalid_program"));
    assert.equal(pool.stats().idle, 1);
    const steps = await rejection(pool.run(request(BUSY_LOOP, { budgets: { maxExecutionSteps: 10_000 } })));
    assert.ok(isCode(steps, "resource_limit"));
    // Stopped by the step budget with little heap: the same worker serves the subject again.
    assert.equal(pool.stats().idle, 1);
    assert.equal(await pool.run(request("def main():\n    return 7\n")), 7);
    assert.equal(pool.stats().spawned, 1);
    // Stopped by the memory budget while holding ~60 MB of distinct strings: its heap holds them until
    // V8 collects, so it is replaced, unless the host exposed `gc` and the worker collected first.
    const bomb =
      'def main():\n    l = []\n    for i in range(100):\n        l.append(("x" * 1000000 + str(i)).upper())\n    return len(l)\n';
    const memory = await rejection(pool.run(request(bomb, { budgets: { maxExecutionSteps: 1e12 } })));
    assert.ok(isCode(memory, "resource_limit") && /memory/.test((memory as Error).message), String(memory));
    const collects = typeof (globalThis as { gc?: unknown }).gc === "function";
    for (let i = 0; i < 100 && pool.stats().live > (collects ? 1 : 0); i++) await sleep(10);
    assert.equal(pool.stats().discarded, collects ? 0 : 1);
    if (!collects) assert.equal(pool.stats().live, 0);
    // Kept after a budget end but left idle, a worker is ended after AT_BUDGET_IDLE_MS, not 5 s.
    await rejection(pool.run(request(BUSY_LOOP, { budgets: { maxExecutionSteps: 10_000 } })));
    assert.equal(pool.stats().idle, 1);
    const ended = performance.now();
    for (let i = 0; i < 300 && pool.stats().live > 0; i++) await sleep(20);
    assert.equal(pool.stats().live, 0);
    assert.ok(performance.now() - ended < AT_BUDGET_IDLE_MS + slack(1_500));
  } finally {
    await pool.close();
  }
});

Deno.test("pool: retires a worker after maxExecutionsPerWorker", async () => {
  const pool = new WorkerPool({ warmWorkers: 0, maxExecutionsPerWorker: 2 });
  try {
    for (let i = 0; i < 5; i++) await pool.run(request("def main():\n    return 1\n"));
    assert.equal(pool.stats().spawned, 3);
  } finally {
    await pool.close();
  }
});

Deno.test("pool: strict mode uses a new worker per execution and spawns ahead", async () => {
  const pool = new WorkerPool({ mode: "strict", maxConcurrentExecutions: 2 });
  try {
    for (let i = 0; i < 3; i++) assert.equal(await pool.run(request(ONE_CALL)) !== undefined, true);
    const s = pool.stats();
    assert.equal(s.executions, 3);
    assert.ok(s.spawned >= 3);
    assert.equal(s.idle, 0, "strict mode never keeps a used worker");
    // Replacements were spawned ahead of demand.
    for (let i = 0; i < 50 && pool.stats().fresh < 2; i++) await sleep(20);
    assert.equal(pool.stats().fresh, 2);
  } finally {
    await pool.close();
  }
});

Deno.test("pool: cancellation during a native call rejects with the signal's reason", async () => {
  const pool = new WorkerPool({ warmWorkers: 0 });
  try {
    const controller = new AbortController();
    let started!: () => void;
    const inCall = new Promise<void>((r) => (started = r));
    let handlerSignal: AbortSignal | undefined;
    const dispatch = async (_cap: number, _args: Record<string, unknown>, signal: AbortSignal) => {
      handlerSignal = signal;
      started();
      await sleep(10_000, signal);
      return { waited: 0 };
    };
    const run = pool.run(
      request("def main():\n    return slow.wait(ms=1)\n", { dispatch, signal: controller.signal }),
    );
    await inCall;
    const reason = new Error("caller gave up");
    const { value: cancelled, ms, factor } = await timed(() => {
      controller.abort(reason);
      return rejection(run);
    });
    assert.equal(cancelled, reason);
    assert.ok(ms < slack(100, factor), `cancellation took ${ms.toFixed(0)} ms`);
    assert.equal(handlerSignal?.aborted, true, "the handler sees the cancellation");
    // The interrupted worker unwinds; its heap is small, so it is kept for its subject, ended when idle.
    const wait = slack(500);
    for (const t0 = performance.now(); performance.now() - t0 < wait && pool.stats().idle === 0;) {
      await sleep(10);
    }
    assert.equal(pool.stats().idle, 1, "the interrupted worker unwound");
    const reap = AT_BUDGET_IDLE_MS + slack(1_000);
    for (const t0 = performance.now(); performance.now() - t0 < reap && pool.stats().live > 0;) {
      await sleep(20);
    }
    assert.equal(pool.stats().live, 0, "the idle interrupted worker was ended");
  } finally {
    await pool.close();
  }
});

Deno.test("pool: deadline on a busy loop while another execution completes", async () => {
  const pool = new WorkerPool({ warmWorkers: 0, maxConcurrentExecutions: 2 });
  try {
    await pool.probe(); // a warm worker so spawn time does not blur the measurement
    const limit = 300;
    const t0 = performance.now();
    let elapsed = 0;
    const before = loadFactor();
    const busy = rejection(
      pool.run(request(BUSY_LOOP, { budgets: { maxExecutionSteps: 1e12, maxExecutionTime: limit } })),
    ).finally(() => (elapsed = performance.now() - t0));
    const [other, e] = await Promise.allSettled([pool.run(request(ONE_CALL, { subjectId: "u2" })), busy]);
    assert.deepEqual(other, { status: "fulfilled", value: { key: "a", count: 2 } });
    assert.equal(e.status, "fulfilled");
    const error = (e as PromiseFulfilledResult<unknown>).value;
    assert.ok(isCode(error, "resource_limit"), String(error));
    assert.equal(((error as Error).cause as DOMException).name, "TimeoutError");
    const factor = Math.max(before, loadFactor());
    assert.ok(elapsed < limit + slack(50, factor), `ended after ${elapsed} ms (load ×${factor.toFixed(1)})`);
    assert.ok(elapsed >= limit - 5);
  } finally {
    await pool.close();
  }
});

Deno.test("pool: deadline while blocked in a native call", async () => {
  const pool = new WorkerPool({ warmWorkers: 0 });
  try {
    const { value: e, ms, factor } = await timed(() =>
      rejection(
        pool.run(
          request("def main():\n    return slow.wait(ms=5000)\n", { budgets: { maxExecutionTime: 200 } }),
        ),
      )
    );
    assert.ok(isCode(e, "resource_limit"));
    assert.ok(ms < 200 + slack(50, factor), `ended after ${ms.toFixed(0)} ms`);
  } finally {
    await pool.close();
  }
});

Deno.test("pool: 50 parallel executions respect the concurrency bound", async () => {
  const max = 3;
  const pool = new WorkerPool({ maxConcurrentExecutions: max });
  try {
    let inFlight = 0;
    let peakCalls = 0;
    const dispatch = async (_c: number, args: Record<string, unknown>) => {
      inFlight++;
      peakCalls = Math.max(peakCalls, inFlight);
      await sleep(2);
      inFlight--;
      return { key: args.key, count: 1 };
    };
    const runs = Array.from(
      { length: 50 },
      (_, i) =>
        pool.run(request(`def main():\n    return records.lookup(key="${i}")["key"]\n`, {
          dispatch,
          subjectId: `s${i % 4}`,
          budgets: { maxExecutionTime: 30_000 },
        })),
    );
    const results = await Promise.all(runs);
    assert.deepEqual(results, Array.from({ length: 50 }, (_, i) => `${i}`));
    assert.ok(pool.stats().peakLive <= max, `peak ${pool.stats().peakLive}`);
    assert.ok(peakCalls <= max);
  } finally {
    await pool.close();
  }
});

Deno.test("pool: the time budget includes waiting for a slot", async () => {
  const pool = new WorkerPool({ maxConcurrentExecutions: 1, warmWorkers: 0 });
  try {
    const first = pool.run(request("def main():\n    return slow.wait(ms=400)\n"));
    const second = rejection(
      pool.run(request("def main():\n    return 1\n", { budgets: { maxExecutionTime: 150 } })),
    );
    assert.ok(isCode(await second, "resource_limit"));
    assert.deepEqual(await first, { waited: 400 });
  } finally {
    await pool.close();
  }
});

Deno.test("pool: large results cross in chunks", async () => {
  const pool = new WorkerPool({ warmWorkers: 0, replyBufferBytes: 1000 });
  try {
    const src =
      'def main():\n    d = blob.make(size=250000)["data"]\n    return [len(d), d[:3], blob.make(size=999)["data"][-2:]]\n';
    assert.deepEqual(await pool.run(request(src)), [250000, "xxx", "xx"]);
    assert.equal(pool.stats().idle, 1, "a chunked transfer is a normal end");
  } finally {
    await pool.close();
  }
});

Deno.test("pool: calls cross whole at the edge of the shared buffer, through it or as messages", async () => {
  // A 64-byte data area: the argument map of records.lookup(key=K) takes 8 + len(K) bytes, so keys of 56
  // and 57 characters sit either side of the edge where a call stops fitting the buffer; its result
  // takes 16 + len(K), so keys of 48 and 49 sit either side of the edge of a one-chunk reply.
  const pool = new WorkerPool({ warmWorkers: 0, replyBufferBytes: 64 });
  try {
    const log: { cap: number; args: Record<string, unknown> }[] = [];
    const src = 'def main():\n    return [len(records.lookup(key="k" * n)["key"]) for n in range(40, 66)]\n';
    const lengths = Array.from({ length: 26 }, (_, i) => 40 + i);
    assert.deepEqual(await pool.run(request(src, { dispatch: makeDispatch(log) })), lengths);
    assert.deepEqual(log.map((c) => c.args), lengths.map((n) => ({ key: "k".repeat(n) })));
    assert.equal(pool.stats().idle, 1, "a normal end");
  } finally {
    await pool.close();
  }
});

Deno.test("pool: the sandbox has no read, write, net, env, run, ffi or sys permission", async () => {
  const pool = new WorkerPool({ warmWorkers: 0 });
  try {
    await pool.probe(); // throws unless every privileged operation is refused inside the worker
    assert.equal(pool.stats().fresh, 1, "the probed worker is kept");
  } finally {
    await pool.close();
  }
});

Deno.test("pool: close() ends workers and rejects running executions", async () => {
  const pool = new WorkerPool({ maxConcurrentExecutions: 2 });
  await pool.run(request("def main():\n    return 1\n"));
  const running = rejection(
    pool.run(request(BUSY_LOOP, { budgets: { maxExecutionSteps: 1e12, maxExecutionTime: 10_000 } })),
  );
  await sleep(50);
  await pool.close();
  assert.ok(isCode(await running, "internal"));
  assert.equal(pool.stats().live, 0);
  assert.ok(isCode(await rejection(pool.run(request("def main():\n    return 1\n"))), "internal"));
  await pool.close(); // idempotent
});

Deno.test("pool: a full pool evicts another subject's idle worker instead of sharing it", async () => {
  const pool = new WorkerPool({ maxConcurrentExecutions: 1, warmWorkers: 0 });
  try {
    await pool.run(request("def main():\n    return 1\n", { subjectId: "a" }));
    await pool.run(request("def main():\n    return 1\n", { subjectId: "b" }));
    await pool.run(request("def main():\n    return 1\n", { subjectId: "a" }));
    const s = pool.stats();
    assert.equal(s.spawned, 3);
    assert.equal(s.discarded, 2);
    assert.equal(s.peakLive, 1);
  } finally {
    await pool.close();
  }
});

Deno.test("pool: idle workers are reaped", async () => {
  const pool = new WorkerPool({ idleTimeoutMs: 50, warmWorkers: 0 });
  try {
    await pool.run(request("def main():\n    return 1\n"));
    assert.equal(pool.stats().idle, 1);
    for (let i = 0; i < 50 && pool.stats().idle > 0; i++) await sleep(20);
    assert.equal(pool.stats().idle, 0);
    assert.equal(pool.stats().live, 0);
  } finally {
    await pool.close();
  }
});

Deno.test("pool: cancellation while waiting for a slot, and an already aborted signal", async () => {
  const pool = new WorkerPool({ maxConcurrentExecutions: 1, warmWorkers: 0 });
  try {
    const first = pool.run(request("def main():\n    return slow.wait(ms=300)\n"));
    first.catch(() => {});
    for (let i = 0; i < 100 && pool.stats().busy === 0; i++) await sleep(5);
    const controller = new AbortController();
    const queued = rejection(pool.run(request("def main():\n    return 1\n", { signal: controller.signal })));
    assert.equal(pool.stats().waiting, 1);
    controller.abort("changed my mind");
    assert.equal(await queued, "changed my mind");
    assert.equal(pool.stats().waiting, 0);
    assert.deepEqual(await first, { waited: 300 });
    const gone = AbortSignal.abort(new Error("already"));
    assert.equal(
      ((await rejection(pool.run(request("def main():\n    return 1\n", { signal: gone })))) as Error)
        .message,
      "already",
    );
  } finally {
    await pool.close();
  }
});

Deno.test("pool: errors from dispatch keep their code and the worker stays reusable", async () => {
  const pool = new WorkerPool({ warmWorkers: 0 });
  try {
    const denied = new CodeModeError("permission_denied", "records.lookup: permission denied");
    const e = await rejection(pool.run(request(ONE_CALL, { dispatch: () => Promise.reject(denied) })));
    assert.equal(e, denied);
    assert.equal(pool.stats().idle, 1);
    const bug = await rejection(
      pool.run(request(ONE_CALL, { dispatch: () => Promise.reject(new Error("x")) })),
    );
    assert.ok(isCode(bug, "internal"));
    assert.equal(pool.stats().idle, 0, "an internal error discards the worker");
  } finally {
    await pool.close();
  }
});

Deno.test("pool: only stub data crosses to the worker", async () => {
  const pool = new WorkerPool({ warmWorkers: 0 });
  try {
    // A host may hand over richer objects than the stub contract; functions cannot be cloned.
    const rich = STUBS.map((s) => ({ ...s, handler: () => "secret" }));
    assert.deepEqual(await pool.run(request(ONE_CALL, { capabilities: rich })), { key: "a", count: 2 });
  } finally {
    await pool.close();
  }
});

Deno.test("pool: spawns in flight are capped by spawnConcurrency", async () => {
  const pool = new WorkerPool({ maxConcurrentExecutions: 4, spawnConcurrency: 1, warmWorkers: 0 });
  let peakSpawning = 0;
  const sampler = setInterval(() => (peakSpawning = Math.max(peakSpawning, pool.stats().spawning)), 1);
  try {
    const runs = ["a", "b", "c", "d"].map((s) =>
      pool.run(request("def main():\n    return 1\n", { subjectId: s }))
    );
    assert.deepEqual(await Promise.all(runs), [1, 1, 1, 1]);
    assert.equal(pool.stats().spawned, 4);
    assert.equal(peakSpawning, 1);
  } finally {
    clearInterval(sampler);
    await pool.close();
  }
});
