/**
 * `deno task serve`: a CodeMode MCP server with the built-in demo catalog, on stdio by default or on
 * stateless Streamable HTTP with `--http HOST:PORT`. It is also the reference wiring for hosts that
 * register their own capabilities.
 *
 * ```sh
 * deno task serve                                  # stdio, subject "local"
 * deno task serve --http 127.0.0.1:8787            # HTTP on loopback, no keys (development)
 * CODEMODE_API_KEYS="alice=<16+ chars>" deno task serve --http 0.0.0.0:8787 --allowed-host mcp.example.com
 * ```
 *
 * @module
 */
import { buildDemoServer } from "../demo/mod.ts";
import { isCodeModeError } from "../errors.ts";
import { ProcessPool, WorkerPool } from "../executor/mod.ts";
import { defaultServerExecutor, type ExecutorChoice, maySpawnProcesses } from "../core/mod.ts";
import type { Server } from "../core/mod.ts";
import {
  ALLOWED_HOSTS_ENV,
  ALLOWED_ORIGINS_ENV,
  createHttpHandler,
  type HttpHandler,
  isLoopbackHostname,
  splitHost,
} from "./http.ts";
import { API_KEYS_ENV, type ApiKey, parseApiKeys } from "./keys.ts";
import { serveStdio as serveStdioSession } from "./stdio.ts";
import { jsonLogHook } from "./log.ts";
import { type MetricsSource, poolMetrics } from "./metrics.ts";
import { deferredService, staticSubject } from "./service.ts";
import { defaultLimits } from "../core/mod.ts";

/** Parsed command line. */
export interface ServeArgs {
  /** `HOST:PORT` to serve HTTP on; stdio when absent. */
  readonly http?: { readonly hostname: string; readonly port: number };
  /** MCP endpoint path (HTTP). */
  readonly path: string;
  /** `--allowed-host` values. */
  readonly allowedHosts: readonly string[];
  /** `--allowed-origin` values. */
  readonly allowedOrigins: readonly string[];
  /** Subject of the stdio user, or of anonymous loopback HTTP requests. */
  readonly subject: string;
  /**
   * Executor choice; absent means automatic: the process pool when the host may spawn Deno, else the
   * worker pool.
   */
  readonly executor?: "worker" | "process" | "inline";
  /** Whether `--help` was given. */
  readonly help: boolean;
}

/** A command-line or configuration problem (exit status 2). */
export class UsageError extends Error {
  /** Creates a usage error. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The `--help` text. */
export const USAGE = `Usage: deno task serve [options]

Serves the CodeMode demo catalog over MCP: stdio by default.

Options:
  --http HOST:PORT        serve stateless Streamable HTTP instead (e.g. 127.0.0.1:8787, [::1]:8787)
  --path PATH             MCP endpoint path (default /mcp); GET /healthz answers {"status":"ok"}, or 503
                          {"status":"degraded"} while a sandbox that did not stop holds a slot;
                          GET /metrics serves the executor pool's Prometheus metrics (authenticated
                          like the MCP endpoint; codemode_executor_degraded is 1 while degraded)
  --allowed-host HOST     also accept this Host header (repeatable; "name" = any port, "name:port"
                          exact, "*" any); always added to the defaults: the loopback names at the
                          bound port (for 127.0.0.1, ::1 and 0.0.0.0/::) or the bound address
  --allowed-origin ORIGIN accepted browser Origin, e.g. https://app.example.com (repeatable)
  --subject ID            subject of the stdio user and of keyless loopback HTTP (default "local")
  --executor KIND         where programs run: process (permission-less, heap-capped child processes
                          killed past their deadline; needs --allow-run), worker (zero-permission Web
                          Workers) or inline (the host isolate). Default: process when the server may
                          spawn Deno, else worker
  -h, --help              show this help

Environment:
  ${API_KEYS_ENV}       bearer keys as subject=key pairs, comma-separated (keys: 16+ characters).
                          Without keys HTTP serves loopback addresses only.
  ${ALLOWED_HOSTS_ENV}  more allowed Host values, comma-separated
  ${ALLOWED_ORIGINS_ENV} more allowed Origin values, comma-separated
`;

function parseHostPort(value: string): { hostname: string; port: number } {
  const { name, port } = splitHost(value);
  const n = Number(port);
  if (name === "" || port === undefined || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw new UsageError(`--http expects HOST:PORT, e.g. 127.0.0.1:8787 or [::1]:8787 (got "${value}")`);
  }
  return { hostname: name.replace(/^\[(.*)\]$/, "$1"), port: n };
}

/** Parses the command line (`Deno.args`). Throws {@link UsageError}. */
export function parseServeArgs(args: readonly string[]): ServeArgs {
  let http: ServeArgs["http"];
  let path = "/mcp";
  let subject = "local";
  let executor: ServeArgs["executor"];
  let help = false;
  const allowedHosts: string[] = [];
  const allowedOrigins: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (eq > 0) return arg.slice(eq + 1);
      const next = args[++i];
      if (next === undefined) throw new UsageError(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case "--http":
        http = parseHostPort(value());
        break;
      case "--path":
        path = value();
        break;
      case "--allowed-host":
        allowedHosts.push(value());
        break;
      case "--allowed-origin":
        allowedOrigins.push(value());
        break;
      case "--subject":
        subject = value();
        if (subject === "") throw new UsageError("--subject must not be empty");
        break;
      case "--executor": {
        const v = value();
        if (v !== "worker" && v !== "process" && v !== "inline") {
          throw new UsageError('--executor must be "process", "worker" or "inline"');
        }
        executor = v;
        break;
      }
      case "-h":
      case "--help":
        help = true;
        break;
      default:
        throw new UsageError(`unknown argument "${arg}" (see --help)`);
    }
  }
  return { http, path, allowedHosts, allowedOrigins, subject, executor, help };
}

