import assert from "node:assert/strict";
import { CodeModeError } from "../errors.ts";
import { BUSY_LOOP, makeDispatch, rejection, request, sleep } from "../../tests/executor/helpers.ts";
import { InlineExecutor } from "./inline.ts";
import { slack, timed } from "../../tests/timing.ts";

function isCode(e: unknown, code: string): boolean {
  return e instanceof CodeModeError && e.code === code;
}

Deno.test("inline: native calls by replay reach the host exactly once each", async () => {
  const ex = new InlineExecutor();
  await ex.probe();
  const log: { cap: number; args: Record<string, unknown> }[] = [];
  const src = "def main():\n" +
    "    out = []\n" +
    "    for k in ['a', 'b', 'c']:\n" +
    "        out.append(records.lookup(key=k, limit=len(out))['count'])\n" +
    "    s = math2.scale(x=1.5, by=2.0)['value']\n" +
    "    return [out, s, type(s)]\n";
  assert.deepEqual(await ex.run(request(src, { dispatch: makeDispatch(log) })), [[0, 1, 2], 3, "float"]);
  assert.deepEqual(log.map((l) => l.args), [
    { key: "a", limit: 0 },
    { key: "b", limit: 1 },
    { key: "c", limit: 2 },
    { x: 1.5, by: 2 },
  ]);
  await ex.close();
});

Deno.test("inline: same budgets and classifications as the sandbox", async () => {
  const ex = new InlineExecutor();
  const calls = 'def main():\n    for i in range(4):\n        records.lookup(key="a")\n    return 1\n';
  assert.equal(await ex.run(request(calls, { budgets: { maxNativeCalls: 4 } })), 1);
  assert.ok(
    isCode(await rejection(ex.run(request(calls, { budgets: { maxNativeCalls: 3 } }))), "resource_limit"),
  );
  // Each replay gets the full step budget, as the single run in a worker would.
  const steps =
    'def main():\n    n = 0\n    for i in range(2000):\n        n += 1\n    records.lookup(key="a")\n' +
    "    for i in range(2000):\n        n += 1\n    return n\n";
  assert.equal(await ex.run(request(steps, { budgets: { maxExecutionSteps: 9_000 } })), 4000);
  assert.ok(
    isCode(
      await rejection(ex.run(request(steps, { budgets: { maxExecutionSteps: 5_000 } }))),
      "resource_limit",
    ),
  );
  assert.ok(isCode(await rejection(ex.run(request("def main(x):\n    return x\n"))), "invalid_program"));
  assert.ok(
    isCode(
      await rejection(ex.run(request("def main():\n    return records.lookup(key=1)\n"))),
      "invalid_arguments",
    ),
  );
  const denied = new CodeModeError("permission_denied", "no");
  const e = await rejection(ex.run(request('def main():\n    return records.lookup(key="a")\n', {
    dispatch: () => Promise.reject(denied),
  })));
  assert.equal(e, denied);
  const bytes = "def main():\n    for i in range(3):\n        blob.make(size=41)\n";
  assert.equal(await ex.run(request(bytes, { budgets: { maxIntermediateValueBytes: 150 } })), null);
  assert.ok(
    isCode(
      await rejection(ex.run(request(bytes, { budgets: { maxIntermediateValueBytes: 149 } }))),
      "resource_limit",
    ),
  );
  await ex.close();
});

Deno.test("inline: deadline on a busy loop", async () => {
  const ex = new InlineExecutor();
  const { value: e, ms, factor } = await timed(() =>
    rejection(ex.run(request(BUSY_LOOP, { budgets: { maxExecutionSteps: 1e12, maxExecutionTime: 150 } })))
  );
  assert.ok(isCode(e, "resource_limit"));
  assert.equal(((e as Error).cause as DOMException).name, "TimeoutError");
  assert.ok(ms < 150 + slack(50, factor), `took ${ms.toFixed(0)} ms`);
  await ex.close();
});

Deno.test("inline: deadline and cancellation while awaiting a native call", async () => {
  const ex = new InlineExecutor();
  const slow = "def main():\n    return slow.wait(ms=5000)\n";
  const { value: e, ms, factor } = await timed(() =>
    rejection(ex.run(request(slow, { budgets: { maxExecutionTime: 100 } })))
  );
  assert.ok(isCode(e, "resource_limit"));
  assert.ok(ms < 100 + slack(100, factor), `took ${ms.toFixed(0)} ms`);
  const controller = new AbortController();
  const reason = new Error("stop");
  const run = rejection(ex.run(request(slow, { signal: controller.signal })));
  await sleep(20);
  controller.abort(reason);
  assert.equal(await run, reason);
  await ex.close();
});

Deno.test("inline: concurrency bound and close", async () => {
  const ex = new InlineExecutor({ maxConcurrentExecutions: 2, maxSlotsPerSubject: 2 });
  let inFlight = 0;
  let peak = 0;
  const dispatch = async () => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await sleep(5);
    inFlight--;
    return { waited: 5 };
  };
  const runs = Array.from(
    { length: 10 },
    () => ex.run(request("def main():\n    return slow.wait(ms=5)\n", { dispatch })),
  );
  assert.equal((await Promise.all(runs)).length, 10);
  assert.equal(peak, 2);
  const pending = rejection(ex.run(request("def main():\n    return slow.wait(ms=5000)\n")));
  await sleep(10);
  await ex.close();
  assert.ok(isCode(await pending, "internal"));
  assert.ok(isCode(await rejection(ex.run(request("def main():\n    return 1\n"))), "internal"));
});

