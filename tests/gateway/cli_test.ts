/**
 * The gateway CLI as a process: `--check`, serving with SIGHUP and `--watch` reloads (a bad file keeps the running
 * configuration), `--stdio`, and no downstream process left after SIGTERM or SIGINT.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  alive,
  connect,
  DENO,
  descendants,
  everythingDownstream,
  memoryDownstream,
  prefetchServers,
  randomKey,
  text,
  waitFor,
} from "./_helpers.ts";

await prefetchServers();

const CLI = new URL("../../src/gateway/cli.ts", import.meta.url).pathname;
const PERMISSIONS = ["--allow-read", "--allow-write", "--allow-env", "--allow-net", "--allow-run"];

function yaml(dir: string, bobAllow: string): string {
  return `
listen: 127.0.0.1:0
clients:
  - { id: alice, api_key_env: CLI_ALICE_KEY }
  - { id: bob, api_key_env: CLI_BOB_KEY }
downstreams:
${everythingDownstream()}
${memoryDownstream(dir)}
policy:
  default: deny
  clients:
    alice: { allow: ["everything__*", "memory__*"] }
    bob: { allow: [${bobAllow}] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
`;
}

/** A running CLI process with its stderr collected. */
class CliProcess {
  readonly child: Deno.ChildProcess;
  stderr = "";
  readonly #pump: Promise<void>;

  constructor(args: string[], env: Record<string, string>) {
    const child = new Deno.Command(DENO, {
      args: ["run", ...PERMISSIONS, CLI, ...args],
      env,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    this.child = child;
    this.#pump = (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) this.stderr += chunk;
    })();
  }

  async waitFor(pattern: RegExp, ms = 120_000): Promise<RegExpMatchArray> {
    await waitFor(() => pattern.test(this.stderr), ms, `${pattern} in gateway stderr:\n${this.stderr}`);
    return this.stderr.match(pattern)!;
  }

  async exit(): Promise<Deno.CommandStatus> {
    const status = await this.child.status;
    await this.#pump;
    return status;
  }
}

