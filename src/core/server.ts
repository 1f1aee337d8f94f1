/**
 * The built, immutable server: `search`, `describe`, `execute` and `close`.
 *
 * @module
 */
import type { Authorizer, Subject } from "../../authz.ts";
import type { Catalog } from "./catalog.ts";
import type { Description } from "./describe.ts";
import { createDispatch } from "./dispatch.ts";
import { CodeModeError } from "../errors.ts";
import type { ExecutionBudgets, Executor } from "../executor/mod.ts";
import { executionBudgets, type Limits } from "./limits.ts";
import type { SearchResponse } from "../search/mod.ts";
import { modelDetail, utf8Length } from "../text.ts";

/** Options of one execution. */
export interface ExecuteOptions {
  /** Cancels the execution: `execute` then rejects with the signal's reason (a timeout reason is `resource_limit`). */
  readonly signal?: AbortSignal;
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
}

const DETAIL_CODES = new Set(["invalid_program", "invalid_arguments", "capability_failure"]);

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
  #closing: Promise<void> | undefined;

  /** Assembles a server from validated parts; use `Builder.build()` instead. */
  constructor(parts: ServerParts) {
    this.#catalog = parts.catalog;
    this.#limits = Object.freeze({ ...parts.limits });
    this.#authorizer = parts.authorizer;
    this.#executor = parts.executor;
    this.#budgets = executionBudgets(this.#limits);
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
   * Runs a Starlark program whose `main()` may call the enabled capabilities, as `subject`, and resolves
   * to the converted return value of `main()`. Rejects with a `CodeModeError` whose trusted causes have
   * been removed, or with the signal's reason when `options.signal` aborts first.
   */
  async execute(subject: Subject, source: string, options: ExecuteOptions = {}): Promise<unknown> {
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
      throw new CodeModeError(
        "resource_limit",
        `source is ${bytes} bytes; the limit is ${this.#limits.maxSourceBytes}`,
      );
    }
    const trusted: Subject = Object.freeze({ id: subject.id });
    const dispatch = createDispatch({
      catalog: this.#catalog,
      authorizer: this.#authorizer,
      limits: this.#limits,
      subject: trusted,
    });
    try {
      return await this.#executor.run({
        subjectId: trusted.id,
        source,
        budgets: this.#budgets,
        capabilities: this.#catalog.stubs,
        dispatch,
        signal,
        startedAt,
      });
    } catch (err) {
      throw sanitize(err, signal);
    }
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
    return new CodeModeError("resource_limit", "execution deadline exceeded", { cause: reason });
  }
  return reason;
}

/** Projects an executor failure onto the public classification, dropping trusted causes. */
export function sanitize(err: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return callerAbort(signal);
  if (err instanceof CodeModeError) {
    return new CodeModeError(err.code, err.message, {
      // Escaped here too: an executor or handler may have built the detail without the core's helpers.
      detail: DETAIL_CODES.has(err.code) && typeof err.detail === "string"
        ? modelDetail(err.detail)
        : undefined,
      cause: err.code === "resource_limit" && isTimeout(err.cause) ? err.cause : undefined,
    });
  }
  return new CodeModeError("internal", "unexpected executor failure");
}
