/**
 * One live MCP session with a downstream server through the official SDK client: connect (spawn or
 * dial, then initialize), list every page of tools, call a tool forwarding progress (to the call that
 * owns its token) and logging (on a per-client session only) to the calling client, ping, and close.
 *
 * A downstream's answer to a tool call, error or not, is the tool's result: a JSON-RPC error answer
 * becomes an error result carrying its text, which the redact(out) stage scans like any result, and an
 * answer over the result cap becomes a "result too large" error result. Only failures that say nothing
 * about the call (a closed connection, a crash, a timeout, an answer that does not parse) are thrown, as
 * classified {@link GatewayError}s: what the transport said stays in `cause`, for the operator.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  ListToolsResultSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ProgressNotificationSchema,
  ResultSchema,
  type Tool as SdkTool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { GatewayError } from "../domain/mod.ts";
import { childEnvironment, connectionHeaders, type DownstreamSpec } from "./spec.ts";
import { StdioProcessTransport } from "./stdio.ts";
import { FRAME_SLACK_BYTES } from "./frame_cap.ts";
import { capFetch } from "./http_cap.ts";
import { fetchWithTraceparent } from "./traceparent.ts";

/** A notification from the downstream that belongs to one call, to be forwarded to its client. */
export type CallNotification =
  | { readonly method: "notifications/progress"; readonly params: Record<string, unknown> }
  | { readonly method: "notifications/message"; readonly params: Record<string, unknown> };

/** Per-call options of {@link DownstreamSession.callTool}. */
export interface SessionCallOptions {
  /** The caller's cancellation. */
  readonly signal?: AbortSignal;
  /** The calling client: logging is attributed to a call only when it is unambiguous. */
  readonly clientId: string;
  /** Receives progress (without its token: the caller re-tags it) and logging during the call. */
  readonly onNotification?: (notification: CallNotification) => void;
  /** SDK-level backstop timeout in milliseconds; the pipeline's own timeout normally fires first. */
  readonly timeoutMs?: number;
  /** Called when the answer was over the result size cap and replaced by an error result. */
  readonly onTruncated?: () => void;
}

/** Options of {@link DownstreamSession.open}. */
export interface SessionOpenOptions {
  /** Reads a host environment variable (for the minimal child environment and `envPassthrough`). */
  readonly hostEnv: (name: string) => string | undefined;
  /** Called when the downstream announces `notifications/tools/list_changed`. */
  readonly onToolsChanged?: () => void;
  /** Called once when the session ends for any reason other than {@link DownstreamSession.close}. */
  readonly onLost?: (cause: unknown) => void;
  /** Receives the child's stderr (stdio only); dropped without it. */
  readonly onStderr?: (chunk: Uint8Array) => void;
  /** `fetch` for http downstreams (default the global one). */
  readonly fetch?: typeof fetch;
  /**
   * Whether the session serves one client only (`per_client`). Only then may a log line, which carries no
   * request attribution, be forwarded to a call in flight; a shared session drops it.
   */
  readonly perClient?: boolean;
  /**
   * The result size cap in bytes (`max_result_bytes`, read per answer so a reload applies at once). An
   * answer longer than it plus the JSON-RPC envelope is never held whole: the transport reads and
   * discards it, and the call gets a "result too large" error result (default: 64 MiB lines, no cap).
   */
  readonly maxResultBytes?: () => number;
}

const CLIENT_INFO = { name: "codemode-gateway", version: "0.1.0" };
/** The SDK refuses timeouts it cannot schedule; this is the largest setTimeout delay. */
const MAX_TIMER_MS = 2_147_483_647;

interface LiveCall {
  readonly clientId: string;
  readonly onNotification?: (notification: CallNotification) => void;
  /** The JSON-RPC error the downstream answered this call with, seen on the wire. */
  answeredError?: { readonly code: unknown; readonly message: unknown };
  /** The length of the answer that was discarded for its size. */
  oversizedBytes?: number;
  /** Whether the answer did not parse as JSON-RPC (a transport failure, not an answer). */
  malformed?: boolean;
  /** The JSON-RPC id of the call's request, once sent. */
  requestId?: string;
}

