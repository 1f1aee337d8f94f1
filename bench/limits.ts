/**
 * What a limit check adds to a call, and what replicas sharing Redis sustain:
 *
 * - the evaluator with the memory store: one check of a call that matches three rules (a bucket, a slot,
 *   a quota, like the example), and of a call no rule matches — per-check time from batches of
 *   2,000 sequential checks (target ≤ 5 µs p50);
 * - the same check with a real redis-server on loopback (one script round trip per check; target
 *   ≤ 0.3 ms p50), each check timed;
 * - with `--replicas`: calls per second through 3 gateway replicas (in this process, each with its own
 *   listener and stdio downstream) sharing Redis limits, from 48 SDK clients for `--seconds` (default 5);
 * - with `--processes`: the same through 3 replica processes (`src/gateway/cli.ts`), clients here.
 *
 * The machine these figures come from may be shared: rerun before drawing conclusions.
 *
 * ```sh
 * deno run -A bench/limits.ts [--replicas] [--processes] [--seconds N]
 * ```
 *
 * @module
 */
import { type LimitRule, Limits, type LimitsSettings } from "../src/limits/mod.ts";
import {
  configOf,
  connect,
  gatewayYaml,
  KEYS,
  redisUnavailable,
  startRedis,
  startReplica,
} from "../tests/limits/_harness.ts";

const RULES: LimitRule[] = [
  { name: "all", clients: ["*"], tools: ["*"], downstreams: ["*"], rate: { count: 1e9, periodMs: 1000 } },
  { name: "slots", clients: ["*"], tools: ["*"], downstreams: ["memory"], concurrency: 1_000_000 },
  {
    name: "daily",
    clients: ["*"],
    tools: ["memory__*"],
    downstreams: ["*"],
    quota: { count: 1e9, periodMs: 86_400_000 },
  },
  {
    name: "bob",
    clients: ["bob"],
    tools: ["memory__search_*"],
    downstreams: ["*"],
    rate: { count: 60, periodMs: 60_000 },
  },
];
const MATCHING = { client: "alice", tool: "memory__read_graph", downstream: "memory" };
const NONE = { client: "alice", tool: "other__tool", downstream: "other" };

function quantile(samples: number[], q: number): number {
  const sorted = samples.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function perCheckMicros(limits: Limits, subject: typeof MATCHING, batches: number, batch: number) {
  const means: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) {
      const a = await limits.check(subject);
      if (a.ok) a.release();
      else throw new Error(`refused: ${JSON.stringify(a)}`);
    }
    means.push(((performance.now() - t0) * 1000) / batch);
  }
  return { p50: quantile(means, 0.5), p90: quantile(means, 0.9) };
}

const settings = (store: string): LimitsSettings => ({
  store,
  onStoreError: "deny",
  storeTimeoutMs: 1_000,
  rules: RULES,
});

const memory = await Limits.open(settings("memory"));
await perCheckMicros(memory, MATCHING, 20, 2_000); // warm-up
const matching = await perCheckMicros(memory, MATCHING, 100, 2_000);
const none = await perCheckMicros(memory, NONE, 100, 2_000);
await memory.close();
console.log(
  `memory store: check of a call matching 3 rules: p50 ${matching.p50.toFixed(2)} µs (p90 ${
    matching.p90.toFixed(2)
  }); no rule matching: p50 ${none.p50.toFixed(2)} µs   [target ≤ 5 µs p50]`,
);

