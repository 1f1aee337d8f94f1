/**
 * Streamable HTTP for the three tools: a stateless `fetch`-style handler (one fresh SDK server and
 * transport per request, so any instance can answer any request) with bearer API keys, Host and Origin
 * validation against an allow-list, a body cap, a bound on the `execute` calls of one JSON-RPC batch and
 * `/healthz` (which reports a degraded executor pool).
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { currentSubject, type Subject, withSubject } from "../../authz.ts";
import {
  type OAuthResource,
  oauthResource,
  type OAuthSettings,
  RequestAuthenticator,
  type SubjectMapper,
} from "../auth/mod.ts";
import { CodeModeError } from "../errors.ts";
import { type ApiKey, bearerToken, KeyChecker } from "./keys.ts";
import type { MetricsSource } from "./metrics.ts";
import { type McpServerOptions, prepareTools } from "./server.ts";
import { type AuthInfo, authInfoSubject, type Service, type SubjectResolver } from "./service.ts";

/** Options of {@link createHttpHandler}. */
export interface HttpHandlerOptions extends McpServerOptions {
  /**
   * Accepted bearer keys. With none, every request is the anonymous local subject: only for a server
   * bound to loopback, which the handler also checks against the peer address when it is known.
   */
  readonly apiKeys?: readonly ApiKey[];
  /**
   * Names the subject of each tool call. Default: {@link authInfoSubject}, which reads the subject of the
   * matched API key (or the anonymous local subject when no keys are configured).
   */
  readonly resolver?: SubjectResolver;
  /**
   * Accepted `Host` header values (DNS-rebinding protection). `name:port` matches exactly, a bare name
   * matches any port, `*` matches every Host. Required when no API keys are configured; absent otherwise
   * means any Host.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Accepted `Origin` header values (`scheme://host[:port]`) besides those whose host is in
   * `allowedHosts`. A request without `Origin` (a non-browser client) is not affected.
   */
  readonly allowedOrigins?: readonly string[];
  /** The MCP endpoint path (default `/mcp`). */
  readonly path?: string;
  /** Largest accepted request body in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** Subject id of requests when no API keys are configured (default `"local"`). */
  readonly anonymousSubject?: string;
  /**
   * Most `execute` calls one JSON-RPC batch may hold; a larger batch is refused with 400 before any of
   * it runs. Every call of an accepted batch is one execution of the caller's subject, under the same
   * executor bounds (slots per subject, waiting executions per subject) as separate requests. Default:
   * `limits.maxConcurrentExecutions`, or 8.
   */
  readonly maxBatchExecutions?: number;
  /**
   * The executor's health (a pool's `health()`). While it is `degraded` — a sandbox that did not stop
   * holds a slot — `/healthz` answers 503 so that an orchestrator can replace the instance.
   */
  readonly health?: () => { readonly status: "ok" | "degraded"; readonly stuck?: number };
  /**
   * Serves `GET /metrics` (Prometheus text) from this source, for example {@link poolMetrics} of the
   * executor pool. It is authenticated like the MCP endpoint (a configured key, or loopback when no keys
   * are configured) and subject to the same Host and Origin checks. Absent: `/metrics` is 404.
   */
  readonly metrics?: MetricsSource;
  /**
   * OAuth 2.1 bearer tokens accepted besides the API keys (the MCP authorization specification: this
   * server is a resource server, `GET /.well-known/oauth-protected-resource[/path]` serves its RFC 9728
   * metadata, refusals carry `WWW-Authenticate: Bearer resource_metadata=...`). `subjects` maps a
   * token's subject to the subject id of its calls (default: the token's subject itself); a subject it
   * maps to nothing is refused with 403.
   */
  readonly oauth?: { readonly settings: OAuthSettings; readonly subjects?: SubjectMapper };
}

/** What a `Deno.serve` handler receives besides the request (only the peer address is used). */
export interface HttpRequestInfo {
  /** The peer address. */
  readonly remoteAddr?: Deno.Addr;
}

/** A `fetch`-style request handler, usable with `Deno.serve` or as a Deploy `fetch` export. */
export type HttpHandler = (request: Request, info?: HttpRequestInfo) => Promise<Response>;

/** Environment variable with allowed Host values (comma-separated), read by the CLI and the Deploy entry. */
export const ALLOWED_HOSTS_ENV = "CODEMODE_ALLOWED_HOSTS";
/** Environment variable with allowed Origin values (comma-separated), read by the CLI and the Deploy entry. */
export const ALLOWED_ORIGINS_ENV = "CODEMODE_ALLOWED_ORIGINS";

/** The default body cap: comfortably above the default 64 KiB source limit after JSON escaping. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

const JSON_HEADERS = { "content-type": "application/json" };

function jsonError(status: number, code: number, message: string, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { ...JSON_HEADERS, ...headers },
  });
}

/** Distinct refused `Host` values one handler logs before it stops logging them. */
const MAX_LOGGED_REFUSED_HOSTS = 32;

