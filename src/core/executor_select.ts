/**
 * Chooses the executor a builder uses and probes it. This is the one place that knows the executor
 * module's factories.
 *
 * @module
 */
import { RegistrationError } from "./capability.ts";
import { CodeModeError } from "../errors.ts";
import { type Executor, InlineExecutor, ProcessPool, WorkerPool } from "../executor/mod.ts";
import type { Limits } from "./limits.ts";

/**
 * Which executor runs programs: the zero-permission worker pool, the pool of permission-less, heap-capped
 * child processes (the host needs `--allow-run`), the same-isolate one, or your own.
 */
export type ExecutorChoice = "worker" | "process" | "inline" | Executor;

/** Problems with a probe timeout option (for build diagnostics). */
export function probeTimeoutProblems(value: unknown): string[] {
  if (value === undefined || value === 0) return [];
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    return ["probeTimeoutMs must be a positive number of milliseconds (0 or absent means the default)"];
  }
  return [];
}

/** Whether this process may spawn the Deno binary, which the `"process"` executor needs (`--allow-run`). */
export function maySpawnProcesses(): boolean {
  try {
    return Deno.permissions.querySync({ name: "run", command: Deno.execPath() }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * The executor a server uses by default: the process pool (the wall that also contains CPU and memory)
 * when it may spawn processes, else the worker pool.
 */
export function defaultServerExecutor(): "process" | "worker" {
  return maySpawnProcesses() ? "process" : "worker";
}

/** Problems with an executor option (for build diagnostics). */
export function executorProblems(choice: unknown): string[] {
  if (choice === undefined || choice === "worker" || choice === "process" || choice === "inline") return [];
  if (
    choice !== null && typeof choice === "object" &&
    typeof (choice as Executor).run === "function" && typeof (choice as Executor).close === "function"
  ) return [];
  return ['executor must be "worker", "process", "inline" or an object with run() and close()'];
}

/**
 * The default deadline of the build-time probe, independent of `maxExecutionTime`. The seed fixes five
 * seconds for re-executing a compiled binary; a Deno worker may first have to load (and, under
 * `deno test`, type-check) the engine's module graph, which on a cold cache or a saturated machine takes
 * longer. A broken wiring fails fast anyway (a module that cannot load reports an error at once), so the
 * generous default only bounds a worker that hangs silently. `BuilderOptions.probeTimeoutMs` overrides it.
 */
export const PROBE_TIMEOUT_MS = 30_000;

/** An executor that can check its sandbox wiring before the server is returned. */
interface ProbingExecutor extends Executor {
  probe(options: { timeout: number }): Promise<void>;
}

function canProbe(e: Executor): e is ProbingExecutor {
  return typeof (e as Partial<ProbingExecutor>).probe === "function";
}

/** Creates a built-in executor sized by the resolved limits. */
function createBuiltin(choice: "worker" | "process" | "inline", limits: Limits): Executor {
  const options = { maxConcurrentExecutions: limits.maxConcurrentExecutions };
  if (choice === "process") return new ProcessPool({ ...options, maxMemoryBytes: limits.maxMemoryBytes });
  return choice === "inline" ? new InlineExecutor(options) : new WorkerPool(options);
}

/**
 * Creates (for `"worker"`/`"process"`/`"inline"`) or adopts the executor and runs its probe when it has one. A failed
 * probe closes the executor and throws `invalid_registration` with a host-wiring diagnostic.
 */
export async function resolveExecutor(
  choice: ExecutorChoice | undefined,
  limits: Limits,
  probeTimeoutMs: number = PROBE_TIMEOUT_MS,
): Promise<Executor> {
  const executor = typeof choice === "object" ? choice : createBuiltin(choice ?? "worker", limits);
  if (!canProbe(executor)) return executor;
  try {
    await executor.probe({ timeout: probeTimeoutMs });
  } catch (err) {
    await executor.close().catch(() => {});
    // The built-in executors already explain the wiring; keep their diagnostic as it is.
    if (err instanceof CodeModeError && err.code === "invalid_registration") {
      throw new RegistrationError([err.message]);
    }
    const why = err instanceof Error ? err.message : String(err);
    throw new RegistrationError([
      `executor probe failed: ${why}. Check the host wiring: run Deno with worker permissions enabled ` +
      `("unstable": ["worker-options"] in deno.json or --unstable-worker-options), or use executor: "inline"`,
    ]);
  }
  return executor;
}
