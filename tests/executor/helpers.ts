/**
 * Shared fixtures of the executor tests: a small capability catalog, default budgets and a request
 * builder with a scriptable dispatch.
 *
 * @module
 */
import type {
  CapabilityStub,
  ExecutionBudgets,
  ExecutionRequest,
  NativeDispatch,
} from "../../src/executor/contract.ts";
import { defaultLimits, executionBudgets } from "../../src/core/limits.ts";
import type { TypeSchema } from "../../src/schema.ts";

type Struct = TypeSchema & { readonly kind: "struct" };

/** A stub with an output schema, like the core's catalog stubs. */
export interface TestStub extends CapabilityStub {
  /** Output shape. */
  readonly output: Struct;
}

const str = { kind: "str" } as const;
const int = { kind: "int" } as const;
const float = { kind: "float" } as const;

/** Capabilities used across the tests (index order matters for `dispatch`). */
export const STUBS: readonly TestStub[] = Object.freeze([
  {
    name: "records.lookup",
    input: {
      kind: "struct",
      fields: [{ name: "key", type: str }, { name: "limit", type: { kind: "optional", of: int } }],
    },
    output: { kind: "struct", fields: [{ name: "key", type: str }, { name: "count", type: int }] },
  },
  {
    name: "math2.scale",
    input: { kind: "struct", fields: [{ name: "x", type: float }, { name: "by", type: float }] },
    output: { kind: "struct", fields: [{ name: "value", type: float }] },
  },
  {
    name: "blob.make",
    input: { kind: "struct", fields: [{ name: "size", type: int }] },
    output: { kind: "struct", fields: [{ name: "data", type: str }] },
  },
  {
    name: "slow.wait",
    input: { kind: "struct", fields: [{ name: "ms", type: int }] },
    output: { kind: "struct", fields: [{ name: "waited", type: int }] },
  },
  {
    name: "items.list",
    input: {
      kind: "struct",
      fields: [{
        name: "tags",
        type: { kind: "list", of: { kind: "struct", fields: [{ name: "name", type: str }] } },
      }],
    },
    output: { kind: "struct", fields: [{ name: "names", type: { kind: "list", of: str } }] },
  },
]);

/** The budgets of the default limits; tests override single fields. */
export const BUDGETS: ExecutionBudgets = executionBudgets(defaultLimits());

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A dispatch implementing {@link STUBS} faithfully; records every call. */
export function makeDispatch(log: { cap: number; args: Record<string, unknown> }[] = []): NativeDispatch {
  return async (cap, args, signal) => {
    log.push({ cap, args });
    switch (cap) {
      case 0:
        return { key: args.key, count: (args.limit as number | undefined) ?? 1 };
      case 1:
        return { value: (args.x as number) * (args.by as number) };
      case 2:
        return { data: "x".repeat(args.size as number) };
      case 3:
        await sleep(args.ms as number, signal);
        return { waited: args.ms };
      case 4:
        return { names: (args.tags as { name: string }[]).map((t) => t.name) };
    }
    throw new Error(`no capability ${cap}`);
  };
}

/** Builds a request for subject `u1` with {@link STUBS}, {@link BUDGETS} and {@link makeDispatch}. */
export function request(
  source: string,
  overrides: Partial<Omit<ExecutionRequest, "budgets">> & { budgets?: Partial<ExecutionBudgets> } = {},
): ExecutionRequest {
  const { budgets, ...rest } = overrides;
  return {
    subjectId: "u1",
    source,
    capabilities: STUBS,
    dispatch: makeDispatch(),
    startedAt: performance.now(),
    ...rest,
    budgets: { ...BUDGETS, ...budgets },
  };
}

/** Awaits `p` and returns its rejection (fails when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    const v = await p;
    throw new Error(`expected a rejection, got ${JSON.stringify(v)}`);
  } catch (e) {
    if (e instanceof Error && e.message.startsWith("expected a rejection")) throw e;
    return e;
  }
}

/** A program whose `main` spins until a budget stops it. */
export const BUSY_LOOP =
  "def main():\n    x = 0\n    for i in range(1000000000):\n        x += i\n    return x\n";
