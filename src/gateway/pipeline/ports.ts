/**
 * The ports the pipeline is built from. The downstream layer implements {@link Dispatcher}; the audit,
 * redact, policy, resilience and metrics modules implement the others, and tests substitute fakes.
 *
 * @module
 */
import type {
  AuditRecord,
  Call,
  Catalog,
  CatalogFilter,
  Decider,
  Dispatcher,
  GatewayErrorCode,
  JsonValue,
  Notification,
  Stage,
} from "../domain/mod.ts";
import type { LimitsPort } from "./limits.ts";

export type { Dispatcher };

/** Where the audit stage sends records. */
export interface AuditPort {
  /**
   * Submits a record. Resolves when the call may answer: at once for a success record (which may be shed
   * under load), and only after a security record has been written. Rejects with a `GatewayError` of code
   * `audit_unavailable` when a security record could not be written within the configured time, so the
   * call fails closed.
   */
  submit(record: AuditRecord): Promise<void>;
}

/** Outcome of redacting a value: the rewritten value and how many replacements were made. */
export interface Redacted<T> {
  /** The value with every match replaced (the same object when nothing matched). */
  readonly value: T;
  /** How many `[REDACTED]` replacements. */
  readonly count: number;
}

/** Redacts secrets and configured patterns from decoded JSON and from text. */
export interface RedactorPort {
  /** Redacts every string (and object key) inside `value`, returning new objects where changed. */
  redactValue<T extends JsonValue>(value: T): Redacted<T>;
  /** Redacts one text. */
  redactText(text: string): Redacted<string>;
}

/** The policy: deciding calls and filtering listings. */
export interface PolicyPort extends Decider, CatalogFilter {}

/** What the observer learns besides the audit record. */
export interface CallInfo {
  /** The downstream of the called name (as parsed; may be unconfigured for a rejected call). */
  readonly downstream: string;
  /** The classification of the failure, if the call failed. */
  readonly errorCode?: GatewayErrorCode;
}

/** Where call outcomes are counted (the metrics module implements it). */
export interface CallObserver {
  /**
   * One completed call, with the downstream it targeted and the error code it failed with (absent for a
   * call that returned a result, the downstream's own error results included).
   */
  observeCall(record: AuditRecord, info: CallInfo): void;
}

/** The current full catalog (every downstream's tools, before policy), refreshed by the downstream layer. */
export type CatalogSource = () => Catalog;

/** The parts of a pipeline that a reload may replace without restarting anything. */
export interface PipelineSettings {
  /** The policy. */
  readonly policy: PolicyPort;
  /** The redactor. */
  readonly redactor: RedactorPort;
  /** The result size cap in bytes of encoded JSON. */
  readonly maxResultBytes: number;
  /** Argument-level decisions after the policy (the Rego authorizer), if configured. */
  readonly authorizer?: CallAuthorizerPort;
  /** Rate limits, concurrency caps and quotas, checked after authorization, if configured. */
  readonly limits?: LimitsPort;
}

/**
 * Decides one call a policy allowed, from its arguments. Resolves to allow; rejects with a
 * `GatewayError` of code `denied` to deny; any other rejection is a failure of the authorizer (the call
 * fails closed with `authz_failure`).
 */
export interface CallAuthorizerPort {
  /** Decides `call`. */
  decide(call: Call, signal: AbortSignal): Promise<void>;
}

/** Everything a pipeline is built from. */
export interface PipelineDeps extends PipelineSettings {
  /** The downstream port the chain terminates in. */
  readonly dispatcher: Dispatcher;
  /** The audit writer. */
  readonly audit: AuditPort;
  /** The current full catalog. */
  readonly catalog: CatalogSource;
  /** The resilience stage (per-call timeout and breakers), from the resilience module. */
  readonly resilience: Stage;
  /** Call metrics, if any. */
  readonly observer?: CallObserver;
  /** Wall clock for audit timestamps (tests inject one). */
  readonly now?: () => Date;
  /** Monotonic milliseconds for latency (tests inject one). */
  readonly monotonic?: () => number;
}

/** Per-call options of the pipeline entry. */
export interface CallOptions {
  /** The client's cancellation. */
  readonly signal?: AbortSignal;
  /** Receives the downstream's notifications during the call, already redacted. */
  readonly notify?: (notification: Notification) => void;
  /** The CodeMode execution this call belongs to, if any (audited). */
  readonly executionId?: string;
}
