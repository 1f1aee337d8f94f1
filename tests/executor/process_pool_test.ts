/**
 * The process pool: permission-less, heap-capped Deno child processes. Everything the worker-pool tests
 * assert has an equivalent here, plus what only a process contains: SIGKILL of a child spinning in JS,
 * an out-of-memory child that ends alone, and a crash.
 */
import assert from "node:assert/strict";
import { CodeModeError } from "../../src/errors.ts";
import { ProcessPool, type ProcessPoolOptions } from "../../src/executor/process_pool.ts";
import { ProcessSandbox, SANDBOX_PROCESS_URL } from "../../src/executor/process_sandbox.ts";
import { AT_BUDGET_IDLE_MS } from "../../src/executor/scheduler.ts";
import { BUSY_LOOP, makeDispatch, rejection, request, sleep } from "./helpers.ts";
import { slack, timed } from "../timing.ts";
import { DEMO_PROGRAM } from "../../examples/demo.ts";
import { childEnv, CONFIG, SERVE_CLI, spawnListening } from "../mcp/cli_helpers.ts";
import { connectClient } from "../mcp/http_helpers.ts";

const ONE_CALL = 'def main():\n    return records.lookup(key="a", limit=2)\n';
const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url);

/** A sandbox process outside any pool, whose frames nobody reads. */
function bareSandbox(): ProcessSandbox {
  return new ProcessSandbox({
    moduleUrl: SANDBOX_PROCESS_URL,
    heapMiB: 128,
    warmUpMs: 0,
    readyTimeoutMs: 30_000,
  }, { onFrame() {}, onViolation() {}, onExit() {}, maxPayloadBytes: () => 1024 });
}

function isCode(e: unknown, code: string): boolean {
  return e instanceof CodeModeError && e.code === code;
}

// A child spawn takes tens of milliseconds of CPU, several times that on a loaded machine.
function pool(options: ProcessPoolOptions = {}): ProcessPool {
  return new ProcessPool({ warmWorkers: 0, spawnTimeoutMs: 30_000, ...options });
}

async function until(cond: () => boolean, ms = slack(3_000)): Promise<void> {
  for (const t0 = performance.now(); !cond() && performance.now() - t0 < ms;) await sleep(10);
}

Deno.test("process: runs a program with native calls and keeps int vs float", async () => {
  const p = pool();
  try {
    const log: { cap: number; args: Record<string, unknown> }[] = [];
    const src = "def main():\n" +
      '    r = records.lookup(key="k")\n' +
      "    s = math2.scale(x=2.0, by=1.5)\n" +
      '    return [r, s, type(r["count"]), type(s["value"]), 7 // 2, 7 / 2]\n';
    const out = await p.run(
      request(src, { dispatch: makeDispatch(log), budgets: { maxExecutionTime: 30_000 } }),
    );
    assert.deepEqual(out, [{ key: "k", count: 1 }, { value: 3 }, "int", "float", 3, 3.5]);
    assert.deepEqual(log.map((l) => [l.cap, { ...l.args }]), [[0, { key: "k" }], [1, { x: 2, by: 1.5 }]]);
    assert.equal(
      await p.run(request('def main():\n    return str(math2.scale(x=2.0, by=2.0)["value"])\n')),
      "4.0",
    );
  } finally {
    await p.close();
  }
});

Deno.test("process: the child has no read, write, net, env, run, ffi or sys permission", async () => {
  const sb = bareSandbox();
  try {
    await sb.ready;
    const report = await sb.selfCheck(slack(5_000));
    assert.deepEqual(Object.keys(report).sort(), ["env", "ffi", "net", "read", "run", "sys", "write"]);
    for (const [name, r] of Object.entries(report)) {
      assert.equal(r.refused, true, `${name}: ${r.detail}`);
      assert.equal(r.detail, "NotCapable", name);
    }
  } finally {
    await sb.kill();
  }
  const p = pool();
  try {
    await p.probe(30_000); // throws unless every privileged operation is refused in the child
    assert.equal(p.stats().fresh, 1, "the probed child is kept");
  } finally {
    await p.close();
  }
});

