import assert from "node:assert/strict";
import type { StdioDownstreamConfig } from "../config/mod.ts";
import { type CallContext, type Notification, parseToolRef } from "../domain/mod.ts";
import { DownstreamRegistry } from "./registry.ts";
import { childEnvironment, connectionHeaders } from "./spec.ts";
import { liveProcessGroupCount } from "./stdio.ts";

const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";

function everything(over: Partial<StdioDownstreamConfig> = {}): StdioDownstreamConfig {
  return {
    name: "everything",
    transport: "stdio",
    command: Deno.execPath(),
    args: ["run", "--no-config", "-A", EVERYTHING, "stdio"],
    env: { LITERAL_VAR: "literal" },
    envPassthrough: ["NODE_EXTRA_CA_CERTS"],
    secrets: { SERVICE_TOKEN: "tok-9f8e7d6c5b4a" },
    secretEnv: { SERVICE_TOKEN: "TEST_SERVICE_TOKEN" },
    sessionMode: "shared",
    pool: 4,
    ...over,
  };
}

function processAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // A zombie (state Z) has exited and only waits to be reaped.
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

function context(signal = new AbortController().signal, seen: Notification[] = []): CallContext {
  return {
    signal,
    notify: (n) => seen.push(n),
    trace: { redactions: 0, truncated: false, breakerState: "" },
  };
}

function callOf(clientId: string, name: string, args: Record<string, string | number> = {}) {
  return { client: { id: clientId }, tool: parseToolRef(name), name, args };
}

function textOf(payload: unknown): string {
  const content = (payload as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? "").join("");
}

Deno.test("child environment: minimal set, passthrough, env, secrets; nothing else of the host", () => {
  const host: Record<string, string> = {
    HOME: "/home/g",
    PATH: "/bin",
    USER: "g",
    SHELL: "() { evil; }",
    NODE_EXTRA_CA_CERTS: "/ca.pem",
    ALICE_KEY: "gateway-own-key-000000",
    OTHER: "x",
  };
  const env = childEnvironment(everything(), (n) => host[n]);
  assert.deepEqual(env, {
    HOME: "/home/g",
    PATH: "/bin",
    USER: "g",
    NODE_EXTRA_CA_CERTS: "/ca.pem",
    LITERAL_VAR: "literal",
    SERVICE_TOKEN: "tok-9f8e7d6c5b4a",
  });
  // A secret wins over a literal of the same name.
  const clash = childEnvironment(everything({ env: { SERVICE_TOKEN: "literal" } }), () => undefined);
  assert.equal(clash.SERVICE_TOKEN, "tok-9f8e7d6c5b4a");
  const headers = connectionHeaders({
    name: "h",
    transport: "http",
    url: "http://x/mcp",
    headers: { "x-a": "1", authorization: "literal" },
    secrets: { authorization: "Bearer s" },
    secretEnv: { authorization: "S" },
    sessionMode: "shared",
    pool: 1,
  });
  assert.deepEqual(headers, { "x-a": "1", authorization: "Bearer s" });
});