function envList(name: string): string[] {
  return (Deno.env.get(name) ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

function isWildcard(hostname: string): boolean {
  return hostname === "0.0.0.0" || hostname === "::" || hostname === "";
}

function hostEntry(hostname: string, port: number): string {
  return hostname.includes(":") ? `[${hostname}]:${port}` : `${hostname}:${port}`;
}

/**
 * The Host values a server bound to `hostname:port` always accepts: the loopback names at the port for
 * a loopback or wildcard address (a wildcard server answers local clients too, and cannot know which
 * names remote clients use: they are added with `--allowed-host`), else the bound address itself.
 */
export function defaultAllowedHosts(hostname: string, port: number): string[] {
  if (isLoopbackHostname(hostname) || isWildcard(hostname)) {
    return [hostEntry("localhost", port), hostEntry("127.0.0.1", port), hostEntry("::1", port)];
  }
  return [hostEntry(hostname, port)];
}

/**
 * The Host allow-list of a server: the defaults plus every configured value. Configuring more hosts
 * only ever allows more: a local client keeps working when a public name is added.
 */
export function serveAllowedHosts(hostname: string, port: number, configured: readonly string[]): string[] {
  return [...new Set([...defaultAllowedHosts(hostname, port), ...configured])];
}

/** A running server and how to stop it. */
export interface RunningServe {
  /** The HTTP URL of the MCP endpoint, or `undefined` on stdio. */
  readonly url?: string;
  /** Resolves to the exit status once the server has stopped. */
  readonly finished: Promise<number>;
  /** Stops serving and closes the CodeMode server. */
  shutdown(status?: number): Promise<void>;
}

/** How a transport stops, and whom to tell. */
interface Lifecycle {
  /** Resolves with the exit status. */
  readonly finished: Promise<number>;
  /** Runs `stop` once (later calls share it), closes the CodeMode server and settles `finished`. */
  shutdown(status?: number): Promise<void>;
}

function lifecycle(pending: Promise<Server>, stop: () => Promise<void>): Lifecycle {
  const { promise: finished, resolve } = Promise.withResolvers<number>();
  let closing: Promise<void> | undefined;
  return {
    finished,
    shutdown(status = 0) {
      closing ??= (async () => {
        await stop().catch(() => {});
        await pending.then((server) => server.close(), () => {});
        resolve(status);
      })();
      return closing;
    },
  };
}

async function serveStdio(pending: Promise<Server>, args: ServeArgs): Promise<RunningServe> {
  // The session ends when stdin does, once the calls already made are answered; then the server closes.
  const session = await serveStdioSession(deferredService(pending), staticSubject({ id: args.subject }), {
    limits: defaultLimits(),
  });
  const life = lifecycle(pending, () => session.close());
  void session.finished.then(() => life.shutdown());
  console.error(`codemode: MCP server on stdio (demo catalog, subject "${args.subject}")`);
  return { finished: life.finished, shutdown: life.shutdown };
}

function serveHttp(
  pending: Promise<Server>,
  args: ServeArgs,
  http: NonNullable<ServeArgs["http"]>,
  setup: ExecutorSetup,
): RunningServe {
  const apiKeys: ApiKey[] = parseApiKeys(Deno.env.get(API_KEYS_ENV) ?? "");
  const loopback = isLoopbackHostname(http.hostname);
  if (apiKeys.length === 0 && !loopback) {
    throw new UsageError(
      `refusing to serve on ${http.hostname} without API keys: set ${API_KEYS_ENV}="subject=key,..." ` +
        "or bind a loopback address such as 127.0.0.1",
    );
  }
  const configuredHosts = [...args.allowedHosts, ...envList(ALLOWED_HOSTS_ENV)];
  const allowedOrigins = [...args.allowedOrigins, ...envList(ALLOWED_ORIGINS_ENV)];
  const late: { handler?: HttpHandler } = {};
  const ac = new AbortController();
  const httpServer = Deno.serve({
    hostname: http.hostname,
    port: http.port,
    signal: ac.signal,
    onListen: () => {},
  }, (request, info) => late.handler!(request, info));
  // The port is known only once bound (port 0 picks one); no request can arrive before this line runs.
  const port = httpServer.addr.port;
  const allowedHosts = serveAllowedHosts(http.hostname, port, configuredHosts);
  late.handler = createHttpHandler(deferredService(pending), {
    apiKeys,
    allowedHosts,
    allowedOrigins,
    path: args.path,
    anonymousSubject: args.subject,
    limits: defaultLimits(),
    health: setup.health,
    metrics: setup.metrics,
  });
  const shown = http.hostname.includes(":") ? `[${http.hostname}]` : http.hostname;
  const url = `http://${shown}:${port}${args.path}`;
  const life = lifecycle(pending, async () => {
    ac.abort();
    await httpServer.finished;
  });
  const mode = apiKeys.length > 0 ? `${apiKeys.length} API key(s)` : "no API keys: loopback only";
  // Operators see which Host values pass: a 403 for a remote name is then no mystery.
  const hostsShown = allowedHosts.includes("*") ? "any Host" : `Host ${allowedHosts.join(", ")}`;
  console.error(`codemode: MCP server listening on ${url} (${mode}; accepting ${hostsShown})`);
  return { url, finished: life.finished, shutdown: life.shutdown };
}

/**
 * What runs the programs, and the pool health `/healthz` and metrics `/metrics` report (both absent for
 * the inline executor, which has no pool).
 */
interface ExecutorSetup {
  readonly kind: "worker" | "process" | "inline";
  readonly executor: ExecutorChoice;
  readonly health?: () => { readonly status: "ok" | "degraded"; readonly stuck: number };
  readonly metrics?: MetricsSource;
}

function setUpExecutor(args: ServeArgs): ExecutorSetup {
  const kind = args.executor ?? defaultServerExecutor();
  if (kind === "process" && !maySpawnProcesses()) {
    throw new UsageError(`--executor process needs permission to run ${Deno.execPath()} (--allow-run)`);
  }
  if (kind === "inline") return { kind, executor: "inline" };
  const limits = defaultLimits();
  const options = { maxConcurrentExecutions: limits.maxConcurrentExecutions };
  const pool = kind === "process"
    ? new ProcessPool({ ...options, maxMemoryBytes: limits.maxMemoryBytes })
    : new WorkerPool(options);
  return { kind, executor: pool, health: () => pool.health(), metrics: poolMetrics(pool) };
}

/**
 * Serves the demo catalog as `args` say. The transport is up at once; the CodeMode server is built in
 * the background (tool calls wait for it), and a failed build stops the server with status 1.
 * Throws {@link UsageError} for bad configuration.
 */
export async function serve(args: ServeArgs): Promise<RunningServe> {
  const setup = setUpExecutor(args);
  const pending = buildDemoServer({ executor: setup.executor, onError: jsonLogHook() });
  let running: RunningServe;
  try {
    running = args.http === undefined
      ? await serveStdio(pending, args)
      : serveHttp(pending, args, args.http, setup);
    console.error(`codemode: programs run in the ${setup.kind} executor`);
  } catch (err) {
    await pending.then((server) => server.close(), () => {});
    throw err;
  }
  pending.catch((err) => {
    console.error(
      `codemode: could not build the server: ${err instanceof Error ? err.message : String(err)}`,
    );
    void running.shutdown(1);
  });
  return running;
}

/** The CLI: parses `args`, serves until stdin ends (stdio) or SIGINT/SIGTERM, returns the exit status. */
export async function main(args: readonly string[]): Promise<number> {
  let running: RunningServe;
  try {
    const parsed = parseServeArgs(args);
    if (parsed.help) {
      console.log(USAGE);
      return 0;
    }
    running = await serve(parsed);
  } catch (err) {
    const usage = err instanceof UsageError || isCodeModeError(err, "invalid_registration");
    console.error(`codemode: ${err instanceof Error ? err.message : String(err)}`);
    return usage ? 2 : 1;
  }
  const stop = () => void running.shutdown();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    try {
      Deno.addSignalListener(signal, stop);
    } catch {
      // SIGTERM cannot be listened to on Windows; Ctrl-C still works there.
    }
  }
  return await running.finished;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
