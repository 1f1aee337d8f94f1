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
import { OAUTH_ENV, type OAuthEnvConfig, oauthFromEnv } from "../auth/mod.ts";
import { serveStdio as serveStdioSession } from "./stdio.ts";
import { jsonLogHook } from "./log.ts";
import { type MetricsSource, poolMetrics } from "./metrics.ts";
import { deferredService, staticSubject } from "./service.ts";
import { executeLimitsFromEnv, limitedService } from "./limits.ts";
import { Limits } from "../limits/mod.ts";
import { DEMO_EXAMPLES } from "./tools.ts";
import { connectHint } from "./connect_hint.ts";
import { demoListed, stdioCommand } from "./serve_parts.ts";
import { Builder, defaultLimits } from "../core/mod.ts";
import { allowAll } from "../../authz.ts";
import { fromOpenAPI } from "../openapi/mod.ts";

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
  /** `--oauth-issuer`: accept OAuth bearer tokens of this issuer (overrides `CODEMODE_OAUTH_ISSUER`). */
  readonly oauthIssuer?: string;
  /** `--oauth-audience`: this server's resource URI (overrides `CODEMODE_OAUTH_AUDIENCE`). */
  readonly oauthAudience?: string;
  /**
   * `--catalog-listing-bytes N` (a budget for the catalog listed in execute's description) or
   * `--no-catalog-listing` (`false`); absent means the default budget.
   */
  readonly catalogListingBytes?: number | false;
  /** `--openapi` and its companions: serve the operations of an OpenAPI document instead of the demo. */
  readonly openapi?: OpenAPIArgs;
}

/** The OpenAPI flags. */
export interface OpenAPIArgs {
  /** `--openapi FILE_OR_URL`. */
  readonly document: string;
  /** `--base-url URL`: the only origin called. */
  readonly baseUrl: string;
  /** `--header 'Name: value'` (repeatable; `${ENV}` expanded from the environment). */
  readonly headers: Readonly<Record<string, string>>;
  /** `--read-only`: GET and HEAD operations only. */
  readonly readOnly: boolean;
  /** `--include GLOB` (repeatable). */
  readonly include: readonly string[];
  /** `--exclude GLOB` (repeatable). */
  readonly exclude: readonly string[];
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

Serves the CodeMode demo catalog (or any HTTP API an OpenAPI document describes) over MCP: stdio by
default.

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
  --oauth-issuer URL      also accept OAuth 2.1 bearer JWTs of this issuer (RFC 8414/OpenID discovery;
                          see docs/auth.md); needs --oauth-audience
  --oauth-audience URL    this server's resource URI, e.g. https://mcp.example.com/mcp (tokens' aud)
  --catalog-listing-bytes N
                          list the whole catalog in execute's description when it fits N bytes
                          (default 4096), so a model needs no search_api/describe_api first
  --no-catalog-listing    never list the catalog in execute's description
  --openapi FILE_OR_URL   serve the operations of this OpenAPI 3.0/3.1 document instead of the demo
                          (docs/openapi.md); needs --base-url
  --base-url URL          the API's base URL: every call goes to its origin, nowhere else
  --header 'Name: value'  a header every call sends, e.g. 'Authorization: Bearer \${API_TOKEN}'
                          (repeatable; \${NAME} is read from the environment, never shown to programs)
  --read-only             serve only GET and HEAD operations
  --include GLOB          serve only operations whose tag, path or operationId matches (repeatable)
  --exclude GLOB          leave out operations whose tag, path or operationId matches (repeatable)
  -h, --help              show this help

