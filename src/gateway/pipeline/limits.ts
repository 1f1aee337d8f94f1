/**
 * The limits stage: after policy and the authorizer (a forbidden or missing tool never spends or learns
 * anything), every call is checked against the limit rules it matches. A refused call is answered at
 * once as the tool's error result — "rate limited: retry after N s", with `retryAfter` in `_meta` —
 * never queued, and its record carries the limit's decision and rule. A concurrency slot is held until
 * the call has completed, whatever its outcome.
 *
 * @module
 */
import {
  type Call,
  type CallContext,
  type Handler,
  makeResult,
  type Result,
  type Stage,
} from "../domain/mod.ts";
import { type Admission, refusalText, retryAfterSeconds, type Subject } from "../../limits/mod.ts";
import type { PipelineSettings } from "./ports.ts";

/** What the stage needs of the limits: one check per call. */
export interface LimitsPort {
  /** Checks one call (never rejects). */
  check(subject: Subject): Promise<Admission>;
}

const DECISION = {
  rate: "rate_limited",
  quota: "quota_exceeded",
  concurrency: "concurrency_limited",
} as const;

/** The answer to a call refused because the limits store could not decide it. */
const STORE_DOWN_TEXT = "limits unavailable: retry after 1 s";

function limitedResult(text: string, retryAfter: number, extra: Record<string, string>): Result {
  return makeResult({
    content: [{ type: "text", text }],
    isError: true,
    _meta: { retryAfter, ...extra },
  });
}

/** Checks each call against the limits in force (none configured: calls pass untouched). */
export class LimitStage implements Stage {
  /** Stage name. */
  readonly name = "limits";
  readonly #settings: () => PipelineSettings;

  /** Creates the stage; `settings` is read per call so a reload takes effect at once. */
  constructor(settings: () => PipelineSettings) {
    this.#settings = settings;
  }

  /** Admits, refuses, or (when the store failed) follows `on_store_error`. */
  async handle(call: Call, ctx: CallContext, next: Handler): Promise<Result> {
    const limits = this.#settings().limits;
    if (limits === undefined) return await next(call, ctx);
    const admission = await limits.check({
      client: call.client.id,
      tool: call.name,
      downstream: call.tool.downstream,
    });
    if (admission.ok) {
      if (admission.storeError === true) ctx.trace.limitStoreError = true;
      try {
        return await next(call, ctx);
      } finally {
        admission.release();
      }
    }
    if ("refusal" in admission) {
      const { refusal } = admission;
      ctx.trace.limited = { decision: DECISION[refusal.kind], rule: refusal.rule };
      return limitedResult(refusalText(refusal), retryAfterSeconds(refusal), {
        limit: refusal.kind,
        rule: refusal.rule,
      });
    }
    ctx.trace.limitStoreError = true;
    ctx.trace.limited = { decision: "limits_unavailable", rule: "" };
    return limitedResult(STORE_DOWN_TEXT, 1, {});
  }
}
