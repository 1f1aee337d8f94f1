/**
 * The CodeMode core: capability registration and its types, the catalog, search and describe, limits,
 * binding and dispatch of native calls, the executor choice, the builder and the server. The root
 * `mod.ts` is its public face; the MCP adapter and the gateway enter through this module.
 *
 * @module
 */
export { Builder, type BuilderOptions } from "./builder.ts";
export {
  type CapabilityShape,
  type ErrorEvent,
  type ErrorHook,
  type ErrorPhase,
  type ExecuteOptions,
  type ExecuteResult,
  Server,
} from "./server.ts";
export {
  defaultServerExecutor,
  type ExecutorChoice,
  executorProblems,
  maySpawnProcesses,
} from "./executor_select.ts";
export {
  type BoolSchema,
  type DictSchema,
  type FloatSchema,
  type Infer,
  type InferKnown,
  type InferOutput,
  type InferOutputKnown,
  type InferOutputShape,
  type InferShape,
  type IntSchema,
  type JsonValue,
  type JsonValueSchema,
  type ListSchema,
  type NullableSchema,
  type OptionalKeys,
  type OptionalSchema,
  type RequiredKeys,
  type Simplify,
  type StrSchema,
  type StructSchema,
  type StructShape,
  t,
  type TypeBuilder,
} from "./types.ts";
export {
  type CapabilityDefinition,
  CapabilityError,
  type CapabilityErrorOptions,
  type CapabilityIdentity,
  type Handler,
  type HandlerContext,
  MAX_SEARCH_TERM_BYTES,
  MAX_SEARCH_TERMS,
  type NoInput,
  RegistrationError,
  RESERVED_ROOTS,
} from "./capability.ts";
export { MAX_REGISTRATIONS, METADATA_BUDGET_BYTES } from "./catalog.ts";
export {
  defaultLimits,
  executionBudgets,
  LIMIT_FIELDS,
  type Limits,
  resolveLimits,
  validateLimits,
} from "./limits.ts";
export type { Description, FieldShape } from "./describe.ts";
export { describeCapability } from "./describe.ts";
