/**
 * The host half of a native call and of a run's outcome, shared by the worker pool and the inline
 * executor. The host never trusts what the engine side sends: it counts native calls itself, decodes
 * and re-validates every argument map against the capability's input schema (wire types included) and
 * re-checks the size and depth of everything it receives; it measures and debits each result itself.
 *
 * @module
 */
import { boundOutput } from "./print_output.ts";
import { types } from "node:util";
import { CodeModeError } from "../errors.ts";
import { utf8Length, WireFormatError, WireLimitError, type WireLimits, WireTypeError } from "./codec.ts";
import type { ExecutionBudgets, ExecutionRequest } from "./contract.ts";
import { decodeArguments, decodeHostValue, encodeHostValue, outputSchema } from "./host_codec.ts";
import { modelDetail } from "../text.ts";
import { memoryBudget, type RunOutcome } from "./protocol.ts";
import { budgetError, type BudgetName, formatCount, isBudgetName } from "../budgets.ts";

/** The error of an execution that ran out of time: `resource_limit` caused by a `TimeoutError`. */
export function deadlineError(maxExecutionTime: number): CodeModeError {
  return budgetError(
    "maxExecutionTime",
    maxExecutionTime,
    `execution exceeded maxExecutionTime (${maxExecutionTime} ms)`,
    { cause: new DOMException("execution deadline exceeded", "TimeoutError") },
  );
}

/**
 * Checks the request before any work: the source must be a string within `maxSourceBytes` (UTF-8).
 * The core checks this too; the executor does not rely on it.
 */
export function checkRequest(request: ExecutionRequest): void {
  if (typeof request.source !== "string") {
    throw new CodeModeError("invalid_program", "source must be a string");
  }
  const max = request.budgets.maxSourceBytes;
  // Cheap bound first: a UTF-8 encoding has at most 3 bytes per UTF-16 unit.
  if (request.source.length * 3 > max) {
    const bytes = utf8Length(request.source);
    if (bytes > max) {
      throw budgetError("maxSourceBytes", max, `source is ${bytes} bytes; the limit is ${max}`, {
        where: `the program is ${formatCount(bytes)} bytes`,
      });
    }
  }
}

/** Wraps an unexpected failure as `internal`. */
export function internalError(message: string, cause?: unknown): CodeModeError {
  return new CodeModeError("internal", message, cause === undefined ? {} : { cause });
}

/**
 * The engine side broke the protocol (an unknown capability index, a malformed encoding): the sandbox
 * cannot be trusted to continue, so the pool ends the execution at once and discards the worker.
 */
export class SandboxViolation extends CodeModeError {
  /** Creates the error (code `internal`). */
  constructor(message: string, cause?: unknown) {
    super("internal", message, cause === undefined ? {} : { cause });
    this.name = "SandboxViolation";
  }
}

/**
 * Whether a dispatch threw one of our classified errors. A Proxy is never one, and is not asked (its
 * `getPrototypeOf` trap would run and may throw).
 */
function classified(e: unknown): e is CodeModeError {
  try {
    return !types.isProxy(e) && e instanceof CodeModeError;
  } catch {
    return false;
  }
}

/** Handles the native calls of one execution on the host. */
export class NativeCallHost {
  readonly #request: ExecutionRequest;
  readonly #limits: WireLimits;
  /** Attempted native calls that reached the host. */
  calls = 0;
  /** Bytes of successful results debited from `maxIntermediateValueBytes`. */
  intermediateBytes = 0;

  /** Creates the handler for `request`. */
  constructor(request: ExecutionRequest) {
    this.#request = request;
    this.#limits = { maxBytes: request.budgets.maxValueBytes, maxDepth: request.budgets.maxValueDepth };
  }

