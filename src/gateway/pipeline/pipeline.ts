/**
 * The pipeline entry: turns a client's `tools/call` (or a CodeMode native call) into a {@link Call} and
 * runs it through audit → redact(out) → policy → authorize → limits → redact(in) → resilience → dispatch.
 *
 * @module
 */
import {
  type AuditRecord,
  type Call,
  type CallContext,
  type Catalog,
  denied,
  GatewayError,
  type Handler,
  type Identity,
  isJsonObject,
  type JsonValue,
  MAX_TOOL_NAME_LENGTH,
  newTrace,
  type Notification,
  type Result,
  type ToolRef,
  tryParseToolRef,
} from "../domain/mod.ts";
import type { CallOptions, PipelineDeps, PipelineSettings } from "./ports.ts";
import {
  AuditStage,
  AuthorizeStage,
  callRecord,
  compose,
  PolicyStage,
  RedactInStage,
  RedactOutStage,
} from "./stages.ts";
import { traceCall } from "./tracing.ts";
import { LimitStage } from "./limits.ts";

const NEVER_ABORTED = new AbortController().signal;
const IGNORE = (_: Notification) => {};

/**
 * The security pipeline of one gateway. Policy, redaction and the size cap can be swapped by
 * {@link Pipeline.reconfigure} (hot reload); a call in flight keeps the settings it started with for
 * each stage it has already entered.
 */
export class Pipeline {
  #settings: PipelineSettings;
  readonly #deps: PipelineDeps;
  readonly #audit: AuditStage;
  readonly #chain: Handler;
  readonly #monotonic: () => number;
  readonly #now: () => Date;

