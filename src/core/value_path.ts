/**
 * The path of a failing value inside an argument map or a handler result, shared by input binding and
 * output conversion: failures collect their steps while they unwind, and render their message once.
 *
 * @module
 */
import type { TypeSchema } from "../schema.ts";
import { safeQuote } from "./binding.ts";

/**
 * One step of the path to a failing value: a struct field name, a list index, or a dict key. Failures
 * collect their path while they unwind, so a value that binds or converts builds no path text at all.
 */
export type Step = string | number | { readonly key: string };

/** The double that holds the integer `v` exactly, or `undefined` when it has none. */
export function exactFloat(v: bigint): number | undefined {
  const x = Number(v);
  return Number.isFinite(x) && BigInt(x) === v ? x : undefined;
}

/** The path text of a failure: `root` then its steps, outermost first. */
export function renderPath(root: string, steps: readonly Step[]): string {
  let p = root;
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i];
    if (typeof s === "number") p += `[${s}]`;
    else if (typeof s === "string") p += p === "" ? s : `.${s}`;
    else p += `[${safeQuote(s.key)}]`;
  }
  return p;
}

/** A classified failure whose message is rendered once its path is known. */
export class PathFailure<C extends string> {
  /** Innermost step first. */
  readonly steps: Step[] = [];
  /**
   * @param code the error code the failure becomes
   * @param render the message, given the failing value's path
   * @param cause what the value threw, if it threw
   * @param budget for `resource_limit`: the budget that ran out, named in the model's detail
   */
  constructor(
    readonly code: C,
    readonly render: (path: string) => string,
    readonly cause?: unknown,
    readonly budget?: "maxValueDepth" | "maxValueBytes",
  ) {}
}

/** Adds `step` to a failure unwinding through a container. */
export function at(e: unknown, step: Step): unknown {
  if (e instanceof PathFailure) e.steps.push(step);
  return e;
}

/** The scalar schema a `json` value's int binds and converts as. */
export const INT: TypeSchema = Object.freeze({ kind: "int" });
/** The scalar schema a `json` value's non-integer number binds and converts as. */
export const FLOAT: TypeSchema = Object.freeze({ kind: "float" });
/** The scalar schema a `json` value's string binds and converts as. */
export const STR: TypeSchema = Object.freeze({ kind: "str" });
/** The scalar schema a `json` value's bool binds and converts as. */
export const BOOL: TypeSchema = Object.freeze({ kind: "bool" });
