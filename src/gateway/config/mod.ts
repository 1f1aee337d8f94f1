/**
 * The gateway's YAML configuration: its validated types, the loader that reports every problem at once
 * with its place in the file, and helpers the composition root uses on reload.
 *
 * @module
 */
export type {
  AuditConfig,
  AuditSinkConfig,
  AuthRateLimitConfig,
  AuthzConfig,
  BreakerConfig,
  ClientConfig,
  ClientPolicyConfig,
  CodeModeLimitsConfig,
  DownstreamBase,
  DownstreamConfig,
  GatewayConfig,
  HttpDownstreamConfig,
  ListenAddress,
  OperatorConfig,
  PolicyConfig,
  RedactionConfig,
  RedactionPatternConfig,
  ServeMode,
  SessionMode,
  StdioDownstreamConfig,
} from "./types.ts";
export type { ConfigProblem } from "./yaml_tree.ts";
export {
  DEFAULTS,
  type EnvLookup,
  loadConfig,
  type LoadOptions,
  type LoadResult,
  MIN_API_KEY_LENGTH,
  MIN_SECRET_LENGTH,
} from "./load.ts";
export { subjectMap } from "./oauth.ts";
export { ConfigError, formatProblems, readConfigFile, sameDownstream, secretValues } from "./helpers.ts";
