/**
 * `deno task serve`: a CodeMode MCP server with the built-in demo catalog, on stdio by default or on
 * stateless Streamable HTTP with `--http HOST:PORT`. It is also the reference wiring for hosts that
 * register their own capabilities.
 *
 * ```sh
 * deno task serve                                  # stdio, subject "local"
 * deno task serve --http 127.0.0.1:8787            # HTTP on loopback, no keys (development)
 * CODEMODE_API_KEYS="alice=<16+ chars>" deno task serve --http 0.0.0.0:8787 --allowed-host mcp.example.com
 * deno task serve --openapi examples/petstore.yaml --base-url http://127.0.0.1:4010   # any HTTP API
 * ```
 *
 * @module
 */
import { buildDemoServer } from "../demo/mod.ts";
import { isCodeModeError } from "../errors.ts";
import { ProcessPool, WorkerPool } from "../executor/mod.ts";
import { defaultServerExecutor, type ExecutorChoice, maySpawnProcesses } from "../core/mod.ts";
import {
  ALLOWED_HOSTS_ENV,
  ALLOWED_ORIGINS_ENV,
  createHttpHandler,
  type HttpHandler,
  isLoopbackHostname,
} from "./http.ts";
import { API_KEYS_ENV, type ApiKey, parseApiKeys } from "./keys.ts";
import { type OAuthEnvConfig, oauthFromEnv } from "../auth/mod.ts";
import { serveStdio as serveStdioSession } from "./stdio.ts";
import { jsonLogHook } from "./log.ts";
import type { MeteredPool } from "./metrics.ts";
import { deferredService, staticSubject } from "./service.ts";
import {
  buildOnDemand,
  buildStarted,
  type ServerBuild,
  startAfterListing,
  startingService,
} from "./serve_build.ts";
import { executeLimitsFromEnv, limitedService } from "./limits.ts";
import { Limits } from "../limits/mod.ts";
import { DEMO_EXAMPLES } from "./tools.ts";
import { connectHint } from "./connect_hint.ts";
import { demoListed, stdioCommand } from "./serve_parts.ts";
import { Builder, defaultLimits } from "../core/mod.ts";
import { allowAll } from "../../authz.ts";

import { type OpenAPIArgs, parseServeArgs, type ServeArgs, USAGE, UsageError } from "./serve_args.ts";

export { type OpenAPIArgs, parseServeArgs, type ServeArgs, USAGE, UsageError } from "./serve_args.ts";

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

function lifecycle(build: ServerBuild, stop: () => Promise<void>): Lifecycle {
  const { promise: finished, resolve } = Promise.withResolvers<number>();
  let closing: Promise<void> | undefined;
  return {
    finished,
    shutdown(status = 0) {
      closing ??= (async () => {
        await stop().catch(() => {});
        await build.close();
        resolve(status);
      })();
      return closing;
    },
  };
}

async function serveStdio(build: ServerBuild, args: ServeArgs): Promise<RunningServe> {
  // The session ends when stdin does, once the calls already made are answered; then the server closes.
  const session = await serveStdioSession(startingService(build), staticSubject({ id: args.subject }), {
    limits: defaultLimits(),
    // The demo's curated examples (ids its data holds), known without waiting for the build; an
    // OpenAPI catalog's examples and listing are drawn from the built catalog.
    examples: args.openapi === undefined ? DEMO_EXAMPLES : undefined,
    catalogListingBytes: args.catalogListingBytes,
    listedCapabilities: args.openapi === undefined ? startAfterListing(demoListed, build) : undefined,
  });
  const life = lifecycle(build, () => session.close());
  void session.finished.then(() => life.shutdown());
  const catalog = args.openapi === undefined ? "demo catalog" : `OpenAPI ${args.openapi.document}`;
  console.error(`codemode: MCP server on stdio (${catalog}, subject "${args.subject}")`);
  console.error(
    connectHint("codemode", { kind: "stdio", command: Deno.execPath(), args: stdioCommand(args) }),
  );
  return { finished: life.finished, shutdown: life.shutdown };
}

