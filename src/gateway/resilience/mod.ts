/**
 * Resilience for downstream calls: circuit breakers (per downstream and per tool) and the per-call
 * timeout, as one pipeline stage.
 *
 * @module
 */
export {
  type BreakerOptions,
  CircuitBreaker,
  type CircuitState,
  type Outcome,
  type Permit,
} from "./breaker.ts";
export { type BreakerKind, Resilience, type ResilienceOptions } from "./stage.ts";