Deno.test({
  name: "stdio downstream: listing, secrets in env, progress, crash restart with back-off, no process left",
  async fn() {
    const states: string[] = [];
    Deno.env.set("GATEWAY_OWN_SECRET_FOR_TEST", "must-not-leak-1234567");
    const registry = new DownstreamRegistry({
      hostEnv: (n) => Deno.env.get(n),
      startTimeoutMs: 120_000,
      events: { stateChanged: (_n, s) => states.push(s) },
      backoffBaseMs: 200,
    });
    try {
      await registry.apply([everything()]);
      const names = registry.catalog.tools.map((t) => t.name);
      assert.ok(names.includes("everything__echo") && names.includes("everything__get-env"), names.join());

      const env = JSON.parse(
        textOf((await registry.dispatch(callOf("a", "everything__get-env"), context())).payload),
      );
      assert.equal(env.SERVICE_TOKEN, "tok-9f8e7d6c5b4a");
      assert.equal(env.LITERAL_VAR, "literal");
      assert.equal(env.GATEWAY_OWN_SECRET_FOR_TEST, undefined);
      for (const k of Object.keys(env)) {
        assert.ok(
          [
            "HOME",
            "LOGNAME",
            "PATH",
            "SHELL",
            "TERM",
            "USER",
            "NODE_EXTRA_CA_CERTS",
            "LITERAL_VAR",
            "SERVICE_TOKEN",
          ]
            .includes(k) || k.startsWith("npm_"),
          `unexpected variable ${k}`,
        );
      }

      const seen: Notification[] = [];
      const long = await registry.dispatch(
        callOf("a", "everything__trigger-long-running-operation", { duration: 1, steps: 2 }),
        context(undefined, seen),
      );
      assert.match(textOf(long.payload), /completed/);
      // The server may answer before its last progress line is read, so only the first is certain.
      assert.ok(seen.length >= 1);
      assert.deepEqual([seen[0].method, seen[0].params.progress, seen[0].params.total], [
        "notifications/progress",
        1,
        2,
      ]);

      // A cancelled call is classified as cancelled, not as a downstream failure.
      const ac = new AbortController();
      const pending = registry.dispatch(
        callOf("a", "everything__trigger-long-running-operation", { duration: 5, steps: 5 }),
        context(ac.signal),
      );
      setTimeout(() => ac.abort(), 100);
      await assert.rejects(pending, (e: Error & { code?: string }) => e.code === "cancelled");

      const d = registry.get("everything")!;
      const [pid] = d.pids;
      d.killForTest();
      await assert.rejects(
        registry.dispatch(callOf("a", "everything__echo", { message: "x" }), context()),
        (e: Error & { code?: string }) => e.code === "downstream_unavailable",
      );
      for (let i = 0; i < 300 && d.state !== "up"; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(d.state, "up");
      assert.ok(!processAlive(pid), "the killed child is gone");
      assert.notEqual(d.pids[0], pid);
      assert.deepEqual(states.slice(0, 3), ["up", "down", "up"]);
      const echo = await registry.dispatch(callOf("a", "everything__echo", { message: "back" }), context());
      assert.equal(textOf(echo.payload), "Echo: back");
      await registry.probe("everything", new AbortController().signal);
    } finally {
      const pids = registry.downstreams.flatMap((d) => d.pids);
      await registry.close();
      Deno.env.delete("GATEWAY_OWN_SECRET_FOR_TEST");
      for (const pid of pids) assert.ok(!processAlive(pid), `child ${pid} survived close`);
      assert.equal(liveProcessGroupCount(), 0);
    }
  },
});

Deno.test({
  name: "per-client pool: own sessions, fails fast when exhausted; a failing downstream leaves others up",
  async fn() {
    let exhausted = 0;
    const registry = new DownstreamRegistry({
      hostEnv: (n) => Deno.env.get(n),
      startTimeoutMs: 120_000,
      events: { poolExhausted: () => exhausted++ },
      backoffBaseMs: 60_000,
    });
    try {
      await registry.apply([
        everything({ sessionMode: "per_client", pool: 1 }),
        everything({ name: "broken", command: "/nonexistent/program", args: [] }),
      ]);
      assert.equal(registry.get("broken")!.state, "down");
      assert.ok(registry.catalog.lookup("everything__echo") !== undefined);
      assert.equal(registry.catalog.tools.filter((t) => t.ref.downstream === "broken").length, 0);

      const slow = registry.dispatch(
        callOf("alice", "everything__trigger-long-running-operation", { duration: 1, steps: 1 }),
        context(),
      );
      slow.catch(() => {});
      const started = performance.now();
      await assert.rejects(
        registry.dispatch(callOf("bob", "everything__echo", { message: "b" }), context()),
        (e: Error & { code?: string }) => e.code === "pool_exhausted",
      );
      // Fails fast: well before alice's one-second call ends.
      assert.ok(performance.now() - started < 900);
      assert.equal(exhausted, 1);
      await slow;
      // Alice's session is idle now, so bob's call replaces it.
      const echo = await registry.dispatch(callOf("bob", "everything__echo", { message: "b" }), context());
      assert.equal(textOf(echo.payload), "Echo: b");
      assert.equal(registry.get("everything")!.pids.length, 1);
    } finally {
      await registry.close();
      assert.equal(liveProcessGroupCount(), 0);
    }
  },
});

const DYNAMIC = new URL("./testdata/dynamic_server.ts", import.meta.url).pathname;

function dynamic(over: Partial<StdioDownstreamConfig> = {}): StdioDownstreamConfig {
  return everything({
    name: "dyn",
    args: ["run", "--allow-env", "--allow-read", DYNAMIC],
    secrets: {},
    ...over,
  });
}

Deno.test("tools/list_changed refreshes the catalog; a crash-looping server backs off; reloads restart or stop", async () => {
  const states: string[] = [];
  const registry = new DownstreamRegistry({
    hostEnv: (n) => Deno.env.get(n),
    startTimeoutMs: 120_000,
    events: { stateChanged: (_n, s) => states.push(s) },
    backoffBaseMs: 300,
    stableMs: 60_000,
  });
  try {
    await registry.apply([dynamic()]);
    assert.deepEqual(registry.catalog.tools.map((t) => t.name), ["dyn__add_tool", "dyn__crash", "dyn__say"]);
    await registry.dispatch(callOf("a", "dyn__add_tool"), context());
    for (let i = 0; i < 400 && registry.catalog.lookup("dyn__added_1") === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(registry.catalog.lookup("dyn__added_1") !== undefined, "list_changed was followed");
    assert.equal(
      textOf((await registry.dispatch(callOf("a", "dyn__added_1"), context())).payload),
      "added_1",
    );

    // Crash loop: each crash within stableMs doubles the delay before the next start.
    const d = registry.get("dyn")!;
    const restarts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const crashedAt = performance.now();
      await registry.dispatch(callOf("a", "dyn__crash"), context()).catch(() => {});
      for (let j = 0; j < 1000 && d.state === "up"; j++) await new Promise((r) => setTimeout(r, 10));
      // A call while it is down fails at once; it is not queued or retried.
      await assert.rejects(
        registry.dispatch(callOf("a", "dyn__add_tool"), context()),
        (e: Error & { code?: string }) => e.code === "downstream_unavailable",
      );
      for (let j = 0; j < 2000 && d.state !== "up"; j++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(d.state, "up");
      restarts.push(performance.now() - crashedAt);
    }
    // Delays of 300, 600 and 1200 ms before each restart (plus start-up time, which varies with load).
    assert.ok(restarts[0] >= 300 && restarts[1] >= 600 && restarts[2] >= 1200, restarts.join());

    // A changed entry restarts the downstream; a removed one is stopped and its process ends.
    const [before] = d.pids;
    await registry.apply([dynamic({ env: { CHANGED: "1" } })]);
    const restarted = registry.get("dyn")!;
    assert.notEqual(restarted, d);
    assert.ok(!processAlive(before));
    const [after] = restarted.pids;
    assert.ok(processAlive(after));
    await registry.apply([]);
    assert.ok(!processAlive(after));
    assert.equal(registry.catalog.size, 0);
  } finally {
    await registry.close();
    assert.equal(liveProcessGroupCount(), 0);
  }
});

Deno.test("a shared session forwards no log line (it cannot be attributed), progress only to its call", async () => {
  const registry = new DownstreamRegistry({ hostEnv: (n) => Deno.env.get(n), startTimeoutMs: 120_000 });
  try {
    await registry.apply([dynamic()]);
    const alone: Notification[] = [];
    await registry.dispatch(callOf("alice", "dyn__say", { text: "solo" }), context(undefined, alone));
    // Even a lone call's log line is dropped: it could as well concern a call that has just answered.
    assert.equal(alone.find((n) => n.method === "notifications/message"), undefined);
    assert.ok(alone.some((n) => n.method === "notifications/progress" && n.params.message === "solo "));

    // Alice's call is in flight when bob's starts: neither receives a log line; each its own progress.
    const seen = { alice: [] as Notification[], bob: [] as Notification[] };
    const first = registry.dispatch(
      callOf("alice", "dyn__say", { text: "from-alice", delay_ms: 3000 }),
      context(undefined, seen.alice),
    );
    // Bob starts once alice's progress has arrived and her call still runs.
    for (let i = 0; i < 400 && seen.alice.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    await registry.dispatch(callOf("bob", "dyn__say", { text: "from-bob" }), context(undefined, seen.bob));
    await first;
    const logs = (who: Notification[]) =>
      who.filter((n) => n.method === "notifications/message").map((n) => String(n.params.data));
    assert.deepEqual(logs(seen.alice), []);
    assert.deepEqual(logs(seen.bob), []);
    // Progress carries its request's token, so it always reaches the right caller.
    assert.ok(
      seen.bob.some((n) => n.method === "notifications/progress" && n.params.message === "from-bob "),
    );
    assert.ok(
      !JSON.stringify(seen.alice).includes("from-bob") && !JSON.stringify(seen.bob).includes("from-alice"),
    );
  } finally {
    await registry.close();
  }
});