async function serveHttp(
  build: ServerBuild,
  args: ServeArgs,
  http: NonNullable<ServeArgs["http"]>,
  setup: ExecutorSetup,
): Promise<RunningServe> {
  // prom-client loads only when HTTP serves the metrics: a stdio start does not pay for it. Imported before
  // the listener starts, so that a request never finds the handler missing.
  const metrics = setup.pool === undefined
    ? undefined
    : (await import("./metrics.ts")).poolMetrics(setup.pool);
  const apiKeys: ApiKey[] = parseApiKeys(Deno.env.get(API_KEYS_ENV) ?? "");
  const loopback = isLoopbackHostname(http.hostname);
  let oauth: OAuthEnvConfig | undefined;
  try {
    oauth = oauthFromEnv((name) => Deno.env.get(name), {
      issuer: args.oauthIssuer,
      audience: args.oauthAudience,
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (apiKeys.length === 0 && oauth === undefined && !loopback) {
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
  // Per-subject rate and quota on execute, when the environment states them (see src/mcp/limits.ts).
  let executeLimits;
  try {
    executeLimits = executeLimitsFromEnv((name) => Deno.env.get(name));
  } catch (e) {
    ac.abort();
    throw new UsageError((e as Error).message);
  }
  const limits = executeLimits === undefined ? undefined : Limits.open(executeLimits);
  const service = limits === undefined
    ? build.pending
    : Promise.all([build.pending, limits]).then(([server, l]) => limitedService(server, l));
  late.handler = createHttpHandler(deferredService(service), {
    apiKeys,
    allowedHosts,
    allowedOrigins,
    path: args.path,
    anonymousSubject: args.subject,
    limits: defaultLimits(),
    // The demo's curated examples (ids its data holds), known without waiting for the build.
    examples: args.openapi === undefined ? DEMO_EXAMPLES : undefined,
    catalogListingBytes: args.catalogListingBytes,
    listedCapabilities: args.openapi === undefined ? demoListed : undefined,
    health: setup.health,
    metrics,
    ...(oauth === undefined ? {} : { oauth }),
  });
  const shown = http.hostname.includes(":") ? `[${http.hostname}]` : http.hostname;
  const url = `http://${shown}:${port}${args.path}`;
  const life = lifecycle(build, async () => {
    ac.abort();
    await httpServer.finished;
    await (await limits?.catch(() => undefined))?.close();
  });
  const mode = [
    apiKeys.length > 0 ? `${apiKeys.length} API key(s)` : "",
    oauth === undefined ? "" : `OAuth tokens of ${oauth.settings.issuer} for ${oauth.settings.audience}`,
  ].filter((m) => m !== "").join(", ") || "no API keys: loopback only";
  // Operators see which Host values pass: a 403 for a remote name is then no mystery.
  const hostsShown = allowedHosts.includes("*") ? "any Host" : `Host ${allowedHosts.join(", ")}`;
  console.error(`codemode: MCP server listening on ${url} (${mode}; accepting ${hostsShown})`);
  const bearer = apiKeys.length > 0
    ? `<a key of ${API_KEYS_ENV}>`
    : oauth === undefined
    ? undefined
    : "<an OAuth access token>";
  console.error(connectHint("codemode", { kind: "http", url, ...(bearer === undefined ? {} : { bearer }) }));
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
  /** The pool `/metrics` reports on. */
  readonly pool?: MeteredPool;
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
  return { kind, executor: pool, health: () => pool.health(), pool };
}

/**
 * A builder holding one capability per operation the OpenAPI flags select. The document is read and
 * validated now, so a bad document or flag fails the command (status 2) before anything is served.
 */
async function registerOpenAPI(o: OpenAPIArgs, setup: ExecutorSetup): Promise<Builder> {
  const builder = new Builder({ authorizer: allowAll(), executor: setup.executor, onError: jsonLogHook() });
  // The OpenAPI subsystem (a validator and a YAML parser from npm) loads only when a document is served.
  const { fromOpenAPI } = await import("../openapi/mod.ts");
  const registered = await fromOpenAPI(o.document, {
    builder,
    baseUrl: o.baseUrl,
    headers: o.headers,
    readOnly: o.readOnly,
    include: o.include,
    exclude: o.exclude,
  });
  for (const s of registered.skipped) console.error(`codemode: left out ${s.operation}: ${s.reason}`);
  if (registered.capabilities.length === 0) {
    throw new UsageError(
      `no operation of ${o.document} is served (check --include, --exclude and --read-only)`,
    );
  }
  console.error(
    `codemode: ${registered.capabilities.length} capabilities from ${JSON.stringify(registered.title)}, ` +
      `calling ${new URL(o.baseUrl).origin} only`,
  );
  return builder;
}

/**
 * How long a stdio server waits for its first listing or call before it builds the demo server (and warms
 * the sandbox) anyway.
 */
const STDIO_BUILD_FALLBACK_MS = 1_000;

/**
 * Serves the demo catalog (or an OpenAPI document's operations) as `args` say. The transport is up at
 * once; the CodeMode server is built in the background (tool calls wait for it) — on stdio with the demo
 * catalog, once the first `tools/list` is answered (see serve_build.ts) — and a failed build stops the
 * server with status 1. Throws {@link UsageError} for bad configuration.
 */
export async function serve(args: ServeArgs): Promise<RunningServe> {
  const setup = setUpExecutor(args);
  let build: ServerBuild;
  if (args.openapi === undefined) {
    const start = () => buildDemoServer({ executor: setup.executor, onError: jsonLogHook() });
    build = args.http === undefined
      ? buildOnDemand(start, setup.executor, STDIO_BUILD_FALLBACK_MS)
      : buildStarted(start());
  } else {
    try {
      build = buildStarted((await registerOpenAPI(args.openapi, setup)).build());
    } catch (err) {
      // The document was refused before any server existed: the pool has no other owner.
      const executor = setup.executor as { close?: () => Promise<void> };
      if (typeof executor === "object" && typeof executor.close === "function") await executor.close();
      throw err;
    }
  }
  let running: RunningServe;
  try {
    running = args.http === undefined
      ? await serveStdio(build, args)
      : await serveHttp(build, args, args.http, setup);
    console.error(`codemode: programs run in the ${setup.kind} executor`);
  } catch (err) {
    await build.close();
    throw err;
  }
  build.pending.catch((err) => {
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
