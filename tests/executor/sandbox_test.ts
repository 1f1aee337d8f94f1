import assert from "node:assert/strict";
import { CodeModeError } from "../../src/errors.ts";
import { WorkerPool } from "../../src/executor/pool.ts";
import { INTERRUPT_SHUTDOWN } from "../../src/executor/protocol.ts";
import { Sandbox, SANDBOX_WORKER_URL } from "../../src/executor/sandbox.ts";
import { rejection, request, sleep } from "./helpers.ts";

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url);

function codeOf(e: unknown): string {
  return e instanceof CodeModeError ? e.code : `not a CodeModeError: ${e}`;
}

Deno.test("sandbox: every privileged operation is refused inside the worker", async () => {
  const sb = new Sandbox(SANDBOX_WORKER_URL, 1024, 10_000, {
    onMessage: () => {},
    onFailure: () => {},
  });
  try {
    await sb.ready;
    const report = await sb.selfCheck(5_000);
    assert.deepEqual(Object.keys(report).sort(), ["env", "ffi", "net", "read", "run", "sys", "write"]);
    for (const [name, r] of Object.entries(report)) {
      assert.equal(r.refused, true, `${name}: ${r.detail}`);
      assert.equal(r.detail, "NotCapable", name);
    }
  } finally {
    sb.terminate(INTERRUPT_SHUTDOWN);
  }
});

Deno.test("sandbox: probe diagnostics for broken wiring", async (t) => {
  // Generous timeouts except for the silent worker: `deno test` type-checks a worker module on first load.
  const cases: [string, string, number, RegExp][] = [
    ["a module that fails to load", "broken_worker.ts", 10_000, /fails at load time/],
    ["a missing module", "missing_worker.js", 10_000, /sandbox worker error/],
    ["a worker that never reports ready", "silent_worker.ts", 300, /did not start within 300 ms/],
    ["a worker that is not isolated", "liar_worker.ts", 10_000, /not isolated: read \(allowed\)/],
  ];
  for (const [name, file, timeout, why] of cases) {
    await t.step(name, async () => {
      const pool = new WorkerPool({ workerUrl: fixture(file) });
      try {
        const e = await rejection(pool.probe({ timeout }));
        assert.equal(codeOf(e), "invalid_registration");
        assert.match((e as Error).message, why);
        assert.match((e as Error).message, /--allow-read/);
        assert.equal(pool.stats().live, 0);
      } finally {
        await pool.close();
      }
    });
  }
});

Deno.test("sandbox: a worker that fails to start fails the waiting execution", async () => {
  const pool = new WorkerPool({ workerUrl: fixture("broken_worker.ts"), warmWorkers: 0 });
  try {
    const e = await rejection(pool.run(request("def main():\n    return 1\n")));
    assert.equal(codeOf(e), "internal");
    assert.match((e as Error).message, /failed to start/);
  } finally {
    await pool.close();
  }
});

Deno.test("sandbox: calls through the shared buffer are answered, and forged call records fail", async (t) => {
  const pool = new WorkerPool({ workerUrl: fixture("rogue_worker.ts"), warmWorkers: 0 });
  let calls = 0;
  const dispatch = (cap: number, args: Record<string, unknown>) => {
    calls++;
    return Promise.resolve(cap === 0 ? { key: args.key, count: 41 } : { value: 1 });
  };
  try {
    await t.step("an honest call record gets its reply", async () => {
      assert.deepEqual(await pool.run(request("buffer-call", { dispatch })), { key: "k", count: 41 });
      assert.equal(calls, 1);
    });
    const cases: [string, string][] = [
      ["buffer-int-for-float", "invalid_arguments"], // the host re-validates arguments from the buffer
      ["buffer-too-long", "internal"],
      ["buffer-negative-length", "internal"],
      ["buffer-bad-capability", "internal"],
      ["buffer-out-of-sequence", "internal"],
      ["buffer-and-message", "internal"],
    ];
    for (const [source, code] of cases) {
      await t.step(source, async () => {
        // A short deadline: a record the host never read would end in resource_limit instead.
        const e = await rejection(
          pool.run(request(source, { dispatch, budgets: { maxExecutionTime: 3_000 } })),
        );
        assert.equal(codeOf(e), code, String(e));
      });
    }
    assert.equal(calls, 2, "only the well-formed records reached the dispatch (buffer-and-message once)");
  } finally {
    await pool.close();
  }
});

Deno.test("sandbox: the host trusts nothing a compromised worker claims", async (t) => {
  const pool = new WorkerPool({ workerUrl: fixture("rogue_worker.ts"), warmWorkers: 0 });
  const budgets = { maxValueBytes: 1000, maxValueDepth: 5, maxNativeCalls: 3 };
  const cases: [string, string][] = [
    ["oversized", "resource_limit"],
    ["deep", "resource_limit"],
    ["int-for-float", "invalid_arguments"],
    ["too-many-calls", "resource_limit"],
    ["bad-capability", "internal"],
    ["out-of-sequence", "internal"],
    ["done-during-call", "internal"],
    ["deadline-during-call", "resource_limit"],
    ["junk", "internal"],
    ["claims-denied", "internal"],
    ["wrong-id", "internal"],
  ];
  try {
    let calls = 0;
    const dispatch = async (cap: number, _args: unknown, signal?: AbortSignal) => {
      if (cap === 3) await sleep(500, signal).catch(() => {}); // still in flight when the worker ends
      if (cap === 0) calls++;
      return { key: "k", count: 1, value: 1 };
    };
    for (const [source, code] of cases) {
      await t.step(source, async () => {
        const e = await rejection(pool.run(request(source, { budgets, dispatch })));
        assert.equal(codeOf(e), code);
      });
    }
    assert.equal(calls, 3, "only the three legal calls of too-many-calls reached the dispatch");
    assert.equal(await pool.run(request("anything", { budgets })), "fine");
    assert.equal(pool.stats().live <= 1, true, "misbehaving workers were discarded");
    assert.equal(
      pool.stats().discarded,
      cases.length,
      "every rogue worker was discarded (none reports its heap after a failed run)",
    );
  } finally {
    await pool.close();
  }
});
