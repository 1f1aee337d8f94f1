/**
 * `deno task gateway --config FILE`: serves the MCP security gateway over Streamable HTTP.
 *
 * - `--check` validates the file, prints every problem with its place in the file, and exits non-zero
 *   when there is one (zero otherwise), without starting anything.
 * - `--stdio CLIENT_ID` serves one configured client over stdin/stdout instead (desktop MCP apps),
 *   through the same pipeline; audit records then go to stderr when the sink is `stdout`.
 * - `--log-downstream-stderr` copies what stdio downstreams print on stderr to the log (redacted).
 * - `--watch` reloads when the file changes; SIGHUP reloads too. A file with problems is rejected with
 *   them and the running configuration stays.
 * - SIGTERM and SIGINT shut down gracefully: in-flight calls drain, every downstream process group ends,
 *   the audit writer drains. A second signal exits at once (still ending every downstream).
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import process from "node:process";
import {
  ConfigError,
  type ConfigProblem,
  formatProblems,
  type GatewayConfig,
  readConfigFile,
} from "./config/mod.ts";
import { killAllProcessGroups } from "./downstream/mod.ts";
import { Gateway, type ReloadOutcome } from "./gateway.ts";
import { createClientServer } from "./http/mod.ts";

/** Parsed command line. */
export interface CliArgs {
  /** The configuration file. */
  readonly config: string;
  /** Validate only. */
  readonly check: boolean;
  /** Serve this client over stdio. */
  readonly stdio?: string;
  /** Reload on file changes. */
  readonly watch: boolean;
  /** Copy stdio downstreams' stderr to the gateway's log. */
  readonly logDownstreamStderr: boolean;
}

/** The usage text. */
export const USAGE =
  "usage: deno task gateway --config FILE [--check] [--stdio CLIENT_ID] [--watch] [--log-downstream-stderr]";

/** Parses the command line; returns a message for a bad one. */
export function parseArgs(argv: readonly string[]): CliArgs | string {
  let config: string | undefined;
  let stdio: string | undefined;
  let check = false;
  let watch = false;
  let logDownstreamStderr = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case "--config":
        config = value();
        break;
      case "--stdio":
        stdio = value();
        break;
      case "--check":
        check = true;
        break;
      case "--watch":
        watch = true;
        break;
      case "--log-downstream-stderr":
        logDownstreamStderr = true;
        break;
      case "--help":
      case "-h":
        return USAGE;
      default:
        return `unknown argument ${JSON.stringify(arg)}\n${USAGE}`;
    }
  }
  if (config === undefined || config === "") return `--config FILE is required\n${USAGE}`;
  if (stdio === "") return `--stdio needs a client id\n${USAGE}`;
  return { config, check, watch, logDownstreamStderr, ...(stdio === undefined ? {} : { stdio }) };
}

function log(line: string): void {
  console.error(line);
}

