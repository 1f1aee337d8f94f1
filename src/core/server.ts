/**
 * The built, immutable server: `search`, `describe`, `execute` and `close`.
 *
 * @module
 */
import type { Authorizer, Subject } from "../../authz.ts";
import type { Catalog } from "./catalog.ts";
import type { Description } from "./describe.ts";
import { createDispatch } from "./dispatch.ts";
import { activeContext, inSpan, withSpan } from "./telemetry.ts";
import { budgetDetail, budgetError, formatCount } from "../budgets.ts";
import { CodeModeError, type ErrorCode } from "../errors.ts";
import type { ExecutionBudgets, Executor } from "../executor/mod.ts";
import { executionBudgets, type Limits } from "./limits.ts";
import type { SearchResponse } from "../search/mod.ts";
import type { TypeSchema } from "../schema.ts";
import { modelDetail, utf8Length } from "../text.ts";

/** Options of one execution. */
export interface ExecuteOptions {
  /** Cancels the execution: `execute` then rejects with the signal's reason (a timeout reason is `resource_limit`). */
  readonly signal?: AbortSignal;
  /**
   * Told what the program printed (its last 8 KiB, led by `[N bytes dropped]` when it printed more),
   * before `execute` settles, whether it succeeded or failed; not called when it printed nothing.
   */
  readonly onOutput?: (output: string) => void;
}

/** What {@link Server.run} resolves to. */
export interface ExecuteResult {
  /** The converted return value of `main()`. */
  readonly value: unknown;
  /** What the program printed (last 8 KiB, led by `[N bytes dropped]` when more); absent when nothing. */
  readonly output?: string;
}

/** Where in an execution a failure happened. */
export type ErrorPhase = "authorize" | "handler" | "result" | "execute";

/**
 * A failure as the host sees it, for {@link ErrorHook}: the full error with its trusted cause (a
 * handler's own exception, a policy's crash), never shown to a model.
 */
export interface ErrorEvent {
  /** The classified error, with its `cause` intact. */
  readonly error: CodeModeError;
  /** Its classification (`error.code`). */
  readonly code: ErrorCode;
  /** `authorize`, `handler` or `result` for one capability call; `execute` once per failed execution. */
  readonly phase: ErrorPhase;
  /** The execution's id (the same for its call failures and its final failure). */
  readonly executionId: string;
  /** The trusted subject of the execution. */
  readonly subject: Subject;
  /** The capability, for call failures. */
  readonly capability?: { readonly id: string; readonly name: string };
}

/**
 * Receives every failure of capability calls and executions, with the full cause. Called synchronously
 * and must not throw (a throwing hook is ignored, so it can never change an execution's outcome).
 */
export type ErrorHook = (event: ErrorEvent) => void;

/** Calls `hook` with `event`, ignoring anything it throws. */
export function report(hook: ErrorHook | undefined, event: ErrorEvent): void {
  if (hook === undefined) return;
  try {
    hook(event);
  } catch {
    // A broken hook must not turn a classified failure into another one.
  }
}

let executions = 0;

/** One enabled capability as {@link Server.capabilities} lists it. */
export interface CapabilityShape {
  /** Exact dotted name. */
  readonly name: string;
  /** Input descriptor: a struct whose fields are the keyword parameters. */
  readonly input: TypeSchema & { readonly kind: "struct" };
  /** Output descriptor: the dict a call returns. */
  readonly output?: TypeSchema & { readonly kind: "struct" };
}

/** What a server is made of (see `Builder.build()`). */
export interface ServerParts {
  /** The enabled capabilities. */
  readonly catalog: Catalog;
  /** Resolved limits. */
  readonly limits: Limits;
  /** Decides every native call. */
  readonly authorizer: Authorizer;
  /** Runs programs. */
  readonly executor: Executor;
  /** Receives every failure with its cause (see {@link ErrorHook}). */
  readonly onError?: ErrorHook;
}

// resource_limit details name a budget and its value: the host's public limits, never a cause.
const DETAIL_CODES = new Set([
  "invalid_program",
  "invalid_arguments",
  "capability_failure",
  "resource_limit",
]);

