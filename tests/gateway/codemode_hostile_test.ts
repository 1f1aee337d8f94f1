/**
 * Hostile programs through the gateway: busy loops, memory bombs and more native calls than the budget
 * allows end classified within their limits, in sandboxes of their own client, while another client's
 * passthrough calls keep being served.
 */
import assert from "node:assert/strict";
import { Gateway } from "../../src/gateway/gateway.ts";
import { EXECUTION_ID_META } from "../../src/gateway/codemode/mod.ts";
import { slack } from "../timing.ts";
import {
  connect,
  everythingDownstream,
  loadConfig,
  prefetchServers,
  randomKey,
  START_TIMEOUT_MS,
  text,
  waitFor,
} from "./_helpers.ts";

/**
 * The programs' time budget. The 150-call program must reach its native-call budget first, and on a
 * saturated machine 100 calls through the gateway take longer than 3 s: scale the budget by the load.
 */
const TIME_LIMIT_MS = Math.round(slack(3_000));

function configYaml(dir: string): string {
  return `
listen: 127.0.0.1:0
codemode: { max_execution_time: ${TIME_LIMIT_MS}, max_native_calls: 100, max_concurrent_executions: 4 }
clients:
  - { id: mallory, api_key_env: H_MALLORY_KEY, mode: codemode }
  - { id: bob, api_key_env: H_BOB_KEY }
downstreams:
${everythingDownstream()}
policy:
  clients:
    mallory: { allow: ["everything__echo"] }
    bob: { allow: ["everything__echo"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)}, fsync_ms: 50 }
`;
}

const HOSTILE: Record<string, { source: string; expect: RegExp }> = {
  busy: {
    source: "def main():\n    x = 0\n    for i in range(10000000000):\n        x += i\n    return x\n",
    expect: /^resource limit exceeded/,
  },
  bomb: {
    source: 'def main():\n    s = "x" * 200000000\n    return len(s)\n',
    expect: /^resource limit exceeded/,
  },
  doubling: {
    source: "def main():\n    l = [0]\n    for i in range(64):\n        l = l + l\n    return len(l)\n",
    expect: /^resource limit exceeded/,
  },
  calls: {
    source:
      'def main():\n    for i in range(150):\n        everything.echo(message="m%d" % i)\n    return 1\n',
    expect: /^resource limit exceeded.*maxNativeCalls/,
  },
};

Deno.test("hostile programs end classified within their limits; other clients keep being served", async () => {
  await prefetchServers();
  const dir = await Deno.makeTempDir({ prefix: "gw-cmh-" });
  const env = { H_MALLORY_KEY: randomKey(), H_BOB_KEY: randomKey() };
  const gateway = await Gateway.create(await loadConfig(dir, configYaml(dir), env), {
    startTimeoutMs: START_TIMEOUT_MS,
    log: () => {},
  });
  const { url } = await gateway.serve();
  const mallory = await connect(url, env.H_MALLORY_KEY);
  const bob = await connect(url, env.H_BOB_KEY);
  try {
    // Warm the sandbox pool so the first hostile program does not pay the start-up.
    const warm = await mallory.callTool({
      name: "execute",
      arguments: { source: "def main():\n    return 1\n" },
    });
    assert.equal(warm.isError, undefined, text(warm));

    let stop = false;
    const served: number[] = [];
    const passthrough = (async () => {
      while (!stop) {
        const started = performance.now();
        const r = await bob.callTool({ name: "everything__echo", arguments: { message: "still here" } });
        assert.equal(text(r), "Echo: still here");
        served.push(performance.now() - started);
      }
    })();

    const runs = Object.entries(HOSTILE).flatMap(([kind, h]) =>
      [0, 1].map(async () => {
        const started = performance.now();
        const r = await mallory.callTool({ name: "execute", arguments: { source: h.source } });
        return { kind, h, r, ms: performance.now() - started };
      })
    );
    const outcomes = await Promise.all(runs);
    stop = true;
    await passthrough;

    const callIds: string[] = [];
    for (const { kind, h, r, ms } of outcomes) {
      assert.equal(r.isError, true, `${kind}: ${text(r)}`);
      assert.match(text(r), h.expect, `${kind}: ${text(r)}`);
      // Queueing for a slot counts against the time budget; the end comes within it plus an overrun.
      assert.ok(ms < TIME_LIMIT_MS + slack(3_000), `${kind} took ${ms} ms`);
      const id = (r._meta as Record<string, string> | undefined)?.[EXECUTION_ID_META];
      if (kind === "calls" && id !== undefined) callIds.push(id);
    }
    assert.ok(served.length >= 5, `only ${served.length} passthrough calls were served meanwhile`);
    assert.ok(Math.max(...served) < slack(2_000), `a passthrough call took ${Math.max(...served)} ms`);

    // The budget refuses the 101st call before it reaches the pipeline: exactly 100 audited per run.
    // Success records are written in batches (within 2 ms, then fsync_ms): read once they are all in.
    assert.equal(callIds.length, 2);
    type Line = { client_id: string; execution_id?: string; tool_name: string; native_calls?: number };
    let lines: Line[] = [];
    const byExecution = new Map<string, number>();
    const readAudit = async () => {
      lines = (await Deno.readTextFile(`${dir}/audit.jsonl`)).split("\n").filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Line);
      byExecution.clear();
      for (const l of lines) {
        // (Each execution's own `execute` record carries its id too; count the native calls.)
        if (l.client_id === "mallory" && l.execution_id !== undefined && l.tool_name !== "execute") {
          byExecution.set(l.execution_id, (byExecution.get(l.execution_id) ?? 0) + 1);
        }
      }
      return callIds.every((id) => (byExecution.get(id) ?? 0) >= 100);
    };
    await waitFor(readAudit, slack(5_000), "the audit records of both runs").catch(() => {});
    // Never more than 100: let a late 101st record show up before the count is checked.
    await new Promise((r) => setTimeout(r, 200));
    await readAudit();
    assert.deepEqual(callIds.map((id) => byExecution.get(id)), [100, 100]);
    const executions = callIds.map((id) =>
      lines.find((l) => l.execution_id === id && l.tool_name === "execute")
    );
    assert.deepEqual(
      executions.map((l) => l?.native_calls),
      [100, 100],
      "each execute record counts its calls",
    );
    assert.ok(lines.some((l) => l.client_id === "bob" && l.execution_id === undefined));

    // The sandboxes recovered: an ordinary program still runs.
    const after = await mallory.callTool({
      name: "execute",
      arguments: { source: 'def main():\n    return everything.echo(message="ok")["text"]\n' },
    });
    assert.deepEqual((after.structuredContent as { result: unknown }).result, "Echo: ok");
  } finally {
    await mallory.close();
    await bob.close();
    await gateway.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
