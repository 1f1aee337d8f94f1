/**
 * The gateway as an operator runs it, under the conditions operators meet: a file system that fills up
 * under the audit log (a real file-size limit, not a fake sink), a stop signal sent to the whole process
 * group, a configuration file replaced by rename or symlink swap while `--watch` runs.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DENO } from "./_helpers.ts";

const AUDIT_MOD = new URL("../../src/gateway/audit/mod.ts", import.meta.url).href;

Deno.test({
  name: "audit on a full file system: the log holds only whole JSON lines, each answered record is in it",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "gw-ops-" });
    try {
      // A child whose file-size limit is 4 KiB stands in for a full disk: writes past it are short, then
      // fail (EFBIG), the way ENOSPC does. Bursts of records, some of which no longer fit.
      const script = `${dir}/fill.ts`;
      await Deno.writeTextFile(
        script,
        `import { AuditWriter, fileTarget } from ${JSON.stringify(AUDIT_MOD)};
const writer = new AuditWriter(await fileTarget(Deno.args[0]), {
  buffer: 256, highWater: 256, fsyncMs: 0, securityBlockMs: 5000,
});
const answered = [];
for (let burst = 0; burst < 6; burst++) {
  const size = 1 + burst * 3;
  const outcomes = await Promise.all(Array.from({ length: size }, (_, i) => {
    const n = burst * 100 + i;
    return writer.submit({
      timestamp: new Date(n).toISOString(), client_id: "c".repeat(1 + (n % 37)), tool_name: "memory__x",
      decision: "denied_default", allowed: false, latency_ms: 1, breaker_state: "", redactions: 0,
      truncated: false, error: "unknown tool",
    }).then(() => n, () => -1);
  }));
  answered.push(...outcomes.filter((n) => n >= 0));
}
await writer.close();
console.log(JSON.stringify({ answered, stats: writer.stats }));
`,
      );
      const path = `${dir}/audit.jsonl`;
      const out = await new Deno.Command("bash", {
        args: ["-c", 'trap "" XFSZ; ulimit -f 4; exec "$0" run -A "$1" "$2"', DENO, script, path],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.ok(out.success, stderr);
      const { answered, stats } = JSON.parse(new TextDecoder().decode(out.stdout));
      const text = await Deno.readTextFile(path);
      assert.ok(stats.unwritable > 0, "the limit was reached");
      assert.ok(text.length <= 4096);
      assert.ok(text.endsWith("\n"), "no torn last line");
      const lines = text.slice(0, -1).split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((l) => new Date(l.timestamp).getTime()), answered);
      assert.equal(stats.written, answered.length);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const CLI = new URL("../../src/gateway/cli.ts", import.meta.url).pathname;
const PERMISSIONS = ["--allow-read", "--allow-write", "--allow-env", "--allow-net", "--allow-run"];

/** The gateway CLI as a process (optionally wrapped, e.g. by a supervisor shell), stderr collected. */
class Cli {
  readonly child: Deno.ChildProcess;
  stderr = "";
  readonly #pump: Promise<void>;

  constructor(command: string, args: string[], env: Record<string, string>) {
    const child = new Deno.Command(command, { args, env, stdin: "null", stdout: "null", stderr: "piped" })
      .spawn();
    this.child = child;
    this.#pump = (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) this.stderr += chunk;
    })();
  }

  static gateway(args: string[], env: Record<string, string>): Cli {
    return new Cli(DENO, ["run", ...PERMISSIONS, CLI, ...args], env);
  }

  /** Waits until stderr matches `pattern` `count` times. */
  async waitFor(pattern: RegExp, count = 1, ms = 60_000): Promise<void> {
    const g = new RegExp(pattern.source, "g");
    const end = Date.now() + ms;
    while ((this.stderr.match(g) ?? []).length < count) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern} x${count} in:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async exit(): Promise<Deno.CommandStatus> {
    const status = await this.child.status;
    await this.#pump;
    return status;
  }
}

