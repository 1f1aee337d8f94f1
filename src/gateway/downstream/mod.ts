/**
 * The downstream layer: the official MCP SDK client over stdio (children in their own process group)
 * and Streamable HTTP, supervised sessions with per-client pools and crash back-off, and the registry
 * that implements the pipeline's {@link Dispatcher} port.
 *
 * @module
 */
export { type Dispatcher } from "../domain/mod.ts";
export {
  Downstream,
  type DownstreamEvents,
  type DownstreamOptions,
  type DownstreamState,
} from "./downstream.ts";
export { DownstreamRegistry, type RegistryOptions, toDomainTools } from "./registry.ts";
export {
  type CallNotification,
  DownstreamSession,
  type SessionCallOptions,
  type SessionOpenOptions,
} from "./session.ts";
export { childEnvironment, connectionHeaders, type DownstreamSpec, MINIMAL_ENV_VARS } from "./spec.ts";
export {
  killAllProcessGroups,
  liveProcessGroupCount,
  type StdioProcessOptions,
  StdioProcessTransport,
} from "./stdio.ts";
