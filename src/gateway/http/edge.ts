/**
 * The gateway's HTTP edge: a `fetch`-style handler serving the client MCP endpoint over Streamable HTTP
 * (stateless, so any replica can answer any request; see `streamable.ts`), `/healthz` without
 * authentication, and `/metrics` behind an operator key (unless a separate metrics listener serves it);
 * a client key opens no operator data.
 * Every check happens before the body is read, and the body is read against a byte cap and a deadline,
 * never buffered beyond the cap.
 *
 * @module
 */
import { type AuthRefusal, type OAuthResource, RequestAuthenticator } from "../../auth/mod.ts";
import { type AuditRecord, authFailureRecord, type Identity } from "../domain/mod.ts";
import { type ConsoleRequestContext, isConsolePath } from "../../console/mod.ts";
import { bearerToken, ClientKeys, type HostCheck, type OriginCheck } from "./auth.ts";
import type { ClientServerOptions, ClientSurface } from "./mcp_server.ts";
import type { FailureLimiter } from "./ratelimit.ts";
import { rpcError, StreamableEndpoint } from "./streamable.ts";

/** The parts of the edge a hot reload replaces. */
export interface EdgeSettings {
  /** The client keys. */
  readonly keys: ClientKeys;
  /** The Host check. */
  readonly hosts: HostCheck;
  /** The Origin check. */
  readonly origins: OriginCheck;
  /** Failed authentications per remote address (absent: unlimited). */
  readonly authLimit?: FailureLimiter;
  /** The operator keys, the only keys `/metrics` accepts (absent: none, so `/metrics` answers 401). */
  readonly operators?: ClientKeys;
  /**
   * OAuth 2.1 bearer tokens accepted on the MCP endpoint besides the client keys, and the RFC 9728
   * metadata served for them (absent: keys only). Never accepted on `/metrics`.
   */
  readonly oauth?: OAuthResource;
}

/** No key at all: `/metrics` without configured operators refuses everyone alike. */
const NO_OPERATORS = new ClientKeys([]);

/** What `Deno.serve` tells a handler about the connection (only the peer's address is used). */
export interface ConnectionInfo {
  /** The peer; only a TCP peer's host is rate limited (a request made in-process has none). */
  readonly remoteAddr?: Deno.Addr;
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
  /**
   * Serves `/metrics` to operators (their keys are in the settings) when set; a client key is refused
   * like no key. Leave unset when `metrics_listen` serves it.
   */
  readonly metrics?: MetricsSource;
  /**
   * The gateway's health for `/healthz`: `degraded` (503) while the code-mode sandbox pool holds a slot
   * with a sandbox that did not stop when asked, so an orchestrator can replace the replica. Default ok.
   */
  readonly health?: () => "ok" | "degraded";
  /**
   * The call limits' store health for `/healthz`: `degraded` while the store fails (the body says so,
   * with status 200 unless `health` is degraded too: the store is shared, this replica is fine).
   */
  readonly limitsHealth?: () => "ok" | "degraded";
  /** Called on each failed authentication (metrics). */
  readonly onAuthFailure?: () => void;
  /** Called on each request refused because its address failed to authenticate too often (metrics). */
  readonly onRateLimited?: () => void;
  /** Called for each notification dropped because its client did not read it fast enough (metrics). */
  readonly onNotificationDropped?: (clientId: string) => void;
  /** The operator console, served under `/console` when set. */
  readonly console?: {
    handle(request: Request, context: ConsoleRequestContext): Promise<Response>;
  };
  /** The MCP endpoint path (default `/mcp`). */
  readonly path?: string;
  /** Largest request body in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** How long a client may take to send its body, in milliseconds (default 10000). */
  readonly bodyTimeoutMs?: number;
}

const JSON_TYPE = { "content-type": "application/json" };
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
// Fatal: a body that is not UTF-8 is a parse error, not text with replacement characters.
const UTF8 = new TextDecoder("utf-8", { fatal: true });

type BodyOutcome = { ok: true; bytes: Uint8Array } | { ok: false; response: Response };

/** How late a body deadline may fire, in milliseconds. */
const DEADLINE_TICK_MS = 20;

interface Deadline {
  readonly at: number;
  readonly fire: () => void;
}

/**
 * Deadlines of request bodies being read, checked by one coarse interval instead of a timer per
 * request: a pending timer per request cost about as much as reading a small body. The interval keeps
 * the process alive only while a body is pending, and stops at the first tick with none.
 */
