/**
 * The client-facing edge of the gateway: Streamable HTTP with bearer API keys, Host and Origin checks,
 * a capped body, `/healthz` and `/metrics`, and the SDK server each authenticated client talks to (also
 * used by `--stdio`).
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
export { type EdgeOptions, type EdgeSettings, HttpEdge, type MetricsSource, readCappedBody } from "./edge.ts";
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
