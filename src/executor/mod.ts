/**
 * The sandbox executor: runs model-written Starlark programs under hard budgets, either in a pool of
 * zero-permission Web Workers ({@link WorkerPool}, the default) or in the host isolate
 * ({@link InlineExecutor}, for runtimes without worker permissions such as Deno Deploy).
 *
 * Both implement the core's {@link Executor} contract and share the engine-side runner, the wire
 * encoding and the host-side checks, so budgets and error classification are identical.
 *
 * @example
 * ```ts ignore
 * import { WorkerPool } from "./mod.ts";
 *
 * const pool = new WorkerPool({ maxConcurrentExecutions: 8 });
 * await pool.probe(); // invalid_registration when workers cannot be spawned with no permissions
 * // pool.run(request) for each execution, then:
 * await pool.close();
 * ```
 *
 * @module
 */
export type {
  CapabilityStub,
  ExecutionBudgets,
  ExecutionRequest,
  Executor,
  NativeDispatch,
  WireValue,
} from "./contract.ts";
export { WorkerPool } from "./pool.ts";
export type { PoolStats, WorkerPoolOptions } from "./pool.ts";
export { InlineExecutor } from "./inline.ts";
export type { InlineExecutorOptions } from "./inline.ts";
export { DEFAULT_MAX_MEMORY_BYTES, memoryBudget } from "./protocol.ts";
export { SANDBOX_WORKER_URL } from "./sandbox.ts";
export type { Dialect } from "../starlark/mod.ts";
export type { StructField, TypeSchema } from "../schema.ts";
