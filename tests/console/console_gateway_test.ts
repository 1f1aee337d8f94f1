/**
 * The console through a whole gateway over real sockets, without a browser: the configuration it shows
 * names every key and secret by its variable and never holds a value; a client key cannot open it (not
 * at login, not as a bearer token); it is served on `metrics_listen` too, which keeps serving metrics;
 * a reload's result and diff reach open pages; and closing the gateway ends open pages' streams.
 */
import assert from "node:assert/strict";
import { Gateway } from "../../src/gateway/mod.ts";
import { loadConfig, randomKey, stdioDownstream } from "../gateway/_helpers.ts";

const SERVER = new URL("./fixtures/echo_server.ts", import.meta.url).pathname;

function yaml(dir: string, extraClient = ""): string {
  return `
listen: 127.0.0.1:0
metrics_listen: 127.0.0.1:0
clients:
  - { id: alice, api_key_env: G_ALICE_KEY }
${extraClient}
operators:
  - { id: ops, api_key_env: G_OPS_KEY }
downstreams:
${stdioDownstream("echo", ["run", JSON.stringify(SERVER)], ["secrets: { ECHO_TOKEN: G_ECHO_SECRET }"])}
policy:
  clients:
    alice: { allow: ["echo__*"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
auth_rate_limit: { burst: 1000 }
`;
}

/** Logs in at `origin` and returns the session cookie (or the refusal's status). */
async function login(origin: string, key: string): Promise<string | number> {
  const res = await fetch(`${origin}/console/login`, {
    method: "POST",
    body: new URLSearchParams({ key }),
    headers: { origin },
    redirect: "manual",
  });
  await res.body?.cancel();
  return res.status === 303 ? res.headers.get("set-cookie")!.split(";")[0] : res.status;
}

/** Reads events from `/console/events` until `until` holds for one, or the stream ends. */
async function readEvents(
  origin: string,
  init: RequestInit,
  until: (event: string, data: Record<string, unknown>) => boolean,
): Promise<{ status: number; seen?: Record<string, unknown>; ended: boolean }> {
  const res = await fetch(`${origin}/console/events`, init);
  if (res.status !== 200) {
    await res.body?.cancel();
    return { status: res.status, ended: true };
  }
  const reader = res.body!.getReader();
  let text = "";
  const deadline = Date.now() + 10_000;
  try {
    while (Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) return { status: 200, ended: true };
      text += new TextDecoder().decode(value);
      let end;
      while ((end = text.indexOf("\n\n")) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? "";
        const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null");
        if (until(event, data)) return { status: 200, seen: data, ended: false };
      }
    }
    throw new Error("no such event in time");
  } finally {
    await reader.cancel().catch(() => {});
  }
}

Deno.test({
  name: "console: served on both listeners to operators only, secrets shown by name, reloads shown",
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "console-gw-" });
    const env = {
      G_ALICE_KEY: randomKey(),
      G_OPS_KEY: randomKey(),
      G_BOB_KEY: randomKey(),
      G_ECHO_SECRET: `echo-secret-${randomKey()}`,
    };
    const gateway = await Gateway.create(await loadConfig(dir, yaml(dir), env), {
      startTimeoutMs: 60_000,
      log: () => {},
    });
    const { url, metricsUrl } = await gateway.serve();
    const main = new URL(url).origin;
    const metrics = new URL(metricsUrl!).origin;
    try {
      await t.step("a client key opens nothing: not at login, not as a bearer token", async () => {
        for (const origin of [main, metrics]) {
          assert.equal(await login(origin, env.G_ALICE_KEY), 401);
          assert.equal(await login(origin, randomKey()), 401);
          for (const key of [env.G_ALICE_KEY, env.G_OPS_KEY]) {
            const bearer = await readEvents(
              origin,
              { headers: { authorization: `Bearer ${key}` } },
              () => true,
            );
            assert.equal(bearer.status, 401, "the console takes a session, not a bearer key");
          }
        }
      });

      await t.step(
        "on either listener an operator sees the configuration with names, never values",
        async () => {
          for (const origin of [main, metrics]) {
            const cookie = await login(origin, env.G_OPS_KEY);
            assert.equal(typeof cookie, "string");
            const { seen } = await readEvents(
              origin,
              { headers: { cookie: cookie as string } },
              (e) => e === "config",
            );
            const text = JSON.stringify(seen);
            for (const value of [env.G_ALICE_KEY, env.G_OPS_KEY, env.G_ECHO_SECRET]) {
              assert.ok(!text.includes(value), "no key or secret value in the view");
            }
            const config = (seen as { config: Record<string, unknown> }).config;
            assert.deepEqual(config.clients, [{ id: "alice", mode: null, api_key_env: "G_ALICE_KEY" }]);
            assert.deepEqual(config.operators, [{ id: "ops", api_key_env: "G_OPS_KEY" }]);
            const [echo] = config.downstreams as Record<string, unknown>[];
            assert.deepEqual(echo.secrets, { ECHO_TOKEN: "${G_ECHO_SECRET}" });
          }
          // The metrics listener still serves metrics.
          const res = await fetch(metricsUrl!);
          assert.match(await res.text(), /gateway_calls_total/);
        },
      );

      await t.step("a reload's result and diff reach an open page", async () => {
        const cookie = await login(main, env.G_OPS_KEY) as string;
        const next = await loadConfig(
          dir,
          yaml(dir, "  - { id: bob, api_key_env: G_BOB_KEY }"),
          env,
          "next.yaml",
        );
        const reloaded = readEvents(
          main,
          { headers: { cookie } },
          (e, d) => e === "config" && d.reload !== null,
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
        await gateway.reload({ ...next, audit: gateway.config.audit });
        const { seen } = await reloaded;
        const reload = seen!.reload as { ok: boolean; diff: Record<string, string[]> };
        assert.equal(reload.ok, true);
        assert.deepEqual(reload.diff, { started: [], restarted: [], stopped: [], ignored: [] });
        const clients = (seen!.config as { clients: { id: string }[] }).clients.map((c) => c.id);
        assert.deepEqual(clients, ["alice", "bob"]);
        gateway.noteReloadFailure(`gateway.yaml: bad value ${env.G_ECHO_SECRET}`);
        const failed = await readEvents(
          main,
          { headers: { cookie } },
          (e, d) => e === "config" && d.reload !== null,
        );
        const text = JSON.stringify(failed.seen);
        assert.match(text, /"ok":false/);
        assert.ok(!text.includes(env.G_ECHO_SECRET), "the failure text is redacted");
      });

      await t.step("closing the gateway ends an open page's stream", async () => {
        const cookie = await login(main, env.G_OPS_KEY) as string;
        const open = readEvents(main, { headers: { cookie } }, () => false);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await gateway.close();
        assert.equal((await open).ended, true);
      });
    } finally {
      await gateway.close();
    }
  },
});