Deno.test("process: a probe names the wiring problem", async () => {
  const p = pool({ moduleUrl: fixture("missing_process.ts") });
  try {
    const e = await rejection(p.probe(30_000));
    assert.ok(isCode(e, "invalid_registration"));
    assert.match((e as Error).message, /sandbox process probe failed/);
    assert.match((e as Error).message, /--allow-run/);
    assert.equal(p.stats().live, 0);
  } finally {
    await p.close();
  }
});

Deno.test("process: a probe refuses a child that is not isolated", async () => {
  const p = pool({ moduleUrl: fixture("rogue_process.ts") });
  try {
    const e = await rejection(p.probe(30_000));
    assert.ok(isCode(e, "invalid_registration"));
    assert.match((e as Error).message, /not isolated: read \(allowed\)/);
  } finally {
    await p.close();
  }
});

Deno.test("process: a host without --allow-run gets a wiring diagnostic, not a crash", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--allow-read", "--allow-env", fixture("no_run_probe.ts").href],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(text, /^invalid_registration: sandbox process probe failed: .*--allow-run/);
});

Deno.test("process: cancellation during a native call rejects with the signal's reason", async () => {
  const p = pool();
  try {
    const controller = new AbortController();
    let started!: () => void;
    const inCall = new Promise<void>((r) => (started = r));
    let handlerSignal: AbortSignal | undefined;
    const dispatch = async (_c: number, _a: Record<string, unknown>, signal: AbortSignal) => {
      handlerSignal = signal;
      started();
      await sleep(10_000, signal);
      return { waited: 0 };
    };
    const run = rejection(p.run(request("def main():\n    return slow.wait(ms=1)\n", {
      dispatch,
      signal: controller.signal,
      budgets: { maxExecutionTime: 60_000 },
    })));
    await inCall;
    const reason = new Error("caller gave up");
    controller.abort(reason);
    assert.equal(await run, reason);
    assert.equal(handlerSignal?.aborted, true, "the handler sees the cancellation");
    await until(() => p.stats().live === 0);
    assert.equal(p.stats().live, 0, "the interrupted child unwound and, left idle, was ended soon after");
  } finally {
    await p.close();
  }
});

Deno.test("process: reuses a child within one subject only, and keeps nothing between runs", async () => {
  const p = pool();
  try {
    const first = "counter = []\ncounter.append(1)\ndef main():\n    return len(counter)\n";
    assert.equal(await p.run(request(first, { budgets: { maxExecutionTime: 30_000 } })), 1);
    assert.equal(await p.run(request(first)), 1, "a global of the previous run does not survive");
    const probe = "def main():\n    return counter\n";
    const e = await rejection(p.run(request(probe)));
    assert.ok(isCode(e, "invalid_program"));
    assert.match((e as CodeModeError).detail ?? "", /undefined: counter/);
    assert.equal(p.stats().spawned, 1);
    assert.equal(p.stats().idle, 1);
    await p.run(
      request("def main():\n    return 2\n", { subjectId: "u2", budgets: { maxExecutionTime: 30_000 } }),
    );
    assert.equal(p.stats().spawned, 2, "a second subject never gets the first subject's child");
    await p.run(request("def main():\n    return 3\n", { subjectId: "u1" }));
    assert.equal(p.stats().spawned, 2);
  } finally {
    await p.close();
  }
});

Deno.test("process: strict mode uses a new child per execution", async () => {
  const p = pool({ mode: "strict", maxConcurrentExecutions: 2, warmWorkers: 0 });
  try {
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await p.run(request(ONE_CALL, { budgets: { maxExecutionTime: 30_000 } })), {
        key: "a",
        count: 2,
      });
    }
    assert.equal(p.stats().executions, 3);
    assert.equal(p.stats().spawned, 3);
    assert.equal(p.stats().idle, 0, "strict mode never keeps a used child");
  } finally {
    await p.close();
  }
});

