/**
 * The MCP server a client talks to, built with the official SDK's low-level `Server`: `tools/list`
 * (paginated, only what the client may call) and `tools/call` (through the security pipeline), with the
 * downstream's progress and logging during a call forwarded to the calling client. `--stdio` serves one
 * authenticated client with it; the HTTP edge answers the same methods through the same functions
 * ({@link listToolsPage}, {@link answerToolCall}) in its own endpoint.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool as SdkTool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type Catalog,
  classifyError,
  type Identity,
  type JsonObject,
  type JsonValue,
  type Notification,
  publicErrorText,
  type Result,
  type Tool,
} from "../domain/mod.ts";
import type { CallOptions } from "../pipeline/mod.ts";

/** What the client-facing server needs from the gateway. */
export interface ClientSurface {
  /** The tools `client` may call. */
  listTools(client: Identity): Catalog;
  /** Runs one call through the full pipeline (rejects with a classified `GatewayError`). */
  callTool(
    client: Identity,
    name: string,
    args: JsonValue | undefined,
    options: CallOptions,
  ): Promise<Result>;
  /**
   * Tools the gateway answers itself for `client` (code mode's three), listed before the catalog, and
   * whether its catalog is listed and callable too. Absent: the catalog only.
   */
  localTools?(
    client: Identity,
  ): { readonly tools: readonly SdkTool[]; readonly catalog: boolean } | undefined;
  /** Answers a call of one of {@link ClientSurface.localTools} with a `CallToolResult`. */
  callLocalTool?(client: Identity, name: string, args: unknown, signal: AbortSignal): Promise<JsonObject>;
}

/** Options of {@link createClientServer}. */
export interface ClientServerOptions {
  /** `serverInfo.name` (default `"codemode-gateway"`). */
  readonly name?: string;
  /** `serverInfo.version`. */
  readonly version?: string;
  /** Tools per `tools/list` page (default 100). */
  readonly pageSize?: number;
}

/** The text of the JSON-RPC error a call to a missing (or forbidden, or malformed) tool gets. */
export const UNKNOWN_TOOL_MESSAGE: string = publicErrorText("unknown_tool");

/**
 * A JSON-RPC error answer with a fixed message. The SDK server answers a thrown error with its `code`
 * and `message` as they are (its own `McpError` would prefix the code to the message); the HTTP
 * endpoint writes both into its error response.
 */
export class RpcError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** Creates the error. */
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

function sdkTool(t: Tool): SdkTool {
  const out: Record<string, unknown> = { name: t.name, inputSchema: t.inputSchema };
  if (t.title !== undefined) out.title = t.title;
  if (t.description !== undefined) out.description = t.description;
  if (t.outputSchema !== undefined) out.outputSchema = t.outputSchema;
  if (t.annotations !== undefined) out.annotations = t.annotations;
  if (t.icons !== undefined) out.icons = t.icons;
  return out as SdkTool;
}

/**
 * One page of `client`'s `tools/list`: the local tools lead the first page, then the catalog's own
 * cursors page through the rest (a cursor naming a tool the client may not see reveals nothing).
 */
export function listToolsPage(
  surface: ClientSurface,
  client: Identity,
  cursor: unknown,
  pageSize: number,
): { tools: SdkTool[]; nextCursor?: string } {
  const local = surface.localTools?.(client);
  const first = cursor === undefined ? [...(local?.tools ?? [])] : [];
  if (local !== undefined && !local.catalog) return { tools: first };
  const page = surface.listTools(client).page(typeof cursor === "string" ? cursor : undefined, pageSize);
  const tools = [...first, ...page.tools.map(sdkTool)];
  return page.nextCursor === undefined ? { tools } : { tools, nextCursor: page.nextCursor };
}

/** A notification to the calling client, as the endpoint sends it. */
export interface ClientNotification {
  /** `notifications/progress` or `notifications/message`. */
  readonly method: string;
  /** Its params. */
  readonly params: Record<string, unknown>;
}

/**
 * Answers one `tools/call` of `client` with its `CallToolResult`. A call to a tool the client may not
 * see, a missing tool and a malformed name all reject with the same {@link RpcError} (`-32602`,
 * {@link UNKNOWN_TOOL_MESSAGE}); every other failure is a result with `isError: true` and the error's
 * fixed public text (plus redacted downstream detail), never an internal cause. The downstream's
 * progress reaches `send` under the client's own token (nothing when it asked for none), its logging as
 * it is (both already redacted by the pipeline).
 */
export async function answerToolCall(
  surface: ClientSurface,
  client: Identity,
  params: { name: string; arguments?: unknown; _meta?: { progressToken?: unknown } },
  signal: AbortSignal,
  send: (notification: ClientNotification) => void,
): Promise<JsonObject> {
  const { name, arguments: args } = params;
  const local = surface.localTools?.(client);
  if (local !== undefined && surface.callLocalTool !== undefined) {
    if (local.tools.some((t) => t.name === name)) {
      return await surface.callLocalTool(client, name, args, signal);
    }
    if (!local.catalog) throw new RpcError(ErrorCode.InvalidParams, UNKNOWN_TOOL_MESSAGE);
  }
  const progressToken = params._meta?.progressToken;
  const notify = (n: Notification) => {
    if (n.method === "notifications/progress") {
      // The downstream's progress carries our token for it; the client gets its own token back.
      if (progressToken === undefined) return;
      const { progressToken: _theirs, ...rest } = n.params;
      send({ method: "notifications/progress", params: { ...rest, progressToken } });
    } else if (n.method === "notifications/message") {
      send({ method: "notifications/message", params: n.params });
    }
  };
  try {
    const result = await surface.callTool(client, name, args as JsonValue | undefined, { signal, notify });
    return result.payload;
  } catch (err) {
    const e = classifyError(err);
    if (e.code === "unknown_tool" || e.code === "invalid_tool_name") {
      throw new RpcError(ErrorCode.InvalidParams, UNKNOWN_TOOL_MESSAGE);
    }
    return { content: [{ type: "text", text: e.publicText }], isError: true };
  }
}

/**
 * Creates an SDK server for `client` (the `--stdio` mode; the HTTP edge answers the same methods with
 * its own lean endpoint). Listing and calling behave as {@link listToolsPage} and
 * {@link answerToolCall} describe.
 */
export function createClientServer(
  surface: ClientSurface,
  client: Identity,
  options: ClientServerOptions = {},
): Server {
  const server = new Server(
    { name: options.name ?? "codemode-gateway", version: options.version ?? "0.1.0" },
    { capabilities: { tools: {}, logging: {} } },
  );
  const pageSize = Math.max(1, options.pageSize ?? 100);
  server.setRequestHandler(
    ListToolsRequestSchema,
    (request) => listToolsPage(surface, client, request.params?.cursor, pageSize),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const send = (n: ClientNotification) => {
      void extra.sendNotification(n as never).catch(() => {});
    };
    return await answerToolCall(surface, client, request.params, extra.signal, send) as CallToolResult;
  });
  return server;
}