Environment:
  ${API_KEYS_ENV}       bearer keys as subject=key pairs, comma-separated (keys: 16+ characters).
                          Without keys HTTP serves loopback addresses only.
  ${ALLOWED_HOSTS_ENV}  more allowed Host values, comma-separated
  ${ALLOWED_ORIGINS_ENV} more allowed Origin values, comma-separated
  ${OAUTH_ENV.issuer}, ${OAUTH_ENV.audience}, ${OAUTH_ENV.requiredScopes}, ${OAUTH_ENV.subjects} ...
                          OAuth settings (docs/auth.md); the flags take precedence
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
  let oauthIssuer: string | undefined;
  let oauthAudience: string | undefined;
  let catalogListingBytes: number | false | undefined;
  const allowedHosts: string[] = [];
  const allowedOrigins: string[] = [];
  let openapiDocument: string | undefined;
  let baseUrl: string | undefined;
  const headers: Record<string, string> = {};
  let readOnly = false;
  const include: string[] = [];
  const exclude: string[] = [];
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
      case "--oauth-issuer":
        oauthIssuer = value();
        break;
      case "--oauth-audience":
        oauthAudience = value();
        break;
      case "--catalog-listing-bytes": {
        const v = value();
        const n = Number(v);
        if (!/^[0-9]+$/.test(v) || !Number.isSafeInteger(n) || n <= 0) {
          throw new UsageError(`--catalog-listing-bytes expects a positive number of bytes (got "${v}")`);
        }
        catalogListingBytes = n;
        break;
      }
      case "--no-catalog-listing":
        catalogListingBytes = false;
        break;
      case "--openapi":
        openapiDocument = value();
        break;
      case "--base-url":
        baseUrl = value();
        break;
      case "--header": {
        const v = value();
        const colon = v.indexOf(":");
        const name = colon > 0 ? v.slice(0, colon).trim() : "";
        if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
          throw new UsageError(`--header expects 'Name: value' (got a value without a valid header name)`);
        }
        headers[name] = v.slice(colon + 1).trim();
        break;
      }
      case "--read-only":
        readOnly = true;
        break;
      case "--include":
        include.push(value());
        break;
      case "--exclude":
        exclude.push(value());
        break;
      case "-h":
      case "--help":
        help = true;
        break;
      default:
        throw new UsageError(`unknown argument "${arg}" (see --help)`);
    }
  }
  const openapiFlags = baseUrl !== undefined || readOnly || include.length > 0 || exclude.length > 0 ||
    Object.keys(headers).length > 0;
  if (openapiDocument === undefined && openapiFlags) {
    throw new UsageError("--base-url, --header, --read-only, --include and --exclude go with --openapi");
  }
  if (openapiDocument !== undefined && baseUrl === undefined) {
    throw new UsageError(
      "--openapi needs --base-url URL (the API's origin; the document's servers are not used)",
    );
  }
  return {
    http,
    path,
    allowedHosts,
    allowedOrigins,
    subject,
    executor,
    help,
    ...(oauthIssuer === undefined ? {} : { oauthIssuer }),
    ...(oauthAudience === undefined ? {} : { oauthAudience }),
    ...(catalogListingBytes === undefined ? {} : { catalogListingBytes }),
    ...(openapiDocument === undefined
      ? {}
      : { openapi: { document: openapiDocument, baseUrl: baseUrl!, headers, readOnly, include, exclude } }),
  };
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
    // The demo's curated examples (ids its data holds), known without waiting for the build; an
    // OpenAPI catalog's examples and listing are drawn from the built catalog.
    examples: args.openapi === undefined ? DEMO_EXAMPLES : undefined,
    catalogListingBytes: args.catalogListingBytes,
    listedCapabilities: args.openapi === undefined ? demoListed : undefined,
  });
  const life = lifecycle(pending, () => session.close());
  void session.finished.then(() => life.shutdown());
  const catalog = args.openapi === undefined ? "demo catalog" : `OpenAPI ${args.openapi.document}`;
  console.error(`codemode: MCP server on stdio (${catalog}, subject "${args.subject}")`);
  console.error(
    connectHint("codemode", { kind: "stdio", command: Deno.execPath(), args: stdioCommand(args) }),
  );
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
    ? pending
    : Promise.all([pending, limits]).then(([server, l]) => limitedService(server, l));
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
    metrics: setup.metrics,
    ...(oauth === undefined ? {} : { oauth }),
  });
  const shown = http.hostname.includes(":") ? `[${http.hostname}]` : http.hostname;
  const url = `http://${shown}:${port}${args.path}`;
  const life = lifecycle(pending, async () => {
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
 * A builder holding one capability per operation the OpenAPI flags select. The document is read and
 * validated now, so a bad document or flag fails the command (status 2) before anything is served.
 */
async function registerOpenAPI(o: OpenAPIArgs, setup: ExecutorSetup): Promise<Builder> {
  const builder = new Builder({ authorizer: allowAll(), executor: setup.executor, onError: jsonLogHook() });
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
 * Serves the demo catalog (or an OpenAPI document's operations) as `args` say. The transport is up at once; the CodeMode server is built in
 * the background (tool calls wait for it), and a failed build stops the server with status 1.
 * Throws {@link UsageError} for bad configuration.
 */
export async function serve(args: ServeArgs): Promise<RunningServe> {
  const setup = setUpExecutor(args);
  let pending: Promise<Server>;
  if (args.openapi === undefined) {
    pending = buildDemoServer({ executor: setup.executor, onError: jsonLogHook() });
  } else {
    try {
      pending = (await registerOpenAPI(args.openapi, setup)).build();
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
