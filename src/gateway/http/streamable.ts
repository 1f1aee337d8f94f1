/**
 * The gateway's own Streamable HTTP endpoint for the JSON-RPC methods it serves (`initialize`, `ping`,
 * `tools/list`, `tools/call`, `logging/setLevel`), following the transport rules of MCP 2025-06-18 and
 * 2025-11-25: a POST carries one message; a notification or a response is accepted with 202 and no
 * body; a request is answered on its own HTTP response, as one JSON body, or as an SSE stream when a
 * notification (progress, logging) must reach the client before the result. Stateless: no
 * `Mcp-Session-Id` is issued and any replica can answer any request.
 *
 * It replaces the SDK's server transport and `Server` on the HTTP path, whose per-request set-up (a
 * server and a transport per request, schema validation of every message and of every result the
 * pipeline already shaped, a stream per answer) cost more than the whole pipeline. `--stdio` keeps
 * the SDK server; both answer through the same {@link listToolsPage} and {@link answerToolCall}.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { Identity, JsonObject } from "../domain/mod.ts";
import {
  answerToolCall,
  type ClientNotification,
  type ClientServerOptions,
  type ClientSurface,
  listToolsPage,
  RpcError,
} from "./mcp_server.ts";

/** Options of a {@link StreamableEndpoint}. */
export interface EndpointOptions extends ClientServerOptions {
  /** The pipeline entry and per-client listing. */
  readonly surface: ClientSurface;
  /**
   * Bytes of notifications one call may have waiting for its client to read them (default 1 MiB); past
   * it, notifications are dropped (the result itself is always queued).
   */
  readonly maxQueuedPerCallBytes?: number;
  /** Bytes of notifications all of one client's calls may have waiting together (default 4 MiB). */
  readonly maxQueuedPerClientBytes?: number;
  /** Called for each notification dropped because its client does not read fast enough (metrics). */
  readonly onNotificationDropped?: (clientId: string) => void;
}

/** The default bound on one call's unread notifications. */
const DEFAULT_QUEUED_PER_CALL = 1024 * 1024;
/** The default bound on one client's unread notifications, over all of its calls. */
const DEFAULT_QUEUED_PER_CLIENT = 4 * 1024 * 1024;

/** One incoming message, classified by the JSON-RPC 2.0 rules MCP uses. */
export type Incoming =
  | {
    readonly kind: "request";
    readonly id: string | number;
    readonly method: string;
    readonly params: Record<string, unknown> | undefined;
  }
  | { readonly kind: "notification"; readonly method: string }
  | { readonly kind: "response" }
  | { readonly kind: "invalid" };

