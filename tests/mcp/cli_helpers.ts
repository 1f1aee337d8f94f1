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
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(["--http", "127.0.0.1:0", ...extra]),
    cwd: ROOT.pathname,
    env: childEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  // A server that never prints its address fails the test instead of hanging it.
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  let seen = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) {
      clearTimeout(guard);
      const status = await child.status;
      throw new Error(`serve CLI exited with ${status.code} before listening: ${seen}`);
    }
    seen += value;
    url = /listening on (http:\/\/\S+)/.exec(seen)?.[1];
  }
  clearTimeout(guard);
  // Keep draining stderr so the child never blocks on a full pipe.
  const drained = (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })();
  return {
    url,
    port: Number(new URL(url).port),
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
