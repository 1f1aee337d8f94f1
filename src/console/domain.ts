/**
 * The operator console's domain: the views it shows (downstreams, clients, audit records, the
 * configuration as loaded, the last reload) and the ports it reads them from. A leaf: it imports
 * nothing, so the gateway adapts its own types to these and the console never reaches into the gateway.
 *
 * @module
 */

/** A downstream's lifecycle state as the gateway reports it. */
export type DownstreamLifecycle = "starting" | "up" | "down" | "stopped";

/** A breaker's state as the console shows it (`""` before the breaker was first used). */
export type BreakerView = "" | "closed" | "open" | "half_open";

/** One downstream as the gateway reports it (the console adds restarts and the breaker). */
export interface DownstreamReport {
  /** The configured name. */
  readonly name: string;
  /** `stdio` or `http`. */
  readonly transport: string;
  /** Its lifecycle state. */
  readonly state: DownstreamLifecycle;
  /** How many tools it lists. */
  readonly tools: number;
}

/** One downstream row of the console. */
export interface DownstreamView extends DownstreamReport {
  /** How many times it came back up after going down. */
  readonly restarts: number;
  /** Its breaker's state. */
  readonly breaker: BreakerView;
  /** While the breaker is open: when (epoch ms) it lets a probe through. */
  readonly halfOpensAt?: number;
}

/** One client row of the console: counts and latency over the recent window. */
export interface ClientView {
  /** The client id (`""` for failed authentications). */
  readonly id: string;
  /** Calls audited. */
  readonly calls: number;
  /** Calls refused by policy or authorization (not limits). */
  readonly denials: number;
  /** Calls refused by a limit. */
  readonly limited: number;
  /** Allowed calls that ended in an error. */
  readonly errors: number;
  /** Median latency in milliseconds (`null` without calls). */
  readonly p50Ms: number | null;
  /** 99th percentile latency in milliseconds (`null` without calls). */
  readonly p99Ms: number | null;
}

/** Calls and errors per second of each downstream over the last seconds (oldest first). */
export interface RateSeries {
  /** The epoch second of the first point. */
  readonly start: number;
  /** Per downstream: calls per second and errors per second, one point per second. */
  readonly downstreams: Readonly<Record<string, { readonly calls: number[]; readonly errors: number[] }>>;
}

/**
 * The fields of an audit record the console reads. Records arrive already redacted (the gateway's audit
 * writer only ever sees redacted records); every other field is shown as it is.
 */
export interface AuditEntry {
  /** RFC 3339 time. */
  readonly timestamp: string;
  /** The client (`""` for a failed authentication). */
  readonly client_id: string;
  /** The namespaced tool (`""` when not a tool call). */
  readonly tool_name: string;
  /** The decision (reason code). */
  readonly decision: string;
  /** Whether the call was let through. */
  readonly allowed: boolean;
  /** Latency in milliseconds. */
  readonly latency_ms: number;
  /** The client-facing error text (`""` on success). */
  readonly error: string;
  /** A code-mode record's own outcome. */
  readonly outcome?: string;
}

/** The result of the last configuration reload. */
export interface ReloadView {
  /** When it ended (epoch ms). */
  readonly at: number;
  /** Whether it was applied. */
  readonly ok: boolean;
  /** What failed (operator text, already free of secrets), when it did not apply. */
  readonly error?: string;
  /** What changed: downstreams started, restarted, stopped, and settings that need a restart. */
  readonly diff?: {
    readonly started: readonly string[];
    readonly restarted: readonly string[];
    readonly stopped: readonly string[];
    readonly ignored: readonly string[];
  };
}

/**
 * The configuration as loaded, as plain JSON in which every secret and key appears as the name of the
 * environment variable it came from, never its value (the adapter that builds it guarantees that).
 */
export type ConfigView = Readonly<Record<string, unknown>>;

/** Why a client may or may not call a tool, as the gateway explains it. */
export interface ExplanationView {
  /** `allowed` or `denied`. */
  readonly decision: string;
  /** The reason code the audit log records. */
  readonly reason: string;
  /** The deciding rules (with `file:line`), the tool's presence, what decides next. */
  readonly lines: readonly string[];
}

/** What the console reads from the gateway (its only way in). */
export interface ConsoleSources {
  /** Every configured downstream, in configuration order. */
  downstreams(): readonly DownstreamReport[];
  /** The configuration in force (secrets as variable names). */
  config(): ConfigView;
  /** How long an open downstream breaker stays open, in milliseconds. */
  breakerOpenMs(): number;
  /** Explains the policy decision for a client and tool (read-only), when the gateway offers it. */
  explain?(client: string, tool: string): Promise<ExplanationView>;
}

/** An identity the operator key check resolves to. */
export interface OperatorIdentity {
  /** The operator id. */
  readonly id: string;
}

/**
 * What the HTTP edge hands the console with each request: the operator key check in force, the failed
 * authentication accounting it shares with every other credential, and whether the connection is TLS.
 */
export interface ConsoleRequestContext {
  /** Resolves a presented key to an operator (constant time; a client key resolves to nothing). */
  readonly operators: { check(presented: string): OperatorIdentity | undefined };
  /** Milliseconds this address must wait before it may try a key again (0: may try now). */
  readonly retryAfterMs: () => number;
  /** Records a failed login (rate limit, metrics, audit). */
  readonly failed: () => Promise<void>;
  /** Whether the page is served over TLS (the session cookie is then `Secure`). */
  readonly secure: boolean;
}