class BodyDeadlines {
  readonly #pending = new Set<Deadline>();
  #timer: ReturnType<typeof setInterval> | undefined;

  add(ms: number, fire: () => void): Deadline {
    const entry = { at: performance.now() + ms, fire };
    this.#pending.add(entry);
    if (this.#timer === undefined) {
      this.#timer = setInterval(this.#tick, Math.min(DEADLINE_TICK_MS, Math.max(1, ms)));
    } else if (this.#pending.size === 1) {
      Deno.refTimer(this.#timer);
    }
    return entry;
  }

  remove(entry: Deadline): void {
    if (this.#pending.delete(entry) && this.#pending.size === 0 && this.#timer !== undefined) {
      Deno.unrefTimer(this.#timer);
    }
  }

  readonly #tick = () => {
    const now = performance.now();
    for (const entry of this.#pending) {
      if (entry.at > now) continue;
      this.remove(entry);
      entry.fire();
    }
    if (this.#pending.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  };
}

const deadlines = new BodyDeadlines();

const tooSlow = () => ({
  ok: false as const,
  response: rpcError(408, -32600, "request body not received in time"),
});
const tooLarge = (max: number) => ({
  ok: false as const,
  response: rpcError(413, -32600, `request body exceeds ${max} bytes`),
});

/**
 * Reads at most `max` bytes of `request`'s body within `timeoutMs` (up to 20 ms later). A declared or
 * actual size over the cap is 413 as soon as it is known (the rest is never read); a client too slow
 * to send is 408.
 */
export async function readCappedBody(request: Request, max: number, timeoutMs: number): Promise<BodyOutcome> {
  const declared = request.headers.get("content-length");
  if (declared !== null && (!/^\d{1,15}$/.test(declared) || Number(declared) > max)) return tooLarge(max);
  // Before `request.body` is touched: making the stream costs more than reading a small body whole.
  if (declared !== null) return await readDeclared(request, max, timeoutMs);
  const body = request.body;
  if (body === null) return { ok: true, bytes: new Uint8Array() };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timedOut = false;
  let done = false;
  // Cancelling the reader ends its pending read: no race against a deadline per chunk.
  const deadline = deadlines.add(timeoutMs, () => {
    timedOut = true;
    reader.cancel().catch(() => {});
  });
  try {
    while (true) {
      const next = await reader.read();
      if (timedOut) return tooSlow();
      if (next.done) break;
      total += next.value.length;
      if (total > max) return tooLarge(max);
      chunks.push(next.value);
    }
    done = true;
  } catch {
    return timedOut
      ? tooSlow()
      : { ok: false, response: rpcError(400, -32600, "request body could not be read") };
  } finally {
    deadlines.remove(deadline);
    if (!done) reader.cancel().catch(() => {});
  }
  if (chunks.length === 1) return { ok: true, bytes: chunks[0] };
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { ok: true, bytes };
}

/**
 * A body of declared length (at most `max`), read in one go, which costs a fraction of reading it
 * through a stream reader. HTTP framing ends the body at the declared length (what follows is the next
 * request), so a remote client cannot make it longer than the cap; the length is checked again for a
 * `Request` built in-process, which nothing frames.
 */
async function readDeclared(request: Request, max: number, timeoutMs: number): Promise<BodyOutcome> {
  let deadline: Deadline | undefined;
  try {
    return await new Promise<BodyOutcome>((resolve, reject) => {
      deadline = deadlines.add(timeoutMs, () => resolve(tooSlow()));
      request.bytes().then(
        (bytes) => resolve(bytes.length > max ? tooLarge(max) : { ok: true, bytes }),
        reject,
      );
    });
  } catch {
    return { ok: false, response: rpcError(400, -32600, "request body could not be read") };
  } finally {
    if (deadline !== undefined) deadlines.remove(deadline);
  }
}

/** The HTTP edge of one gateway. `handle` is usable with `Deno.serve`. */
export class HttpEdge {
  readonly #options: EdgeOptions;
  #settings: EdgeSettings;
  readonly #path: string;
  readonly #maxBody: number;
  readonly #bodyTimeout: number;
  readonly #endpoint: StreamableEndpoint;

  /** Creates the edge. */
  constructor(options: EdgeOptions) {
    this.#options = options;
    this.#settings = options.settings;
    this.#endpoint = new StreamableEndpoint(options);
    this.#path = options.path ?? "/mcp";
    this.#maxBody = options.maxBodyBytes ?? 1_048_576;
    this.#bodyTimeout = options.bodyTimeoutMs ?? 10_000;
  }

  /** The settings in force. */
  get settings(): EdgeSettings {
    return this.#settings;
  }

  /** Replaces keys, hosts, origins and the rate limiter for requests that arrive from now on. */
  reconfigure(settings: EdgeSettings): void {
    this.#settings = settings;
  }

  /** Handles one request; `info` (the second argument `Deno.serve` passes) enables rate limiting. */
  readonly handle = async (request: Request, info?: ConnectionInfo): Promise<Response> => {
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
      const status = this.#options.health?.() ?? "ok";
      // A failing limits store is shared by every replica: replacing this one would not help, and taking
      // every replica out of a load balancer would refuse even what on_store_error allows. Reported, 200.
      const limits = this.#options.limitsHealth?.() ?? "ok";
      const body = limits === "ok" ? `{"status":"${status}"}` : `{"status":"degraded","limits":"degraded"}`;
      return new Response(request.method === "HEAD" ? null : body, {
        status: status === "ok" ? 200 : 503,
        headers: JSON_TYPE,
      });
    }
    const settings = this.#settings;
    // Public by design (RFC 9728): how to get a token is no secret, and a client has none yet.
    if (settings.oauth?.metadata.serves(url.pathname)) {
      return settings.oauth.metadata.response(request.method);
    }
    if (this.#options.console !== undefined && isConsolePath(url.pathname)) {
      return await this.handleConsole(request, info);
    }
    const isMetrics = url.pathname === "/metrics" && this.#options.metrics !== undefined;
    if (url.pathname !== this.#path && !isMetrics) return rpcError(404, -32600, "not found");
    // Deno.serve builds the URL from the Host header; a Request made in-process has only the URL.
    if (!settings.hosts.allows(request.headers.get("host") ?? url.host)) {
      return rpcError(403, -32600, "forbidden: Host not allowed");
    }
    const origin = request.headers.get("origin");
    if (!settings.origins.allows(origin)) return rpcError(403, -32600, "forbidden: Origin not allowed");
    const cors: Record<string, string> = origin === null ? NO_HEADERS : {
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
    const address = info?.remoteAddr?.transport === "tcp" ? info.remoteAddr.hostname : undefined;
    const wait = address === undefined ? 0 : settings.authLimit?.retryAfterMs(address) ?? 0;
    if (wait > 0) {
      // Refused before the key is looked at: while limited, a right guess is worth nothing either.
      this.#options.onRateLimited?.();
      return rpcError(429, -32000, "too many failed authentications from this address; retry later", {
        ...cors,
        "retry-after": String(Number.isFinite(wait) ? Math.max(1, Math.ceil(wait / 1000)) : 3600),
      });
    }
    // Metrics are operator data: only an operator key opens them, and a client key fails exactly like
    // a wrong one (same status, body and headers), so it learns nothing there.
    const keys = isMetrics ? settings.operators ?? NO_OPERATORS : settings.keys;
    const oauth = isMetrics ? undefined : settings.oauth;
    const outcome = await this.#authenticate(request, settings, keys, address, oauth);
    if (!outcome.ok) {
      if (oauth === undefined || outcome.refusal === undefined) {
        return rpcError(401, -32001, "unauthorized: a valid bearer API key is required", {
          ...cors,
          "www-authenticate": 'Bearer realm="mcp-gateway"',
        });
      }
      const { refusal } = outcome;
      const message = refusal.status === 403 ? "forbidden" : "unauthorized";
      return rpcError(refusal.status, -32001, `${message}: ${refusal.reason}`, {
        ...cors,
        "www-authenticate": oauth.metadata.challenge(refusal),
      });
    }
    const identity = outcome.identity;
    if (isMetrics) {
      if (request.method !== "GET") return rpcError(405, -32600, "method not allowed", { allow: "GET" });
      const m = this.#options.metrics!;
      return new Response(await m.text(), { headers: { "content-type": m.contentType, ...cors } });
    }
    if (request.method !== "POST") {
      // Stateless: no session to resume or end (DELETE), and no standalone stream to open (GET).
      return rpcError(405, -32600, "method not allowed: this gateway accepts POST only", {
        ...cors,
        allow: "POST, OPTIONS",
      });
    }
    return await this.#serveMcp(request, identity, cors);
  };

  /**
   * Serves the operator console (`/console...`), on this listener or the metrics one: the Host check
   * of the MCP endpoint, then the console's own operator sessions. A failed console login counts like
   * any failed authentication (rate limit, metrics, audit). Not found without a console.
   */
  readonly handleConsole = async (request: Request, info?: ConnectionInfo): Promise<Response> => {
    const consolePage = this.#options.console;
    const settings = this.#settings;
    const url = new URL(request.url);
    if (consolePage === undefined || !isConsolePath(url.pathname)) return rpcError(404, -32600, "not found");
    if (!settings.hosts.allows(request.headers.get("host") ?? url.host)) {
      return rpcError(403, -32600, "forbidden: Host not allowed");
    }
    const address = info?.remoteAddr?.transport === "tcp" ? info.remoteAddr.hostname : undefined;
    return await consolePage.handle(request, {
      operators: settings.operators ?? NO_OPERATORS,
      retryAfterMs: () => address === undefined ? 0 : settings.authLimit?.retryAfterMs(address) ?? 0,
      failed: async () => {
        this.#options.onAuthFailure?.();
        const limited = address !== undefined && settings.authLimit?.fail(address) === true;
        await this.#options.audit(
          limited
            ? authFailureRecord(new Date(), 0, "rate limited", "rate_limited", address)
            : authFailureRecord(new Date(), 0, "console login failed", undefined, address),
        ).catch(() => {});
      },
      secure: url.protocol === "https:",
    });
  };

  async #authenticate(
    request: Request,
    settings: EdgeSettings,
    keys: ClientKeys,
    address: string | undefined,
    oauth: OAuthResource | undefined,
  ): Promise<{ ok: true; identity: Identity } | { ok: false; refusal?: AuthRefusal }> {
    const started = performance.now();
    let refusal: AuthRefusal | undefined;
    if (oauth === undefined) {
      const token = bearerToken(request.headers.get("authorization"));
      // A missing token is still compared (against an empty string), so a request without one takes
      // the same path and time as one with a wrong key.
      const identity = keys.check(token ?? "");
      if (identity !== undefined && token !== undefined) return { ok: true, identity };
    } else {
      // Keys first (compared for every request), then a JWT; a token never reaches audit or a downstream.
      const outcome = await new RequestAuthenticator({
        apiKeys: (t) => keys.check(t)?.id,
        oauth: oauth.authenticator,
      }).verifyHeader(request.headers.get("authorization"));
      if (outcome.ok) return { ok: true, identity: Object.freeze({ id: outcome.identity.id }) };
      refusal = outcome.refusal;
    }
    this.#options.onAuthFailure?.();
    // The failure that empties its address's bucket is recorded as the moment the address got limited.
    const limited = address !== undefined && settings.authLimit?.fail(address) === true;
    try {
      await this.#options.audit(
        limited
          ? authFailureRecord(
            new Date(),
            performance.now() - started,
            "rate limited",
            "rate_limited",
            address,
          )
          : authFailureRecord(
            new Date(),
            performance.now() - started,
            refusal === undefined ? undefined : `${refusal.kind}: ${refusal.reason}`,
            undefined,
            address,
          ),
      );
    } catch {
      // The request is refused either way; an unwritable audit is counted by the writer.
    }
    return { ok: false, refusal };
  }

  async #serveMcp(request: Request, identity: Identity, cors: Record<string, string>): Promise<Response> {
    const refused = this.#endpoint.checkHeaders(request, cors);
    if (refused !== undefined) return refused;
    const body = await readCappedBody(request, this.#maxBody, this.#bodyTimeout);
    if (!body.ok) return withHeaders(body.response, cors);
    let parsed: unknown;
    try {
      parsed = JSON.parse(UTF8.decode(body.bytes));
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
    try {
      return await this.#endpoint.answer(request, parsed, identity, cors);
    } catch {
      return rpcError(500, -32603, "internal error", cors);
    }
  }
}

function withHeaders(response: Response, extra: Record<string, string>): Response {
  if (Object.keys(extra).length === 0) return response;
  const headers = new Headers(response.headers);
  for (const [k, v] of Object.entries(extra)) headers.set(k, v);
  return new Response(response.body, { status: response.status, headers });
}
