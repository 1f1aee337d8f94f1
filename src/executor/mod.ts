/**
 * The sandbox executor: runs model-written Starlark programs under hard budgets, in one of three
 * places, all implementing the core's {@link Executor} contract and sharing the engine-side runner, the
 * wire encoding and the host-side checks, so budgets and error classification are identical:
 *
 * - {@link WorkerPool} (the library's default): zero-permission Web Workers. Contains permissions;
 *   time, steps and memory only through the engine's budgets (a worker has no heap cap, and one that
 *   ignores its interrupt cannot be stopped: it keeps its slot and the pool reports `degraded`).
 * - {@link ProcessPool} (the MCP server's default when it may spawn processes): Deno child processes
 *   with no permission flags and a V8 heap cap, killed with SIGKILL past the deadline. Contains
 *   permissions, CPU and memory; needs `--allow-run` on the host.
 * - {@link InlineExecutor} (Deno Deploy): the engine in the host isolate. Budgets only, no wall.
 *
 * The two pools share one scheduler: reuse within a subject, strict mode, round-robin fairness across
 * subjects with a per-subject share of the slots, and slots that free only when a sandbox has stopped.
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
export type { PoolHealth, PoolOptions, PoolStats, WorkerPoolOptions } from "./pool.ts";
export { ProcessPool } from "./process_pool.ts";
export type { ProcessPoolOptions } from "./process_pool.ts";
export { SANDBOX_PROCESS_URL } from "./process_sandbox.ts";
export { InlineExecutor } from "./inline.ts";
export type { InlineExecutorOptions } from "./inline.ts";
export { DEFAULT_MAX_MEMORY_BYTES, memoryBudget } from "./protocol.ts";
export { SANDBOX_WORKER_URL } from "./sandbox.ts";
export type { Dialect } from "../starlark/mod.ts";
export type { StructField, TypeSchema } from "../schema.ts";
export { varintLength } from "./codec.ts";
