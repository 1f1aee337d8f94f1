/**
 * The Rego authorizer folder's surface: what the public `authz/rego.ts` entry point publishes, plus the
 * bundle reader and policy inspector that the policy tooling in `policies/` uses.
 *
 * @module
 */
export {
  DEFAULT_MAX_BUNDLE_BYTES,
  DEFAULT_MAX_MEMORY_BYTES,
  inspectPolicyModule,
  loadRegoAuthorizer,
  RegoAuthorizer,
  type RegoOptions,
} from "./authorizer.ts";
export { type Bundle, readBundle } from "./bundle.ts";
export { isNondeterministic, SDK_DETERMINISTIC_BUILTINS } from "./builtins.ts";
export {
  RegoLoadError,
  type RegoLoadErrorKind,
  RegoPolicyError,
  type RegoPolicyErrorKind,
} from "./errors.ts";