Deno.test("--check reports every problem with its place and exits non-zero", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw-cli-" });
  try {
    await Deno.writeTextFile(
      `${dir}/bad.yaml`,
      `listen: 0.0.0.0:8790
bogus_key: 1
call_timeout_ms: soon
clients:
  - { id: alice, api_key_env: CLI_MISSING_KEY_VAR }
  - { id: alice, api_key_env: CLI_ALICE_KEY }
downstreams:
  memory: { transport: stdio, command: deno, pool: many }
policy:
  default: allow
  clients:
    alice: { allow: ["nowhere__*"] }
`,
    );
    const bad = await new Deno.Command(DENO, {
      args: ["run", ...PERMISSIONS, CLI, "--config", `${dir}/bad.yaml`, "--check"],
      env: { CLI_ALICE_KEY: randomKey() },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(bad.stderr);
    assert.equal(bad.code, 1, out);
    for (
      const needle of [
        "bogus_key",
        "call_timeout_ms",
        "CLI_MISSING_KEY_VAR",
        "pool",
        "policy.default",
        "nowhere",
      ]
    ) {
      assert.ok(out.includes(needle), `${needle} not reported:\n${out}`);
    }
    assert.match(out, /bad\.yaml:\d+:\d+: /);
    assert.ok(out.split("\n").filter((l) => l.includes("bad.yaml:")).length >= 6, out);
    // Without --strict an unset variable is a warning (CI lints without secrets); with it, a problem.
    assert.match(out, /^warning: .*CLI_MISSING_KEY_VAR/m);
    const strict = await new Deno.Command(DENO, {
      args: ["run", ...PERMISSIONS, CLI, "--config", `${dir}/bad.yaml`, "--check", "--strict"],
      env: { CLI_ALICE_KEY: randomKey() },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const strictOut = new TextDecoder().decode(strict.stderr);
    assert.equal(strict.code, 1);
    assert.match(strictOut, /^[^w].*bad\.yaml:\d+:\d+: .*CLI_MISSING_KEY_VAR .* is not set/m);

    await Deno.writeTextFile(`${dir}/good.yaml`, yaml(dir, "everything__echo"));
    const good = await new Deno.Command(DENO, {
      args: ["run", ...PERMISSIONS, CLI, "--config", `${dir}/good.yaml`, "--check"],
      env: { CLI_ALICE_KEY: randomKey(), CLI_BOB_KEY: randomKey() },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(good.code, 0, new TextDecoder().decode(good.stderr));
    // Nothing was started: the audit file a running gateway would have opened does not exist.
    await assert.rejects(Deno.stat(`${dir}/audit.jsonl`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// SIGTERM with SIGHUP reloads, SIGINT with --watch reloads.
for (const [signal, watch] of [["SIGTERM", false], ["SIGINT", true]] as const) {
  const how = watch ? "--watch" : "SIGHUP";
  Deno.test(`serving: ${how} reloads (a bad file keeps the config); ${signal} leaves no process`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "gw-cli-" });
    const env = { CLI_ALICE_KEY: randomKey(), CLI_BOB_KEY: randomKey(), PATH: Deno.env.get("PATH") ?? "" };
    const extra = Deno.env.get("NODE_EXTRA_CA_CERTS");
    if (extra !== undefined) Object.assign(env, { NODE_EXTRA_CA_CERTS: extra });
    const file = `${dir}/gateway.yaml`;
    await Deno.writeTextFile(file, yaml(dir, "everything__echo"));
    const cli = new CliProcess(["--config", file, watch ? "--watch" : "--log-downstream-stderr"], env);
    const reload = () => watch ? undefined : Deno.kill(cli.child.pid, "SIGHUP");
    let children: number[] = [];
    try {
      const [, url] = await cli.waitFor(/listening on (http:\/\/\S+\/mcp)/);
      children = descendants(cli.child.pid);
      assert.ok(children.length >= 2, `downstream processes: ${children}`);
      const health = await fetch(new URL("/healthz", url));
      assert.deepEqual(await health.json(), { status: "ok" });

      const bob = await connect(url, env.CLI_BOB_KEY);
      assert.deepEqual((await bob.listTools()).tools.map((t) => t.name), ["everything__echo"]);
      await Deno.writeTextFile(file, "listen: [unbalanced\n");
      reload();
      await cli.waitFor(/rejected, keeping the running configuration/);
      assert.deepEqual((await bob.listTools()).tools.map((t) => t.name), ["everything__echo"]);
      await Deno.writeTextFile(file, yaml(dir, "everything__echo, memory__read_graph"));
      reload();
      await cli.waitFor(/configuration reloaded/);
      assert.deepEqual((await bob.listTools()).tools.map((t) => t.name).sort(), [
        "everything__echo",
        "memory__read_graph",
      ]);
      assert.equal(
        text(await bob.callTool({ name: "everything__echo", arguments: { message: "m" } })),
        "Echo: m",
      );
      await bob.close();

      Deno.kill(cli.child.pid, signal);
      const status = await cli.exit();
      assert.equal(status.code, 0, cli.stderr);
      assert.match(cli.stderr, /draining/);
      // What the reference servers print on stderr is copied to the log only when asked for.
      if (watch) assert.doesNotMatch(cli.stderr, / stderr: /);
      else assert.match(cli.stderr, /^gateway: downstream (memory|everything) stderr: \S/m);
      for (const pid of children) assert.ok(!alive(pid), `downstream ${pid} survived ${signal}`);
    } finally {
      try {
        cli.child.kill("SIGKILL");
      } catch {
        // Already exited.
      }
      await cli.exit().catch(() => {});
      for (const pid of children) if (alive(pid)) Deno.kill(pid, "SIGKILL");
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("--stdio CLIENT_ID serves one client through the same pipeline", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw-cli-" });
  const file = `${dir}/gateway.yaml`;
  await Deno.writeTextFile(
    file,
    yaml(dir, "everything__echo").replace(/audit: .*\n/, "audit: { sink: stdout }\n"),
  );
  const env: Record<string, string> = {
    CLI_ALICE_KEY: randomKey(),
    CLI_BOB_KEY: randomKey(),
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "",
  };
  const extra = Deno.env.get("NODE_EXTRA_CA_CERTS");
  if (extra !== undefined) env.NODE_EXTRA_CA_CERTS = extra;
  const client = new Client({ name: "stdio-e2e", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: DENO,
    args: ["run", ...PERMISSIONS, CLI, "--config", file, "--stdio", "bob"],
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Uint8Array) => stderr += new TextDecoder().decode(c));
  try {
    await client.connect(transport, { timeout: 120_000 });
    const names = (await client.listTools(undefined, { timeout: 120_000 })).tools.map((t) => t.name);
    assert.deepEqual(names, ["everything__echo"]);
    assert.equal(
      text(await client.callTool({ name: "everything__echo", arguments: { message: "s" } })),
      "Echo: s",
    );
    await assert.rejects(client.callTool({ name: "memory__read_graph", arguments: {} }), /unknown tool/);
  } finally {
    await client.close();
    await waitFor(() => /gateway: stopped/.test(stderr), 30_000, `stdio gateway exit:\n${stderr}`);
    // The audit lines went to stderr: stdout carried only the protocol.
    assert.match(stderr, /"tool_name":"everything__echo"/);
    await Deno.remove(dir, { recursive: true });
  }
});