const LOG_LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is string | number {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/**
 * Classifies one parsed message: a request (string or integer id, string method, object params if
 * any), a notification (no id), a response (an id and exactly one of `result`, `error`), or invalid.
 */
export function classifyMessage(message: unknown): Incoming {
  if (!isPlainObject(message) || message.jsonrpc !== "2.0") return { kind: "invalid" };
  const params = message.params;
  if ("method" in message) {
    if (typeof message.method !== "string" || (params !== undefined && !isPlainObject(params))) {
      return { kind: "invalid" };
    }
    if (!("id" in message)) return { kind: "notification", method: message.method };
    if (!isRequestId(message.id)) return { kind: "invalid" };
    return { kind: "request", id: message.id, method: message.method, params };
  }
  if (isRequestId(message.id) && ("result" in message) !== ("error" in message)) return { kind: "response" };
  return { kind: "invalid" };
}

/** A JSON-RPC error response with a fixed message (never anything the request carried). */
export function rpcError(status: number, code: number, message: string, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** The media type of a `Content-Type` value, lower-cased, without parameters. */
function mediaType(value: string | null): string {
  if (value === null) return "";
  const semi = value.indexOf(";");
  return (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
}

const ENCODER = new TextEncoder();
const SUPPORTED_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
const VERSION_ERROR = `Bad Request: unsupported MCP-Protocol-Version (supported: ${
  SUPPORTED_VERSIONS.join(", ")
})`;

function sseEvent(message: object): Uint8Array {
  return ENCODER.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/** The endpoint; {@link StreamableEndpoint.answer} is called by the edge once a client is authenticated. */
export class StreamableEndpoint {
  readonly #surface: ClientSurface;
  readonly #pageSize: number;
  readonly #serverInfo: { name: string; version: string };
  readonly #perCall: number;
  readonly #perClient: number;
  readonly #onDropped: ((clientId: string) => void) | undefined;
  /** The open answer streams of each client, to bound what a client leaves unread over all its calls. */
  readonly #streams = new Map<string, Set<ReadableStreamDefaultController<Uint8Array>>>();
  #dropped = 0;

  /** Creates the endpoint. */
  constructor(options: EndpointOptions) {
    this.#surface = options.surface;
    this.#perCall = Math.max(1, options.maxQueuedPerCallBytes ?? DEFAULT_QUEUED_PER_CALL);
    this.#perClient = Math.max(1, options.maxQueuedPerClientBytes ?? DEFAULT_QUEUED_PER_CLIENT);
    this.#onDropped = options.onNotificationDropped;
    this.#pageSize = Math.max(1, options.pageSize ?? 100);
    this.#serverInfo = { name: options.name ?? "codemode-gateway", version: options.version ?? "0.1.0" };
  }

  /** Notifications dropped so far because their client did not read them fast enough. */
  get droppedNotifications(): number {
    return this.#dropped;
  }

  /** Bytes queued and not yet read by the client on its open answer streams. */
  #queuedFor(clientId: string): number {
    let total = 0;
    for (const c of this.#streams.get(clientId) ?? []) {
      total += this.#perCall - (c.desiredSize ?? this.#perCall);
    }
    return total;
  }

  /** Whether an event of `bytes` may be queued on `stream` (undefined: a stream not yet opened). */
  #admits(clientId: string, stream: ReadableStreamDefaultController<Uint8Array> | undefined, bytes: number) {
    const own = stream === undefined ? 0 : this.#perCall - (stream.desiredSize ?? this.#perCall);
    if (own + bytes <= this.#perCall && this.#queuedFor(clientId) + bytes <= this.#perClient) return true;
    this.#dropped++;
    this.#onDropped?.(clientId);
    return false;
  }

  #track(clientId: string, stream: ReadableStreamDefaultController<Uint8Array>, open: boolean): void {
    let set = this.#streams.get(clientId);
    if (open) {
      if (set === undefined) this.#streams.set(clientId, set = new Set());
      set.add(stream);
    } else if (set !== undefined) {
      set.delete(stream);
      if (set.size === 0) this.#streams.delete(clientId);
    }
  }

  /**
   * The checks on a POST's headers, before its body is read: the client must accept both JSON and SSE
   * answers (406) and send JSON (415).
   */
  checkHeaders(request: Request, headers: Record<string, string>): Response | undefined {
    const accept = request.headers.get("accept") ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return rpcError(
        406,
        -32000,
        "Not Acceptable: the client must accept both application/json and text/event-stream",
        headers,
      );
    }
    if (mediaType(request.headers.get("content-type")) !== "application/json") {
      return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json", headers);
    }
    return undefined;
  }

  /**
   * Answers one parsed message of `client` (a batch or a non-object never gets here). `headers` go on
   * every answer (CORS).
   */
  answer(
    request: Request,
    message: unknown,
    client: Identity,
    headers: Record<string, string>,
  ): Promise<Response> | Response {
    const incoming = classifyMessage(message);
    if (incoming.kind === "invalid") {
      return rpcError(400, -32600, "Invalid Request: not a JSON-RPC 2.0 message", headers);
    }
    const isInitialize = incoming.kind === "request" && incoming.method === "initialize";
    const version = request.headers.get("mcp-protocol-version");
    // Versions are negotiated by initialize; after it, the header must name one we speak.
    if (!isInitialize && version !== null && !SUPPORTED_VERSIONS.includes(version)) {
      return rpcError(400, -32000, VERSION_ERROR, headers);
    }
    // Notifications and responses need no answer: there is no session whose state they could change
    // (a cancellation arrives as the client closing its request).
    if (incoming.kind !== "request") return new Response(null, { status: 202, headers });
    const { id, method, params } = incoming;
    if (method === "tools/call") {
      const call = toolCallParams(params);
      if (call === undefined) {
        return this.#json(id, invalidParams("tools/call needs a string name and object arguments"), headers);
      }
      return this.#call(request, id, call, client, headers);
    }
    return this.#json(id, this.#answerSimple(method, params, client), headers);
  }

  /** The answer to a request other than `tools/call` (each is immediate). */
  #answerSimple(
    method: string,
    params: Record<string, unknown> | undefined,
    client: Identity,
  ): { result: unknown } | { error: { code: number; message: string } } {
    switch (method) {
      case "initialize": {
        const requested = params?.protocolVersion;
        if (typeof requested !== "string") return invalidParams("initialize needs a protocolVersion");
        return {
          result: {
            protocolVersion: SUPPORTED_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
            capabilities: { tools: {}, logging: {} },
            serverInfo: this.#serverInfo,
          },
        };
      }
      case "ping":
        return { result: {} };
      case "tools/list": {
        const cursor = params?.cursor;
        if (cursor !== undefined && typeof cursor !== "string") {
          return invalidParams("the cursor is not a string");
        }
        return { result: listToolsPage(this.#surface, client, cursor, this.#pageSize) };
      }
      case "logging/setLevel":
        // Downstream log lines are forwarded as they come; the level is accepted for the protocol's
        // sake (a stateless gateway has no session to keep it in).
        if (typeof params?.level !== "string" || !LOG_LEVELS.has(params.level)) {
          return invalidParams("unknown logging level");
        }
        return { result: {} };
      default:
        return { error: { code: ErrorCode.MethodNotFound, message: "Method not found" } };
    }
  }

  #json(
    id: string | number,
    answer: { result: unknown } | { error: unknown },
    headers: Record<string, string>,
  ): Response {
    return new Response(JSON.stringify({ jsonrpc: "2.0", id, ...answer }), {
      headers: { "content-type": "application/json", ...headers },
    });
  }

  /**
   * Runs one call. The HTTP answer waits for the first thing the call produces: the result makes it
   * one JSON body; a notification first makes it an SSE stream that carries that notification, any
   * others, then the result. A client that hangs up cancels its call.
   */
  #call(
    request: Request,
    id: string | number,
    params: ToolCallParams,
    client: Identity,
    headers: Record<string, string>,
  ): Promise<Response> {
    const abort = new AbortController();
    return new Promise<Response>((resolve) => {
      let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
      let done = false;
      const gone = () => {
        if (done) return;
        abort.abort(new DOMException("the client closed the request", "AbortError"));
        // Nobody reads this answer; it ends the handler without waiting for the call to unwind.
        resolve(rpcError(400, -32600, "client closed the request", headers));
      };
      const write = (event: Uint8Array) => {
        try {
          stream!.enqueue(event);
        } catch {
          // The client cancelled the stream; its call is being cancelled too.
        }
      };
      const untrack = () => {
        if (stream !== undefined) this.#track(client.id, stream, false);
      };
      const send = (n: ClientNotification) => {
        if (done || abort.signal.aborted) return;
        const event = sseEvent({ jsonrpc: "2.0", method: n.method, params: n.params });
        // A client that does not read its stream must not grow the gateway: past the bounds of this
        // call and of this client, notifications are dropped (and counted).
        if (!this.#admits(client.id, stream, event.length)) return;
        if (stream === undefined) {
          const body = new ReadableStream<Uint8Array>({
            start: (controller) => {
              stream = controller;
            },
            cancel: () => {
              untrack();
              gone();
            },
          }, new ByteLengthQueuingStrategy({ highWaterMark: this.#perCall }));
          this.#track(client.id, stream!, true);
          write(event);
          resolve(new Response(body, { headers: { ...SSE_HEADERS, ...headers } }));
        } else {
          write(event);
        }
      };
      request.signal.addEventListener("abort", gone, { once: true });
      answerToolCall(this.#surface, client, params, abort.signal, send).then(
        (result) => ({ result }),
        (err) => ({
          error: err instanceof RpcError
            ? { code: err.code, message: err.message }
            : { code: ErrorCode.InternalError, message: "internal error" },
        }),
      ).then((answer: { result: JsonObject } | { error: { code: number; message: string } }) => {
        // Stop listening before answering: the runtime may abort the signal once the response is sent.
        request.signal.removeEventListener("abort", gone);
        if (done) return;
        done = true;
        if (stream === undefined) {
          resolve(this.#json(id, answer, headers));
          return;
        }
        write(sseEvent({ jsonrpc: "2.0", id, ...answer }));
        untrack();
        try {
          stream.close();
        } catch {
          // Already cancelled by the client.
        }
      });
      if (request.signal.aborted) gone();
    });
  }
}

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: { progressToken?: string | number };
}

/** The params of a `tools/call` when well-formed: a string name, object arguments, a valid token. */
function toolCallParams(params: Record<string, unknown> | undefined): ToolCallParams | undefined {
  if (params === undefined || typeof params.name !== "string") return undefined;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
  const meta = params._meta;
  if (meta !== undefined && !isPlainObject(meta)) return undefined;
  const token = meta?.progressToken;
  if (token !== undefined && !isRequestId(token)) return undefined;
  return params as unknown as ToolCallParams;
}

function invalidParams(message: string): { error: { code: number; message: string } } {
  return { error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${message}` } };
}