/** One connected session. Create it with {@link DownstreamSession.open}. */
export class DownstreamSession {
  readonly #client: Client;
  readonly #transport: StdioProcessTransport | StreamableHTTPClientTransport;
  readonly #calls = new Set<LiveCall>();
  /** Calls that asked for progress, by the progress token this session gave them. */
  readonly #progress = new Map<string, LiveCall>();
  /** Calls in flight by the JSON-RPC id the SDK gave their request (see {@link DownstreamSession.open}). */
  readonly #byRequestId = new Map<string, LiveCall>();
  #perClient = false;
  #cap: (() => number) | undefined;
  #nextProgressToken = 1;
  #closedByUs = false;
  #lost = false;
  #onLost: ((cause: unknown) => void) | undefined;

  private constructor(client: Client, transport: StdioProcessTransport | StreamableHTTPClientTransport) {
    this.#client = client;
    this.#transport = transport;
  }

  /**
   * Starts the transport and runs the MCP handshake within `timeoutMs`. Throws a
   * `downstream_unavailable` {@link GatewayError} when the server cannot be started or does not initialize in time.
   */
  static async open(
    spec: DownstreamSpec,
    options: SessionOpenOptions,
    timeoutMs: number,
  ): Promise<DownstreamSession> {
    const cap = options.maxResultBytes;
    const frameLimit = cap === undefined ? undefined : () => cap() + FRAME_SLACK_BYTES;
    // The session does not exist yet when the transport is made; an oversized answer needs it.
    const holder: { session?: DownstreamSession } = {};
    const onOversized = (id: string | number, bytes: number) => {
      if (holder.session !== undefined) holder.session.#oversized(id, bytes);
    };
    // Each request carries the trace context of the call it belongs to.
    const traced = fetchWithTraceparent(options.fetch);
    const transport = spec.transport === "stdio"
      ? new StdioProcessTransport({
        command: spec.command,
        args: spec.args,
        env: childEnvironment(spec, options.hostEnv),
        cwd: spec.cwd,
        onStderr: options.onStderr,
        ...(frameLimit === undefined ? {} : { maxLineBytes: frameLimit, onOversized }),
        onMalformed: (id) => {
          if (holder.session !== undefined) holder.session.#malformed(id);
        },
      })
      : new StreamableHTTPClientTransport(new URL(spec.url), {
        requestInit: { headers: connectionHeaders(spec) },
        fetch: frameLimit === undefined ? traced : capFetch(traced, frameLimit, onOversized),
      });
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const session = new DownstreamSession(client, transport);
    holder.session = session;
    session.#cap = cap;
    session.#onLost = options.onLost;
    session.#perClient = options.perClient === true;
    session.#observeWire(transport);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged?.());
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => session.#routeLog(n.params));
    // Our own progress routing replaces the SDK's: the SDK drops a progress notification that arrives
    // in the same read as its call's response (its handler runs a microtask later, after the response
    // has removed the call's progress callback), which happens whenever the machine is busy. Ours keeps
    // a call's token until the caller has seen the result, so progress sent before it always arrives.
    client.setNotificationHandler(ProgressNotificationSchema, (n) => session.#routeProgress(n.params));
    client.onclose = () => session.#markLost(new Error("downstream connection closed"));
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (err) {
      session.#closedByUs = true;
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      throw new GatewayError("downstream_unavailable", "downstream failed to start", { cause: err });
    }
    return session;
  }

  /** Whether the session has ended (closed by us or lost). */
  get closed(): boolean {
    return this.#closedByUs || this.#lost;
  }

  /** Calls in flight on this session. */
  get inFlight(): number {
    return this.#calls.size;
  }

  /** The stdio child's pid, when there is one. */
  get pid(): number | undefined {
    return this.#transport instanceof StdioProcessTransport ? this.#transport.pid : undefined;
  }

  /** Kills the stdio child's whole process group without a grace period (tests: simulate a crash). */
  kill(): void {
    if (this.#transport instanceof StdioProcessTransport) this.#transport.kill();
  }

  /**
   * Watches the wire under the SDK to tell the downstream's own error answer from the SDK's errors: the
   * SDK turns both into an `McpError` with the same codes (a server may answer -32000, which is also the
   * SDK's "connection closed"). A `tools/call` request is matched to its call by the progress token this
   * session put in it; an error response to that request id is recorded on the call before the SDK
   * rejects it. The SDK chains a transport `onmessage` set before `connect`, so this one runs first.
   */
  #observeWire(transport: StdioProcessTransport | StreamableHTTPClientTransport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const m = message as {
        id?: unknown;
        method?: unknown;
        params?: { _meta?: { progressToken?: unknown } };
      };
      if (m.method === "tools/call" && m.id !== undefined) {
        const live = this.#progress.get(String(m.params?._meta?.progressToken));
        if (live !== undefined) {
          live.requestId = String(m.id);
          this.#byRequestId.set(live.requestId, live);
        }
      }
      return (send as (m: typeof message, o?: unknown) => Promise<void>)(message, options);
    };
    transport.onmessage = (message) => {
      const m = message as { id?: unknown; error?: { code?: unknown; message?: unknown } };
      if (m.error === undefined || m.id === undefined) return;
      const live = this.#byRequestId.get(String(m.id));
      if (live !== undefined) live.answeredError = { code: m.error.code, message: m.error.message };
    };
  }

  #oversized(id: string | number, bytes: number): void {
    const live = this.#byRequestId.get(String(id));
    if (live !== undefined) live.oversizedBytes = bytes;
  }

  #malformed(id: string | number): void {
    const live = this.#byRequestId.get(String(id));
    if (live !== undefined) live.malformed = true;
  }

  #markLost(cause: unknown): void {
    if (this.#lost || this.#closedByUs) return;
    this.#lost = true;
    this.#onLost?.(cause);
  }

  #routeProgress(params: Record<string, unknown>): void {
    const { progressToken, ...rest } = params;
    this.#progress.get(String(progressToken))?.onNotification?.({
      method: "notifications/progress",
      params: rest,
    });
  }

  #routeLog(params: Record<string, unknown>): void {
    // A log line carries no request id: on a shared session it cannot be attributed to any call (it
    // may concern a call that has already answered, of another client), so it is dropped. A per-client
    // session serves one client, whose call in flight receives it.
    if (!this.#perClient) return;
    let target: LiveCall | undefined;
    for (const call of this.#calls) {
      if (target !== undefined && target.clientId !== call.clientId) return;
      target = call;
    }
    target?.onNotification?.({ method: "notifications/message", params });
  }

  /** Every tool of the downstream, following `nextCursor` through all pages (at most 1000). */
  async listTools(signal?: AbortSignal, timeoutMs = 30_000): Promise<SdkTool[]> {
    const tools: SdkTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const result = await this.#request(
        () =>
          this.#client.request(
            { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
            ListToolsResultSchema,
            { signal, timeout: timeoutMs },
          ),
        signal,
      );
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
    }
    throw new GatewayError("downstream_error", "downstream tool list does not end");
  }

  /**
   * Calls `name` with `args` and returns the downstream's `CallToolResult` object as received (not
   * validated against any output schema: the end client does that). A tool execution error is a
   * result with `isError: true`, not a throw; so is a JSON-RPC error answer and an answer over the cap.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: SessionCallOptions,
  ): Promise<Record<string, unknown>> {
    const live: LiveCall = { clientId: options.clientId, onNotification: options.onNotification };
    this.#calls.add(live);
    // Every call gets a token of this session: it routes progress, and it identifies the call's request
    // on the wire (see #observeWire).
    const token = `gw-${this.#nextProgressToken++}`;
    this.#progress.set(token, live);
    const params: Record<string, unknown> = args === undefined ? { name } : { name, arguments: args };
    params._meta = { progressToken: token };
    try {
      return await this.#request(
        () =>
          this.#client.request(
            { method: "tools/call", params } as never,
            ResultSchema,
            {
              signal: options.signal,
              timeout: Math.min(options.timeoutMs ?? MAX_TIMER_MS, MAX_TIMER_MS),
            },
          ) as Promise<Record<string, unknown>>,
        options.signal,
      );
    } catch (err) {
      if (live.malformed === true && !options.signal?.aborted) {
        throw new GatewayError("downstream_unavailable", "downstream answer does not parse", { cause: err });
      }
      if (live.oversizedBytes !== undefined && !options.signal?.aborted) {
        options.onTruncated?.();
        const limit = this.#cap?.() ?? live.oversizedBytes;
        return tooLarge(live.oversizedBytes, limit);
      }
      // The downstream answered: its error is the tool's result, not a failure of the downstream.
      if (live.answeredError !== undefined && !options.signal?.aborted) {
        return errorAnswer(live.answeredError);
      }
      throw err;
    } finally {
      this.#calls.delete(live);
      this.#progress.delete(token);
      if (live.requestId !== undefined) this.#byRequestId.delete(live.requestId);
    }
  }

  /** An MCP ping (the breaker's recovery probe). */
  async ping(signal?: AbortSignal, timeoutMs = 5_000): Promise<void> {
    await this.#request(() => this.#client.ping({ signal, timeout: timeoutMs }), signal);
  }

  async #request<T>(run: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (this.closed) throw new GatewayError("downstream_unavailable", "downstream connection closed");
    try {
      return await run();
    } catch (err) {
      throw classify(err, signal);
    }
  }

  /** Closes the session (for stdio: ends the child's process group). */
  async close(): Promise<void> {
    if (this.#closedByUs) return;
    this.#closedByUs = true;
    await this.#client.close().catch(() => {});
    await this.#transport.close().catch(() => {});
  }
}