const unavailable = redisUnavailable();
if (unavailable !== undefined) {
  console.log(`redis: skipped (${unavailable})`);
  Deno.exit(0);
}
const redis = await startRedis();
try {
  const shared = await Limits.open(settings(redis.url));
  for (let i = 0; i < 500; i++) (await shared.check(MATCHING)).ok; // warm-up (script load, connection)
  const samples: number[] = [];
  for (let i = 0; i < 5_000; i++) {
    const t0 = performance.now();
    const a = await shared.check(MATCHING);
    samples.push(performance.now() - t0);
    if (a.ok) a.release();
    else throw new Error(`refused: ${JSON.stringify(a)}`);
  }
  await shared.close();
  console.log(
    `redis store (loopback): check of a call matching 3 rules: p50 ${quantile(samples, 0.5).toFixed(3)} ms ` +
      `(p90 ${quantile(samples, 0.9).toFixed(3)} ms, p99 ${quantile(samples, 0.99).toFixed(3)} ms)   ` +
      "[target ≤ 0.3 ms p50]",
  );

  if (Deno.args.includes("--processes")) {
    const at = Deno.args.indexOf("--seconds");
    const seconds = at >= 0 ? Number(Deno.args[at + 1]) : 5;
    const shared = `limits:\n  store: ${redis.url}\n  rules:\n    - { rate: 1000000/s }\n` +
      `    - { downstreams: [echo], concurrency: 1000 }\n    - { clients: [alice], quota: 1000000000/day }`;
    for (const [label, limits] of [["without limits", ""], ["sharing Redis limits (3 rules)", shared]]) {
      const r = await processThroughput(limits, seconds);
      console.log(
        `3 replica processes ${label}, 48 clients: ${
          (r.ok / seconds).toFixed(0)
        } calls/s (${r.failed} errors)` +
          "   [issue's figure: ≥ 4,000 calls/s with limits]",
      );
      for (const [text, n] of r.why) console.log(`  ${n} × ${text}`);
    }
  }
  if (Deno.args.includes("--replicas")) {
    const at = Deno.args.indexOf("--seconds");
    const seconds = at >= 0 ? Number(Deno.args[at + 1]) : 5;
    const shared = `limits:\n  store: ${redis.url}\n  rules:\n    - { rate: 1000000/s }\n` +
      `    - { downstreams: [echo], concurrency: 1000 }\n    - { clients: [alice], quota: 1000000000/day }`;
    // The same replicas without limits: the difference is what the shared limits cost.
    for (const [label, limits] of [["without limits", ""], ["sharing Redis limits (3 rules)", shared]]) {
      const r = await throughput(limits, seconds);
      console.log(
        `3 replicas ${label}, 48 clients: ${(r.ok / seconds).toFixed(0)} calls/s (${r.failed} errors)` +
          "   [issue's figure: ≥ 4,000 calls/s with limits]",
      );
      for (const [text, n] of r.why) console.log(`  ${n} × ${text}`);
    }
  }
} finally {
  await redis.stop();
}

/** Calls per second through 3 in-process replicas with `limits`, from 48 SDK clients for `seconds`. */
async function throughput(limits: string, seconds: number) {
  const dirs = await Promise.all([0, 1, 2].map(() => Deno.makeTempDir()));
  const replicas = await Promise.all(dirs.map((d) => startReplica(configOf(gatewayYaml(d, limits)))));
  try {
    return await drive(replicas.map((r) => r.url), seconds);
  } finally {
    await Promise.all(replicas.map((r) => r.gateway.close()));
  }
}

/** Calls per second through 3 replica processes with `limits`, from 48 SDK clients here for `seconds`. */
async function processThroughput(limits: string, seconds: number) {
  const cli = new URL("../src/gateway/cli.ts", import.meta.url).pathname;
  const config = new URL("../deno.json", import.meta.url).pathname;
  const procs: { proc: Deno.ChildProcess; url: string }[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const dir = await Deno.makeTempDir();
      const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (l.addr as Deno.NetAddr).port;
      l.close();
      await Deno.writeTextFile(
        `${dir}/gateway.yaml`,
        gatewayYaml(dir, limits).replace("listen: 127.0.0.1:0", `listen: 127.0.0.1:${port}`),
      );
      const proc = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--config", config, cli, "--config", `${dir}/gateway.yaml`],
        env: { ALICE_KEY: KEYS.alice, BOB_KEY: KEYS.bob },
        stdout: "null",
        stderr: "null",
      }).spawn();
      procs.push({ proc, url: `http://127.0.0.1:${port}/mcp` });
    }
    const deadline = Date.now() + 60_000;
    for (const p of procs) {
      for (;;) {
        try {
          const c = await connect(p.url, KEYS.alice);
          const listed = await c.listTools();
          await c.close();
          if (listed.tools.some((t) => t.name === "echo__echo")) break;
        } catch { /* not up yet */ }
        if (Date.now() > deadline) throw new Error("a replica process did not start");
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    return await drive(procs.map((p) => p.url), seconds);
  } finally {
    for (const p of procs) {
      try {
        p.proc.kill("SIGTERM");
      } catch { /* gone */ }
      await p.proc.status;
    }
  }
}

/** Drives 48 SDK clients round-robin over `urls` for `seconds`. */
async function drive(urls: readonly string[], seconds: number) {
  let ok = 0;
  let failed = 0;
  const why = new Map<string, number>();
  const clients = await Promise.all(
    Array.from({ length: 48 }, (_, i) => connect(urls[i % urls.length], KEYS.alice)),
  );
  const end = performance.now() + seconds * 1000;
  await Promise.all(clients.map(async (c) => {
    while (performance.now() < end) {
      const r = await c.callTool({ name: "echo__echo", arguments: { text: "x" } });
      if (r.isError === true) {
        failed++;
        const text = (r.content as { text?: string }[])[0]?.text ?? "";
        why.set(text, (why.get(text) ?? 0) + 1);
      } else ok++;
    }
  }));
  await Promise.all(clients.map((c) => c.close()));
  return { ok, failed, why };
}
