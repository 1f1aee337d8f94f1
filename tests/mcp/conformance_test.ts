/**
 * The official MCP conformance suite (`npm:@modelcontextprotocol/conformance`, run with Deno) against
 * the serve CLI's Streamable HTTP endpoint: the server scenarios server-initialize, ping, tools-list and
 * dns-rebinding-protection. The DNS-rebinding scenario targets keyless loopback servers, so the CLI
 * runs in its local development mode.
 */
import assert from "node:assert/strict";
import { startHttpCli } from "./cli_helpers.ts";

const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";
const CONFORMANCE_LOCK = new URL("./conformance.lock", import.meta.url).pathname;
const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"] as const;

Deno.test("MCP conformance: server scenarios pass against the HTTP endpoint", async (t) => {
  const cli = await startHttpCli();
  // The suite may write result files into its working directory; keep them out of the repository.
  const work = await Deno.makeTempDir({ prefix: "codemode-conformance-" });
  try {
    for (const scenario of SCENARIOS) {
      await t.step(scenario, async () => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            "--quiet",
            // The suite is a test tool, not a dependency of the product: it runs outside the project's
            // configuration with its own lock file, so deno.lock (which every product run installs
            // whole on an empty cache) never lists it.
            "--no-config",
            `--lock=${CONFORMANCE_LOCK}`,
            CONFORMANCE,
            "server",
            "--url",
            cli.url,
            "--scenario",
            scenario,
          ],
          cwd: work,
          env: { NO_COLOR: "1" },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
        assert.equal(out.code, 0, text);
        const passed = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(text);
        assert.ok(passed, text);
        assert.equal(passed[1], passed[2], text);
        assert.ok(Number(passed[2]) >= 1, text);
        assert.equal(passed[3], "0", text);
        assert.doesNotMatch(text, /FAILURE/);
      });
    }
  } finally {
    await Deno.remove(work, { recursive: true });
    assert.equal(await cli.stop(), 0);
  }
});
