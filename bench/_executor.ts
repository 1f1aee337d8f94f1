/**
 * The workload both executor benchmarks measure: one capability, a program making one native call, and
 * a request for it with the default budgets.
 *
 * @module
 */
import type { CapabilityStub, ExecutionBudgets, ExecutionRequest } from "../src/executor/mod.ts";
import { defaultLimits, executionBudgets } from "../src/core/limits.ts";

/** The one capability: `records.lookup(*, key: str, limit: int | None) -> {key: str, count: int}`. */
export const STUBS: readonly CapabilityStub[] = [{
  name: "records.lookup",
  input: {
    kind: "struct",
    fields: [{ name: "key", type: { kind: "str" } }, {
      name: "limit",
      type: { kind: "optional", of: { kind: "int" } },
    }],
  },
  output: {
    kind: "struct",
    fields: [{ name: "key", type: { kind: "str" } }, { name: "count", type: { kind: "int" } }],
  },
}];

/** The budgets of the default limits. */
export const BUDGETS: ExecutionBudgets = executionBudgets(defaultLimits());

/** A program making one native call. */
export const SOURCE = 'def main():\n    r = records.lookup(key="a", limit=2)\n    return r["count"]\n';

/** A fresh request for {@link SOURCE}, answered by an in-process handler for `records.lookup`. */
export function benchRequest(subjectId: string): ExecutionRequest {
  return {
    subjectId,
    source: SOURCE,
    budgets: BUDGETS,
    capabilities: STUBS,
    dispatch: (_cap, a) => Promise.resolve({ key: a.key, count: (a.limit as number | undefined) ?? 1 }),
    startedAt: performance.now(),
  };
}
