/**
 * Where the gateway CLI finds its configuration file: `--config FILE`, a positional `FILE`, or the
 * `GATEWAY_CONFIG` variable — the last two because the MCP Inspector's CLI takes `--config` for itself.
 * Parsed cases are generated over every way to say it; the variable and the positional form are also
 * served for real, over stdio to an SDK client started the way the Inspector starts a server (its own
 * small environment, the gateway's command line after its own flags).
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CONFIG_ENV, parseArgs } from "../../src/gateway/cli.ts";
import { DENO, stdioDownstream } from "./_helpers.ts";

const CLI = new URL("../../src/gateway/cli.ts", import.meta.url).pathname;
const SERVER = new URL("../console/fixtures/echo_server.ts", import.meta.url).pathname;
const PERMISSIONS = ["--allow-read", "--allow-write", "--allow-env", "--allow-net", "--allow-run"];

Deno.test("cli: the file comes from --config, a positional FILE or GATEWAY_CONFIG, in that order", () => {
  const noEnv = () => undefined;
  const withEnv = (name: string) => name === CONFIG_ENV ? "from-env.yaml" : undefined;
  const rest = [[], ["--check"], ["--stdio", "alice"], ["--watch", "--log-downstream-stderr"]];
  for (const flags of rest) {
    const forms: [string[], string][] = [
      [["--config", "a.yaml", ...flags], "a.yaml"],
      [["--config=a.yaml", ...flags], "a.yaml"],
      [["a.yaml", ...flags], "a.yaml"],
      [[...flags, "a.yaml"], "a.yaml"],
    ];
    for (const [argv, want] of forms) {
      for (const env of [noEnv, withEnv]) {
        const parsed = parseArgs(argv, env);
        assert.ok(typeof parsed !== "string", `${argv.join(" ")}: ${parsed}`);
        // The command line always beats the variable.
        assert.equal(parsed.config, want, argv.join(" "));
      }
    }
    const fromEnv = parseArgs(flags, withEnv);
    assert.ok(typeof fromEnv !== "string" && fromEnv.config === "from-env.yaml", flags.join(" "));
    const none = parseArgs(flags, noEnv);
    assert.ok(typeof none === "string" && /GATEWAY_CONFIG\) is required/.test(none), flags.join(" "));
    for (
      const twice of [["a.yaml", "b.yaml"], ["--config", "a.yaml", "b.yaml"], ["a.yaml", "--config", "b"]]
    ) {
      const r = parseArgs([...twice, ...flags], withEnv);
      assert.ok(typeof r === "string" && /given twice/.test(r), twice.join(" "));
    }
  }
  assert.match(parseArgs(["--frobnicate"], withEnv) as string, /unknown argument "--frobnicate"/);
  assert.match(parseArgs(["--config", ""], noEnv) as string, /is required/);
});

async function serveOverStdio(args: string[], extraEnv: Record<string, string>): Promise<string[]> {
  const dir = await Deno.makeTempDir({ prefix: "gw-cfg-src-" });
  const file = `${dir}/gateway.yaml`;
  await Deno.writeTextFile(
    file,
    `listen: 127.0.0.1:0
mode: passthrough
clients:
  - { id: alice, api_key_env: SRC_ALICE_KEY }
downstreams:
${stdioDownstream("echo", ["run", JSON.stringify(SERVER)])}
policy:
  clients:
    alice: { allow: ["echo__e*"] }
audit: { sink: stdout }
`,
  );
  // The Inspector gives a server only a few variables of its own plus the ones `-e` names.
  const env: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" };
  for (const [k, v] of Object.entries(extraEnv)) env[k] = v.replace("$FILE", file);
  const client = new Client({ name: "config-source", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: DENO,
    args: ["run", ...PERMISSIONS, CLI, ...args.map((a) => a.replace("$FILE", file)), "--stdio", "alice"],
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Uint8Array) => stderr += new TextDecoder().decode(c));
  try {
    await client.connect(transport, { timeout: 60_000 });
    return (await client.listTools(undefined, { timeout: 60_000 })).tools.map((t) => t.name);
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : err}\n${stderr}`);
  } finally {
    await client.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cli: a gateway started with GATEWAY_CONFIG (no --config) serves its client over stdio", async () => {
  assert.deepEqual(await serveOverStdio([], { [CONFIG_ENV]: "$FILE" }), ["echo__echo"]);
});

Deno.test("cli: a gateway started with the file as a positional argument serves over stdio", async () => {
  assert.deepEqual(await serveOverStdio(["$FILE"], {}), ["echo__echo"]);
});