function isTimeout(reason: unknown): boolean {
  return reason instanceof Error && reason.name === "TimeoutError";
}

/**
 * An immutable, concurrency-safe CodeMode server. Created by `Builder.build()`; `close()` ends the
 * executor (and its workers).
 */
export class Server {
  readonly #catalog: Catalog;
  readonly #limits: Limits;
  readonly #authorizer: Authorizer;
  readonly #executor: Executor;
  readonly #budgets: ExecutionBudgets;
  readonly #onError: ErrorHook | undefined;
  #closing: Promise<void> | undefined;

  /** Assembles a server from validated parts; use `Builder.build()` instead. */
  constructor(parts: ServerParts) {
    this.#catalog = parts.catalog;
    this.#limits = Object.freeze({ ...parts.limits });
    this.#authorizer = parts.authorizer;
    this.#executor = parts.executor;
    this.#budgets = executionBudgets(this.#limits);
    this.#onError = parts.onError;
  }

  /** The resolved limits of this server. */
  get limits(): Limits {
    return this.#limits;
  }

  /**
   * Finds enabled capabilities for a task. Throws `resource_limit` for a query over
   * `maxSearchQueryBytes` (raw UTF-8, padding counts) or with more than 16 distinct tokens; a blank or
   * connector-only query returns `{ results: [], truncated: false }`.
   */
  search(query: string): SearchResponse {
    if (typeof query !== "string") throw new CodeModeError("internal", "search query must be a string");
    return this.#catalog.search(query, this.#limits);
  }

  /** Describes an enabled capability by its exact dotted name; `not_found` otherwise. */
  describe(name: string): Description {
    return this.#catalog.describe(name);
  }

  /**
   * The enabled capabilities' names with their input and output descriptors, in registration order:
   * what a host needs to show a model examples drawn from this catalog (the MCP adapter's tool
   * descriptions do).
   */
  capabilities(): readonly CapabilityShape[] {
    return this.#catalog.stubs;
  }

  /**
   * Runs a Starlark program whose `main()` may call the enabled capabilities, as `subject`, and resolves
   * to the converted return value of `main()`. Rejects with a `CodeModeError` whose trusted causes have
   * been removed, or with the signal's reason when `options.signal` aborts first.
   */
  async execute(subject: Subject, source: string, options: ExecuteOptions = {}): Promise<unknown> {
    return (await this.run(subject, source, options)).value;
  }