/** The longest downstream error text carried to a client (after redaction). */
const MAX_DETAIL_CHARS = 500;

/** The error result of an answer that was discarded for its size (worded as the redact(out) stage does). */
function tooLarge(bytes: number, limit: number): Record<string, unknown> {
  const text = `result too large: more than ${bytes} bytes exceeds the limit of ${limit} bytes`;
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * A downstream's JSON-RPC error answer as a tool error result. The message is kept whole: the
 * redact(out) stage scans it like any result text (cutting it first could split a secret so that the
 * redactor no longer sees it), and the result size cap bounds it.
 */
function errorAnswer(error: { readonly code: unknown; readonly message: unknown }): Record<string, unknown> {
  const code = typeof error.code === "number" ? error.code : String(error.code);
  const message = typeof error.message === "string" ? error.message : "";
  const head = `the tool's server reported an error (code ${code})`;
  return { content: [{ type: "text", text: message === "" ? head : `${head}: ${message}` }], isError: true };
}

function classify(err: unknown, signal: AbortSignal | undefined): GatewayError {
  if (err instanceof GatewayError) return err;
  if (signal?.aborted) {
    const reason = (signal.reason as { name?: unknown } | undefined)?.name;
    return new GatewayError(reason === "TimeoutError" ? "timeout" : "cancelled", undefined, { cause: err });
  }
  if (err instanceof McpError) {
    // The SDK reports its own timeout and a closed connection as McpErrors; neither is the server's
    // answer, so both count as transport failures.
    if (err.code === ErrorCode.RequestTimeout || err.code === ErrorCode.ConnectionClosed) {
      return new GatewayError("downstream_unavailable", "downstream did not answer", { cause: err });
    }
    const text = err.message.replace(/^MCP error -?\d+: /, "").slice(0, MAX_DETAIL_CHARS);
    return new GatewayError("downstream_error", "downstream rejected the request", {
      cause: err,
      detail: text,
    });
  }
  return new GatewayError("downstream_unavailable", "downstream connection failed", { cause: err });
}
