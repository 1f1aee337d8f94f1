/**
 * The gateway against a hostile stdio downstream of its own (tests/gateway/fixtures/hostile_stdio_server.ts,
 * a real process speaking MCP): a downstream's JSON-RPC error is the tool's result and never trips a
 * breaker; nothing a downstream sends outside an answer on a shared session reaches another client;
 * oversized results and notification floods stay within bounded memory; no downstream process outlives
 * a gateway killed by any signal.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Gateway } from "../../src/gateway/mod.ts";
import { alive, connect, loadConfig, randomKey, stdioDownstream, text, waitFor } from "./_helpers.ts";

const SERVER = new URL("./fixtures/hostile_stdio_server.ts", import.meta.url).pathname;
const SECRET = "hostile-secret-9d8c7b6a5f";

interface Started {
  gateway: Gateway;
  url: string;
  keys: Record<string, string>;
  dir: string;
  close(): Promise<void>;
}

/** A gateway with clients alice, carol and dave in front of the hostile server `h` (shared by default). */
async function start(
  options: { sessionMode?: string; extra?: string; env?: string[] } = {},
): Promise<Started> {
  const dir = await Deno.makeTempDir({ prefix: "gw-hostile-ds-" });
  const keys = { alice: randomKey(), carol: randomKey(), dave: randomKey() };
  const config = await loadConfig(
    dir,
    `
listen: 127.0.0.1:0
clients:
  - { id: alice, api_key_env: HA_KEY }
  - { id: carol, api_key_env: HC_KEY }
  - { id: dave, api_key_env: HD_KEY }
downstreams:
${
      stdioDownstream("h", ["run", "--allow-env", "--allow-run", "--allow-write", JSON.stringify(SERVER)], [
        "secrets: { HOSTILE_SECRET: H_SECRET }",
        `session_mode: ${options.sessionMode ?? "shared"}`,
        ...(options.env === undefined ? [] : [`env: { ${options.env.join(", ")} }`]),
      ])
    }
policy:
  default: deny
  clients: { alice: { allow: ["h__*"] }, carol: { allow: ["h__*"] }, dave: { allow: ["h__*"] } }
${options.extra ?? ""}
`,
    { HA_KEY: keys.alice, HC_KEY: keys.carol, HD_KEY: keys.dave, H_SECRET: SECRET },
  );
  const gateway = await Gateway.create(config, { startTimeoutMs: 60_000, log: () => {} });
  const { url } = await gateway.serve();
  return {
    gateway,
    url,
    keys,
    dir,
    close: async () => {
      await gateway.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A client connected as `id` that records every logging notification it receives. */
async function client(s: Started, id: "alice" | "carol" | "dave"): Promise<{ c: Client; logs: unknown[] }> {
  const c = await connect(s.url, s.keys[id]);
  const logs: unknown[] = [];
  c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
  return { c, logs };
}

/** Every JSON-RPC error a downstream may answer with: the server range, the standard codes, others. */
function errorCases(): { code: number; message: string }[] {
  const out: { code: number; message: string }[] = [];
  for (let code = -32099; code <= -32000; code++) out.push({ code, message: `server error ${code}` });
  for (const code of [-32700, -32600, -32601, -32602, -32603]) out.push({ code, message: `std ${code}` });
  for (const code of [0, 1, 42, 400, 500, 2 ** 31 - 1, -1, -(2 ** 31)]) {
    out.push({ code, message: `odd ${code}` });
  }
  const odd = [
    "",
    "Connection closed",
    "Request timed out",
    "MCP error -32000: Connection closed",
    `leaks ${SECRET} here`,
    `line one\nline two ${SECRET}`,
    "ünïcødé ✓ \u0000 \u202e",
    '{"jsonrpc":"2.0","id":1,"result":{}}',
    "y".repeat(5000),
  ];
  for (const message of odd) out.push({ code: -32000, message }, { code: -32001, message });
  return out;
}

Deno.test("a downstream's JSON-RPC error is the tool's result, redacted, and never trips a breaker", async () => {
  const s = await start({ extra: "breaker: { failure_threshold: 3, open_ms: 30000 }" });
  const carol = await client(s, "carol");
  const alice = await client(s, "alice");
  try {
    const cases = errorCases();
    for (const { code, message } of cases) {
      const result = await carol.c.callTool({ name: "h__fail", arguments: { code, message } });
      const shown = text(result);
      assert.equal(result.isError, true, `code ${code}: ${shown}`);
      assert.ok(!shown.includes(SECRET), `code ${code} leaked the secret: ${shown}`);
      assert.ok(!/unavailable/.test(shown), `code ${code} read as a transport failure: ${shown}`);
      assert.ok(shown.includes(`${code}`), `code ${code} is not named: ${shown}`);
      const expected = message.replaceAll(SECRET, "[REDACTED]");
      assert.ok(shown.includes(expected), `code ${code}: ${JSON.stringify(shown.slice(0, 300))}`);
    }
    // Well over the threshold of three from carol: alice is still served by the same downstream.
    const ok = await alice.c.callTool({ name: "h__echo", arguments: { text: "still there" } });
    assert.equal(ok.isError, undefined);
    assert.equal(text(ok), "still there [REDACTED]");
  } finally {
    await carol.c.close();
    await alice.c.close();
    await s.close();
  }
});

Deno.test("an answer that does not parse ends its call at once and counts toward the downstream's health", async () => {
  const kinds = [
    "code_string",
    "message_number",
    "result_string",
    "result_array",
    "result_null",
    "no_version",
    "error_null",
  ];
  const threshold = kinds.length + 1;
  const s = await start({
    extra: `breaker: { failure_threshold: ${threshold}, open_ms: 30000 }\ncall_timeout_ms: 20000`,
  });
  const carol = await client(s, "carol");
  try {
    for (const kind of kinds) {
      const started = Date.now();
      const result = await carol.c.callTool({ name: "h__bad_answer", arguments: { kind } });
      assert.equal(result.isError, true, kind);
      assert.match(text(result), /the tool's server is unavailable/, kind);
      assert.ok(Date.now() - started < 5_000, `${kind}: answered after ${Date.now() - started} ms`);
    }
    // One more opens the downstream's breaker: unparseable frames say nothing about the call.
    await carol.c.callTool({ name: "h__bad_answer", arguments: { kind: kinds[0] } });
    const after = await carol.c.callTool({ name: "h__echo", arguments: { text: "x" } });
    assert.match(text(after), /temporarily unavailable/);
  } finally {
    await carol.c.close();
    await s.close();
  }
});

Deno.test("messages a downstream sends outside an answer reach no other client", async (t) => {
  await t.step(
    "a shared session forwards nothing it cannot attribute; progress only to its own call",
    async () => {
      const s = await start();
      const alice = await client(s, "alice");
      const dave = await client(s, "dave");
      const requests: string[] = [];
      for (const { c } of [alice, dave]) {
        // Any request from the gateway to a client would land here.
        c.fallbackRequestHandler = (request) => {
          requests.push(request.method);
          return Promise.reject(new Error("never"));
        };
      }
      try {
        const daveProgress: unknown[] = [];
        // alice's call answers at once; its log line and late progress come while only dave's call runs.
        const aliceResult = await alice.c.callTool(
          {
            name: "h__log_after",
            arguments: { delay_ms: 300, text: "alice private data" },
          },
          undefined,
          { onprogress: () => {} },
        );
        assert.equal(text(aliceResult), "answered");
        const daveCall = dave.c.callTool({ name: "h__slow", arguments: { delay_ms: 1200 } }, undefined, {
          onprogress: (p) => void daveProgress.push(p),
        });
        // Everything a server may send outside an answer, while dave's call is still running.
        const unsolicited = await dave.c.callTool({ name: "h__unsolicited", arguments: { delay_ms: 200 } });
        assert.equal(text(unsolicited), "unsolicited done");
        assert.equal(text(await daveCall), "slow done");
        assert.deepEqual(dave.logs, [], "dave received a log line that was not his");
        assert.deepEqual(alice.logs, [], "a shared session's log line cannot be attributed");
        assert.deepEqual(daveProgress, [], "dave received progress on a token that is not his call's");
        assert.deepEqual(requests, [], "a server-to-client request was forwarded");
        // Each request was refused to the downstream with a JSON-RPC error (ping is answered).
        const inbox = JSON.parse(text(await alice.c.callTool({ name: "h__inbox", arguments: {} }))) as {
          id: string;
          error?: { code: number };
          result?: unknown;
        }[];
        const byId = new Map(inbox.map((m) => [m.id, m]));
        for (const id of ["req-sampling", "req-elicit", "req-roots"]) {
          assert.equal(byId.get(id)?.error?.code, -32601, `${id}: ${JSON.stringify(byId.get(id))}`);
        }
        assert.deepEqual(byId.get("req-ping")?.result, {});
      } finally {
        await alice.c.close();
        await dave.c.close();
        await s.close();
      }
    },
  );
  await t.step(
    "a late answer to a cancelled call is dropped and the shared session keeps serving",
    async () => {
      const s = await start();
      const alice = await client(s, "alice");
      const dave = await client(s, "dave");
      try {
        const abort = new AbortController();
        const cancelled = alice.c.callTool({ name: "h__late", arguments: { delay_ms: 400 } }, undefined, {
          signal: abort.signal,
        });
        await new Promise((r) => setTimeout(r, 100));
        abort.abort();
        await assert.rejects(cancelled);
        // dave's call is in flight when alice's late answer arrives; he gets his own answer only.
        const daveResult = await dave.c.callTool({ name: "h__slow", arguments: { delay_ms: 800 } });
        assert.equal(text(daveResult), "slow done");
        assert.deepEqual(dave.logs, []);
        assert.equal(
          text(await alice.c.callTool({ name: "h__echo", arguments: { text: "a" } })),
          "a [REDACTED]",
        );
      } finally {
        await alice.c.close();
        await dave.c.close();
        await s.close();
      }
    },
  );
  await t.step("a per-client session forwards its log lines to its own client only", async () => {
    const s = await start({ sessionMode: "per_client" });
    const alice = await client(s, "alice");
    const dave = await client(s, "dave");
    try {
      // Each client's session first, so that both of alice's calls below share hers.
      for (const { c } of [alice, dave]) await c.callTool({ name: "h__echo", arguments: { text: "warm" } });
      const daveCall = dave.c.callTool({ name: "h__slow", arguments: { delay_ms: 1500 } });
      const aliceSlow = alice.c.callTool({ name: "h__slow", arguments: { delay_ms: 1500 } });
      await alice.c.callTool({ name: "h__log_after", arguments: { delay_ms: 200, text: "for alice" } });
      await aliceSlow;
      await daveCall;
      assert.deepEqual(alice.logs, ["for alice"]);
      assert.deepEqual(dave.logs, []);
    } finally {
      await alice.c.close();
      await dave.c.close();
      await s.close();
    }
  });
});

/** Kibibytes of a `/proc/<pid>/status` field (`VmRSS`, `VmHWM`: the peak resident set). */
function statusKb(pid: number, field: string): number {
  const line = Deno.readTextFileSync(`/proc/${pid}/status`).split("\n").find((l) =>
    l.startsWith(`${field}:`)
  );
  return Number(line?.split(/\s+/)[1] ?? NaN);
}

/** A gateway process (`deno run src/gateway/cli.ts`) in front of the hostile server, with alice's key. */
async function startProcess(
  dir: string,
  downstreamEnv: string[] = [],
  extra = "",
): Promise<{ child: Deno.ChildProcess; url: string; key: string; metricsUrl?: string }> {
  const key = randomKey();
  await Deno.writeTextFile(
    `${dir}/gateway.yaml`,
    `
listen: 127.0.0.1:0
clients: [{ id: alice, api_key_env: PROC_KEY }]
downstreams:
${
      stdioDownstream("h", ["run", "--allow-env", "--allow-run", "--allow-write", JSON.stringify(SERVER)], [
        "secrets: { HOSTILE_SECRET: PROC_SECRET }",
        ...(downstreamEnv.length === 0 ? [] : [`env: { ${downstreamEnv.join(", ")} }`]),
      ])
    }
policy: { default: deny, clients: { alice: { allow: ["h__*"] } } }
${extra}
`,
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../src/gateway/cli.ts", import.meta.url).pathname,
      "--config",
      `${dir}/gateway.yaml`,
    ],
    env: { PROC_KEY: key, PROC_SECRET: SECRET },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // The log says where it listens; the rest of stderr is drained so the gateway never blocks on it.
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const deadline = Date.now() + 60_000;
  while (!/listening on (\S+)/.test(seen)) {
    const { done, value } = await lines.read();
    if (done || Date.now() > deadline) throw new Error(`gateway did not start: ${seen}`);
    seen += value;
  }
  (async () => {
    while (!(await lines.read()).done) { /* drain */ }
  })().catch(() => {});
  const metricsUrl = /metrics on (\S+)/.exec(seen)?.[1];
  return { child, url: /listening on ([^\s,]+)/.exec(seen)![1], key, ...(metricsUrl ? { metricsUrl } : {}) };
}

Deno.test("a 60 MB answer is discarded while it is read: bounded gateway memory, session still usable", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw-big-" });
  const audit = `${dir}/audit.jsonl`;
  const { child, url, key } = await startProcess(
    dir,
    [],
    `redaction: { max_result_bytes: 1048576 }\naudit: { sink: ${JSON.stringify(`file:${audit}`)} }`,
  );
  const c = await connect(url, key);
  try {
    // Warm up (first call, first allocation of everything on the path), then take the peak as baseline.
    for (let i = 0; i < 3; i++) {
      const r = await c.callTool({ name: "h__big", arguments: { bytes: 500_000 } });
      assert.equal(text(r).length, 500_000);
    }
    const before = statusKb(child.pid, "VmHWM");
    const calls = Array.from(
      { length: 6 },
      (_, i) => c.callTool({ name: "h__big", arguments: { bytes: 60_000_000, id_last: i % 2 === 1 } }),
    );
    // And a call whose log line and progress message are 30 MB each: dropped as read, the answer intact.
    const flood = c.callTool({ name: "h__flood", arguments: { count: 1, bytes: 30_000_000 } }, undefined, {
      onprogress: () => {},
    });
    const results = await Promise.all(calls);
    for (const r of results) {
      assert.equal(r.isError, true);
      assert.match(text(r), /^result too large: .* exceeds the limit of 1048576 bytes$/);
    }
    assert.equal(text(await flood), "flooded");
    const grownMb = (statusKb(child.pid, "VmHWM") - before) / 1024;
    // Six answers of 60 MB held whole would take ~560 MB; within the cap they need a few MB each.
    assert.ok(grownMb < 80, `the gateway's peak memory grew by ${grownMb.toFixed(0)} MB`);
    // The same session serves on: nothing was restarted, the next answer is intact.
    assert.equal(
      text(await c.callTool({ name: "h__echo", arguments: { text: "after" } })),
      "after [REDACTED]",
    );
    // Each replaced answer is recorded as truncated, like one the redact(out) stage cut.
    const lines = async () => (await Deno.readTextFile(audit)).trim().split("\n");
    await waitFor(async () => (await lines()).length >= 10, 10_000, "the audit records");
    const records = (await lines()).map((l) => JSON.parse(l));
    assert.equal(records.filter((r) => r.tool_name === "h__big" && r.truncated === true).length, 6);
  } finally {
    await c.close();
    child.kill("SIGKILL");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a client that never reads its stream: its notifications are bounded and dropped, not queued", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw-flood-" });
  const { child, url, key, metricsUrl } = await startProcess(dir, [], "metrics_listen: 127.0.0.1:0");
  const headers = {
    authorization: `Bearer ${key}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const call = (id: number, args: Record<string, unknown>) =>
    fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "h__flood", arguments: args, _meta: { progressToken: `p${id}` } },
      }),
    });
  try {
    const count = 3000;
    const done = `${dir}/flood.done`;
    const unread = await call(2, { count, bytes: 20_000, done_file: done });
    assert.equal(unread.headers.get("content-type"), "text/event-stream");
    await waitFor(async () => await Deno.stat(done).then(() => true, () => false), 60_000, "the flood");
    // Let the gateway read the rest of the pipe, then look at what it kept for this client.
    await new Promise((r) => setTimeout(r, 1000));
    const body = await unread.text();
    // 115 MB of SSE would be queued for her. What reaches her is the per-call bound (1 MiB) plus what
    // the kernel's loopback socket buffers took before she stopped reading (a few MB, not the gateway's).
    assert.ok(body.length < 16 * 1024 * 1024, `${(body.length / 1048576).toFixed(1)} MB were queued`);
    const events = body.split("\n\n").filter((e) => e.startsWith("event: message"));
    assert.ok(events.length < count / 4, `${events.length} of ${2 * count} notifications were queued`);
    // The answer is never dropped: it ends the stream, after what was kept of the progress.
    assert.ok(events.at(-1)!.includes('"flooded"'), "the result ends the stream");
    // What was dropped is counted for the operator.
    const metrics = await (await fetch(metricsUrl!)).text();
    const dropped = Number(/^gateway_notifications_dropped_total (\d+)/m.exec(metrics)?.[1]);
    // (The log lines never got that far: a shared session cannot attribute them.)
    assert.equal(dropped, count - (events.length - 1), "every dropped notification is counted");
    // Her next call has its own bound again.
    const next = await (await call(3, { count: 5, bytes: 100 })).text();
    assert.equal(next.split("\n\n").filter((e) => e.startsWith("event: message")).length, 6);
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});

for (const signal of ["SIGKILL", "SIGABRT"] as const) {
  Deno.test(`${signal} of the gateway: every downstream process and its descendants are gone within 2 s`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "gw-orphan-" });
    const pidfile = `${dir}/pids.json`;
    await Deno.writeTextFile(
      `${dir}/gateway.yaml`,
      `
listen: 127.0.0.1:0
clients: [{ id: alice, api_key_env: ORPHAN_KEY }]
downstreams:
${
        stdioDownstream("h", ["run", "--allow-env", "--allow-run", "--allow-write", JSON.stringify(SERVER)], [
          "secrets: { HOSTILE_SECRET: ORPHAN_SECRET }",
          `env: { HOSTILE_IGNORE_SIGNALS: "1", HOSTILE_PIDFILE: ${JSON.stringify(pidfile)} }`,
        ])
      }
policy: { default: deny, clients: { alice: { allow: ["h__*"] } } }
`,
    );
    const gateway = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../src/gateway/cli.ts", import.meta.url).pathname,
        "--config",
        `${dir}/gateway.yaml`,
      ],
      env: { ORPHAN_KEY: randomKey(), ORPHAN_SECRET: SECRET },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    let pids: { pid: number; grandchild: number } | undefined;
    try {
      await waitFor(
        async () => {
          try {
            pids = JSON.parse(await Deno.readTextFile(pidfile));
            return true;
          } catch {
            return false;
          }
        },
        60_000,
        "the downstream to start",
      );
      const { pid, grandchild } = pids!;
      assert.ok(alive(pid) && alive(grandchild));
      assert.ok(Deno.readTextFileSync(`/proc/${pid}/environ`).includes(SECRET));
      gateway.kill(signal);
      await gateway.status;
      const killedAt = Date.now();
      await waitFor(() => !alive(pid) && !alive(grandchild), 2_000, "the downstream and its child to end")
        .catch(() => {});
      const left = [pid, grandchild].filter(alive);
      assert.deepEqual(left, [], `alive ${Date.now() - killedAt} ms after the gateway's death`);
    } finally {
      for (const p of pids === undefined ? [] : [pids.pid, pids.grandchild]) {
        try {
          Deno.kill(p, "SIGKILL");
        } catch {
          // Already gone, as it should be.
        }
      }
      try {
        gateway.kill("SIGKILL");
      } catch {
        // Already dead.
      }
      await gateway.status;
      await Deno.remove(dir, { recursive: true });
    }
  });
}