  /** Builds the chain from its ports. */
  constructor(deps: PipelineDeps) {
    this.#deps = deps;
    this.#settings = {
      policy: deps.policy,
      redactor: deps.redactor,
      maxResultBytes: deps.maxResultBytes,
      ...(deps.authorizer === undefined ? {} : { authorizer: deps.authorizer }),
      ...(deps.limits === undefined ? {} : { limits: deps.limits }),
    };
    this.#monotonic = deps.monotonic ?? (() => performance.now());
    this.#now = deps.now ?? (() => new Date());
    const settings = () => this.#settings;
    this.#audit = new AuditStage(
      deps.audit,
      { now: this.#now, monotonic: this.#monotonic },
      settings,
      deps.observer,
    );
    const dispatcher = deps.dispatcher;
    this.#chain = compose(
      [
        this.#audit,
        new RedactOutStage(settings),
        new PolicyStage(settings, deps.catalog),
        new AuthorizeStage(settings),
        new LimitStage(settings),
        new RedactInStage(settings),
        deps.resilience,
      ],
      (call, ctx) => dispatcher.dispatch(call, ctx),
    );
  }

  /** The settings in force. */
  get settings(): PipelineSettings {
    return this.#settings;
  }

  /** Replaces policy, redaction or the size cap for every call that starts from now on. */
  reconfigure(change: Partial<PipelineSettings>): void {
    this.#settings = { ...this.#settings, ...change };
  }

  /** The tools `client` may call (what `tools/list` shows it), from the current catalog. */
  listTools(client: Identity): Catalog {
    return this.#settings.policy.filter(client, this.#deps.catalog());
  }

  /**
   * Runs one tool call. Resolves with the (redacted) result, which may be an error result from the
   * downstream or the size cap; rejects with a {@link GatewayError} whose `publicText` is safe to show.
   * A malformed name is answered like a missing tool; arguments must be an object (absent means `{}`).
   * Every call, accepted or not, leaves exactly one audit record.
   */
  async call(
    client: Identity,
    name: string,
    args: JsonValue | undefined,
    options: CallOptions = {},
  ): Promise<Result> {
    const ctx: CallContext = Object.freeze({
      signal: options.signal ?? NEVER_ABORTED,
      notify: options.notify ?? IGNORE,
      trace: newTrace(),
    });
    // Every call, refused or not, is one `gateway.call` span (see tracing.ts).
    return await traceCall(
      { client, name, executionId: options.executionId },
      ctx,
      () => this.#settings.redactor,
      () => {
        const ref = tryParseToolRef(name);
        const argsObject = args === undefined ? {} : args;
        if (ref === undefined || !isJsonObject(argsObject)) return this.#reject(client, name, ctx, options);
        const call: Call = Object.freeze({
          client,
          tool: ref,
          name,
          args: argsObject,
          ...(options.executionId === undefined ? {} : { executionId: options.executionId }),
        });
        return this.#chain(call, ctx);
      },
    );
  }

  /**
   * Audits a tool a code-mode program (or `describe_api`) named but could not reach, exactly as the same
   * passthrough call would be: the policy's denial reason, `not_found` for a name policy allows (the
   * program never had it), error `unknown tool`, the execution id. Nothing is dispatched. Rejects with
   * `audit_unavailable` when the (security) record cannot be written.
   */
  async refuse(
    client: Identity,
    name: string,
    options: { readonly executionId?: string } = {},
  ): Promise<void> {
    const ctx: CallContext = Object.freeze({ signal: NEVER_ABORTED, notify: IGNORE, trace: newTrace() });
    const started = this.#monotonic();
    const ref = tryParseToolRef(name);
    const decision = ref === undefined ? undefined : this.#settings.policy.decide(client, ref);
    ctx.trace.decision = decision?.allow === true ? denied("not_found") : decision;
    const error = new GatewayError("unknown_tool");
    await this.#auditUnentered(client, name, ctx, started, ref, error, options.executionId);
  }

  /**
   * Writes a record the pipeline did not produce (a code-mode tool's own record), with the same
   * fail-closed rule: rejects with `audit_unavailable` when a security record cannot be written.
   */
  async audit(record: AuditRecord): Promise<void> {
    try {
      // Not a tool call of a downstream: the call metrics do not see it.
      await this.#deps.audit.submit(record);
    } catch (err) {
      throw err instanceof GatewayError && err.code === "audit_unavailable"
        ? err
        : new GatewayError("audit_unavailable", "the audit writer failed", { cause: err });
    }
  }

  /**
   * Answers a call that cannot enter the chain (a malformed name, or arguments that are not an object)
   * and audits it. Arguments are only reported as invalid for a tool the client may call and that exists;
   * for any other name the answer is the missing tool's, so the shape of the arguments never tells a
   * forbidden tool from a missing one.
   */
  async #reject(client: Identity, name: string, ctx: CallContext, options: CallOptions): Promise<never> {
    const started = this.#monotonic();
    const ref = tryParseToolRef(name);
    if (ref !== undefined) ctx.trace.decision = this.#settings.policy.decide(client, ref);
    const callable = ctx.trace.decision?.allow === true && this.#deps.catalog().lookup(name) !== undefined;
    if (ctx.trace.decision?.allow === true && !callable) ctx.trace.decision = denied("not_found");
    const error = new GatewayError(callable ? "invalid_arguments" : "unknown_tool");
    await this.#auditUnentered(client, name, ctx, started, ref, error, options.executionId);
    throw error;
  }

  /**
   * Audits a call that never entered the chain (refused or rejected), with `error` as its outcome. The
   * name is client input: the record holds a bounded, redacted copy of it.
   */
  async #auditUnentered(
    client: Identity,
    name: string,
    ctx: CallContext,
    started: number,
    ref: ToolRef | undefined,
    error: GatewayError,
    executionId: string | undefined,
  ): Promise<void> {
    const shown = this.#settings.redactor.redactText(name.slice(0, MAX_TOOL_NAME_LENGTH));
    ctx.trace.redactions += shown.count;
    const record = callRecord(
      { client, name: shown.value, executionId },
      ctx,
      this.#monotonic() - started,
      this.#now(),
      error,
      undefined,
    );
    await this.#audit.submit(record, { downstream: ref?.downstream ?? "", errorCode: error.code });
  }
}
