/**
 * Rate limits, concurrency caps and quotas per client, tool and downstream, as their own subsystem: a
 * leaf domain of rules and decisions, rule parsing and matching, the store port with an embedded memory
 * adapter and a Redis adapter (shared by replicas, loaded only when configured), and the evaluator. The
 * gateway checks every authorized call here; nothing in this folder knows the gateway.
 *
 * @module
 */
export {
  type Admission,
  LIMIT_KINDS,
  type LimitKind,
  type LimitRule,
  type Per,
  type Refusal,
  refusalText,
  retryAfterSeconds,
  type StoreErrorAction,
  type Subject,
} from "./domain.ts";
export {
  type CompiledRule,
  compileRule,
  MAX_COUNT,
  namePatternProblem,
  parsePer,
  parseResetTime,
  QUOTA_UNITS,
  RATE_UNITS,
  ruleProblems,
  toolPatternProblem,
} from "./rules.ts";
export {
  globCovers,
  globMatches,
  isGlob,
  MAX_PATTERN_LENGTH,
  type PatternParts,
  splitPattern,
  toolGlobProblem,
  WILDCARD,
} from "./pattern.ts";
export type { Lease, LimitRequest, LimitStore, StoreRefusal, StoreVerdict } from "./store.ts";
export { MemoryStore, type MemoryStoreOptions, windowStart } from "./memory.ts";
export {
  DEFAULT_LEASE_MS,
  DEFAULT_STORE_TIMEOUT_MS,
  Limits,
  type LimitsEvents,
  type LimitsOptions,
  type LimitsSettings,
  openStore,
  type StoreOpener,
} from "./limits.ts";
