/**
 * The operator console in a real browser (headless Chromium through puppeteer-core) against a real
 * gateway with a real stdio downstream and real MCP clients over HTTP: an operator logs in and sees
 * calls arrive within a second, filters the audit table, sees the downstream's breaker open when its
 * process is killed; a client key is refused like no key; the page raises no CSP violation. Screenshots
 * of the main views are saved as artifacts (see `_browser.ts`).
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { Gateway } from "../../src/gateway/mod.ts";
import { connect, loadConfig, randomKey, stdioDownstream, waitFor } from "../gateway/_helpers.ts";
import { artifactsDir, launchBrowser } from "./_browser.ts";

const SERVER = new URL("./fixtures/echo_server.ts", import.meta.url).pathname;

/**
 * The page's `document`, for the callbacks below that run in the browser. Declared here rather than by
 * loading the DOM library, which would change the types of every other module checked with this one.
 */
// deno-lint-ignore no-explicit-any
declare const document: any;

function configYaml(dir: string): string {
  return `
listen: 127.0.0.1:0
clients:
  - { id: alice, api_key_env: C_ALICE_KEY }
  - { id: bob, api_key_env: C_BOB_KEY }
operators:
  - { id: ops, api_key_env: C_OPS_KEY }
downstreams:
${stdioDownstream("echo", ["run", JSON.stringify(SERVER)], ["call_timeout_ms: 1000"])}
policy:
  clients:
    alice: { allow: ["echo__*"] }
    bob: { allow: ["echo__echo"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
breaker: { failure_threshold: 1, open_ms: 60000 }
auth_rate_limit: { burst: 1000 }
`;
}

/** The audit table's rows as [client, tool, decision, outcome]. */
function auditRows(page: Page): Promise<string[][]> {
  return page.$$eval(
    "#audit tbody tr",
    (rows) => rows.map((tr) => [...tr.querySelectorAll("td")].slice(1, 5).map((td) => td.textContent ?? "")),
  );
}

async function login(page: Page, base: string, key: string): Promise<number> {
  await page.goto(`${base}/console`);
  await page.type("#key", key);
  const [response] = await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
  return response?.status() ?? 0;
}

