/**
 * What the limits tests share: a real `redis-server` on a free loopback port (started and stopped by
 * the test, never the system service, with persistence off), gateway configurations around the echo
 * fixture, gateways that listen on loopback, and an SDK client.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Gateway, type GatewayConfig, loadConfig } from "../../src/gateway/mod.ts";

/** API keys of the test clients. */
export const KEYS = {
  alice: "alice-key-0123456789abcdef",
  bob: "bob-key-0123456789abcdef00",
} as const;

const FIXTURE = new URL("./fixtures/echo_server.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** A running redis-server. */
export interface RedisServer {
  /** `redis://127.0.0.1:PORT/0`. */
  readonly url: string;
  /** Its port. */
  readonly port: number;
  /** Stops it (SIGKILL when `hard`) and waits for the process to end. */
  stop(hard?: boolean): Promise<void>;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function answersPing(port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      await conn.write(new TextEncoder().encode("PING\r\n"));
      const buf = new Uint8Array(16);
      const n = await conn.read(buf);
      return n !== null && new TextDecoder().decode(buf.subarray(0, n)).startsWith("+PONG");
    } finally {
      conn.close();
    }
  } catch {
    return false;
  }
}

/**
 * Why Redis tests cannot run here, or `undefined` when `redis-server` is on PATH. `.ci/run` installs it
 * (Debian's `redis-server`); only a machine where it cannot be installed skips, saying so.
 */
export function redisUnavailable(): string | undefined {
  try {
    const out = new Deno.Command("redis-server", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync();
    return out.success ? undefined : "redis-server --version failed";
  } catch (err) {
    return err instanceof Deno.errors.NotFound
      ? "redis-server is not on PATH (install Debian's redis-server package: .ci/run does)"
      : `redis-server cannot be run: ${(err as Error).message}`;
  }
}

/** Starts redis-server on a free loopback port (persistence off) and waits until it answers. */
export async function startRedis(port = freePort()): Promise<RedisServer> {
  const child = new Deno.Command("redis-server", {
    args: [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--daemonize",
      "no",
      "--protected-mode",
      "yes",
      // The slow-store test blocks the server with DEBUG SLEEP (loopback connections only).
      "--enable-debug-command",
      "local",
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error(`redis-server did not answer on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  let stopped: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    stop: (hard = false) => {
      stopped ??= (async () => {
        try {
          child.kill(hard ? "SIGKILL" : "SIGTERM");
        } catch { /* already gone */ }
        await child.status;
      })();
      return stopped;
    },
  };
}

/** The YAML of a gateway around the echo fixture: alice and bob may call `echo__*`, with `limits`. */
export function gatewayYaml(dir: string, limits: string, extra = ""): string {
  return `
listen: 127.0.0.1:0
metrics_listen: 127.0.0.1:0
audit: { sink: "file:${dir}/audit.jsonl" }
clients:
  - { id: alice, api_key_env: ALICE_KEY }
  - { id: bob, api_key_env: BOB_KEY, mode: both }
downstreams:
  echo:
    transport: stdio
    command: ${JSON.stringify(Deno.execPath())}
    args: [run, --config, ${JSON.stringify(CONFIG)}, -A, ${JSON.stringify(FIXTURE)}]
policy:
  clients:
    alice: { allow: ["echo__*"], deny: ["echo__search_b"] }
    bob: { allow: ["echo__*"] }
${limits}
${extra}
`;
}

/** Validates YAML with the real loader (throws with every problem). */
export function configOf(yaml: string): GatewayConfig {
  const r = loadConfig(yaml, (n) => n === "ALICE_KEY" ? KEYS.alice : n === "BOB_KEY" ? KEYS.bob : undefined);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
}

/** A gateway listening on loopback, and its URL. */
export interface Replica {
  readonly gateway: Gateway;
  readonly url: string;
  readonly metricsText: () => Promise<string>;
}

/** Starts a gateway for `config` and serves it on a free loopback port. */
export async function startReplica(config: GatewayConfig): Promise<Replica> {
  const gateway = await Gateway.create(config, { log: () => {}, codeModeSandbox: "inline" });
  const { url, metricsUrl } = await gateway.serve();
  return {
    gateway,
    url,
    metricsText: async () => await (await fetch(metricsUrl!)).text(),
  };
}

/** An SDK client of `url` as the client holding `key`. */
export async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: "limits-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** The audit records of a gateway's file sink (read after it closed). */
export async function auditRecords(dir: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(`${dir}/audit.jsonl`);
  return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

/** The first text of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? "").join("");
}
