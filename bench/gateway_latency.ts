/**
 * Added latency of the MCP security gateway, side by side in one run: the same stdio downstream
 * (`server-everything`'s `echo`, and `server-memory`'s `search_nodes`) called
 *
 * - **direct**: with the official SDK client over stdio (the baseline);
 * - **gateway (HTTP)**: by an SDK client over Streamable HTTP through the gateway (auth, the full
 *   pipeline with audit to a file, redaction with a secret and a pattern, breakers, then the gateway's
 *   own SDK client to the downstream);
 * - **gateway (in-process)**: through `gateway.callTool` (the pipeline and the downstream hop only, the
 *   entry a CodeMode native call uses);
 *
 * and, as the floor any HTTP hop costs in this runtime, the same SDK client calling a bare `Deno.serve`
 * handler that answers at once (no gateway, no downstream), and a plain `fetch` JSON round trip.
 *
 * Calls alternate between the variants so load on the machine affects them alike. Prints p50/p90/p99,
 * the added p50 over direct, and what is left of it above the floor. Neither tool sends a notification
 * during these calls, so the gateway answers each with one JSON body (it switches to SSE only when a
 * notification comes before the result). With `--check`, exits 1 when an added p50 over HTTP exceeds
 * 0.5 ms.
 *
 * ```sh
 * deno run -A bench/gateway_latency.ts [--check] [--iterations N]
 * ```
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readConfigFile } from "../src/gateway/config/mod.ts";
import type { JsonObject } from "../src/gateway/domain/mod.ts";
import { Gateway } from "../src/gateway/gateway.ts";
import { connect, EVERYTHING, MEMORY } from "../tests/gateway/_helpers.ts";

/**
 * The least a Streamable HTTP server can do: answer `initialize` and `tools/call` at once with a fixed
 * result, accept notifications, refuse the GET stream.
 */
function bareHandler(): (request: Request) => Promise<Response> {
  const headers = { "content-type": "application/json" };
  return async (request) => {
    if (request.method !== "POST") return new Response(null, { status: 405 });
    const message = await request.json();
    if (!("id" in message)) return new Response(null, { status: 202 });
    const result = message.method === "initialize"
      ? {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "bare", version: "1" },
      }
      : { content: [{ type: "text", text: "Echo: hello gateway" }] };
    return new Response(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }), { headers });
  };
}

const TARGET_ADDED_P50_MS = 0.5;

function quantile(samples: number[], q: number): number {
  const sorted = samples.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function option(name: string, fallback: number): number {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
}

const iterations = option("--iterations", 2000);
const warmup = Math.min(300, Math.ceil(iterations / 5));
const check = Deno.args.includes("--check");
const dir = await Deno.makeTempDir({ prefix: "gw-bench-" });
const key = crypto.randomUUID().replaceAll("-", "");
const yaml = `
listen: 127.0.0.1:0
call_timeout_ms: 30000
clients: [{ id: bench, api_key_env: BENCH_KEY }]
downstreams:
  everything:
    transport: stdio
    command: ${JSON.stringify(Deno.execPath())}
    args: [run, --no-config, -A, "${EVERYTHING}", stdio]
    env_passthrough: [NODE_EXTRA_CA_CERTS]
    secrets: { SERVICE_TOKEN: BENCH_TOKEN }
  memory:
    transport: stdio
    command: ${JSON.stringify(Deno.execPath())}
    args: [run, --no-config, -A, "${MEMORY}"]
    env: { MEMORY_FILE_PATH: ${JSON.stringify(`${dir}/memory.jsonl`)} }
    env_passthrough: [NODE_EXTRA_CA_CERTS]
policy:
  default: deny
  clients: { bench: { allow: ["everything__*", "memory__*"] } }
redaction:
  max_result_bytes: 1048576
  patterns: [{ name: aws_access_key, regex: "AKIA[0-9A-Z]{16}", anchor: "AKIA" }]
audit: { sink: ${
  JSON.stringify(`file:${dir}/audit.jsonl`)
}, buffer: 8192, high_water: 6144, fsync_ms: 1000, security_block_ms: 2000 }
breaker: { failure_threshold: 5, open_ms: 30000 }
`;
await Deno.writeTextFile(`${dir}/gateway.yaml`, yaml);
const env: Record<string, string> = { BENCH_KEY: key, BENCH_TOKEN: "bench-token-0123456789" };
const config = await readConfigFile(`${dir}/gateway.yaml`, (n) => env[n] ?? Deno.env.get(n));

const gateway = await Gateway.create(config, { startTimeoutMs: 120_000, log: () => {} });
const { url } = await gateway.serve();
const viaHttp = await connect(url, key);
const bare = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, bareHandler());
const bareUrl = `http://127.0.0.1:${bare.addr.port}/mcp`;
const viaBare = await connect(bareUrl, key);

async function directClient(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "bench-direct", version: "1.0.0" });
  const inherit = Object.fromEntries(
    ["HOME", "PATH", "NODE_EXTRA_CA_CERTS"].flatMap((k) =>
      Deno.env.get(k) === undefined ? [] : [[k, Deno.env.get(k)!]]
    ),
  );
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args,
      env: { ...inherit, ...env },
      stderr: "ignore",
    }),
  );
  return client;
}