Deno.test("process: a run ended at a budget keeps its child for the subject, only briefly when idle", async () => {
  const p = pool();
  try {
    const steps = await rejection(p.run(request(BUSY_LOOP, {
      budgets: { maxExecutionSteps: 10_000, maxExecutionTime: 30_000 },
    })));
    assert.ok(isCode(steps, "resource_limit"), String(steps));
    // The engine stopped itself and the child's heap is small: the same child serves the next run.
    assert.equal(
      await p.run(request("def main():\n    return 7\n", { budgets: { maxExecutionTime: 30_000 } })),
      7,
    );
    const bomb = 'def main():\n    s = "x"\n    for i in range(40):\n        s = s + s\n    return len(s)\n';
    const memory = await rejection(p.run(request(bomb, { budgets: { maxExecutionTime: 30_000 } })));
    assert.ok(isCode(memory, "resource_limit"), String(memory));
    assert.equal(p.stats().spawned, 1);
    // Left idle after a budget, it is ended after AT_BUDGET_IDLE_MS rather than the 5 s idle timeout.
    const t0 = performance.now();
    await until(() => p.stats().live === 0, AT_BUDGET_IDLE_MS + slack(2_000));
    assert.equal(p.stats().live, 0);
    assert.ok(performance.now() - t0 < AT_BUDGET_IDLE_MS + slack(2_000));
  } finally {
    await p.close();
  }
});

Deno.test("process: the engine's own deadline stops a busy loop; the child is ended soon once idle", async () => {
  const p = pool({ maxConcurrentExecutions: 2 });
  try {
    await p.probe(30_000);
    const limit = 300;
    const { value: e, ms, factor } = await timed(() =>
      rejection(p.run(request(BUSY_LOOP, { budgets: { maxExecutionSteps: 1e12, maxExecutionTime: limit } })))
    );
    assert.ok(isCode(e, "resource_limit"), String(e));
    assert.equal(((e as Error).cause as DOMException).name, "TimeoutError");
    assert.ok(ms < limit + slack(100, factor), `ended after ${ms.toFixed(0)} ms`);
    await until(() => p.stats().live === 0);
    assert.equal(p.stats().live, 0, "the child, left idle after a budget, was ended soon after");
    assert.equal(
      await p.run(request("def main():\n    return 5\n", { budgets: { maxExecutionTime: 30_000 } })),
      5,
    );
  } finally {
    await p.close();
  }
});

Deno.test("process: deadline while blocked in a native call interrupts the child", async () => {
  const p = pool();
  try {
    await p.probe(30_000);
    let handlerSignal: AbortSignal | undefined;
    const dispatch = async (_c: number, _a: Record<string, unknown>, signal: AbortSignal) => {
      handlerSignal = signal;
      await sleep(5_000, signal);
      return { waited: 0 };
    };
    const { value: e, ms, factor } = await timed(() =>
      rejection(p.run(request("def main():\n    return slow.wait(ms=1)\n", {
        dispatch,
        budgets: { maxExecutionTime: 200 },
      })))
    );
    assert.ok(isCode(e, "resource_limit"));
    assert.ok(ms < 200 + slack(100, factor), `ended after ${ms.toFixed(0)} ms`);
    assert.equal(handlerSignal?.aborted, true, "the handler sees the deadline");
    await until(() => p.stats().live === 0);
    assert.equal(p.stats().discarded, 1);
  } finally {
    await p.close();
  }
});

Deno.test("process: cancellation while computing kills the child at once", async () => {
  const p = pool();
  try {
    await p.probe(30_000);
    const controller = new AbortController();
    const run = rejection(p.run(request(BUSY_LOOP, {
      signal: controller.signal,
      budgets: { maxExecutionSteps: 1e12, maxExecutionTime: 30_000 },
    })));
    await until(() => p.stats().busy === 1);
    await sleep(50);
    controller.abort("stop");
    assert.equal(await run, "stop");
    await until(() => p.stats().live === 0);
    assert.equal(p.stats().live, 0, "the slot freed once the child exited");
    assert.equal(p.health().status, "ok");
  } finally {
    await p.close();
  }
});

Deno.test("process: a child spinning in JS is killed with SIGKILL past its deadline plus the grace", async () => {
  const p = pool({ moduleUrl: fixture("spin_process.ts"), drainGraceMs: 150 });
  try {
    // The budget covers the spawn; the child is spinning well before the deadline.
    const limit = slack(1_000);
    const t0 = performance.now();
    const run = rejection(p.run(request("anything", { budgets: { maxExecutionTime: limit } })));
    await until(() => p.stats().busy === 1, limit);
    assert.equal(p.stats().busy, 1, "the child took the run");
    const { value: e, factor } = await timed(() => run);
    const ms = performance.now() - t0;
    assert.ok(isCode(e, "resource_limit"), String(e));
    assert.ok(ms < limit + slack(100, factor), `the caller waited ${ms.toFixed(0)} ms`);
    assert.equal(p.stats().live, 1, "the slot is held until the child has really stopped");
    await until(() => p.stats().live === 0);
    assert.equal(p.stats().live, 0);
    assert.equal(p.stats().discarded, 1);
    assert.equal(p.stats().everStuck, 0);
  } finally {
    await p.close();
  }
});

