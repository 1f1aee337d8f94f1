/**
 * Execution and discovery budgets. Every field has a default; in builder options a field that is absent
 * or zero takes its default, and a negative field is invalid. A zero never means "unlimited".
 *
 * @module
 */
import { CodeModeError } from "../errors.ts";
import type { ExecutionBudgets } from "../executor/mod.ts";

/** Execution and discovery budgets of one server (all integers; times in milliseconds). */
export interface Limits {
  /** Starlark source bytes (UTF-8) before execution. Default 65,536. */
  readonly maxSourceBytes: number;
  /** Starlark execution steps for one execution. Default 1,000,000. */
  readonly maxExecutionSteps: number;
  /**
   * Wall-clock milliseconds for one execution, counted from before the wait for a worker; covers
   * spawn, protocol exchange, Starlark execution and host dispatch. Default 5,000.
   */
  readonly maxExecutionTime: number;
  /** Attempted native calls in one execution. Default 100. */
  readonly maxNativeCalls: number;
  /** Inclusive nesting depth of any value crossing the worker boundary (a scalar is 1). Default 32. */
  readonly maxValueDepth: number;
  /** Encoded bytes of any value crossing the worker boundary. Default 1,048,576. */
  readonly maxValueBytes: number;
  /** Cumulative encoded bytes of successful native results in one execution. Default 8,388,608. */
  readonly maxIntermediateValueBytes: number;
  /** Raw search query bytes before trimming; padding counts. Default 256. */
  readonly maxSearchQueryBytes: number;
  /** Entries in one search response. Default 20. */
  readonly maxSearchResults: number;
  /** Concurrent executions (spawn attempts and live workers). Default 8. */
  readonly maxConcurrentExecutions: number;
  /**
   * Extension beyond the seed: bytes of allocation the Starlark engine may charge in one execution
   * (strings, lists, dicts... are charged before they are built). Default 67,108,864 (64 MiB).
   */
  readonly maxMemoryBytes: number;
  /**
   * Extension beyond the seed: the largest Starlark int in bits (its magnitude; minimum 1,024). An
   * operation whose result would be larger fails with `resource_limit` before it computes anything, so
   * no single big-int operation runs unpolled for more than a few milliseconds. Default 262,144
   * (78,913 decimal digits).
   */
  readonly maxIntBits: number;
}

/** The field names of {@link Limits}, in documentation order. */
export const LIMIT_FIELDS: readonly (keyof Limits)[] = Object.freeze([
  "maxSourceBytes",
  "maxExecutionSteps",
  "maxExecutionTime",
  "maxNativeCalls",
  "maxValueDepth",
  "maxValueBytes",
  "maxIntermediateValueBytes",
  "maxSearchQueryBytes",
  "maxSearchResults",
  "maxConcurrentExecutions",
  "maxMemoryBytes",
  "maxIntBits",
]);

const DEFAULTS: Limits = Object.freeze({
  maxSourceBytes: 65_536,
  maxExecutionSteps: 1_000_000,
  maxExecutionTime: 5_000,
  maxNativeCalls: 100,
  maxValueDepth: 32,
  maxValueBytes: 1_048_576,
  maxIntermediateValueBytes: 8_388_608,
  maxSearchQueryBytes: 256,
  maxSearchResults: 20,
  maxConcurrentExecutions: 8,
  maxMemoryBytes: 67_108_864,
  maxIntBits: 262_144,
});

/**
 * Upper bounds beyond the seed (which uses Go's integer ranges): the time budget must fit a JS timer
 * (2^31−1 ms, about 24.8 days) and every other field must be a safe integer.
 */
const MAXIMUMS: Readonly<Record<keyof Limits, number>> = Object.freeze({
  ...Object.fromEntries(LIMIT_FIELDS.map((f) => [f, Number.MAX_SAFE_INTEGER])) as Record<
    keyof Limits,
    number
  >,
  maxExecutionTime: 2 ** 31 - 1,
});

/** Lower bounds above 1, where a smaller value could not run ordinary programs. */
const MINIMUMS: Readonly<Partial<Record<keyof Limits, number>>> = Object.freeze({ maxIntBits: 1_024 });

