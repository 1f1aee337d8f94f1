/**
 * The Rego authorizer's internals, re-exported by the public `authz/rego.ts` entry point.
 *
 * @module
 */
export {
  DEFAULT_MAX_BUNDLE_BYTES,
  DEFAULT_MAX_MEMORY_BYTES,
  loadRegoAuthorizer,
  RegoAuthorizer,
  type RegoOptions,
} from "./authorizer.ts";
export { isNondeterministic, SDK_DETERMINISTIC_BUILTINS } from "./builtins.ts";
export {
  RegoLoadError,
  type RegoLoadErrorKind,
  RegoPolicyError,
  type RegoPolicyErrorKind,
} from "./errors.ts";
