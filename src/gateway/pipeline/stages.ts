/**
 * The stages of the chain that the pipeline itself owns: audit, outbound redaction (with the size cap),
 * policy and inbound redaction. Resilience comes from its own module; dispatch is the port.
 *
 * @module
 */
import {
  type AuditRecord,
  type Call,
  type CallContext,
  classifyError,
  decisionOrZero,
  denied,
  errorResult,
  GatewayError,
  type Handler,
  makeResult,
  type Notification,
  type Result,
  type Stage,
  withArgs,
  withContext,
} from "../domain/mod.ts";
import { jsonByteLength } from "../redact/mod.ts";
import type { AuditPort, CallInfo, CallObserver, CatalogSource, PipelineSettings } from "./ports.ts";

/** Composes stages around a terminal handler, outermost first. */
export function compose(stages: readonly Stage[], terminal: Handler): Handler {
  return stages.reduceRight<Handler>(
    (next, stage) => (call, ctx) => stage.handle(call, ctx, next),
    terminal,
  );
}

/** Clocks of the audit stage. */
export interface AuditClocks {
  /** Wall clock for timestamps. */
  readonly now: () => Date;
  /** Monotonic milliseconds for latency. */
  readonly monotonic: () => number;
}

/** Builds the record of a call from what the stages observed. */
export function callRecord(
  call: Pick<Call, "client" | "name" | "executionId">,
  ctx: Pick<CallContext, "trace">,
  latencyMs: number,
  now: Date,
  error: GatewayError | undefined,
  result: Result | undefined,
): AuditRecord {
  const decision = decisionOrZero(ctx.trace.decision);
  const limited = ctx.trace.limited;
  let errorText = error?.publicText ?? "";
  if (errorText === "" && (ctx.trace.truncated || limited !== undefined) && result !== undefined) {
    errorText = resultText(result);
  }
  const record: AuditRecord = {
    timestamp: now.toISOString(),
    client_id: call.client.id,
    tool_name: call.name,
    decision: limited?.decision ?? decision.reason,
    allowed: limited === undefined && decision.allow,
    latency_ms: Math.round(latencyMs * 1000) / 1000,
    breaker_state: ctx.trace.breakerState,
    redactions: ctx.trace.redactions,
    truncated: ctx.trace.truncated,
    error: errorText,
    ...(call.executionId === undefined ? {} : { execution_id: call.executionId }),
    ...(limited === undefined || limited.rule === "" ? {} : { limit_rule: limited.rule }),
    ...(ctx.trace.limitStoreError === true ? { limit_store: "error" as const } : {}),
  };
  return Object.freeze(record);
}

function resultText(result: Result): string {
  const content = result.payload.content;
  if (!Array.isArray(content)) return "";
  const first = content[0] as { text?: unknown } | undefined;
  return typeof first?.text === "string" ? first.text : "";
}

/**
 * The outermost stage: writes one audit record per call, after everything inside it ran. A security
 * record that cannot be written fails the call closed (`audit_unavailable`), even a call that succeeded.
 */
export class AuditStage implements Stage {
  /** Stage name. */
  readonly name = "audit";
  readonly #audit: AuditPort;
  readonly #observer: CallObserver | undefined;
  readonly #clocks: AuditClocks;
  readonly #settings: () => PipelineSettings;

  /** Creates the stage; the redactor of `settings` cleans the (client-chosen) tool name it records. */
  constructor(
    audit: AuditPort,
    clocks: AuditClocks,
    settings: () => PipelineSettings,
    observer?: CallObserver,
  ) {
    this.#audit = audit;
    this.#clocks = clocks;
    this.#settings = settings;
    this.#observer = observer;
  }

  /** Runs the call and audits its outcome. */
  async handle(call: Call, ctx: CallContext, next: Handler): Promise<Result> {
    const started = this.#clocks.monotonic();
    let result: Result | undefined;
    let error: GatewayError | undefined;
    try {
      result = await next(call, ctx);
    } catch (err) {
      error = classifyError(err);
    }
    const latency = this.#clocks.monotonic() - started;
    // The record is post-redaction throughout: even a secret a client put into the tool name is cut.
    const name = this.#settings().redactor.redactText(call.name);
    ctx.trace.redactions += name.count;
    const record = callRecord({ ...call, name: name.value }, ctx, latency, this.#clocks.now(), error, result);
    await this.submit(record, { downstream: call.tool.downstream, errorCode: error?.code });
    if (error !== undefined) throw error;
    return result!;
  }

  /** Submits one record (also used by the entry for calls rejected before the chain). */
  async submit(record: AuditRecord, info: CallInfo): Promise<void> {
    try {
      await this.#audit.submit(record);
    } catch (err) {
      // The call has not answered yet: refusing it is the fail-closed outcome the design asks for.
      throw err instanceof GatewayError && err.code === "audit_unavailable"
        ? err
        : new GatewayError("audit_unavailable", "the audit writer failed", { cause: err });
    } finally {
      this.#observer?.observeCall(record, info);
    }
  }
}

/**
 * Outbound redaction and the size cap: an oversized result is replaced, unscanned, by an error result
 * stating its size and the cap; otherwise every string of the result is redacted. Error details and
 * notifications during the call are redacted too; notifications after the call ends are dropped (they
 * could no longer be counted in the call's record).
 */
export class RedactOutStage implements Stage {
  /** Stage name. */
  readonly name = "redact_out";
  readonly #settings: () => PipelineSettings;

