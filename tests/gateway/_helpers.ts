/**
 * Shared helpers of the gateway end-to-end tests: the pinned reference servers, keys, configuration
 * files, an SDK client, and process inspection through `/proc`.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type GatewayConfig, readConfigFile } from "../../src/gateway/config/mod.ts";

/** The pinned reference servers (keep in step with examples/gateway.yaml). */
export const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
/** The memory server. */
export const MEMORY = "npm:@modelcontextprotocol/server-memory@2026.8.31";
/** The filesystem server. */
export const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";

/** A cold npm cache in CI fetches the packages on first start: allow for it. */
export const START_TIMEOUT_MS = 120_000;

let prefetched: Promise<void> | undefined;

/**
 * Fetches the reference servers into Deno's npm cache once per test process, so that a cold cache (a
 * fresh CI machine) costs one download up front rather than a slow first start inside a test.
 */
export function prefetchServers(): Promise<void> {
  prefetched ??= (async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["cache", "--no-config", EVERYTHING, MEMORY, FILESYSTEM],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`deno cache failed: ${new TextDecoder().decode(out.stderr)}`);
  })();
  return prefetched;
}

/** The Deno binary running the tests, so downstreams need nothing else installed. */
export const DENO = Deno.execPath();

/**
 * The YAML of one `downstreams:` entry (indented to sit under `downstreams:`) that runs `module` with
 * this Deno over stdio; `extra` are more `key: value` lines of the entry.
 */
export function stdioDownstream(
  name: string,
  args: readonly string[],
  extra: readonly string[] = [],
): string {
  return [
    `  ${name}:`,
    "    transport: stdio",
    `    command: ${JSON.stringify(DENO)}`,
    `    args: [${args.join(", ")}]`,
    ...extra.map((line) => `    ${line}`),
  ].join("\n");
}

const NPM_ENV = "env_passthrough: [NODE_EXTRA_CA_CERTS]";

/** The `everything` reference server's downstream entry (see {@link stdioDownstream}). */
export function everythingDownstream(extra: readonly string[] = []): string {
  return stdioDownstream("everything", ["run", "--no-config", "-A", `"${EVERYTHING}"`, "stdio"], [
    NPM_ENV,
    ...extra,
  ]);
}

/** The `memory` reference server's downstream entry, keeping its graph in `dir/memory.jsonl`. */
export function memoryDownstream(dir: string): string {
  return stdioDownstream("memory", ["run", "--no-config", "-A", `"${MEMORY}"`], [
    `env: { MEMORY_FILE_PATH: ${JSON.stringify(`${dir}/memory.jsonl`)} }`,
    NPM_ENV,
  ]);
}

/** The `files` reference server's downstream entry, serving `dir/files`. */
export function filesDownstream(dir: string): string {
  return stdioDownstream("files", [
    "run",
    "--no-config",
    "-A",
    `"${FILESYSTEM}"`,
    JSON.stringify(`${dir}/files`),
  ], [
    NPM_ENV,
  ]);
}

/** A random 32-hex-character API key. */
export function randomKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

/** Writes a YAML configuration and loads it through the real loader (throws with every problem). */
export async function loadConfig(
  dir: string,
  yaml: string,
  env: Record<string, string>,
  file = "gateway.yaml",
): Promise<GatewayConfig> {
  const path = `${dir}/${file}`;
  await Deno.writeTextFile(path, yaml);
  return await readConfigFile(path, (n) => env[n] ?? Deno.env.get(n));
}

/** An SDK client connected to the gateway over Streamable HTTP with `key`. */
export async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** The concatenated text content of a tool result. */
export function text(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? "").join("");
}

/** Whether `pid` is a live (not zombie) process. */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/s.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return false;
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command (which may contain spaces and parentheses): state, ppid, ...
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(rest[1]);
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root` (children, grandchildren, ...). */
export function descendants(root: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    const parent = parentOf(pid);
    if (parent === undefined) continue;
    byParent.set(parent, [...(byParent.get(parent) ?? []), pid]);
  }
  const out: number[] = [];
  const queue = [...(byParent.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (!alive(pid)) continue;
    out.push(pid);
    queue.push(...(byParent.get(pid) ?? []));
  }
  return out;
}

/** Waits until `check` holds (polling), failing after `ms`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A free TCP port on loopback. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** `server-everything` over its own Streamable HTTP transport, in a process group of its own. */
export class EverythingHttp {
  readonly port: number;
  #child: Deno.ChildProcess | undefined;

  constructor(port = freePort()) {
    this.port = port;
  }

  /** The MCP endpoint. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  /** Starts the server and waits until it answers. */
  async start(): Promise<void> {
    this.#child = new Deno.Command(DENO, {
      args: ["run", "--no-config", "-A", EVERYTHING, "streamableHttp"],
      env: { PORT: String(this.port) },
      stdin: "null",
      stdout: "null",
      stderr: "null",
      detached: true,
    }).spawn();
    await waitFor(
      async () => {
        try {
          const res = await fetch(`http://127.0.0.1:${this.port}/mcp`, { method: "GET" });
          await res.body?.cancel();
          return true;
        } catch {
          return false;
        }
      },
      START_TIMEOUT_MS,
      "server-everything over HTTP",
    );
  }

  /** Kills the whole process group and waits for the exit. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    this.#child = undefined;
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    await child.status;
  }
}