function key(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

Deno.test("--check lints a file without its secrets (warnings), --check --strict requires them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw-ops-" });
  try {
    const file = `${dir}/gateway.yaml`;
    const yaml = (extra = "") => `
listen: 127.0.0.1:0
clients:
  - { id: alice, api_key_env: OPS_ALICE_KEY }
  - { id: bob, api_key_env: OPS_BOB_KEY }
downstreams:
  tool:
    transport: stdio
    command: deno
    secrets: { TOKEN: OPS_TOOL_TOKEN }
${extra}
`;
    const run = async (args: string[], env: Record<string, string>) => {
      const cli = Cli.gateway(["--config", file, "--check", ...args], env);
      const status = await cli.exit();
      return { code: status.code, stderr: cli.stderr };
    };
    await Deno.writeTextFile(file, yaml());
    const lax = await run([], {});
    assert.equal(lax.code, 0, lax.stderr);
    for (const v of ["OPS_ALICE_KEY", "OPS_BOB_KEY", "OPS_TOOL_TOKEN"]) {
      assert.match(lax.stderr, new RegExp(`warning: .*environment variable ${v} .*is not set`));
    }
    assert.match(lax.stderr, /ok \(2 clients, 1 downstreams; 3 variables not set/);
    const strict = await run(["--strict"], {});
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /3 problems/);
    const alice = key();
    const full = await run(["--strict"], { OPS_ALICE_KEY: alice, OPS_BOB_KEY: key(), OPS_TOOL_TOKEN: key() });
    assert.equal(full.code, 0, full.stderr);
    assert.doesNotMatch(full.stderr, /warning/);
    // A passthrough of a client's key variable is refused with or without the secrets.
    await Deno.writeTextFile(file, yaml("    env_passthrough: [OPS_ALICE_KEY]"));
    const envs: Record<string, string>[] = [{}, {
      OPS_ALICE_KEY: alice,
      OPS_BOB_KEY: key(),
      OPS_TOOL_TOKEN: key(),
    }];
    for (const env of envs) {
      const leak = await run([], env);
      assert.equal(leak.code, 1);
      assert.match(leak.stderr, /"OPS_ALICE_KEY" holds the API key of client alice/);
      assert.ok(!leak.stderr.includes(alice));
    }
    // A shape problem fails even without secrets.
    await Deno.writeTextFile(file, yaml("    pool: many"));
    assert.equal((await run([], {})).code, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A gateway file with `clients` (each reading key variable `<ID>_KEY`) and bob's allow list. */
function watchYaml(dir: string, clients: string[], bobAllow: string, aliceKeyVar = "ALICE_KEY"): string {
  const entries = clients.map((id) =>
    `  - { id: ${id}, api_key_env: ${id === "alice" ? aliceKeyVar : `${id.toUpperCase()}_KEY`} }`
  );
  return `listen: 127.0.0.1:0
clients:
${entries.join("\n")}
downstreams:
  # Nothing listens there: the downstream stays down (and retried), which this test does not mind.
  x: { transport: http, url: "http://127.0.0.1:9/mcp" }
policy:
  clients:
    bob: { allow: [${bobAllow}] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
`;
}

type Replace = (path: string, text: string, dir: string) => Promise<void>;

/** How a file gets replaced rather than written in place. */
const REPLACERS: [string, Replace][] = [
  ["rename-replace", async (path, text) => {
    // An editor's atomic save: write a temporary file, rename it over the path.
    await Deno.writeTextFile(`${path}.swp`, text);
    await Deno.rename(`${path}.swp`, path);
  }],
  ["sed -i", async (path, text, dir) => {
    // sed -i writes a new file and renames it over the path, as the issue's report did.
    await Deno.writeTextFile(`${dir}/new-content`, text);
    const out = await new Deno.Command("sed", {
      args: ["-i", "-e", `1r ${dir}/new-content`, "-e", "d", path],
    })
      .output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
  }],
  ["symlink swap", async (_path, text, dir) => {
    // A Kubernetes ConfigMap update: a new directory, then the `..data` link swapped to it atomically.
    const version = `..v${crypto.randomUUID().slice(0, 8)}`;
    await Deno.mkdir(`${dir}/${version}`);
    await Deno.writeTextFile(`${dir}/${version}/gateway.yaml`, text);
    await Deno.symlink(version, `${dir}/..data_tmp`);
    await Deno.rename(`${dir}/..data_tmp`, `${dir}/..data`);
  }],
];

for (const [how, replace] of REPLACERS) {
  Deno.test({
    name: `--watch keeps seeing changes after the file is replaced by ${how}, and logs what changed`,
    ignore: Deno.build.os === "windows",
    fn: async () => {
      const dir = await Deno.makeTempDir({ prefix: "gw-watch-" });
      const keys = {
        ALICE_KEY: key(),
        ALICE_KEY2: key(),
        BOB_KEY: key(),
        CAROL_KEY: key(),
        DAVE_KEY: key(),
      };
      const path = `${dir}/gateway.yaml`;
      if (how === "symlink swap") {
        await Deno.mkdir(`${dir}/..v0`);
        await Deno.writeTextFile(`${dir}/..v0/gateway.yaml`, watchYaml(dir, ["alice", "bob"], "x__a"));
        await Deno.symlink("..v0", `${dir}/..data`);
        await Deno.symlink("..data/gateway.yaml", path);
      } else {
        await Deno.writeTextFile(path, watchYaml(dir, ["alice", "bob"], "x__a"));
      }
      const cli = Cli.gateway(["--config", path, "--watch"], keys);
      try {
        await cli.waitFor(/listening on/);
        let reloads = 0;
        const expectReload = async (pattern: RegExp) => {
          await cli.waitFor(/configuration reloaded|rejected/, ++reloads, 20_000);
          const last = cli.stderr.split("\n").filter((l) => /configuration reloaded|rejected/.test(l)).at(
            -1,
          )!;
          assert.match(last, pattern, cli.stderr);
        };
        // 1. Replaced: a client added.
        await replace(path, watchYaml(dir, ["alice", "bob", "carol"], "x__a"), dir);
        await expectReload(/reloaded \(clients added: carol\)/);
        // 2. Then written in place (through the link, for the swap): one more.
        await Deno.writeTextFile(path, watchYaml(dir, ["alice", "bob", "carol", "dave"], "x__a"));
        await expectReload(/reloaded \(clients added: dave\)/);
        // 3. Then replaced by a broken file: rejected, and logged.
        await replace(path, "listen: [not, an, address\n", dir);
        await expectReload(/rejected, keeping the running configuration/);
        // 4. Then replaced again: clients removed and a policy changed.
        await replace(path, watchYaml(dir, ["alice", "bob"], "x__a, x__b"), dir);
        await expectReload(/reloaded \(clients removed: carol, dave; policy changed: bob\)/);
        // 5. Then in place again: alice's key now comes from another variable (a rotation).
        await Deno.writeTextFile(path, watchYaml(dir, ["alice", "bob"], "x__a, x__b", "ALICE_KEY2"));
        await expectReload(/reloaded \(keys rotated: alice\)/);
        // 6. A reload that would pass a client's key variable to a downstream is refused like a broken file.
        const leaky = watchYaml(dir, ["alice", "bob"], "x__a, x__b", "ALICE_KEY2").replace(
          "\npolicy:",
          "\n  leaky: { transport: stdio, command: deno, env_passthrough: [ALICE_KEY2] }\npolicy:",
        );
        await replace(path, leaky, dir);
        await expectReload(/rejected, keeping the running configuration/);
        await cli.waitFor(/"ALICE_KEY2" holds the API key of client alice/);
        for (const value of Object.values(keys)) assert.ok(!cli.stderr.includes(value), "no key in the log");
      } finally {
        try {
          cli.child.kill("SIGTERM");
        } catch {
          // Already gone (the failure is in its stderr).
        }
        await cli.exit();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

const DYN_SERVER =
  new URL("../../src/gateway/downstream/testdata/dynamic_server.ts", import.meta.url).pathname;

function stopYaml(dir: string): string {
  return `listen: 127.0.0.1:0
call_timeout_ms: 30000
clients:
  - { id: alice, api_key_env: STOP_ALICE_KEY }
downstreams:
  dyn:
    transport: stdio
    command: ${JSON.stringify(DENO)}
    args: ["run", "--allow-env", "--allow-read", ${JSON.stringify(DYN_SERVER)}]
policy:
  clients:
    alice: { allow: ["dyn__*"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)}, fsync_ms: 0 }
`;
}

/**
 * How one stop request reaches the gateway: a supervisor signalling the whole process group while it
 * also forwards the signal to its child (`deno task`, many init scripts), or two signals in a row.
 */
const DELIVERIES: [string, (pgid: number, pid: () => number) => void][] = [
  ["SIGTERM to the process group, forwarded by the supervisor too", (pgid) => Deno.kill(-pgid, "SIGTERM")],
  ["SIGTERM twice, 150 ms apart, to the gateway", (_, pid) => {
    // (Two signals sent back to back may merge into one delivery; apart, they are two.)
    Deno.kill(pid(), "SIGTERM");
    setTimeout(() => Deno.kill(pid(), "SIGTERM"), 150);
  }],
  ["SIGINT then SIGTERM to the process group", (pgid) => {
    Deno.kill(-pgid, "SIGINT");
    Deno.kill(-pgid, "SIGTERM");
  }],
];

for (const [how, deliver] of DELIVERIES) {
  Deno.test({
    name: `one stop request is one drain: ${how}; the call in flight completes and is audited`,
    ignore: Deno.build.os === "windows",
    fn: async () => {
      const dir = await Deno.makeTempDir({ prefix: "gw-stop-" });
      const file = `${dir}/gateway.yaml`;
      await Deno.writeTextFile(file, stopYaml(dir));
      const aliceKey = key();
      // The supervisor: a shell leading its own process group (setsid), running the gateway as its
      // child and forwarding SIGTERM and SIGINT to it, as `deno task` does.
      const script = `"$0" run ${PERMISSIONS.join(" ")} "$1" --config "$2" & child=$!
echo "$child" > "$3"
trap 'kill -TERM $child' TERM
trap 'kill -INT $child' INT
while kill -0 $child 2>/dev/null; do wait $child; status=$?; done
exit $status`;
      const cli = new Cli("setsid", ["sh", "-c", script, DENO, CLI, file, `${dir}/pid`], {
        STOP_ALICE_KEY: aliceKey,
      });
      const pgid = cli.child.pid;
      try {
        await cli.waitFor(/listening on http:\/\/\S+\/mcp/);
        const url = /listening on (http:\/\/\S+\/mcp)/.exec(cli.stderr)![1];
        const gatewayPid = Number((await Deno.readTextFile(`${dir}/pid`)).trim());
        const client = new Client({ name: "stop", version: "1.0.0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(url), {
            requestInit: { headers: { authorization: `Bearer ${aliceKey}` } },
          }),
        );
        const inFlight = client.callTool({
          name: "dyn__say",
          arguments: { text: "in flight", delay_ms: 1500 },
        });
        // The call has reached the downstream (it logs before it waits).
        await new Promise((r) => setTimeout(r, 400));
        deliver(pgid, () => gatewayPid);
        const result = await inFlight;
        assert.equal(result.isError, undefined, JSON.stringify(result));
        assert.equal((result.content as { text: string }[])[0].text, "in flight");
        await client.close().catch(() => {});
        const status = await cli.exit();
        assert.equal(status.code, 0, cli.stderr);
        assert.doesNotMatch(cli.stderr, /again, exiting now/);
        assert.equal((cli.stderr.match(/draining/g) ?? []).length, 1, cli.stderr);
        assert.match(cli.stderr, /gateway: stopped/);
        const text = await Deno.readTextFile(`${dir}/audit.jsonl`);
        assert.ok(text.endsWith("\n"));
        const records = text.slice(0, -1).split("\n").map((l) => JSON.parse(l));
        const call = records.find((r) => r.tool_name === "dyn__say");
        assert.ok(call !== undefined, text);
        assert.equal(call.allowed, true);
        assert.equal(call.error, "");
        assert.ok(call.latency_ms >= 1000);
      } finally {
        try {
          Deno.kill(-pgid, "SIGKILL");
        } catch {
          // The group is gone.
        }
        await cli.exit();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name: "a second stop request after a pause still cuts the drain short",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "gw-stop-" });
    const file = `${dir}/gateway.yaml`;
    await Deno.writeTextFile(file, stopYaml(dir));
    const aliceKey = key();
    const cli = Cli.gateway(["--config", file], { STOP_ALICE_KEY: aliceKey });
    try {
      await cli.waitFor(/listening on http:\/\/\S+\/mcp/);
      const url = /listening on (http:\/\/\S+\/mcp)/.exec(cli.stderr)![1];
      const client = new Client({ name: "stop", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${aliceKey}` } },
        }),
      );
      const inFlight = client.callTool({ name: "dyn__say", arguments: { text: "slow", delay_ms: 20_000 } })
        .catch((e) => e);
      await new Promise((r) => setTimeout(r, 400));
      cli.child.kill("SIGTERM");
      await cli.waitFor(/draining/);
      await new Promise((r) => setTimeout(r, 1300));
      cli.child.kill("SIGTERM");
      const status = await cli.exit();
      assert.equal(status.code, 130, cli.stderr);
      assert.match(cli.stderr, /SIGTERM again, exiting now/);
      await inFlight;
      await client.close().catch(() => {});
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
