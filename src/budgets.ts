/**
 * The model-visible wording of a `resource_limit` failure: which budget ran out and its value. The
 * budgets are the host's public limits (the `execute` tool's description already quotes several), so
 * naming them leaks nothing, and a model that knows *which* budget it hit can fix its program (fewer
 * calls, smaller results, a shorter query) instead of guessing.
 *
 * The detail is always rendered from the host's own resolved value, never from text the sandbox sent:
 * the engine side only tells the host *which* budget, from a closed set ({@link isBudgetName}).
 *
 * @module
 */
import { CodeModeError } from "./errors.ts";

/** A budget a program, a call or a search can exhaust. */
export type BudgetName =
  | "maxSourceBytes"
  | "maxExecutionSteps"
  | "maxExecutionTime"
  | "maxNativeCalls"
  | "maxValueDepth"
  | "maxValueBytes"
  | "maxIntermediateValueBytes"
  | "maxSearchQueryBytes"
  | "maxSearchQueryTokens"
  | "maxMemoryBytes"
  | "maxIntBits"
  | "maxStackDepth";

// What one unit of each budget is, and what the program can do about it (short: a model reads it).
const BUDGETS: Readonly<Record<BudgetName, { readonly unit: string; readonly hint: string }>> = Object
  .freeze({
    maxSourceBytes: { unit: "bytes", hint: "send a shorter program" },
    maxExecutionSteps: { unit: "steps", hint: "do less work per execution" },
    maxExecutionTime: { unit: "ms", hint: "do less work per execution" },
    maxNativeCalls: { unit: "capability calls", hint: "make fewer calls in one execution" },
    maxValueDepth: { unit: "levels", hint: "nest values less deeply" },
    maxValueBytes: { unit: "bytes", hint: "return or pass smaller values" },
    maxIntermediateValueBytes: { unit: "bytes of capability results", hint: "fetch less data" },
    maxSearchQueryBytes: { unit: "bytes", hint: "use a few words" },
    maxSearchQueryTokens: { unit: "distinct words", hint: "use a few words" },
    maxMemoryBytes: { unit: "bytes", hint: "build smaller strings, lists and dicts" },
    maxIntBits: { unit: "bits", hint: "keep integers smaller" },
    maxStackDepth: { unit: "levels", hint: "nest calls and values less deeply" },
  });

/** A count as the texts show it: `65,536`. */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** Whether `name` is one of the budget names (the sandbox reports one; the host checks it). */
export function isBudgetName(name: unknown): name is BudgetName {
  return typeof name === "string" && Object.hasOwn(BUDGETS, name);
}

/**
 * The model-visible detail of an exhausted budget, e.g.
 * `maxNativeCalls exceeded (limit: 100 capability calls): make fewer calls in one execution`.
 * `where` names the value concerned (`final value`, `shop.orders.list result`) when there is one;
 * a `value` that is not a positive number is left out (the stack depth has no host setting).
 */
export function budgetDetail(budget: BudgetName, value: number | undefined, where?: string): string {
  const { unit, hint } = BUDGETS[budget];
  const limit = typeof value === "number" && Number.isFinite(value) && value > 0
    ? ` (limit: ${formatCount(value)} ${unit})`
    : "";
  return `${where === undefined ? "" : `${where}: `}${budget} exceeded${limit}: ${hint}`;
}

/**
 * A `resource_limit` error for `budget`: `message` stays host-facing, the detail names the budget and
 * its value ({@link budgetDetail}). `cause` is kept for the host (a deadline keeps its `TimeoutError`).
 */
export function budgetError(
  budget: BudgetName,
  value: number | undefined,
  message: string,
  options: { readonly where?: string; readonly cause?: unknown } = {},
): CodeModeError {
  return new CodeModeError("resource_limit", message, {
    detail: budgetDetail(budget, value, options.where),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
  });
}