async function load(file: string): Promise<GatewayConfig | readonly ConfigProblem[]> {
  try {
    return await readConfigFile(file, (name) => Deno.env.get(name));
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

function describeReload(r: ReloadOutcome): string {
  const parts = [
    r.downstreams.started.length > 0 ? `started ${r.downstreams.started.join(", ")}` : "",
    r.downstreams.restarted.length > 0 ? `restarted ${r.downstreams.restarted.join(", ")}` : "",
    r.downstreams.stopped.length > 0 ? `stopped ${r.downstreams.stopped.join(", ")}` : "",
    r.ignored.length > 0 ? `needs a restart to change: ${r.ignored.join(", ")}` : "",
  ].filter((p) => p !== "");
  return parts.length === 0 ? "" : ` (${parts.join("; ")})`;
}

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === "string") {
    log(args);
    return args === USAGE ? 0 : 2;
  }
  const loaded = await load(args.config);
  if (!("listen" in loaded)) {
    log(formatProblems(loaded, args.config));
    log(`${args.config}: ${loaded.length} problem${loaded.length === 1 ? "" : "s"}`);
    return 1;
  }
  const config: GatewayConfig = loaded;
  if (args.check) {
    log(`${args.config}: ok (${config.clients.length} clients, ${config.downstreams.length} downstreams)`);
    return 0;
  }
  if (args.stdio !== undefined && !config.clients.some((c) => c.id === args.stdio)) {
    log(`--stdio: no client "${args.stdio}" in ${args.config}`);
    return 2;
  }

  // Whatever ends this process (a normal exit, an uncaught error), no downstream outlives it.
  globalThis.addEventListener("unload", killAllProcessGroups);
  globalThis.addEventListener("error", killAllProcessGroups);
  globalThis.addEventListener("unhandledrejection", killAllProcessGroups);
  // In --stdio mode stdout carries the MCP protocol, so a stdout audit sink writes to stderr.
  const gateway = await Gateway.create(config, {
    log,
    auditToStderr: args.stdio !== undefined,
    logDownstreamStderr: args.logDownstreamStderr,
  });
  let stopping = false;
  let exitCode = 0;
  const finished = Promise.withResolvers<void>();
  const stop = (signal: string, repeatExits = true) => {
    if (stopping && !repeatExits) return;
    if (stopping) {
      log(`gateway: ${signal} again, exiting now`);
      killAllProcessGroups();
      Deno.exit(130);
    }
    stopping = true;
    log(`gateway: ${signal}, draining`);
    gateway.close().catch((err) => {
      exitCode = 1;
      log(`gateway: shutdown failed: ${err instanceof Error ? err.message : "unknown error"}`);
    }).finally(() => finished.resolve());
  };

  let reloading = Promise.resolve();
  const reload = (why: string) => {
    reloading = reloading.then(async () => {
      if (stopping) return;
      const next = await load(args.config).catch(() => [{ path: "", message: "cannot read the file" }]);
      if (!("listen" in next)) {
        log(`gateway: ${why}: ${args.config} rejected, keeping the running configuration`);
        log(formatProblems(next as readonly ConfigProblem[], args.config));
        return;
      }
      const outcome = await gateway.reload(next);
      log(`gateway: ${why}: configuration reloaded${describeReload(outcome)}`);
    });
  };

  const signals: [Deno.Signal, () => void][] = [
    ["SIGTERM", () => stop("SIGTERM")],
    ["SIGINT", () => stop("SIGINT")],
  ];
  // Windows has no SIGTERM/SIGHUP listeners (and no process groups); there --watch reloads.
  if (Deno.build.os === "windows") signals.splice(0, 1);
  else signals.push(["SIGHUP", () => reload("SIGHUP")]);
  for (const [sig, fn] of signals) Deno.addSignalListener(sig, fn);

  let watcher: Deno.FsWatcher | undefined;
  if (args.watch) {
    watcher = Deno.watchFs(args.config);
    void (async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      for await (const event of watcher) {
        if (event.kind === "access") continue;
        clearTimeout(timer);
        // Editors write in bursts (truncate, write, rename): reload once it settles.
        timer = setTimeout(() => reload("file changed"), 200);
      }
      clearTimeout(timer);
    })();
  }

  if (args.stdio !== undefined) {
    const server = createClientServer({
      listTools: (client) => gateway.listTools(client.id),
      callTool: (client, name, a, o) => gateway.callTool(client.id, name, a, o),
    }, Object.freeze({ id: args.stdio }));
    const transport = new StdioServerTransport(process.stdin, process.stdout);
    server.onclose = () => stop("stdio closed", false);
    // The SDK transport does not watch for end of input; the desktop app closing stdin is the signal.
    process.stdin.once("end", () => stop("stdin closed", false));
    await server.connect(transport);
    log(`gateway: serving client ${args.stdio} on stdio`);
  } else {
    const { url, metricsUrl } = await gateway.serve();
    log(`gateway: listening on ${url}${metricsUrl === undefined ? "" : `, metrics on ${metricsUrl}`}`);
  }

  await finished.promise;
  for (const [sig, fn] of signals) Deno.removeSignalListener(sig, fn);
  watcher?.close();
  await reloading.catch(() => {});
  log("gateway: stopped");
  return exitCode;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
