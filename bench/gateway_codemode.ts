/**
 * Code mode on the gateway against passthrough, side by side in one run: the same 20 downstream calls
 * (`server-memory`'s `search_nodes`, each through the whole pipeline with its own audit record)
 *
 * - **code mode**: one `execute` over Streamable HTTP whose program makes the 20 calls;
 * - **passthrough**: 20 `tools/call` requests over Streamable HTTP, one after the other.
 *
 * Both go through the same gateway and the same SDK client; rounds alternate so load affects them
 * alike. Prints p50/p90 per round of 20 calls and the ratio of the p50s. With `--check`, exits 1 when
 * code mode's p50 exceeds 1.2× passthrough's. `--sandbox process|worker|inline` picks where programs
 * run (default: processes, as the gateway does when it may spawn them).
 *
 * ```sh
 * deno run -A bench/gateway_codemode.ts [--check] [--rounds N] [--sandbox process|worker|inline]
 * ```
 *
 * @module
 */
import { loadConfig } from "../src/gateway/config/mod.ts";
import { Gateway } from "../src/gateway/gateway.ts";
import { connect, MEMORY } from "../tests/gateway/_helpers.ts";

const TARGET_RATIO = 1.2;
const CALLS = 20;

function quantile(samples: number[], q: number): number {
  const sorted = samples.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function option(name: string, fallback: string): string {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Deno.args[at + 1] : fallback;
}

const rounds = Number(option("--rounds", "200"));
const sandbox = option("--sandbox", "process") as "process" | "worker" | "inline";
const warmup = Math.min(20, Math.ceil(rounds / 5));
const check = Deno.args.includes("--check");
const dir = await Deno.makeTempDir({ prefix: "gw-cm-bench-" });
const key = crypto.randomUUID().replaceAll("-", "");
const loaded = loadConfig(
  `
listen: 127.0.0.1:0
mode: both
codemode: { max_execution_time: 30000 }
clients: [{ id: bench, api_key_env: BENCH_KEY }]
downstreams:
  memory:
    transport: stdio
    command: ${JSON.stringify(Deno.execPath())}
    args: [run, --no-config, -A, "${MEMORY}"]
    env: { MEMORY_FILE_PATH: ${JSON.stringify(`${dir}/memory.jsonl`)} }
    env_passthrough: [NODE_EXTRA_CA_CERTS]
policy:
  clients:
    bench: { allow: ["memory__*"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
`,
  (name) => (name === "BENCH_KEY" ? key : Deno.env.get(name)),
);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
const gateway = await Gateway.create(loaded.config, { log: () => {}, codeModeSandbox: sandbox });
const { url } = await gateway.serve();
const client = await connect(url, key);

await client.callTool({
  name: "memory__create_entities",
  arguments: {
    entities: Array.from(
      { length: 10 },
      (_, i) => ({ name: `e${i}`, entityType: "item", observations: [`n${i}`] }),
    ),
  },
});

const program = `def main():
    found = 0
    for i in range(${CALLS}):
        found += len(memory.search_nodes(query="n%d" % (i % 10))["entities"])
    return found
`;

async function codeMode(): Promise<void> {
  const r = await client.callTool({ name: "execute", arguments: { source: program } });
  if (r.isError || (r.structuredContent as { result: number }).result !== CALLS) {
    throw new Error(`execute failed: ${JSON.stringify(r.content)}`);
  }
}

async function passthrough(): Promise<void> {
  let found = 0;
  for (let i = 0; i < CALLS; i++) {
    const r = await client.callTool({ name: "memory__search_nodes", arguments: { query: `n${i % 10}` } });
    found += (r.structuredContent as { entities: unknown[] }).entities.length;
  }
  if (found !== CALLS) throw new Error("passthrough calls failed");
}

const samples = { codeMode: [] as number[], passthrough: [] as number[] };
try {
  for (let i = 0; i < warmup + rounds; i++) {
    // Alternate which variant goes first, so neither always runs right after the other's cost.
    const order = i % 2 === 0 ? ["codeMode", "passthrough"] as const : ["passthrough", "codeMode"] as const;
    for (const variant of order) {
      const started = performance.now();
      await (variant === "codeMode" ? codeMode() : passthrough());
      if (i >= warmup) samples[variant].push(performance.now() - started);
    }
  }
} finally {
  await client.close();
  await gateway.close();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

const p50 = { codeMode: quantile(samples.codeMode, 0.5), passthrough: quantile(samples.passthrough, 0.5) };
const ratio = p50.codeMode / p50.passthrough;
const load = Deno.loadavg()[0].toFixed(1);
console.log(
  `${CALLS} memory search_nodes calls per round, ${rounds} rounds, sandbox ${sandbox}, load ${load}`,
);
console.log("| variant | p50 ms | p90 ms |");
console.log("| --- | --- | --- |");
for (const v of ["codeMode", "passthrough"] as const) {
  const label = v === "codeMode"
    ? `code mode (1 execute, ${CALLS} native calls)`
    : `passthrough (${CALLS} tools/call)`;
  console.log(`| ${label} | ${p50[v].toFixed(2)} | ${quantile(samples[v], 0.9).toFixed(2)} |`);
}
console.log(`code mode / passthrough (p50): ${ratio.toFixed(2)}× (target ≤ ${TARGET_RATIO}×)`);
if (check && ratio > TARGET_RATIO) {
  console.error(`FAIL: ${ratio.toFixed(2)}× exceeds ${TARGET_RATIO}×`);
  Deno.exit(1);
}
