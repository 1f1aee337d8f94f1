/**
 * Shared pieces of the hostile corpus: the program and outcome types and the helpers that write
 * Starlark sources.
 *
 * @module
 */
import type { ErrorCode } from "../../mod.ts";

/** How an execution may end: a classified error code, or `"ok"` for a returned value. */
export type Outcome = ErrorCode | "ok";

/** The value type (or attack family) a hostile program exercises. */
export type HostileClass =
  | "int"
  | "string"
  | "bytes"
  | "list"
  | "tuple"
  | "dict"
  | "set"
  | "comprehension"
  | "json"
  | "nesting"
  | "recursion"
  | "loop"
  | "native"
  | "result"
  | "print"
  | "hold"
  | "compile"
  | "error-quote";

/** One hostile program. */
export interface HostileProgram {
  /** A unique, stable name (used in reports). */
  readonly name: string;
  /** The value type or attack family. */
  readonly kind: HostileClass;
  /** The Starlark source; `main()` is the entry point. */
  readonly source: string;
  /** The outcomes it may end with; the first is the one expected with default limits. */
  readonly expect: readonly [Outcome, ...Outcome[]];
  /** Why it is hostile (what unbounded work or memory it asks for). */
  readonly why: string;
  /**
   * Whether it calls the harness-only capabilities (`text.echo`, `data.total`), which the demo server
   * behind `deno task serve` does not have, or is meant for the harness alone (the compilation family's
   * multi-megabyte sources, over the HTTP edge's 1 MiB body cap).
   */
  readonly harnessOnly?: boolean;
}

/** Builds `def main():` with the given body lines (each indented once). */
export function main(...body: string[]): string {
  return `def main():\n${body.map((line) => `    ${line}\n`).join("")}`;
}

/** The label of a program a budget must stop. */
export const LIMIT: readonly ["resource_limit"] = ["resource_limit"];

/**
 * Lines that set `name` to a huge int of 500·2^k bits. Starlark refuses shift counts of 512 or more
 * (as the reference does), so huge ints are grown by squaring.
 */
export function bigInt(name: string, k: number): string[] {
  return [`${name} = 1 << 500`, `for _ in range(${k}):`, `    ${name} = ${name} * ${name}`];
}
