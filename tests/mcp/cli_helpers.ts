/**
 * Helpers that run the real serve CLI (`src/mcp/serve_cli.ts`) as a subprocess.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ROOT = new URL("../../", import.meta.url);
/** The repository's deno.json. */
export const CONFIG = new URL("deno.json", ROOT).pathname;
/** The serve CLI. */
export const SERVE_CLI = new URL("src/mcp/serve_cli.ts", ROOT).pathname;

/** `deno run` arguments that start the CLI with the permissions `deno task serve` grants. */
export function cliArgs(extra: readonly string[] = []): string[] {
  return [
    "run",
    "--quiet",
    "--no-prompt",
    "--config",
    CONFIG,
    "--allow-read",
    "--allow-env",
    "--allow-net",
    SERVE_CLI,
    ...extra,
  ];
}

/** The environment for a child process: the SDK's safe defaults plus Deno's cache location. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...getDefaultEnvironment(), NO_COLOR: "1", ...extra };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir !== undefined) env.DENO_DIR = denoDir;
  return env;
}

/** Connects a real SDK client to the CLI over stdio. */
export async function connectStdio(extra: readonly string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: cliArgs(extra),
    cwd: ROOT.pathname,
    env: childEnv(),
    stderr: "pipe",
  });
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** A child process that printed the address it listens on. */
export interface ListeningChild {
  /** The address matched on its stderr (the listening pattern's first group). */
  readonly address: string;
  /** Sends SIGTERM and waits for the exit status. */
  stop(): Promise<number>;
  /** Sends SIGKILL (for a child that ignored SIGTERM). */
  kill(): void;
}

/**
 * Spawns `deno args...` and waits until its stderr matches `listening`, whose first group is the
 * address. Stderr keeps draining afterwards so the child never blocks on a full pipe.
 */
export async function spawnListening(
  args: readonly string[],
  env: Record<string, string>,
  listening: RegExp,
): Promise<ListeningChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: ROOT.pathname,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  // A server that never prints its address fails the test instead of hanging it.
  const guard = setTimeout(() => child.kill("SIGKILL"), 120_000);
  let seen = "";
  let address: string | undefined;
  while (address === undefined) {
    const { value, done } = await reader.read();
    if (done) {
      clearTimeout(guard);
      const status = await child.status;
      throw new Error(`${args[0]} ${args.at(-1)} exited with ${status.code} before listening: ${seen}`);
    }
    seen += value;
    address = listening.exec(seen)?.[1];
  }
  clearTimeout(guard);
  const drained = (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })();
  return {
    address,
    kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already exited.
      }
    },
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already exited.
      }
      const status = await child.status;
      await drained.catch(() => {});
      return status.code;
    },
  };
}

/** A running HTTP CLI. */
export interface HttpCli {
  /** The MCP endpoint URL it printed. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** Sends SIGTERM and waits for the exit status. */
  stop(): Promise<number>;
}

/** Starts the CLI with `--http 127.0.0.1:0` (plus `extra`) and waits for its listening line. */
export async function startHttpCli(
  extra: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<HttpCli> {
  const { address, stop } = await spawnListening(
    cliArgs(["--http", "127.0.0.1:0", ...extra]),
    childEnv(env),
    /listening on (http:\/\/\S+)/,
  );
  return { url: address, port: Number(new URL(address).port), stop };
}

/** Starts the CLI on stdio with raw pipes, for tests that write JSON-RPC lines themselves. */
export function spawnStdioCli(): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: cliArgs(),
    cwd: ROOT.pathname,
    env: childEnv(),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
}

/** The JSON-RPC messages that open a session: `initialize` (id 1), then the `initialized` notification. */
export function openingMessages(clientName: string): object[] {
  return [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: clientName, version: "1" },
      },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
  ];
}

/** Newline-delimited JSON-RPC, as the stdio transport reads it. */
export function jsonLines(messages: readonly object[]): Uint8Array {
  return new TextEncoder().encode(messages.map((m) => JSON.stringify(m) + "\n").join(""));
}

/** Runs the CLI to completion (for argument and configuration errors). */
export async function runCli(
  extra: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stderr: string; stdout: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: cliArgs(extra),
    cwd: ROOT.pathname,
    env: childEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stderr: new TextDecoder().decode(out.stderr),
    stdout: new TextDecoder().decode(out.stdout),
  };
}