/**
 * The text of a 403 for a `Host` outside the allow-list: the value received (bounded, printable ASCII
 * only, JSON-quoted, since it is the client's text) and the options that allow it.
 */
export function refusedHostText(host: string | null): string {
  const shown = host === null
    ? "(none)"
    : JSON.stringify(host.slice(0, 100).replace(/[^\x20-\x7e]/g, "?") + (host.length > 100 ? "..." : ""));
  return `Host header ${shown} not allowed: add it to allowedHosts (createHttpHandler), ` +
    `--allowed-host or ${ALLOWED_HOSTS_ENV} (deno task serve)`;
}

/** Reads the body as text, or `undefined` once it exceeds `max` bytes (never buffering more than that). */
async function readBoundedText(request: Request, max: number): Promise<string | undefined> {
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.length;
  }
  return new TextDecoder().decode(all);
}

/** How many messages of a parsed JSON-RPC body call the `execute` tool. */
export function countExecuteCalls(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  let n = 0;
  for (const m of messages) {
    if (m === null || typeof m !== "object") continue;
    const { method, params } = m as { method?: unknown; params?: { name?: unknown } | null };
    if (
      method === "tools/call" && params !== null && typeof params === "object" && params.name === "execute"
    ) {
      n++;
    }
  }
  return n;
}

/** Whether `hostname` (no port; IPv6 with or without brackets) names the loopback interface. */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h) || h === "::ffff:127.0.0.1";
}

/** Splits `host[:port]` (IPv6 in brackets) into a lower-case name and an optional port. */
export function splitHost(value: string): { name: string; port: string | undefined } {
  const v = value.trim().toLowerCase();
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(v);
  if (m === null) return { name: v, port: undefined };
  return { name: m[1], port: m[2] };
}

class HostList {
  readonly #exact = new Set<string>();
  readonly #anyPort = new Set<string>();
  #any = false;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      if (entry.trim() === "*") {
        this.#any = true;
        continue;
      }
      const { name, port } = splitHost(entry);
      if (name === "") throw new CodeModeError("invalid_registration", `invalid allowed host "${entry}"`);
      if (port === undefined) this.#anyPort.add(name);
      else this.#exact.add(`${name}:${port}`);
    }
  }

  /** Whether `hostHeader` is allowed; `viaWildcard: false` ignores a `*` entry. */
  has(hostHeader: string, viaWildcard = true): boolean {
    if (viaWildcard && this.#any) return true;
    const { name, port } = splitHost(hostHeader);
    if (this.#anyPort.has(name)) return true;
    return port !== undefined && this.#exact.has(`${name}:${port}`);
  }
}

function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url.host : undefined;
  } catch {
    return undefined;
  }
}

function checkOptions(options: HttpHandlerOptions): void {
  const path = options.path ?? "/mcp";
  if (typeof path !== "string" || !path.startsWith("/") || path === "/healthz" || path === "/metrics") {
    throw new CodeModeError(
      "invalid_registration",
      'path must start with "/" and not be "/healthz" or "/metrics"',
    );
  }
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(max) || max <= 0) {
    throw new CodeModeError("invalid_registration", "maxBodyBytes must be a positive integer");
  }
  const batch = options.maxBatchExecutions;
  if (batch !== undefined && (!Number.isSafeInteger(batch) || batch <= 0)) {
    throw new CodeModeError("invalid_registration", "maxBatchExecutions must be a positive integer");
  }
  if (options.health !== undefined && typeof options.health !== "function") {
    throw new CodeModeError("invalid_registration", "health must be a function");
  }
  const hosts = options.allowedHosts ?? [];
  const anonymous = (options.apiKeys ?? []).length === 0 && options.oauth === undefined;
  if (anonymous && (hosts.length === 0 || hosts.some((h) => h.trim() === "*"))) {
    throw new CodeModeError(
      "invalid_registration",
      'without API keys the HTTP handler needs explicit allowedHosts, not "*" (DNS-rebinding protection ' +
        "for a loopback server)",
    );
  }
}

/**
 * Creates a stateless Streamable HTTP handler for the three tools.
 *
 * - `GET /healthz` answers `{"status":"ok"}` without authentication, or 503 `{"status":"degraded"}`
 *   while `health` reports a degraded executor.
 * - `POST <path>` carries MCP messages (JSON responses); `GET`/`DELETE` there answer 405 because a
 *   stateless server keeps no sessions or streams; `OPTIONS` answers CORS preflights of allowed origins.
 * - A `Host` outside `allowedHosts` or an `Origin` outside the allow-list is 403; a missing or wrong
 *   bearer key is 401; a body over `maxBodyBytes` is 413; a batch with more than `maxBatchExecutions`
 *   execute calls is 400.
 *
 * Throws `invalid_registration` for invalid options (including no keys and no allowed hosts).
 *
 * @example
 * ```ts ignore
 * import { createHttpHandler } from "@codemode/codemode/mcp";
 * const handler = createHttpHandler(server, {
 *   apiKeys: [{ subject: "alice", key: Deno.env.get("ALICE_KEY")! }],
 *   allowedHosts: ["mcp.example.com"],
 * });
 * Deno.serve({ port: 8080 }, handler);
 * ```
 */