Deno.test({
  name: "console: an operator sees the gateway live in a browser; a client key is refused",
  // The browser's websocket and child process outlive single steps by design.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "console-e2e-" });
    const env = { C_ALICE_KEY: randomKey(), C_BOB_KEY: randomKey(), C_OPS_KEY: randomKey() };
    const gateway = await Gateway.create(await loadConfig(dir, configYaml(dir), env), {
      startTimeoutMs: 60_000,
      backoffBaseMs: 200,
      log: () => {},
      configFile: `${dir}/gateway.yaml`,
    });
    const { url } = await gateway.serve();
    const base = new URL(url).origin;
    const browser = await launchBrowser();
    const artifacts = await artifactsDir();
    const alice = await connect(url, env.C_ALICE_KEY);
    const bob = await connect(url, env.C_BOB_KEY);
    try {
      await t.step("a client key gets the refusal of a wrong key, and no session", async () => {
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        const refusals: string[] = [];
        for (const key of [env.C_ALICE_KEY, randomKey()]) {
          assert.equal(await login(page, base, key), 401);
          refusals.push(await page.$eval("main", (m) => m.textContent ?? ""));
          assert.equal(await page.$("#downstreams"), null, "the console itself is not shown");
        }
        assert.equal(refusals[0], refusals[1]);
        assert.match(refusals[0], /Login failed/);
        assert.deepEqual(await context.cookies(), []);
        const events = await page.evaluate(async () => (await fetch("/console/events")).status);
        assert.equal(events, 401);
        await page.screenshot({ path: `${artifacts}/login-refused.png` });
        await context.close();
      });

      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      const violations: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") violations.push(m.text());
      });
      page.on("pageerror", (e) => violations.push(String(e)));

      await t.step("an operator logs in and sees the downstream up", async () => {
        assert.equal(await login(page, base, env.C_OPS_KEY), 200);
        const cookies = await page.cookies();
        const session = cookies.find((c) => c.name === "codemode_console");
        assert.ok(session, "a session cookie was set");
        assert.equal(session.httpOnly, true);
        assert.equal(session.sameSite, "Strict");
        await page.waitForFunction(() => document.getElementById("status")?.textContent === "live");
        await page.waitForFunction(() =>
          [...document.querySelectorAll("#downstreams tbody tr")].some((tr) =>
            tr.textContent?.includes("echo") && tr.querySelector(".state-up") !== null
          )
        );
        const cells = await page.$$eval("#downstreams tbody tr td", (tds) => tds.map((td) => td.textContent));
        assert.deepEqual(cells.slice(0, 5), ["echo", "up", "stdio", "3", "0"]);
      });

      await t.step("a call appears in the audit table within 1 s of making it", async () => {
        // Three calls; the median delay must be under a second (a loaded CI machine may stall one).
        const delays: number[] = [];
        for (let i = 0; i < 3; i++) {
          const before = (await auditRows(page)).length;
          const started = performance.now();
          await alice.callTool({ name: "echo__echo", arguments: { text: "hello" } });
          await page.waitForFunction(
            (n) => document.querySelectorAll("#audit tbody tr").length > n,
            { timeout: 5000, polling: 20 },
            before,
          );
          delays.push(performance.now() - started);
          const [newest] = await auditRows(page);
          assert.deepEqual(newest, ["alice", "echo__echo", "allowed", "ok"]);
        }
        const median = delays.sort((a, b) => a - b)[1];
        assert.ok(median < 1000, `shown after ${delays.map(Math.round).join(", ")} ms`);
      });

      await t.step("the audit table filters by client, tool, decision and outcome", async () => {
        await bob.callTool({ name: "echo__echo", arguments: { text: "b" } });
        await bob.callTool({ name: "echo__sleep", arguments: { ms: 1 } }).catch(() => {});
        // Past the downstream's 1 s timeout: the gateway answers with an error.
        await alice.callTool({ name: "echo__sleep", arguments: { ms: 5000 } }).catch(() => {});
        await alice.callTool({ name: "echo__echo", arguments: { text: "a" } });
        // 9 records so far: the two refused logins, then alice echo ok ×3, bob echo ok, bob sleep denied,
        // alice sleep timed out, alice echo ok (newest first).
        await page.waitForFunction(() => document.querySelectorAll("#audit tbody tr").length >= 9);
        const all = await auditRows(page);
        assert.deepEqual(all, [
          ["alice", "echo__echo", "allowed", "ok"],
          ["alice", "echo__sleep", "allowed", "error"],
          ["bob", "echo__sleep", "denied_default", "denied"],
          ["bob", "echo__echo", "allowed", "ok"],
          ["alice", "echo__echo", "allowed", "ok"],
          ["alice", "echo__echo", "allowed", "ok"],
          ["alice", "echo__echo", "allowed", "ok"],
          ["(unauthenticated)", "", "unauthenticated", "denied"],
          ["(unauthenticated)", "", "unauthenticated", "denied"],
        ]);
        await page.select("#filter-client", "bob");
        assert.deepEqual(await auditRows(page), [
          ["bob", "echo__sleep", "denied_default", "denied"],
          ["bob", "echo__echo", "allowed", "ok"],
        ]);
        await page.select("#filter-client", "");
        await page.select("#filter-outcome", "error");
        assert.deepEqual(await auditRows(page), [["alice", "echo__sleep", "allowed", "error"]]);
        await page.select("#filter-outcome", "");
        await page.select("#filter-decision", "denied_default");
        assert.deepEqual(await auditRows(page), [["bob", "echo__sleep", "denied_default", "denied"]]);
        await page.select("#filter-decision", "");
        await page.type("#filter-tool", "sleep");
        assert.deepEqual((await auditRows(page)).map((r) => r[0]), ["alice", "bob"]);
        await page.$eval("#filter-tool", (el) => {
          (el as unknown as { value: string }).value = "";
          el.dispatchEvent(new Event("input"));
        });
        assert.equal((await auditRows(page)).length, 9);
        await page.screenshot({ path: `${artifacts}/console.png`, fullPage: true });
      });

      await t.step("a record explains its decision: reason code and the rule's file:line", async () => {
        const lineOf = (needle: string) =>
          configYaml(dir).split("\n").findIndex((l) => l.includes(needle)) + 1;
        const explanation = async (client: string, tool: string) => {
          await page.$$eval(
            "#audit tbody tr",
            (rows, c, t) => {
              const row = rows.find((tr) => {
                const cells = [...tr.querySelectorAll("td")].map((td) => td.textContent);
                return cells[1] === c && cells[2] === t;
              });
              (row as unknown as { click(): void }).click();
            },
            client,
            tool,
          );
          await page.waitForFunction(() =>
            !document.getElementById("explanation")?.textContent?.startsWith("…")
          );
          return await page.$eval("#explanation", (el) => el.textContent);
        };
        assert.equal(
          await explanation("bob", "echo__sleep"),
          [
            "decision: denied (denied_default)",
            `rule: none: no allow rule of "bob" at ${dir}/gateway.yaml:${lineOf("    bob:")} matches`,
            'tool: exists: downstream "echo" lists it',
          ].join("\n"),
        );
        assert.equal(
          await explanation("alice", "echo__echo"),
          [
            "decision: allowed (allowed)",
            `rule: allow "echo__*" at ${dir}/gateway.yaml:${lineOf('alice: { allow: ["echo__*"] }')}`,
            'tool: exists: downstream "echo" lists it',
          ].join("\n"),
        );
      });

      await t.step("the breaker opens when the downstream's process dies", async () => {
        const [pid] = gateway.downstreams[0].pids;
        assert.ok(pid > 0);
        const slow = alice.callTool({ name: "echo__hang", arguments: {} }).then(
          () => "answered",
          () => "failed",
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        Deno.kill(pid, "SIGKILL");
        await slow;
        await page.waitForFunction(
          () =>
            [...document.querySelectorAll("#downstreams tbody td.breaker")].some((td) =>
              td.textContent?.startsWith("open (half-opens in")
            ),
          { timeout: 5000 },
        );
        const breaker = await page.$eval("#downstreams tbody td.breaker", (td) => td.textContent ?? "");
        const seconds = Number(/half-opens in (\d+) s/.exec(breaker)?.[1]);
        assert.ok(seconds > 50 && seconds <= 60, breaker);
        // The downstream comes back (a restart with back-off) while the breaker stays open.
        await waitFor(() => gateway.downstreams[0].state === "up", 20_000, "the downstream's restart");
        await page.waitForFunction(
          () => document.querySelector("#downstreams tbody tr td:nth-child(5)")?.textContent === "1",
          { timeout: 5000 },
        );
        await page.screenshot({ path: `${artifacts}/breaker-open.png`, fullPage: true });
        // The overview as docs/console.png shows it (the visible part only, to stay small).
        await page.screenshot({ path: `${artifacts}/overview.png` });
      });

      await t.step("under a burst of calls the page stays live, bounded and current", async () => {
        // Well past 10,000 records a minute for a few seconds (calls through the whole pipeline).
        const started = performance.now();
        let calls = 0;
        const worker = async () => {
          while (performance.now() - started < 3000) {
            await gateway.callTool("bob", "echo__sleep", { ms: 1 }).catch(() => {});
            calls++;
          }
        };
        await Promise.all(Array.from({ length: 8 }, worker));
        const perMinute = calls / ((performance.now() - started) / 60_000);
        assert.ok(perMinute > 10_000, `${Math.round(perMinute)} records a minute`);
        await page.waitForFunction(
          () => document.getElementById("audit-count")?.textContent === "(500 shown of the newest 500)",
          { timeout: 2000 },
        );
        const rows = await auditRows(page);
        assert.equal(rows.length, 500);
        assert.deepEqual(rows[0], ["bob", "echo__sleep", "denied_default", "denied"]);
        assert.equal(await page.$eval("#status", (el) => el.textContent), "live");
        // The client figures (sent every second) catch up with every call.
        await page.waitForFunction(
          (n) =>
            [...document.querySelectorAll("#clients tbody tr")].some((tr) => {
              const cells = [...tr.querySelectorAll("td")].map((td) => td.textContent);
              return cells[0] === "bob" && Number(cells[2]) >= n;
            }),
          { timeout: 3000 },
          calls,
        );
      });

      assert.deepEqual(violations, [], "no script error and no CSP violation on the page");
      console.error(`console screenshots in ${artifacts}`);
    } finally {
      await alice.close().catch(() => {});
      await bob.close().catch(() => {});
      await browser.close();
      await gateway.close();
    }
  },
});