  /** Creates the stage; `settings` is read per call so a reload takes effect at once. */
  constructor(settings: () => PipelineSettings) {
    this.#settings = settings;
  }

  /** Runs the call and redacts what comes back. */
  async handle(call: Call, ctx: CallContext, next: Handler): Promise<Result> {
    const { redactor, maxResultBytes } = this.#settings();
    let open = true;
    const notify = (n: Notification) => {
      if (!open) return;
      const { value, count } = redactor.redactValue(n.params);
      ctx.trace.redactions += count;
      ctx.notify(count === 0 ? n : Object.freeze({ method: n.method, params: value }));
    };
    let result: Result;
    try {
      result = await next(call, withContext(ctx, { notify }));
    } catch (err) {
      const e = classifyError(err);
      if (e.detail === undefined) throw e;
      const { value, count } = redactor.redactText(e.detail);
      ctx.trace.redactions += count;
      throw count === 0 ? e : e.withDetail(value);
    } finally {
      open = false;
    }
    const size = jsonByteLength(result.payload);
    if (size > maxResultBytes) {
      ctx.trace.truncated = true;
      return errorResult(`result too large: ${size} bytes exceeds the limit of ${maxResultBytes} bytes`);
    }
    const { value, count } = redactor.redactValue(result.payload);
    if (count === 0) return result;
    ctx.trace.redactions += count;
    return makeResult(value);
  }
}

/**
 * Policy: records the decision, answers a denied call exactly like a missing tool (the reason goes to
 * the audit record only), and refuses tools that are not in the current catalog (`not_found` when
 * policy would have allowed the name).
 */
export class PolicyStage implements Stage {
  /** Stage name. */
  readonly name = "policy";
  readonly #settings: () => PipelineSettings;
  readonly #catalog: CatalogSource;

  /** Creates the stage. */
  constructor(settings: () => PipelineSettings, catalog: CatalogSource) {
    this.#settings = settings;
    this.#catalog = catalog;
  }

  /** Decides, then calls `next` only for an allowed tool that exists. */
  handle(call: Call, ctx: CallContext, next: Handler): Promise<Result> {
    const decision = this.#settings().policy.decide(call.client, call.tool);
    ctx.trace.decision = decision;
    if (!decision.allow) {
      return Promise.reject(new GatewayError("unknown_tool", `policy: ${decision.reason}`));
    }
    if (this.#catalog().lookup(call.name) === undefined) {
      // Answered as a denial is; the audit alone records that the name was allowed but is missing.
      ctx.trace.decision = denied("not_found");
      return Promise.reject(new GatewayError("unknown_tool", "no such tool in the catalog"));
    }
    return next(call, ctx);
  }
}

/**
 * Argument-level authorization after the policy (the Rego authorizer, when configured): a denial is
 * `denied`, a failing authorizer `authz_failure` (fail closed); both are audited as `denied_authz`.
 * It sees the arguments as the client sent them, before inbound redaction.
 */
export class AuthorizeStage implements Stage {
  /** Stage name. */
  readonly name = "authorize";
  readonly #settings: () => PipelineSettings;

  /** Creates the stage; `settings` is read per call so a reload takes effect at once. */
  constructor(settings: () => PipelineSettings) {
    this.#settings = settings;
  }

  /** Decides, then calls `next` only for an allowed call. */
  async handle(call: Call, ctx: CallContext, next: Handler): Promise<Result> {
    const authorizer = this.#settings().authorizer;
    if (authorizer !== undefined) {
      try {
        await authorizer.decide(call, ctx.signal);
      } catch (err) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        ctx.trace.decision = denied("denied_authz");
        if (err instanceof GatewayError && err.code === "denied") throw err;
        throw new GatewayError("authz_failure", "the authorizer failed", { cause: err });
      }
    }
    return await next(call, ctx);
  }
}

/** Inbound redaction: secrets and patterns in the client's arguments never reach a downstream. */
export class RedactInStage implements Stage {
  /** Stage name. */
  readonly name = "redact_in";
  readonly #settings: () => PipelineSettings;

  /** Creates the stage. */
  constructor(settings: () => PipelineSettings) {
    this.#settings = settings;
  }

  /** Redacts the arguments and calls `next` with them. */
  handle(call: Call, ctx: CallContext, next: Handler): Promise<Result> {
    const { value, count } = this.#settings().redactor.redactValue(call.args);
    if (count === 0) return next(call, ctx);
    ctx.trace.redactions += count;
    return next(withArgs(call, value), ctx);
  }
}