Deno.test("process: a child that runs out of heap ends alone; the host and the pool go on", async () => {
  const p = pool({ moduleUrl: fixture("oom_process.ts"), heapLimitMiB: 48 });
  try {
    const e = await rejection(p.run(request("anything", { budgets: { maxExecutionTime: 60_000 } })));
    assert.ok(isCode(e, "resource_limit"), String(e));
    assert.match((e as Error).message, /heap limit \(48 MiB\)/);
    await until(() => p.stats().live === 0);
    assert.equal(p.stats().live, 0, "the slot freed");
  } finally {
    await p.close();
  }
  const real = pool();
  try {
    assert.equal(
      await real.run(request("def main():\n    return 1\n", { budgets: { maxExecutionTime: 30_000 } })),
      1,
    );
  } finally {
    await real.close();
  }
});

Deno.test("process: the host trusts nothing a compromised child sends", async (t) => {
  const p = pool({ moduleUrl: fixture("rogue_process.ts") });
  const budgets = { maxValueBytes: 1000, maxValueDepth: 5, maxNativeCalls: 3, maxExecutionTime: 30_000 };
  const cases: [string, string, RegExp?][] = [
    ["oversized", "resource_limit"],
    ["huge-frame", "internal", /payload of 1073741824 bytes/],
    ["junk-header", "internal", /not UTF-8 JSON/],
    ["int-for-float", "invalid_arguments"],
    ["too-many-calls", "resource_limit"],
    ["bad-capability", "internal"],
    ["out-of-sequence", "internal"],
    ["claims-denied", "internal"],
    ["wrong-id", "internal"],
    ["no-outcome", "internal"],
    ["exit", "internal", /exited unexpectedly \(code 7\)/],
  ];
  try {
    let calls = 0;
    const dispatch = () => {
      calls++;
      return Promise.resolve({ key: "k", count: 1, value: 1 });
    };
    for (const [source, code, message] of cases) {
      await t.step(source, async () => {
        const e = await rejection(p.run(request(source, { budgets, dispatch })));
        assert.equal(e instanceof CodeModeError ? e.code : String(e), code);
        if (message !== undefined) assert.match((e as Error).message, message);
      });
    }
    assert.equal(calls, 3, "only the three legal calls of too-many-calls reached the dispatch");
    assert.equal(await p.run(request("anything", { budgets })), "fine");
    await until(() => p.stats().live <= 1);
    assert.equal(p.stats().live, 1, "misbehaving children were killed; the last one is idle");
  } finally {
    await p.close();
  }
});

Deno.test("process: large results and values cross in one frame", async () => {
  const p = pool();
  try {
    const src =
      'def main():\n    d = blob.make(size=250000)["data"]\n    return [len(d), d[:3], blob.make(size=999)["data"][-2:]]\n';
    assert.deepEqual(await p.run(request(src, { budgets: { maxExecutionTime: 30_000 } })), [
      250000,
      "xxx",
      "xx",
    ]);
    assert.equal(p.stats().idle, 1, "a large transfer is a normal end");
  } finally {
    await p.close();
  }
});