export function createHttpHandler(service: Service, options: HttpHandlerOptions = {}): HttpHandler {
  checkOptions(options);
  const path = options.path ?? "/mcp";
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const keys = (options.apiKeys ?? []).length > 0 ? new KeyChecker(options.apiKeys ?? []) : undefined;
  let oauth: OAuthResource | undefined;
  try {
    oauth = options.oauth === undefined
      ? undefined
      : oauthResource(options.oauth.settings, options.oauth.subjects ?? ((s) => s));
  } catch (e) {
    throw new CodeModeError("invalid_registration", `oauth: ${(e as Error).message}`);
  }
  const anonymous = options.anonymousSubject ?? "local";
  if (anonymous === "") throw new CodeModeError("invalid_registration", "anonymousSubject must not be empty");
  const hosts = (options.allowedHosts ?? []).length > 0
    ? new HostList(options.allowedHosts ?? [])
    : undefined;
  const origins = new Set((options.allowedOrigins ?? []).map((o) => o.trim().toLowerCase()));
  const maxBatch = options.maxBatchExecutions ?? options.limits?.maxConcurrentExecutions ?? 8;
  const prepared = prepareTools(service, options.resolver ?? authInfoSubject(), options);
  // One validator for every per-request server: its schema compiler is costly to build and our server
  // never validates client-supplied schemas with it.
  const validator = new AjvJsonSchemaValidator();

  // Each distinct refused Host is logged once (an operator sees what to allow); a flood of made-up
  // names cannot grow this set or the log past a bound.
  const refusedLogged = new Set<string>();
  function logRefusedHost(message: string): void {
    if (refusedLogged.size > MAX_LOGGED_REFUSED_HOSTS || refusedLogged.has(message)) return;
    refusedLogged.add(message);
    console.error(
      refusedLogged.size > MAX_LOGGED_REFUSED_HOSTS
        ? `codemode: ${message} (further refused Host values are not logged)`
        : `codemode: ${message}`,
    );
  }

  function originAllowed(origin: string): boolean {
    if (origins.has(origin.toLowerCase())) return true;
    const host = originHost(origin);
    // A `*` Host entry does not extend to origins: a browser page of any site must not get in.
    return host !== undefined && hosts !== undefined && hosts.has(host, false);
  }

  function corsHeaders(origin: string | null): Record<string, string> {
    if (origin === null) return {};
    return {
      "access-control-allow-origin": origin,
      "access-control-expose-headers": "mcp-session-id, mcp-protocol-version, www-authenticate",
      vary: "Origin",
    };
  }

  async function authenticate(
    request: Request,
    info: HttpRequestInfo | undefined,
  ): Promise<Subject | Response> {
    if (oauth !== undefined) {
      const header = request.headers.get("authorization");
      const token = keys === undefined ? undefined : bearerToken(header);
      const keyed = token === undefined ? undefined : await keys!.check(token);
      if (keyed !== undefined) return { id: keyed };
      // The token is checked here and never handed on: the tools see only the subject.
      const outcome = await new RequestAuthenticator({ oauth: oauth.authenticator }).verifyHeader(header);
      if (outcome.ok) return { id: outcome.identity.id };
      const { refusal } = outcome;
      return jsonError(
        refusal.status,
        -32001,
        `${refusal.status === 403 ? "forbidden" : "unauthorized"}: ${refusal.reason}`,
        { "www-authenticate": oauth.metadata.challenge(refusal) },
      );
    }
    if (keys === undefined) {
      const addr = info?.remoteAddr;
      if (addr !== undefined && addr.transport === "tcp" && !isLoopbackHostname(addr.hostname)) {
        return jsonError(403, -32001, "forbidden: this server accepts loopback clients only");
      }
      return { id: anonymous };
    }
    const token = bearerToken(request.headers.get("authorization"));
    const subject = token === undefined ? undefined : await keys.check(token);
    if (subject === undefined) {
      return jsonError(401, -32001, "unauthorized: a valid bearer API key is required", {
        "www-authenticate": 'Bearer realm="codemode"',
      });
    }
    return { id: subject };
  }

  async function serveMetrics(
    request: Request,
    info: HttpRequestInfo | undefined,
    metrics: MetricsSource,
  ): Promise<Response> {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return jsonError(405, -32000, "method not allowed", { allow: "GET, HEAD" });
    }
    const subject = await authenticate(request, info);
    if (subject instanceof Response) return subject;
    const scrape = await metrics();
    return new Response(request.method === "HEAD" ? null : scrape.body, {
      headers: { "content-type": scrape.contentType },
    });
  }

  async function handleMcp(
    request: Request,
    subject: Subject,
    cors: Record<string, string>,
  ): Promise<Response> {
    const length = Number(request.headers.get("content-length") ?? "0");
    if (Number.isFinite(length) && length > maxBody) {
      return jsonError(413, -32000, `request body exceeds ${maxBody} bytes`, cors);
    }
    // The body is parsed here (bounded) so that a batch is counted before any of it runs; the SDK then
    // gets the parsed body and still checks the headers and every message.
    const text = await readBoundedText(request, maxBody);
    if (text === undefined) return jsonError(413, -32000, `request body exceeds ${maxBody} bytes`, cors);
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return jsonError(400, -32700, "Parse error: Invalid JSON", cors);
    }
    const executes = countExecuteCalls(parsedBody);
    if (executes > maxBatch) {
      return jsonError(
        400,
        -32600,
        `Invalid Request: a batch may hold at most ${maxBatch} execute calls (got ${executes})`,
        cors,
      );
    }
    const server = prepared.create(validator);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: maxBody,
    });
    // A client that hangs up cancels its in-flight tool calls (closing the server aborts them).
    const onAbort = () => void server.close().catch(() => {});
    request.signal.addEventListener("abort", onAbort, { once: true });
    try {
      await server.connect(transport);
      const authInfo: AuthInfo = {
        token: "[redacted]",
        clientId: subject.id,
        scopes: [],
        extra: {
          authentication: oauth !== undefined ? "bearer" : keys === undefined ? "loopback" : "api-key",
        },
      };
      // A subject the host's own middleware installed around this handler is kept, so `contextSubject()`
      // reads it; the key's subject still reaches the default resolver through `authInfo`.
      const response = await withSubject(
        currentSubject() ?? subject,
        () => transport.handleRequest(request, { authInfo, parsedBody }),
      );
      const headers = new Headers(response.headers);
      for (const [k, v] of Object.entries(cors)) headers.set(k, v);
      return new Response(response.body, { status: response.status, headers });
    } catch {
      // The SDK failed outside any tool call; its message may describe internals, so answer generically.
      return jsonError(500, -32603, "internal error", cors);
    } finally {
      request.signal.removeEventListener("abort", onAbort);
      await server.close().catch(() => {});
    }
  }

  return async function handle(request: Request, info?: HttpRequestInfo): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return jsonError(405, -32000, "method not allowed", { allow: "GET, HEAD" });
      }
      const health = options.health?.();
      if (health !== undefined && health.status !== "ok") {
        const body = JSON.stringify({ status: "degraded", stuckSandboxes: health.stuck ?? 0 });
        return new Response(request.method === "HEAD" ? null : body, { status: 503, headers: JSON_HEADERS });
      }
      return new Response(request.method === "HEAD" ? null : '{"status":"ok"}', { headers: JSON_HEADERS });
    }
    // Public by design (RFC 9728): a client without a token reads where to get one.
    if (oauth?.metadata.serves(url.pathname)) return oauth.metadata.response(request.method);
    const metrics = url.pathname === "/metrics" ? options.metrics : undefined;
    if (url.pathname !== path && metrics === undefined) return jsonError(404, -32000, "not found");

    const host = request.headers.get("host");
    if (hosts !== undefined && (host === null || !hosts.has(host))) {
      const message = refusedHostText(host);
      logRefusedHost(message);
      return jsonError(403, -32000, `forbidden: ${message}`);
    }
    const origin = request.headers.get("origin");
    if (origin !== null && !originAllowed(origin)) {
      return jsonError(403, -32000, "forbidden: Origin not allowed");
    }
    if (metrics !== undefined) return await serveMetrics(request, info, metrics);
    const cors = corsHeaders(origin);
    if (request.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          ...cors,
          "access-control-allow-methods": "POST, OPTIONS",
          "access-control-allow-headers": "authorization, content-type, accept, mcp-protocol-version, " +
            "mcp-session-id, last-event-id",
          "access-control-max-age": "600",
        },
      });
    }
    if (request.method !== "POST") {
      return jsonError(405, -32000, "method not allowed: this stateless server accepts POST only", {
        ...cors,
        allow: "POST, OPTIONS",
      });
    }
    const subject = await authenticate(request, info);
    if (subject instanceof Response) {
      for (const [k, v] of Object.entries(cors)) subject.headers.set(k, v);
      return subject;
    }
    return await handleMcp(request, subject, cors);
  };
}
