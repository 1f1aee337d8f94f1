/**
 * CodeMode for Deno: let a model do real work through one small Starlark program instead of one tool
 * call at a time.
 *
 * A host registers typed **capabilities** on a {@link Builder}; `build()` returns an immutable
 * {@link Server} with three operations — `search` (find capabilities for a task), `describe` (their
 * signature and result contract) and `execute` (run a program whose `main()` calls them). Every
 * execution gets a fresh Starlark engine with hard budgets ({@link Limits}) in a zero-permission Web
 * Worker; every native call is re-bound on the host, authorized by an {@link Authorizer}, dispatched to
 * its handler and converted back.
 *
 * Deviations from the Go reference, by design: Starlark `int` maps to JS `number` restricted to safe
 * integers (|n| ≤ 2^53−1) — out of range is `invalid_arguments` for inputs and `capability_failure` for
 * outputs; times are milliseconds; cancellation is an `AbortSignal`.
 *
 * @example
 * ```ts
 * import { allowAll, Builder, t } from "@codemode/codemode";
 *
 * const builder = new Builder({ authorizer: allowAll(), limits: { maxExecutionTime: 2_000 } });
 * builder.register({
 *   id: "records.entry.lookup",
 *   name: "records.lookup",
 *   summary: "Look up one stored record by key",
 *   searchTerms: ["fetch entry", "find stored item"],
 *   input: t.struct({ key: t.str(), limit: t.optional(t.int()) }),
 *   output: t.struct({ key: t.str(), count: t.int() }),
 *   handler: ({ key, limit }) => ({ key, count: limit ?? 1 }),
 * });
 * const server = await builder.build();
 * server.search("find a stored record"); // { results: [{ name: "records.lookup", ... }], truncated: false }
 * server.describe("records.lookup").signature; // "records.lookup(*, key: str, limit: int | None)"
 * const result = await server.execute(
 *   { id: "user-1" },
 *   'def main():\n    return records.lookup(key="a")\n',
 * ); // { key: "a", count: 1 }
 * await server.close();
 * ```
 *
 * @module
 */

export { Builder, type BuilderOptions } from "./src/core/mod.ts";
export {
  type CapabilityShape,
  type ErrorEvent,
  type ErrorHook,
  type ErrorPhase,
  type ExecuteOptions,
  type ExecuteResult,
  Server,
} from "./src/core/mod.ts";
export type { ExecutorChoice } from "./src/core/mod.ts";
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
} from "./src/core/mod.ts";
export type { StructField, TypeSchema } from "./src/schema.ts";
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
} from "./src/core/mod.ts";
export { MAX_REGISTRATIONS, METADATA_BUDGET_BYTES } from "./src/core/mod.ts";
export { defaultLimits, type Limits, resolveLimits, validateLimits } from "./src/core/mod.ts";
export {
  CodeModeError,
  type CodeModeErrorOptions,
  ERROR_CODES,
  type ErrorCode,
  isCodeModeError,
} from "./src/errors.ts";
export type { SearchResponse, SearchResult } from "./src/search/mod.ts";
export type { Description, FieldShape } from "./src/core/mod.ts";
export {
  type CapabilityStub,
  type ExecutionBudgets,
  type ExecutionRequest,
  type Executor,
  InlineExecutor,
  type InlineExecutorOptions,
  type NativeDispatch,
  type PoolHealth,
  type PoolOptions,
  type PoolStats,
  ProcessPool,
  type ProcessPoolOptions,
  type WireValue,
  WorkerPool,
  type WorkerPoolOptions,
} from "./src/executor/mod.ts";
export type { Dialect } from "./src/starlark/mod.ts";
export {
  allowAll,
  type AuthorizationContext,
  type AuthorizationInput,
  type Authorizer,
  type CanonicalScalar,
  currentSubject,
  DeniedError,
  isDenied,
  type Subject,
  withSubject,
} from "./authz.ts";
