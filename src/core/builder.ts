/**
 * The one-shot builder: registrations are recorded (and their types compiled) by `register()`; `build()`
 * validates everything at once, probes the executor and returns an immutable {@link Server}.
 *
 * @module
 */
import type { Authorizer } from "../../authz.ts";
import {
  type CapabilityDefinition,
  checkRegistration,
  type NoInput,
  type RegistrationCheck,
  RegistrationError,
} from "./capability.ts";
import { buildCatalog } from "./catalog.ts";
import { CodeModeError } from "../errors.ts";
import {
  type ExecutorChoice,
  executorProblems,
  PROBE_TIMEOUT_MS,
  probeTimeoutProblems,
  resolveExecutor,
} from "./executor_select.ts";
import { type Limits, limitsProblems, resolveLimits, validateLimits } from "./limits.ts";
import { type ErrorHook, Server } from "./server.ts";
import { WORKER_OPTIONS_DIAGNOSTIC, workerOptionsState } from "./worker_flags.ts";
import { firstFailureLog } from "./error_log.ts";
import { WorkerPool } from "../executor/mod.ts";
import type { StructSchema } from "./types.ts";

/** Options of one server build. The builder copies them when it is created. */
export interface BuilderOptions {
  /** Required: decides every native call (`allowAll()` permits everything). */
  readonly authorizer: Authorizer;
  /** Stable capability IDs to leave out of the server (unknown or repeated IDs are rejected). */
  readonly disabledCapabilities?: readonly string[];
  /** Budget overrides; absent or zero fields take their defaults, negative ones are invalid. */
  readonly limits?: Partial<Limits>;
  /**
   * Which executor runs programs (default `"worker"`: zero-permission Web Workers). `"inline"` runs the
   * engine in the host isolate for runtimes without worker permissions. A custom `Executor` is closed
   * by `Server.close()`.
   */
  readonly executor?: ExecutorChoice;
  /**
   * Deadline of the build-time executor probe in milliseconds (extension; default 30,000). Zero or
   * absent means the default; negative is invalid. A wiring fault fails the probe at once; the deadline
   * only bounds a sandbox that never reports ready, and must leave room for a cold module cache.
   */
  readonly probeTimeoutMs?: number;
  /**
   * Receives every failure of capability calls and executions with its full cause, the execution id,
   * the capability and the subject (extension; see {@link ErrorHook}). Models never see any of it.
   * Without it, the first failure of each capability whose handler throws (or returns a value that does
   * not fit, or whose policy crashes) is logged to stderr with its cause, then at most once a minute.
   */
  readonly onError?: ErrorHook;
  /**
   * Whether Web Worker permission options are enabled (extension). `"detect"` (the default) reads the
   * process's configuration files and, where Deno lets it (`--allow-all` on Linux), its command line;
   * `"enabled"` is the host's word for what `build()` cannot see — a `deno.json` passed with `--config`
   * from another directory, or `--unstable-worker-options`, in a process without `--allow-all`. Stating
   * it wrongly lets Deno exit the process (code 70) at the first execution.
   */
  readonly workerOptions?: "detect" | "enabled";
}

/** Whether `choice` runs programs in Web Workers with permission options (the default does). */
function usesWorkers(choice: unknown): boolean {
  return choice === undefined || choice === "worker" || choice instanceof WorkerPool;
}

/**
 * Collects capabilities for one server. Single-use: the first `build()` closes the builder, even when
 * it fails; a later `build()` fails with `invalid_registration` and a later `register()` throws.
 */
export class Builder {
  readonly #authorizer: unknown;
  readonly #disabled: unknown;
  readonly #limits: unknown;
  readonly #executor: unknown;
  readonly #onError: unknown;
  readonly #probeTimeout: unknown;
  readonly #workerOptions: unknown;
  readonly #optionsProblem: string | undefined;
  readonly #checks: RegistrationCheck[] = [];
  #closed = false;

  /** Creates a builder; `options` is copied. */
  constructor(options: BuilderOptions) {
    if (options === null || typeof options !== "object") {
      this.#optionsProblem = "options must be an object with an authorizer";
      return;
    }
    this.#authorizer = options.authorizer;
    this.#disabled = Array.isArray(options.disabledCapabilities)
      ? [...options.disabledCapabilities]
      : options.disabledCapabilities;
    this.#limits = options.limits !== null && typeof options.limits === "object"
      ? { ...options.limits }
      : options.limits;
    this.#executor = options.executor;
    this.#probeTimeout = options.probeTimeoutMs;
    this.#onError = options.onError;
    this.#workerOptions = options.workerOptions;
  }

  /**
   * Records a capability. Its metadata and types are checked now and any problem is reported by
   * `build()` together with all others. Throws `invalid_registration` after `build()`.
   */
  register<I extends StructSchema = NoInput, O extends StructSchema = StructSchema>(
    capability: CapabilityDefinition<I, O>,
  ): this {
    if (this.#closed) {
      throw new CodeModeError(
        "invalid_registration",
        "register() called after build(); create a new Builder",
      );
    }
    this.#checks.push(checkRegistration(capability, this.#checks.length));
    return this;
  }

  /**
   * Validates every registration and option, probes the executor and returns the server. Rejects with a
   * {@link RegistrationError} (`invalid_registration`) listing every problem.
   */
  async build(): Promise<Server> {
    if (this.#closed) {
      throw new CodeModeError("invalid_registration", "build() already called; a Builder is single-use");
    }
    this.#closed = true;
    const diagnostics: string[] = [];
    if (this.#optionsProblem) diagnostics.push(this.#optionsProblem);
    else {
      const a = this.#authorizer as Partial<Authorizer> | null | undefined;
      if (a === null || a === undefined) {
        diagnostics.push("options.authorizer is required (use allowAll() to permit every call)");
      } else if (typeof a !== "object" && typeof a !== "function" || typeof a.authorize !== "function") {
        diagnostics.push("options.authorizer must have an authorize() method");
      }
      diagnostics.push(
        ...limitsProblems(this.#limits),
        ...executorProblems(this.#executor),
        ...probeTimeoutProblems(this.#probeTimeout),
      );
      if (this.#onError !== undefined && typeof this.#onError !== "function") {
        diagnostics.push("options.onError must be a function");
      }
      const stated = this.#workerOptions;
      if (stated !== undefined && stated !== "detect" && stated !== "enabled") {
        diagnostics.push('options.workerOptions must be "detect" or "enabled"');
      }
      // Before any worker exists: without worker-options the first one would end the whole process.
      if (usesWorkers(this.#executor) && stated !== "enabled" && workerOptionsState() === "missing") {
        diagnostics.push(WORKER_OPTIONS_DIAGNOSTIC);
      }
    }
    const result = buildCatalog(this.#checks, this.#disabled);
    diagnostics.push(...result.diagnostics);
    if (diagnostics.length > 0 || !result.catalog) throw new RegistrationError(diagnostics);

    const limits = resolveLimits(this.#limits as Partial<Limits> | undefined);
    validateLimits(limits);
    const executor = await resolveExecutor(
      this.#executor as ExecutorChoice | undefined,
      limits,
      (this.#probeTimeout as number | undefined) || PROBE_TIMEOUT_MS,
    );
    return new Server({
      catalog: result.catalog,
      limits,
      authorizer: this.#authorizer as Authorizer,
      executor,
      // Without a hook of its own, a host still learns of its failing handlers (on stderr).
      onError: (this.#onError as ErrorHook | undefined) ?? firstFailureLog(),
    });
  }
}