const directEverything = await directClient(["run", "--no-config", "-A", EVERYTHING, "stdio"]);
const directMemory = await directClient(["run", "--no-config", "-A", MEMORY], {
  MEMORY_FILE_PATH: `${dir}/direct-memory.jsonl`,
});
const entity = {
  entities: [{ name: "gateway", entityType: "software", observations: ["fronts MCP servers"] }],
};
await directMemory.callTool({ name: "create_entities", arguments: entity });
await gateway.callTool("bench", "memory__create_entities", entity);

type Variant = "direct" | "http" | "inproc";
const targets: { label: string; tool: string; namespaced: string; args: JsonObject }[] = [
  {
    label: "everything echo",
    tool: "echo",
    namespaced: "everything__echo",
    args: { message: "hello gateway" },
  },
  {
    label: "memory search_nodes",
    tool: "search_nodes",
    namespaced: "memory__search_nodes",
    args: { query: "gateway" },
  },
];
const samples = targets.map(() => ({ direct: [] as number[], http: [] as number[], inproc: [] as number[] }));
const floor = { sdk: [] as number[], fetch: [] as number[] };
const echoBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "echo", arguments: { message: "hello gateway" } },
});
const floorRuns: [keyof typeof floor, () => Promise<unknown>][] = [
  ["sdk", () => viaBare.callTool({ name: "echo", arguments: { message: "hello gateway" } })],
  ["fetch", async () => {
    const response = await fetch(bareUrl, {
      method: "POST",
      body: echoBody,
      headers: { "content-type": "application/json" },
    });
    await response.json();
  }],
];
const runs: [number, Variant, () => Promise<unknown>][] = targets.flatMap((t, i) => {
  const direct = i === 0 ? directEverything : directMemory;
  return [
    [i, "direct", () => direct.callTool({ name: t.tool, arguments: t.args })],
    [i, "http", () => viaHttp.callTool({ name: t.namespaced, arguments: t.args })],
    [i, "inproc", () => gateway.callTool("bench", t.namespaced, t.args)],
  ] as [number, Variant, () => Promise<unknown>][];
});
try {
  for (let i = 0; i < warmup + iterations; i++) {
    // Rotate the order so no variant always runs right after another.
    for (let j = 0; j < runs.length; j++) {
      const [target, variant, run] = runs[(i + j) % runs.length];
      const t0 = performance.now();
      await run();
      const ms = performance.now() - t0;
      if (i >= warmup) samples[target][variant].push(ms);
    }
    for (const [name, run] of floorRuns) {
      const t0 = performance.now();
      await run();
      const ms = performance.now() - t0;
      if (i >= warmup) floor[name].push(ms);
    }
  }
} finally {
  await viaBare.close();
  await bare.shutdown();
  await viaHttp.close();
  await directEverything.close();
  await directMemory.close();
  await gateway.close();
}
const audited = (await Deno.readTextFile(`${dir}/audit.jsonl`)).trim().split("\n").length;
await Deno.remove(dir, { recursive: true });

const fmt = (n: number) => n.toFixed(3).padStart(8);
console.log(`${iterations} calls per variant after ${warmup} warm-up, ms:`);
const misses: string[] = [];
targets.forEach((t, i) => {
  const base = quantile(samples[i].direct, 0.5);
  console.log(`\n${t.label.padEnd(27)}      p50      p90      p99   added p50`);
  for (
    const [name, label] of [["direct", "direct (SDK, stdio)"], ["http", "gateway (HTTP)"], [
      "inproc",
      "gateway (in-process)",
    ]] as const
  ) {
    const s = samples[i][name];
    const added = quantile(s, 0.5) - base;
    if (name === "http" && added > TARGET_ADDED_P50_MS) misses.push(`${t.label}: ${added.toFixed(3)} ms`);
    const shown = name === "direct" ? "" : fmt(added);
    console.log(
      `  ${label.padEnd(28)} ${fmt(quantile(s, 0.5))} ${fmt(quantile(s, 0.9))} ${
        fmt(quantile(s, 0.99))
      } ${shown}`,
    );
  }
});
const floorP50 = quantile(floor.sdk, 0.5);
console.log(`\nHTTP floor (no gateway, no downstream)      p50      p90      p99`);
for (
  const [name, label] of [["sdk", "SDK client, bare handler"], ["fetch", "fetch, bare handler"]] as const
) {
  const s = floor[name];
  console.log(
    `  ${label.padEnd(40)} ${fmt(quantile(s, 0.5))} ${fmt(quantile(s, 0.9))} ${fmt(quantile(s, 0.99))}`,
  );
}
console.log("\nadded p50 above the SDK-client floor (the gateway's own share):");
targets.forEach((t, i) => {
  const added = quantile(samples[i].http, 0.5) - quantile(samples[i].direct, 0.5);
  console.log(`  ${t.label.padEnd(27)} ${fmt(added - floorP50)} ms`);
});
const expected = 2 * targets.length * (warmup + iterations) + 1;
console.log(`\naudit records written: ${audited} (expected ${expected})`);
if (check && misses.length > 0) {
  console.error(`added p50 over HTTP exceeds ${TARGET_ADDED_P50_MS} ms: ${misses.join("; ")}`);
  Deno.exit(1);
}
