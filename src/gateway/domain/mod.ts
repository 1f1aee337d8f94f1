/**
 * The gateway's domain: tool names, the catalog, policy decisions, calls and results, the middleware
 * types, audit records and the error classification. A leaf: it imports nothing outside this folder, uses
 * no Deno APIs and no MCP SDK types, so every other gateway layer can depend on it and it on none.
 *
 * @module
 */
export {
  formatToolRef,
  isValidDownstreamName,
  MAX_TOOL_NAME_LENGTH,
  parseToolRef,
  sameToolRef,
  SEPARATOR,
  type ToolRef,
  toolRef,
  tryParseToolRef,
} from "./names.ts";
export {
  type BreakerScope,
  breakerScopeOf,
  classifyError,
  GATEWAY_ERROR_CODES,
  GatewayError,
  type GatewayErrorCode,
  type GatewayErrorOptions,
  isGatewayError,
  publicErrorText,
} from "./errors.ts";
export {
  allowed,
  type Decider,
  type Decision,
  decisionOrZero,
  denied,
  type Identity,
  REASON_CODES,
  type ReasonCode,
  ZERO_DECISION,
} from "./decision.ts";
export {
  Catalog,
  type CatalogFilter,
  type JsonObject,
  type JsonValue,
  makeTool,
  type Tool,
  type ToolListing,
} from "./catalog.ts";
export {
  type BreakerState,
  type Call,
  type CallContext,
  type CallTrace,
  type Dispatcher,
  errorResult,
  type Handler,
  isJsonObject,
  makeResult,
  newTrace,
  type Notification,
  type Result,
  type Stage,
  withArgs,
  withContext,
} from "./call.ts";
export { type AuditDecision, type AuditRecord, authFailureRecord, isSecurityRecord } from "./audit.ts";
