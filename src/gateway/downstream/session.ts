/**
 * One live MCP session with a downstream server through the official SDK client: connect (spawn or
 * dial, then initialize), list every page of tools, call a tool forwarding progress and logging to the
 * calling client, ping, and close. Failures are classified {@link GatewayError}s: what the transport
 * said stays in `cause`, for the operator; a downstream's own error text becomes `detail`, which the
 * redact(out) stage scans before a client sees it.
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
}

const CLIENT_INFO = { name: "codemode-gateway", version: "0.1.0" };
/** The SDK refuses timeouts it cannot schedule; this is the largest setTimeout delay. */
const MAX_TIMER_MS = 2_147_483_647;

interface LiveCall {
  readonly clientId: string;
  readonly onNotification?: (notification: CallNotification) => void;
}

/** One connected session. Create it with {@link DownstreamSession.open}. */
export class DownstreamSession {
  readonly #client: Client;
  readonly #transport: StdioProcessTransport | StreamableHTTPClientTransport;
  readonly #calls = new Set<LiveCall>();
  /** Calls that asked for progress, by the progress token this session gave them. */
  readonly #progress = new Map<string, LiveCall>();
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
    const transport = spec.transport === "stdio"
      ? new StdioProcessTransport({
        command: spec.command,
        args: spec.args,
        env: childEnvironment(spec, options.hostEnv),
        cwd: spec.cwd,
        onStderr: options.onStderr,
      })
      : new StreamableHTTPClientTransport(new URL(spec.url), {
        requestInit: { headers: connectionHeaders(spec) },
        fetch: options.fetch,
      });
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const session = new DownstreamSession(client, transport);
    session.#onLost = options.onLost;
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
    // Stdio and plain HTTP notifications carry no request id: a log line is forwarded only when every
    // call in flight belongs to one client, so one client never reads another's logging.
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
   * result with `isError: true`, not a throw.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: SessionCallOptions,
  ): Promise<Record<string, unknown>> {
    const live: LiveCall = { clientId: options.clientId, onNotification: options.onNotification };
    this.#calls.add(live);
    const token = options.onNotification === undefined ? undefined : `gw-${this.#nextProgressToken++}`;
    if (token !== undefined) this.#progress.set(token, live);
    const params: Record<string, unknown> = args === undefined ? { name } : { name, arguments: args };
    if (token !== undefined) params._meta = { progressToken: token };
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
    } finally {
      this.#calls.delete(live);
      if (token !== undefined) this.#progress.delete(token);
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
