/**
 * The MCP server a client talks to, built with the official SDK's low-level `Server`: `tools/list`
 * (paginated, only what the client may call) and `tools/call` (through the security pipeline), with the
 * downstream's progress and logging during a call forwarded to the calling client. One server serves
 * one authenticated client; the HTTP edge makes one per request, `--stdio` one for the process.
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
   * Whether a call of `name` by `client` may send notifications besides progress (logging), so its
   * answer should be streamed. Must be false for any tool the client cannot see, so the response
   * format never tells a forbidden tool from a missing one. Absent: always stream.
   */
  mayNotify?(client: Identity, name: string): boolean;
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
 * A JSON-RPC error whose message goes on the wire as it is (the SDK's `McpError` prefixes its code to
 * the message): the SDK answers a thrown error with its `code` and `message`.
 */
class RpcError extends Error {
  readonly code: number;
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
 * Creates an SDK server for `client`. A call to a tool the client may not see, a missing tool and a
 * malformed name all get the same JSON-RPC error (`-32602`, {@link UNKNOWN_TOOL_MESSAGE}); every other
 * failure is a tool result with `isError: true` and the error's fixed public text (plus redacted
 * downstream detail), never an internal cause.
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
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const cursor = request.params?.cursor;
    const local = surface.localTools?.(client);
    // The local tools lead the first page; the catalog's own cursors page through the rest.
    const first = cursor === undefined ? [...(local?.tools ?? [])] : [];
    if (local !== undefined && !local.catalog) return { tools: first };
    const page = surface.listTools(client).page(typeof cursor === "string" ? cursor : undefined, pageSize);
    const tools = [...first, ...page.tools.map(sdkTool)];
    return page.nextCursor === undefined ? { tools } : { tools, nextCursor: page.nextCursor };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const local = surface.localTools?.(client);
    if (local !== undefined && surface.callLocalTool !== undefined) {
      if (local.tools.some((t) => t.name === name)) {
        return await surface.callLocalTool(client, name, args, extra.signal) as CallToolResult;
      }
      if (!local.catalog) throw new RpcError(ErrorCode.InvalidParams, UNKNOWN_TOOL_MESSAGE);
    }
    const progressToken = request.params._meta?.progressToken;
    const notify = (n: Notification) => {
      if (n.method === "notifications/progress") {
        // The downstream's progress carries our token for it; the client gets its own token back, or
        // nothing when it asked for no progress.
        if (progressToken === undefined) return;
        const { progressToken: _theirs, ...rest } = n.params;
        void extra.sendNotification({
          method: "notifications/progress",
          params: { ...rest, progressToken } as never,
        }).catch(() => {});
      } else if (n.method === "notifications/message") {
        void extra.sendNotification({ method: "notifications/message", params: n.params as never })
          .catch(() => {});
      }
    };
    try {
      const result = await surface.callTool(client, name, args as JsonValue | undefined, {
        signal: extra.signal,
        notify,
      });
      return result.payload as CallToolResult;
    } catch (err) {
      const e = classifyError(err);
      if (e.code === "unknown_tool" || e.code === "invalid_tool_name") {
        throw new RpcError(ErrorCode.InvalidParams, UNKNOWN_TOOL_MESSAGE);
      }
      return { content: [{ type: "text", text: e.publicText }], isError: true };
    }
  });
  return server;
}
