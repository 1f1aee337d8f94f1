/**
 * The MCP security gateway as one folder: the composition root ({@link Gateway}) and the public part of
 * its layers — the configuration loader and types, the domain values a caller meets, and the pipeline's
 * call options. Code outside `src/gateway/` enters here.
 *
 * @module
 */
export {
  type DownstreamStatus,
  Gateway,
  type GatewayOptions,
  type ReloadOutcome,
  type ServeAddresses,
} from "./gateway.ts";
export {
  type AuditConfig,
  type AuditSinkConfig,
  type AuthRateLimitConfig,
  type AuthzConfig,
  type BreakerConfig,
  type ClientConfig,
  type ClientPolicyConfig,
  type CodeModeLimitsConfig,
  ConfigError,
  type ConfigProblem,
  type DownstreamBase,
  type DownstreamConfig,
  type EnvLookup,
  formatProblems,
  type GatewayConfig,
  type HttpDownstreamConfig,
  type ListenAddress,
  loadConfig,
  type LoadOptions,
  type LoadResult,
  type OperatorConfig,
  type PolicyConfig,
  readConfigFile,
  type RedactionConfig,
  type RedactionPatternConfig,
  type ServeMode,
  type SessionMode,
  type StdioDownstreamConfig,
} from "./config/mod.ts";
export {
  type AuditDecision,
  type AuditRecord,
  type BreakerState,
  Catalog,
  GatewayError,
  type GatewayErrorCode,
  type GatewayErrorOptions,
  type JsonObject,
  type JsonValue,
  type Notification,
  type ReasonCode,
  type Result,
  type Tool,
  type ToolRef,
} from "./domain/mod.ts";
export type { CallOptions } from "./pipeline/mod.ts";
export type { LimitRule, LimitsSettings, Per, StoreErrorAction } from "../limits/mod.ts";
export type { DownstreamState } from "./downstream/mod.ts";
export type { ConnectionInfo } from "./http/mod.ts";