Deno.test("inline: slots go round-robin across subjects; one subject holds its share and queues boundedly", async () => {
  const ex = new InlineExecutor({ maxConcurrentExecutions: 2, maxQueuedPerSubject: 20 }); // share: 1 slot
  const order: string[] = [];
  const dispatch = (who: string) => async () => {
    order.push(who);
    await sleep(5);
    return { waited: 5 };
  };
  const slow = "def main():\n    return slow.wait(ms=5)\n";
  const flood = Array.from(
    { length: 10 },
    () => ex.run(request(slow, { subjectId: "flood", dispatch: dispatch("flood") })),
  );
  await sleep(1);
  const other = Array.from(
    { length: 3 },
    () => ex.run(request(slow, { subjectId: "other", dispatch: dispatch("other") })),
  );
  await Promise.all([...flood, ...other]);
  // Served in turn with the flood, not after it (FIFO would put all three after the ten).
  assert.ok(order.lastIndexOf("other") < 8, order.join(","));
  assert.equal(order.length, 13);
  // One runs, twenty wait, the rest are refused at once.
  const many = await Promise.all(
    Array.from({ length: 25 }, () => ex.run(request(slow, { subjectId: "flood" })).catch((e) => e)),
  );
  assert.equal(many.filter((r) => isCode(r, "resource_limit")).length, 4);
  await ex.close();
});

Deno.test("inline: long executions take turns, so short ones from another subject keep being served", async () => {
  const ex = new InlineExecutor();
  const long = "def main():\n    t = 0\n    for i in range(100000000):\n        t += i % 7\n    return t\n";
  const budgets = { maxExecutionSteps: 1e12, maxExecutionTime: 1500 };
  let longDone = false;
  const longRuns = Array.from(
    { length: 3 },
    () =>
      rejection(ex.run(request(long, { subjectId: "spinner", budgets }))).then((e) => {
        longDone = true;
        return e;
      }),
  );
  await sleep(50);
  // Twenty short executions one after another, each with a native call, while the long ones spin:
  // before slicing, none could start until every long run had reached its deadline.
  const short =
    'def main():\n    t = 0\n    for i in range(100):\n        t += i\n    return [t, records.lookup(key="a", limit=3)["count"]]\n';
  for (let i = 0; i < 20; i++) {
    assert.deepEqual(await ex.run(request(short, { subjectId: "user" })), [4950, 3]);
  }
  assert.equal(longDone, false, "the short executions were served only after the long ones ended");
  for (const e of await Promise.all(longRuns)) assert.ok(isCode(e, "resource_limit"));
  await ex.close();
});

Deno.test("inline: a long run pauses at its native calls instead of replaying everything before them", async () => {
  const ex = new InlineExecutor();
  const log: { cap: number; args: Record<string, unknown> }[] = [];
  // 40 calls, each after ~1/40 of the whole loop's work: replaying from the start at every call would
  // do the work of 20 whole runs, far past the time budget; pausing does it once.
  const src = "def main():\n    t = 0\n    out = []\n    for k in range(40):\n" +
    "        for i in range(500000):\n            t += i % 3\n" +
    "        out.append(records.lookup(key = str(k), limit = k)['count'])\n    return [t, out[:3], len(out)]\n";
  const value = await ex.run(request(src, {
    dispatch: makeDispatch(log),
    budgets: { maxExecutionSteps: 1e9, maxExecutionTime: 4000, maxNativeCalls: 100 },
  }));
  assert.deepEqual(value, [40 * 499999, [0, 1, 2], 40]);
  assert.equal(log.length, 40);
  assert.deepEqual(log.map((l) => l.args.key), Array.from({ length: 40 }, (_, k) => String(k)));
  await ex.close();
});

Deno.test("inline: executions start only while their memory fits together; one always runs", async () => {
  // Each counts as 6 x 1 MiB: with room for 13 MiB, two run at once, and a third waits for one to end.
  const ex = new InlineExecutor({ maxHeldMemoryBytes: 13 * 2 ** 20 });
  let inFlight = 0, peak = 0;
  const dispatch = async () => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await sleep(10);
    inFlight--;
    return { waited: 10 };
  };
  const budgets = { maxMemoryBytes: 2 ** 20 };
  const slow = "def main():\n    return slow.wait(ms=10)['waited']\n";
  const runs = Array.from(
    { length: 6 },
    (_, i) => ex.run(request(slow, { subjectId: `s${i}`, dispatch, budgets })),
  );
  assert.deepEqual(await Promise.all(runs), [10, 10, 10, 10, 10, 10]);
  assert.equal(peak, 2);
  // An execution bigger than the room still runs, alone.
  const big = await ex.run(request(slow, { dispatch, budgets: { maxMemoryBytes: 64 * 2 ** 20 } }));
  assert.equal(big, 10);
  await ex.close();
});