  /**
   * {@link Server.execute}, resolving to the value of `main()` with what the program printed. A failed
   * execution rejects with a `CodeModeError` whose `output` holds what it printed.
   */
  async run(subject: Subject, source: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    const startedAt = performance.now();
    const signal = options.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw new CodeModeError("internal", "options.signal must be an AbortSignal");
    }
    if (signal?.aborted) throw callerAbort(signal);
    if (this.#closing) throw new CodeModeError("internal", "server is closed");
    if (
      subject === null || typeof subject !== "object" || typeof subject.id !== "string" || subject.id === ""
    ) {
      throw new CodeModeError("unauthenticated", "execute needs a subject with a non-empty id");
    }
    if (typeof source !== "string") throw new CodeModeError("invalid_program", "source must be a string");
    const bytes = utf8Length(source);
    if (bytes > this.#limits.maxSourceBytes) {
      throw budgetError(
        "maxSourceBytes",
        this.#limits.maxSourceBytes,
        `source is ${bytes} bytes; the limit is ${this.#limits.maxSourceBytes}`,
        { where: `the program is ${formatCount(bytes)} bytes` },
      );
    }
    const trusted: Subject = Object.freeze({ id: subject.id });
    // Process-unique and ordered, so an operator can join a call failure with its execution's end.
    const executionId = `x${(++executions).toString(36)}-${Math.floor(startedAt).toString(36)}`;
    const onError = this.#onError;
    const attributes = { "codemode.subject": trusted.id, "codemode.execution_id": executionId };
    return await inSpan(
      "codemode.execute",
      { ...attributes, "codemode.source_bytes": bytes },
      activeContext(),
      async (span) => {
        const dispatch = createDispatch({
          catalog: this.#catalog,
          authorizer: this.#authorizer,
          limits: this.#limits,
          subject: trusted,
          deadline: startedAt + this.#limits.maxExecutionTime,
          onError: onError === undefined
            ? undefined
            : (event) => report(onError, { ...event, executionId, subject: trusted }),
          // Native calls arrive from the executor's message handlers: parent their spans explicitly.
          trace: { parent: withSpan(span), attributes: { "codemode.execution_id": executionId } },
        });
        let output: string | undefined;
        const onOutput = options.onOutput;
        try {
          const value = await this.#executor.run({
            subjectId: trusted.id,
            source,
            budgets: this.#budgets,
            capabilities: this.#catalog.stubs,
            dispatch,
            signal,
            startedAt,
            onOutput: (text) => {
              output = text;
              if (typeof onOutput === "function") onOutput(text);
            },
          });
          return output === undefined ? { value } : { value, output };
        } catch (err) {
          if (err instanceof CodeModeError) {
            report(onError, { error: err, code: err.code, phase: "execute", executionId, subject: trusted });
          }
          throw sanitize(err, signal, this.#limits, output);
        }
      },
    );
  }

  /** Ends the executor and its workers. Idempotent; `execute` fails with `internal` afterwards. */
  close(): Promise<void> {
    this.#closing ??= this.#executor.close();
    return this.#closing;
  }

  /** Same as {@link Server.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function callerAbort(signal: AbortSignal): unknown {
  const reason = signal.reason;
  // A caller deadline is a resource limit that keeps the timeout as its cause, as the seed's
  // DeadlineExceeded is; a plain cancellation returns the reason itself.
  if (isTimeout(reason)) {
    return new CodeModeError("resource_limit", "execution deadline exceeded", {
      cause: reason,
      detail: "the caller's deadline passed before the program finished",
    });
  }
  return reason;
}

/**
 * The detail of a `resource_limit` an executor raised without one: the process pool's heap cap (the
 * engine's memory budget sized it) and a subject's full queue. Read from the host's own message, which
 * the executor wrote; anything else keeps the bare "resource limit exceeded".
 */
function fallbackResourceDetail(err: CodeModeError, limits: Limits | undefined): string | undefined {
  if (isTimeout(err.cause)) return budgetDetail("maxExecutionTime", limits?.maxExecutionTime);
  if (/heap limit/.test(err.message)) return budgetDetail("maxMemoryBytes", limits?.maxMemoryBytes);
  if (/executions of this subject are waiting/.test(err.message)) {
    return "too many executions of this subject are already waiting: retry after the running ones finish";
  }
  return undefined;
}

function publicDetail(err: CodeModeError, limits: Limits | undefined): string | undefined {
  if (!DETAIL_CODES.has(err.code)) return undefined;
  const detail = typeof err.detail === "string"
    ? err.detail
    : err.code === "resource_limit"
    ? fallbackResourceDetail(err, limits)
    : undefined;
  // Escaped here too: an executor or handler may have built the detail without the core's helpers.
  return detail === undefined ? undefined : modelDetail(detail);
}

/**
 * Projects an executor failure onto the public classification, dropping trusted causes. `limits` (the
 * server's) names the budget of a `resource_limit` that arrived without a detail; `output` is what the
 * program printed.
 */
export function sanitize(
  err: unknown,
  signal: AbortSignal | undefined,
  limits?: Limits,
  output?: string,
): unknown {
  if (signal?.aborted) return callerAbort(signal);
  if (err instanceof CodeModeError) {
    return new CodeModeError(err.code, err.message, {
      detail: publicDetail(err, limits),
      ...(output === undefined ? {} : { output }),
      cause: err.code === "resource_limit" && isTimeout(err.cause) ? err.cause : undefined,
    });
  }
  return new CodeModeError("internal", "unexpected executor failure");
}
