/**
 * The client-facing edge of the gateway: Streamable HTTP (the gateway's own lean endpoint) with bearer
 * API keys, a failed-authentication rate limit per address, Host and Origin checks, a capped body,
 * `/healthz` and `/metrics`; and the SDK server `--stdio` serves one client with.
 *
 * @module
 */
export {
  bearerToken,
  type ClientKey,
  ClientKeys,
  HostCheck,
  hostName,
  isLoopbackName,
  OriginCheck,
} from "./auth.ts";
export {
  type ConnectionInfo,
  type EdgeOptions,
  type EdgeSettings,
  HttpEdge,
  type MetricsSource,
  readCappedBody,
} from "./edge.ts";
export { type AuthRateLimit, FailureLimiter } from "./ratelimit.ts";
export {
  classifyMessage,
  type EndpointOptions,
  type Incoming,
  rpcError,
  StreamableEndpoint,
} from "./streamable.ts";
export {
  answerToolCall,
  type ClientNotification,
  type ClientServerOptions,
  type ClientSurface,
  createClientServer,
  listToolsPage,
  RpcError,
  UNKNOWN_TOOL_MESSAGE,
} from "./mcp_server.ts";
export { serveStdioClient, type StdioClientOptions, type StdioClientSession } from "./stdio.ts";