  /**
   * Runs native call `cap` with the encoded argument map `args` and resolves to the encoded result.
   * Rejects with a CodeModeError: `resource_limit` (too many calls, oversized or too deep arguments or
   * result, intermediate budget exhausted), `invalid_arguments` (the map does not match the schema),
   * `capability_failure` (the result cannot be encoded), `internal` (protocol violation, unexpected
   * dispatch failure), or whatever classified error the dispatch raised.
   */
  async call(cap: number, args: Uint8Array, signal: AbortSignal): Promise<Uint8Array> {
    const req = this.#request;
    const budgets = req.budgets;
    this.calls++;
    if (this.calls > budgets.maxNativeCalls) {
      throw budgetError(
        "maxNativeCalls",
        budgets.maxNativeCalls,
        `more than ${budgets.maxNativeCalls} native calls`,
      );
    }
    const stub = Number.isInteger(cap) && cap >= 0 ? req.capabilities[cap] : undefined;
    if (stub === undefined) throw new SandboxViolation(`sandbox asked for unknown capability index ${cap}`);
    if (!(args instanceof Uint8Array)) throw new SandboxViolation("sandbox sent malformed arguments");

    let decoded: Record<string, unknown>;
    try {
      decoded = decodeArguments(args, stub.input, this.#limits);
    } catch (e) {
      if (e instanceof WireLimitError) {
        throw wireLimit(e, budgets, `${stub.name} arguments`);
      }
      if (e instanceof WireTypeError) {
        const detail = modelDetail(`${stub.name}: ${e.message}`);
        throw new CodeModeError("invalid_arguments", detail, { detail });
      }
      throw new SandboxViolation(`${stub.name}: malformed argument encoding from the sandbox`, e);
    }

    let output: unknown;
    try {
      output = await req.dispatch(cap, decoded, signal);
    } catch (e) {
      if (signal.aborted && e === signal.reason) throw e;
      if (classified(e)) throw e;
      throw internalError(`${stub.name}: dispatch failed unexpectedly`, e);
    }

    let bytes: Uint8Array;
    try {
      bytes = encodeHostValue(output, this.#limits, outputSchema(stub), "result");
    } catch (e) {
      if (e instanceof WireLimitError) {
        throw wireLimit(e, budgets, `${stub.name} result`);
      }
      if (e instanceof WireTypeError) {
        throw new CodeModeError("capability_failure", `${stub.name}: invalid result: ${e.message}`, {
          cause: e,
          detail: `${stub.name}: invalid result`,
        });
      }
      throw internalError(`${stub.name}: result encoding failed`, e);
    }
    if (this.intermediateBytes + bytes.length > budgets.maxIntermediateValueBytes) {
      throw budgetError(
        "maxIntermediateValueBytes",
        budgets.maxIntermediateValueBytes,
        `native results exceed maxIntermediateValueBytes (${budgets.maxIntermediateValueBytes} bytes)`,
      );
    }
    this.intermediateBytes += bytes.length;
    return bytes;
  }
}

/** The host's value of `budget` (undefined for the engine's stack depth, which has no setting). */
export function budgetValue(budget: BudgetName, budgets: ExecutionBudgets): number | undefined {
  switch (budget) {
    case "maxMemoryBytes":
      return memoryBudget(budgets);
    case "maxSourceBytes":
    case "maxExecutionSteps":
    case "maxExecutionTime":
    case "maxNativeCalls":
    case "maxValueDepth":
    case "maxValueBytes":
    case "maxIntermediateValueBytes":
    case "maxIntBits":
      return budgets[budget];
    default:
      return undefined;
  }
}

function wireLimit(e: WireLimitError, budgets: ExecutionBudgets, where: string): CodeModeError {
  const budget = e.limit === "depth" ? "maxValueDepth" : "maxValueBytes";
  return budgetError(budget, budgets[budget], `${where}: ${e.message}`, { where });
}

/** How an execution ended, for the pool's reuse decision. */
export interface Verdict {
  /** The value to resolve with (when `error` is absent). */
  readonly value?: unknown;
  /** The error to reject with. */
  readonly error?: unknown;
  /** Whether the sandbox may serve another execution (false when it broke or may be in a bad state). */
  readonly reusable: boolean;
  /**
   * The run ended at a budget (memory, steps, time): the engine stopped itself cleanly, so the sandbox
   * may serve its subject again, but it may hold up to a budget's worth of garbage, so it is ended soon
   * if it stays idle.
   */
  readonly atBudget?: boolean;
}

const REUSABLE_CODES = new Set([
  "invalid_program",
  "invalid_arguments",
  "permission_denied",
  "policy_failure",
  "capability_failure",
  "not_found",
  "unauthenticated",
]);

function text(v: unknown, fallback: string): string {
  return typeof v === "string" ? v : fallback;
}

/** Whether an outcome is the sandbox stopping itself at its own copy of the deadline. */
export function ownDeadline(outcome: unknown): boolean {
  const o = outcome as { ok?: unknown; kind?: unknown; code?: unknown } | null | undefined;
  return typeof o === "object" && o !== null && o.ok === false && o.kind === "interrupted" &&
    o.code === "deadline";
}

/**
 * Tells `request.onOutput` what the program printed (bounded again: the sandbox is not trusted to have
 * bounded it). Nothing when it printed nothing.
 */
export function reportOutput(request: ExecutionRequest, printed: unknown): void {
  const output = boundOutput(printed);
  if (output === undefined || request.onOutput === undefined) return;
  try {
    request.onOutput(output);
  } catch {
    // An observer's failure is not the execution's.
  }
}

/**
 * Turns a run outcome reported by the engine side into the execution's result. `nativeError` is the
 * error the host raised for a failed native call (the sandbox only knows its code). Details are
 * re-escaped here ({@link modelDetail}): the engine side is not trusted to have done it.
 */
export function judgeOutcome(
  outcome: RunOutcome,
  request: ExecutionRequest,
  nativeError: CodeModeError | undefined,
): Verdict {
  const budgets = request.budgets;
  if (outcome === null || typeof outcome !== "object") {
    return { error: internalError("sandbox sent a malformed outcome"), reusable: false };
  }
  if (
    request.onSteps !== undefined && typeof outcome.steps === "number" &&
    (outcome.ok === true || outcome.kind !== "interrupted")
  ) {
    try {
      request.onSteps(outcome.steps);
    } catch {
      // An observer's failure is not the execution's.
    }
  }
  reportOutput(request, outcome.output);
  if (outcome.ok === true) {
    if (!(outcome.value instanceof Uint8Array)) {
      return { error: internalError("sandbox sent a malformed final value"), reusable: false };
    }
    try {
      const value = decodeHostValue(outcome.value, {
        maxBytes: budgets.maxValueBytes,
        maxDepth: budgets.maxValueDepth,
      });
      return { value, reusable: true };
    } catch (e) {
      if (e instanceof WireLimitError) {
        return { error: wireLimit(e, budgets, "final value"), reusable: false };
      }
      if (e instanceof WireTypeError) {
        // Two keys that only invalid UTF-8 told apart: the program's mistake, not the sandbox's.
        const detail = modelDetail(`final value: ${e.message}`);
        return { error: new CodeModeError("invalid_program", detail, { detail }), reusable: true };
      }
      const why = e instanceof WireFormatError ? e.message : "decoding failed";
      return { error: internalError(`sandbox sent a malformed final value: ${why}`, e), reusable: false };
    }
  }
  const message = text(outcome.message, "program failed");
  switch (outcome.kind) {
    case "program":
    case "arguments": {
      const code = outcome.kind === "program" ? "invalid_program" : "invalid_arguments";
      const detail = modelDetail(text(outcome.detail, message));
      return { error: new CodeModeError(code, detail, { detail }), reusable: true };
    }
    case "resource": {
      // The sandbox names the budget (a closed set, checked), `final:` when main()'s result hit it; the
      // value comes from the host's own budgets, never from the sandbox's text.
      const code = typeof outcome.code === "string" ? outcome.code : "";
      const final = code.startsWith("final:");
      const name = final ? code.slice("final:".length) : code;
      const budget: BudgetName | undefined = isBudgetName(name) ? name : undefined;
      const error = budget === undefined
        ? new CodeModeError("resource_limit", message)
        : budgetError(budget, budgetValue(budget, budgets), message, final ? { where: "final value" } : {});
      return { error, reusable: true, atBudget: true };
    }
    case "native": {
      if (nativeError === undefined || nativeError.code !== outcome.code) {
        return {
          error: internalError("sandbox reported a native failure the host did not raise"),
          reusable: false,
        };
      }
      return { error: nativeError, reusable: REUSABLE_CODES.has(nativeError.code) };
    }
    case "interrupted":
      if (outcome.code === "deadline") {
        return { error: deadlineError(budgets.maxExecutionTime), reusable: true, atBudget: true };
      }
      return { error: internalError(`sandbox stopped unexpectedly: ${message}`), reusable: false };
    default:
      return { error: internalError(`sandbox failed: ${message}`), reusable: false };
  }
}
