/**
 * MCP figures through a real SDK client against the real serve CLI (demo catalog, worker executor):
 *
 * - server start to the first `tools/list` answer (a fresh `deno run` each time, stdio);
 * - round trip of `execute` with one native call, over stdio and over Streamable HTTP (with an API key).
 *
 * Prints medians (and p90) and, with `--check`, exits 1 when a median misses its target
 * (start ≤ 500 ms, stdio ≤ 3 ms, HTTP ≤ 5 ms).
 *
 * ```sh
 * deno run -A bench/mcp_roundtrip.ts [--check] [--iterations N]
 * ```
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  connectStdio,
  jsonLines,
  openingMessages,
  spawnStdioCli,
  startHttpCli,
} from "../tests/mcp/cli_helpers.ts";
import { connectClient } from "../tests/mcp/http_helpers.ts";

const PROGRAM = 'def main():\n    return inventory.stock(sku="TENT-2P")["available_total"]\n';
const TARGETS = { startup: 500, stdio: 3, http: 5 };

function quantile(samples: number[], q: number): number {
  const sorted = samples.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function median(samples: number[]): number {
  const s = samples.toSorted((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Spawns the CLI and times the first `tools/list` answer on its stdout (raw JSON-RPC lines). */
async function startupOnce(): Promise<number> {
  const started = performance.now();
  const child = spawnStdioCli();
  const writer = child.stdin.getWriter();
  await writer.write(
    jsonLines([...openingMessages("bench"), { jsonrpc: "2.0", id: 2, method: "tools/list" }]),
  );
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes('"id":2')) {
    const { value, done } = await reader.read();
    if (done) throw new Error("server exited before answering tools/list");
    seen += value;
  }
  const elapsed = performance.now() - started;
  await writer.close();
  await reader.cancel();
  await child.status;
  return elapsed;
}

async function roundTrips(client: Client, iterations: number): Promise<number[]> {
  const call = async () => {
    const r = await client.callTool({ name: "execute", arguments: { source: PROGRAM } });
    if (r.isError || (r.structuredContent as { result: number }).result !== 16) {
      throw new Error(`unexpected result ${JSON.stringify(r)}`);
    }
  };
  for (let i = 0; i < 20; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await call();
    samples.push(performance.now() - t0);
  }
  return samples;
}

function report(name: string, samples: number[], target: number): boolean {
  const m = median(samples);
  console.log(
    `${name.padEnd(28)} median ${m.toFixed(2).padStart(8)} ms   p90 ${
      quantile(samples, 0.9).toFixed(2).padStart(8)
    } ms` +
      `   n=${samples.length}   target ≤ ${target} ms ${m <= target ? "ok" : "MISSED"}`,
  );
  return m <= target;
}

async function main(args: string[]): Promise<number> {
  const check = args.includes("--check");
  const at = args.indexOf("--iterations");
  const iterations = at >= 0 ? Number(args[at + 1]) : 300;

  const startups: number[] = [];
  for (let i = 0; i < 7; i++) startups.push(await startupOnce());

  const stdio = await connectStdio();
  const stdioSamples = await roundTrips(stdio, iterations);
  await stdio.close();

  const key = "bench-key-0123456789abcdef";
  const cli = await startHttpCli([], { CODEMODE_API_KEYS: `bench=${key}` });
  const http = await connectClient(cli.url, { authorization: `Bearer ${key}` });
  const httpSamples = await roundTrips(http, iterations);
  await http.close();
  await cli.stop();

  const ok = [
    report("start → first tools/list", startups, TARGETS.startup),
    report("execute round trip, stdio", stdioSamples, TARGETS.stdio),
    report("execute round trip, HTTP", httpSamples, TARGETS.http),
  ].every(Boolean);
  return check && !ok ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
