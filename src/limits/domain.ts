/**
 * The limits' vocabulary: rules as an operator states them, the subject of a call, and the outcome of a
 * check. A leaf: it imports nothing, uses no Deno APIs and no packages, so the store adapters, the
 * evaluator and the gateway can all depend on it.
 *
 * @module
 */

/** What a rule limits: a token bucket, calls in flight, or a fixed window. */
export type LimitKind = "rate" | "concurrency" | "quota";

/** Every kind, in the order a rule's checks are listed. */
export const LIMIT_KINDS: readonly LimitKind[] = Object.freeze(["rate", "concurrency", "quota"]);

/** `N` per `periodMs` (the parsed form of `60/min`, `5000/day`). */
export interface Per {
  /** How many. */
  readonly count: number;
  /** The period in milliseconds. */
  readonly periodMs: number;
}

/**
 * One validated rule. A call matches when its client, tool and downstream each match one pattern of
 * the rule; a matching call must pass every limit the rule states. Counters are kept per client.
 */
export interface LimitRule {
  /** The name shown in refusals, audit records and metrics (`rule N` unless the operator named it). */
  readonly name: string;
  /** Client ids, or `*`. */
  readonly clients: readonly string[];
  /** Tool patterns: `*` for every tool, or namespaced patterns where `*` is any run (`memory__read_*`). */
  readonly tools: readonly string[];
  /** Downstream names, or `*`. */
  readonly downstreams: readonly string[];
  /** The token bucket's refill rate. */
  readonly rate?: Per;
  /** The token bucket's depth (default: the rate's count). */
  readonly burst?: number;
  /** The most calls in flight at once. */
  readonly concurrency?: number;
  /** The most calls per window. */
  readonly quota?: Per;
  /**
   * Where windows start, in milliseconds after a UTC period boundary (`quota_reset: "06:00"` puts a
   * daily window's reset at 06:00 UTC); 0 means the period's own boundary (midnight, the full hour).
   */
  readonly quotaResetMs?: number;
}

/** The call a check is about. */
export interface Subject {
  /** The authenticated client id. */
  readonly client: string;
  /** The namespaced tool name (`downstream__tool`). */
  readonly tool: string;
  /** The downstream the tool belongs to. */
  readonly downstream: string;
}

/** Why a call was refused: the rule, the limit it hit, and when trying again may succeed. */
export interface Refusal {
  /** The limit that refused the call. */
  readonly kind: LimitKind;
  /** The rule's name. */
  readonly rule: string;
  /** Milliseconds until the refused limit may admit the call (rounded up to whole seconds when shown). */
  readonly retryAfterMs: number;
}

/** What the gateway does when the store cannot answer (down, or slower than its timeout). */
export type StoreErrorAction = "deny" | "allow";

/** The outcome of one check. */
export type Admission =
  | {
    /** The call may proceed. */
    readonly ok: true;
    /** Set when the store failed and `on_store_error: allow` let the call through unchecked. */
    readonly storeError?: true;
    /** Gives back the concurrency slots the call holds; call once, when the call has completed. */
    release(): void;
  }
  | {
    /** The call is refused by a limit. */
    readonly ok: false;
    /** The most restrictive limit among those the call failed. */
    readonly refusal: Refusal;
  }
  | {
    /** The call is refused because the store failed and `on_store_error` is `deny`. */
    readonly ok: false;
    /** Marks the store failure. */
    readonly storeError: true;
  };

/** The text a limited call is answered with: the limit, the rule, and the retry delay in whole seconds. */
export function refusalText(refusal: Refusal): string {
  const what = refusal.kind === "rate"
    ? "rate limited"
    : refusal.kind === "quota"
    ? "quota exceeded"
    : "concurrency limited";
  return `${what}: retry after ${retryAfterSeconds(refusal)} s (rule "${refusal.rule}")`;
}

/** The retry delay in whole seconds, at least 1. */
export function retryAfterSeconds(refusal: Refusal): number {
  return Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
}
