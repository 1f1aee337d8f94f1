/**
 * The gateway's HTTP edge: a `fetch`-style handler serving the client MCP endpoint over Streamable HTTP
 * (stateless: one SDK server per request, so any replica can answer any request), `/healthz` without
 * authentication, and `/metrics` behind a client key (unless a separate metrics listener serves it).
 * Every check happens before the body is read, and the body is read against a byte cap and a deadline,
 * never buffered beyond the cap.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type AuditRecord, authFailureRecord, type Identity } from "../domain/mod.ts";
import { bearerToken, type ClientKeys, type HostCheck, type OriginCheck } from "./auth.ts";
import { type ClientServerOptions, type ClientSurface, createClientServer } from "./mcp_server.ts";

type Server = ReturnType<typeof createClientServer>;

/** Idle SDK servers kept per client for reuse. */
const MAX_IDLE_SERVERS = 8;

/** The parts of the edge a hot reload replaces. */
export interface EdgeSettings {
  /** The client keys. */
  readonly keys: ClientKeys;
  /** The Host check. */
  readonly hosts: HostCheck;
  /** The Origin check. */
  readonly origins: OriginCheck;
}

/** Prometheus exposition for `/metrics`. */
export interface MetricsSource {
  /** The exposition text. */
  text(): Promise<string> | string;
  /** Its content type. */
  readonly contentType: string;
}

/** Options of an {@link HttpEdge}. */
export interface EdgeOptions extends ClientServerOptions {
  /** The pipeline entry and per-client listing. */
  readonly surface: ClientSurface;
  /** Keys, hosts and origins at start. */
  readonly settings: EdgeSettings;
  /** Receives the record of each failed authentication (the presented key is never in it). */
  readonly audit: (record: AuditRecord) => Promise<void>;
  /** Serves `/metrics` to any configured client when set (leave unset when `metrics_listen` serves it). */
  readonly metrics?: MetricsSource;
  /** Called on each failed authentication (metrics). */
  readonly onAuthFailure?: () => void;
  /** The MCP endpoint path (default `/mcp`). */
  readonly path?: string;
  /** Largest request body in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** How long a client may take to send its body, in milliseconds (default 10000). */
  readonly bodyTimeoutMs?: number;
}

const JSON_TYPE = { "content-type": "application/json" };

/** A JSON-RPC error response with a fixed message (never anything the request carried). */
export function rpcError(status: number, code: number, message: string, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { ...JSON_TYPE, ...headers },
  });
}

type BodyOutcome = { ok: true; bytes: Uint8Array } | { ok: false; response: Response };

/**
 * Reads at most `max` bytes of `request`'s body within `timeoutMs`. A declared or actual size over the
 * cap is 413 as soon as it is known (the rest is never read); a client too slow to send is 408.
 */
export async function readCappedBody(request: Request, max: number, timeoutMs: number): Promise<BodyOutcome> {
  const declared = request.headers.get("content-length");
  if (declared !== null && (!/^\d{1,15}$/.test(declared) || Number(declared) > max)) {
    return { ok: false, response: rpcError(413, -32600, `request body exceeds ${max} bytes`) };
  }
  const body = request.body;
  if (body === null) return { ok: true, bytes: new Uint8Array() };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    while (true) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "timeout") {
        return { ok: false, response: rpcError(408, -32600, "request body not received in time") };
      }
      if (next.done) break;
      total += next.value.length;
      if (total > max) {
        return { ok: false, response: rpcError(413, -32600, `request body exceeds ${max} bytes`) };
      }
      chunks.push(next.value);
    }
  } catch {
    return { ok: false, response: rpcError(400, -32600, "request body could not be read") };
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { ok: true, bytes };
}

/** The HTTP edge of one gateway. `handle` is usable with `Deno.serve`. */
export class HttpEdge {
  readonly #options: EdgeOptions;
  #settings: EdgeSettings;
  readonly #path: string;
  readonly #maxBody: number;
  readonly #bodyTimeout: number;
  readonly #servers = new Map<string, Server[]>();
  #recycleFor: EdgeSettings;

  /** Creates the edge. */
  constructor(options: EdgeOptions) {
    this.#options = options;
    this.#settings = options.settings;
    this.#recycleFor = options.settings;
    this.#path = options.path ?? "/mcp";
    this.#maxBody = options.maxBodyBytes ?? 1_048_576;
    this.#bodyTimeout = options.bodyTimeoutMs ?? 10_000;
  }

  /** Replaces keys, hosts and origins for requests that arrive from now on. */
  reconfigure(settings: EdgeSettings): void {
    this.#settings = settings;
  }

