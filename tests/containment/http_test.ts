/**
 * Issue 9 over HTTP: the real serve CLI (`deno task serve --http 127.0.0.1:0`, default limits; its
 * default executor, and the process executor) receives the hostile corpus through the MCP SDK client, 50 calls at a time, while `/healthz`
 * is polled every 50 ms. The server must keep answering `/healthz` throughout, answer every call with the
 * text of the class the corpus labels, keep serving a normal call afterwards, and exit cleanly.
 *
 * As in the harness, a deadline (`resource_limit` whose text names maxExecutionTime) is accepted for
 * every program because the time budget includes the wait for a slot; how many quick programs ended
 * that way is printed.
 *
 * Programs that need the harness-only capabilities (`text.echo`, `data.total`, `data.size`) are left out: the demo
 * server does not have them.
 */
import assert from "node:assert/strict";
import { ERROR_TEXTS } from "../../mcp.ts";
import type { ErrorCode } from "../../mod.ts";
import { childEnv, cliArgs, SERVE_CLI, spawnListening, startHttpCli } from "../mcp/cli_helpers.ts";
import { executorProblems } from "../../src/core/mod.ts";
import { connectClient } from "../mcp/http_helpers.ts";
import { HOSTILE_CORPUS, type Outcome } from "./corpus.ts";
import { quantile } from "./harness.ts";

/** A `/healthz` answer slower than this counts as the server not answering. */
const HEALTH_TIMEOUT_MS = 2_000;

/** The error code whose fixed text starts a tool result's text. */
function outcomeOfText(text: string): Outcome | "unrecognised" {
  // A program's own fail() is an invalid_program whose text says so itself (src/mcp/errors.ts).
  if (text.startsWith("program failed: ")) return "invalid_program";
  for (const [code, fixed] of Object.entries(ERROR_TEXTS)) {
    if (text === fixed || text.startsWith(`${fixed}: `)) return code as ErrorCode;
  }
  return "unrecognised";
}

interface Probe {
  readonly ok: boolean;
  readonly ms: number;
  readonly what: string;
}

async function pollHealth(url: string, stop: AbortSignal): Promise<Probe[]> {
  const probes: Probe[] = [];
  while (!stop.aborted) {
    const t0 = performance.now();
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
      const body = await res.text();
      probes.push({
        // Answering is the point: 503 "degraded" (a sandbox that has not stopped yet still holds its
        // slot) is the server telling the truth, not the server gone.
        ok: (res.status === 200 && body.includes('"ok"')) ||
          (res.status === 503 && body.includes('"degraded"')),
        ms: performance.now() - t0,
        what: body,
      });
    } catch (err) {
      probes.push({
        ok: false,
        ms: performance.now() - t0,
        what: err instanceof Error ? err.name : String(err),
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return probes;
}

/** A running serve CLI. */
interface Cli {
  readonly url: string;
  stop(): Promise<number>;
}

/**
 * Starts the serve CLI on `--http 127.0.0.1:0`: with `deno task serve`'s permissions (its default
 * executor is then the worker pool), or with `--allow-run` added and `--executor process`.
 */
async function startCli(executor: "default" | "process"): Promise<Cli> {
  if (executor === "default") return await startHttpCli();
  const args = cliArgs(["--http", "127.0.0.1:0", "--executor", "process"]);
  args.splice(args.indexOf(SERVE_CLI), 0, "--allow-run");
  const { address, stop } = await spawnListening(args, childEnv(), /listening on (http:\/\/\S+)/);
  return { url: address, stop };
}

async function storm(executor: "default" | "process"): Promise<void> {
  const cli = await startCli(executor);
  const stopPolling = new AbortController();
  try {
    const client = await connectClient(cli.url);
    const health = pollHealth(new URL("/healthz", cli.url).href, stopPolling.signal);
    const programs = HOSTILE_CORPUS.filter((p) => !p.harnessOnly);
    const results: { name: string; outcome: string; ok: boolean; queued: boolean; ms: number }[] = [];
    let next = 0;
    const lane = async () => {
      while (next < programs.length) {
        const program = programs[next++];
        const t0 = performance.now();
        const r = await client.callTool(
          { name: "execute", arguments: { source: program.source } },
          undefined,
          { timeout: 60_000 },
        );
        const text = (r.content as { type: string; text: string }[])[0]?.text ?? "";
        const outcome = r.isError ? outcomeOfText(text) : "ok";
        // The detail of a resource limit names the budget: the time budget includes the queue.
        const timedOut = outcome === "resource_limit" && text.includes("maxExecutionTime");
        results.push({
          name: program.name,
          outcome,
          ok: (program.expect as readonly string[]).includes(outcome) || timedOut,
          queued: timedOut && !program.expect.includes("resource_limit"),
          ms: performance.now() - t0,
        });
      }
    };
    await Promise.all(Array.from({ length: 50 }, lane));
    // The server still does ordinary work after the storm.
    const after = await client.callTool({
      name: "execute",
      arguments: { source: 'def main():\n    return crm.customer(id="c-104")["city"]\n' },
    });
    stopPolling.abort();
    const probes = await health;
    await client.close();

    const failed = probes.filter((p) => !p.ok);
    const ms = probes.map((p) => p.ms);
    console.log(
      `[containment http ${executor}] ${results.length} hostile calls, ` +
        `${results.filter((r) => r.queued).length} quick ones timed out in the queue, slowest ${
          Math.max(...results.map((r) => r.ms)).toFixed(0)
        } ms; ` +
        `/healthz ${probes.length} probes, ${failed.length} failed, p50 ${
          quantile(ms, 0.5).toFixed(1)
        } ms, ` +
        `p99 ${quantile(ms, 0.99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(0)} ms`,
    );
    assert.deepEqual(after.structuredContent, { result: "Berlin" });
    assert.equal(results.length, programs.length);
    assert.deepEqual(results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.outcome}`), []);
    assert.ok(probes.length > 10, `only ${probes.length} /healthz probes ran`);
    assert.deepEqual(failed.map((p) => `${p.ms.toFixed(0)} ms: ${p.what}`), [], "/healthz stopped answering");
  } finally {
    stopPolling.abort();
    // Exit status 0: the server survived and shut down cleanly.
    assert.equal(await cli.stop(), 0);
  }
}

Deno.test("containment over HTTP: the corpus 50 at a time leaves /healthz answering (serve defaults)", () =>
  storm("default"));

Deno.test({
  name: "containment over HTTP: the corpus 50 at a time leaves /healthz answering (--executor process)",
  ignore: executorProblems("process").length > 0,
  fn: () => storm("process"),
});