/** A fresh copy of the development defaults. */
export function defaultLimits(): Limits {
  return { ...DEFAULTS };
}

/** The part of `limits` an executor enforces, as the budgets of each execution request. */
export function executionBudgets(limits: Limits): ExecutionBudgets {
  return Object.freeze({
    maxSourceBytes: limits.maxSourceBytes,
    maxExecutionSteps: limits.maxExecutionSteps,
    maxExecutionTime: limits.maxExecutionTime,
    maxNativeCalls: limits.maxNativeCalls,
    maxValueDepth: limits.maxValueDepth,
    maxValueBytes: limits.maxValueBytes,
    maxIntermediateValueBytes: limits.maxIntermediateValueBytes,
    maxMemoryBytes: limits.maxMemoryBytes,
    maxIntBits: limits.maxIntBits,
  });
}

function describeValue(v: unknown): string {
  return typeof v === "number" ? String(v) : typeof v;
}

/**
 * Problems of a partial limit set as builder options give it: absent and zero fields are fine (they take
 * defaults); negative, non-integer, too large and unknown fields are problems.
 */
export function limitsProblems(partial: unknown): string[] {
  if (partial === undefined) return [];
  if (partial === null || typeof partial !== "object") return ["limits must be an object"];
  const problems: string[] = [];
  for (const key of Object.keys(partial)) {
    if (!(LIMIT_FIELDS as readonly string[]).includes(key)) problems.push(`limits: unknown field "${key}"`);
  }
  for (const field of LIMIT_FIELDS) {
    const v = (partial as Record<string, unknown>)[field];
    if (v === undefined || v === 0) continue;
    if (typeof v !== "number" || !Number.isInteger(v)) {
      problems.push(`limits: ${field} must be an integer (got ${describeValue(v)})`);
    } else if (v < 0) {
      problems.push(`limits: ${field} must not be negative (got ${v})`);
    } else if (v > MAXIMUMS[field]) {
      problems.push(`limits: ${field} must be at most ${MAXIMUMS[field]} (got ${v})`);
    } else if (v < (MINIMUMS[field] ?? 1)) {
      problems.push(`limits: ${field} must be at least ${MINIMUMS[field]} (got ${v})`);
    }
  }
  return problems;
}

/**
 * Resolves builder options: every absent or zero field takes its default. Throws `invalid_registration`
 * listing every problem when a field is negative, not an integer, too large or unknown.
 */
export function resolveLimits(partial?: Partial<Limits>): Limits {
  const problems = limitsProblems(partial);
  if (problems.length > 0) throw new CodeModeError("invalid_registration", problems.join("; "));
  const out: Record<string, number> = {};
  for (const field of LIMIT_FIELDS) {
    const v = partial?.[field];
    out[field] = v === undefined || v === 0 ? DEFAULTS[field] : v;
  }
  return Object.freeze(out as unknown as Limits);
}

/**
 * Validates an already resolved limit set: every field must be a positive integer within bounds (here a
 * zero is an error, not a request for the default). Throws `invalid_registration` listing every problem.
 */
export function validateLimits(limits: Limits): void {
  const problems: string[] = [];
  if (limits === null || typeof limits !== "object") {
    throw new CodeModeError("invalid_registration", "limits must be an object");
  }
  for (const field of LIMIT_FIELDS) {
    const v: unknown = limits[field];
    if (typeof v !== "number" || !Number.isInteger(v)) {
      problems.push(`limits: ${field} must be an integer (got ${describeValue(v)})`);
    } else if (v <= 0) {
      problems.push(`limits: ${field} must be positive (got ${v})`);
    } else if (v > MAXIMUMS[field]) {
      problems.push(`limits: ${field} must be at most ${MAXIMUMS[field]} (got ${v})`);
    } else if (v < (MINIMUMS[field] ?? 1)) {
      problems.push(`limits: ${field} must be at least ${MINIMUMS[field]} (got ${v})`);
    }
  }
  if (problems.length > 0) throw new CodeModeError("invalid_registration", problems.join("; "));
}