  /** Handles one request. */
  readonly handle = async (request: Request): Promise<Response> => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return rpcError(400, -32600, "bad request");
    }
    if (url.pathname === "/healthz") {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return rpcError(405, -32600, "method not allowed", { allow: "GET, HEAD" });
      }
      return new Response(request.method === "HEAD" ? null : '{"status":"ok"}', { headers: JSON_TYPE });
    }
    const settings = this.#settings;
    const isMetrics = url.pathname === "/metrics" && this.#options.metrics !== undefined;
    if (url.pathname !== this.#path && !isMetrics) return rpcError(404, -32600, "not found");
    // Deno.serve builds the URL from the Host header; a Request made in-process has only the URL.
    if (!settings.hosts.allows(request.headers.get("host") ?? url.host)) {
      return rpcError(403, -32600, "forbidden: Host not allowed");
    }
    const origin = request.headers.get("origin");
    if (!settings.origins.allows(origin)) return rpcError(403, -32600, "forbidden: Origin not allowed");
    const cors: Record<string, string> = origin === null ? {} : {
      "access-control-allow-origin": origin,
      "access-control-expose-headers": "mcp-session-id, mcp-protocol-version, www-authenticate",
      vary: "Origin",
    };
    if (request.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          ...cors,
          "access-control-allow-methods": "GET, POST, OPTIONS",
          "access-control-allow-headers": "authorization, content-type, accept, mcp-protocol-version",
          "access-control-max-age": "600",
        },
      });
    }
    const identity = await this.#authenticate(request, settings);
    if (identity === undefined) {
      return rpcError(401, -32001, "unauthorized: a valid bearer API key is required", {
        ...cors,
        "www-authenticate": 'Bearer realm="mcp-gateway"',
      });
    }
    if (isMetrics) {
      if (request.method !== "GET") return rpcError(405, -32600, "method not allowed", { allow: "GET" });
      const m = this.#options.metrics!;
      return new Response(await m.text(), { headers: { "content-type": m.contentType, ...cors } });
    }
    if (request.method !== "POST") {
      // Stateless: no session to resume and no standalone stream to open.
      return rpcError(405, -32600, "method not allowed: this gateway accepts POST only", {
        ...cors,
        allow: "POST, OPTIONS",
      });
    }
    return await this.#serveMcp(request, identity, cors);
  };

  async #authenticate(request: Request, settings: EdgeSettings): Promise<Identity | undefined> {
    const started = performance.now();
    const token = bearerToken(request.headers.get("authorization"));
    // A missing token is still compared (against an empty string), so a request without one takes
    // the same path and time as one with a wrong key.
    const identity = settings.keys.check(token ?? "");
    if (identity !== undefined && token !== undefined) return identity;
    this.#options.onAuthFailure?.();
    try {
      await this.#options.audit(authFailureRecord(new Date(), performance.now() - started));
    } catch {
      // The request is refused either way; an unwritable audit is counted by the writer.
    }
    return undefined;
  }

  async #serveMcp(request: Request, identity: Identity, cors: Record<string, string>): Promise<Response> {
    const body = await readCappedBody(request, this.#maxBody, this.#bodyTimeout);
    if (!body.ok) return withHeaders(body.response, cors);
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body.bytes));
    } catch {
      return rpcError(400, -32700, "parse error: the body is not JSON", cors);
    }
    if (Array.isArray(parsed)) {
      // Batching left the protocol in 2025-06-18; refusing it keeps one call per request to account.
      return rpcError(400, -32600, "invalid request: JSON-RPC batches are not supported", cors);
    }
    if (parsed === null || typeof parsed !== "object") {
      return rpcError(400, -32600, "invalid request: not a JSON-RPC message", cors);
    }
    const server = this.#servers.get(identity.id)?.pop() ??
      createClientServer(this.#options.surface, identity, this.#options);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !this.#streams(identity, parsed),
    });
    // The server is done once the answer to the request has been handed to the response stream (or the
    // client hung up, which also cancels its in-flight call: closing the server aborts its signal).
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      request.signal.removeEventListener("abort", release);
      void server.close().then(() => this.#recycle(identity, server), () => {});
    };
    const id = (parsed as { id?: unknown }).id;
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      await send(message, options);
      if ("id" in message && !("method" in message) && message.id === id) release();
    };
    request.signal.addEventListener("abort", release, { once: true });
    try {
      await server.connect(transport);
      // A client that hung up gets no answer, and the transport may never settle one once its server
      // closed: end the handler so the listener's shutdown does not wait for it.
      let onGone: () => void = () => {};
      const gone = new Promise<Response>((resolve) => {
        onGone = () => resolve(rpcError(400, -32600, "client closed the request", cors));
        request.signal.addEventListener("abort", onGone, { once: true });
      });
      if (request.signal.aborted) onGone();
      const response = await Promise.race([
        transport.handleRequest(request, {
          parsedBody: parsed,
          authInfo: { token: "[redacted]", clientId: identity.id, scopes: [] },
        }),
        gone,
      ]).finally(() => request.signal.removeEventListener("abort", onGone));
      // A notification or a refused message has no answer to wait for.
      if (!("method" in parsed) || !("id" in parsed) || response.status !== 200) release();
      return withHeaders(response, cors);
    } catch {
      release();
      return rpcError(500, -32603, "internal error", cors);
    }
  }

  /**
   * Whether to answer with an SSE stream (so notifications during the call reach the client) rather
   * than one JSON body, which is cheaper for both sides: only for a `tools/call` that asked for
   * progress or whose tool may log.
   */
  #streams(identity: Identity, message: object): boolean {
    const m = message as {
      method?: unknown;
      params?: { name?: unknown; _meta?: { progressToken?: unknown } };
    };
    if (m.method !== "tools/call") return false;
    if (m.params?._meta?.progressToken !== undefined) return true;
    const surface = this.#options.surface;
    if (surface.mayNotify === undefined) return true;
    return typeof m.params?.name === "string" && surface.mayNotify(identity, m.params.name);
  }

  /** Keeps a closed server for the next request of the same client (building one costs more). */
  #recycle(identity: Identity, server: Server): void {
    if (this.#settings !== this.#recycleFor) {
      // Keys or clients changed: servers built for the previous settings are not reused.
      this.#servers.clear();
      this.#recycleFor = this.#settings;
    }
    let idle = this.#servers.get(identity.id);
    if (idle === undefined) this.#servers.set(identity.id, idle = []);
    if (idle.length < MAX_IDLE_SERVERS) idle.push(server);
  }
}

function withHeaders(response: Response, extra: Record<string, string>): Response {
  if (Object.keys(extra).length === 0) return response;
  const headers = new Headers(response.headers);
  for (const [k, v] of Object.entries(extra)) headers.set(k, v);
  return new Response(response.body, { status: response.status, headers });
}