Deno.test("process: a child that used a lot of memory is retired instead of kept idle", async () => {
  // About 40 MB of live strings, held until main returns: an idle child's resident set is about 45 MiB,
  // after this run it is well over 64 MiB.
  const src = 'def main():\n    parts = ["%d" % i * 1000 for i in range(40000)]\n    return len(parts)\n';
  const heavy = pool({ retireMemoryBytes: 64 * 1024 * 1024 });
  try {
    const budgets = { maxExecutionTime: 30_000, maxExecutionSteps: 1e8, maxMemoryBytes: 256 << 20 };
    assert.equal(await heavy.run(request("def main():\n    return 1\n", { budgets })), 1);
    assert.equal(heavy.stats().idle, 1, "a light run keeps the child");
    assert.equal(await heavy.run(request(src, { budgets })), 40000);
    await until(() => heavy.stats().live === 0);
    assert.equal(heavy.stats().idle, 0);
    assert.equal(heavy.stats().discarded, 1);
  } finally {
    await heavy.close();
  }
  const normal = pool();
  try {
    const budgets = { maxExecutionTime: 30_000, maxExecutionSteps: 1e8, maxMemoryBytes: 256 << 20 };
    assert.equal(await normal.run(request(src, { budgets })), 40000);
    assert.equal(normal.stats().idle, 1, "under the default bound the child is kept");
  } finally {
    await normal.close();
  }
});

Deno.test("process: close() kills children and rejects running executions", async () => {
  const p = pool({ maxConcurrentExecutions: 2 });
  await p.run(request("def main():\n    return 1\n", { budgets: { maxExecutionTime: 30_000 } }));
  const running = rejection(
    p.run(request(BUSY_LOOP, { budgets: { maxExecutionSteps: 1e12, maxExecutionTime: 30_000 } })),
  );
  await until(() => p.stats().busy === 1);
  await p.close();
  assert.ok(isCode(await running, "internal"));
  assert.equal(p.stats().live, 0);
  assert.ok(isCode(await rejection(p.run(request("def main():\n    return 1\n"))), "internal"));
  await p.close(); // idempotent
});

Deno.test("process: 30 parallel executions respect the concurrency bound", async () => {
  const max = 3;
  const p = pool({ maxConcurrentExecutions: max, maxSlotsPerSubject: max });
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
      { length: 30 },
      (_, i) =>
        p.run(request(`def main():\n    return records.lookup(key="${i}")["key"]\n`, {
          dispatch,
          subjectId: `s${i % 3}`,
          budgets: { maxExecutionTime: 60_000 },
        })),
    );
    assert.deepEqual(await Promise.all(runs), Array.from({ length: 30 }, (_, i) => `${i}`));
    assert.ok(p.stats().peakLive <= max, `peak ${p.stats().peakLive}`);
    assert.ok(peakCalls <= max);
  } finally {
    await p.close();
  }
});

Deno.test("process: `deno task serve` runs programs in the process pool when it may spawn Deno", async () => {
  const args = ["run", "--quiet", "--no-prompt", "--config", CONFIG, "--allow-read", "--allow-env"];
  const cli = await spawnListening(
    [...args, "--allow-net", "--allow-run", SERVE_CLI, "--http", "127.0.0.1:0"],
    childEnv(),
    /listening on (http:\/\/\S+)[\s\S]*programs run in the process executor/,
  );
  try {
    const health = await fetch(new URL("/healthz", cli.address));
    assert.deepEqual(await health.json(), { status: "ok" });
    const client = await connectClient(cli.address);
    const run = await client.callTool({ name: "execute", arguments: { source: DEMO_PROGRAM } });
    assert.equal(run.isError, undefined, JSON.stringify(run.content));
    assert.equal((run.structuredContent as { result: unknown[] }).result.length, 2);
    await client.close();
  } finally {
    assert.equal(await cli.stop(), 0);
  }
});

Deno.test({
  name: "process: a throttled child is stopped for the rest of each period and continued for its duty",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const sb = bareSandbox();
    // The state letter of /proc/<pid>/stat: T while stopped.
    const state = () => Deno.readTextFileSync(`/proc/${sb.pid}/stat`).replace(/^.*\) /s, "")[0];
    try {
      await sb.ready;
      sb.setDuty(100); // 1 ms on, 9 ms stopped
      let stopped = 0, samples = 0;
      const end = performance.now() + 300;
      while (performance.now() < end) {
        await sleep(3);
        samples++;
        if (state() === "T") stopped++;
      }
      assert.ok(stopped >= samples / 2, `stopped in ${stopped} of ${samples} samples`);
      sb.setDuty(0);
      await sleep(20);
      assert.notEqual(state(), "T", "continued for good once unthrottled");
      // It still answers: the self-check runs in the continued child.
      await sb.selfCheck(slack(5_000));
    } finally {
      await sb.kill();
    }
  },
});
