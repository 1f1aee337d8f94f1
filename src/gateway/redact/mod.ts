/**
 * Redaction of secrets and anchored patterns from everything that flows through the gateway, and the
 * exact JSON size measure used by the result size cap.
 *
 * @module
 */
export { Automaton, mergeIntervals } from "./automaton.ts";
export { type DecodedView, decodeEscapes, toRawIntervals } from "./escapes.ts";
export {
  anchorIsLiteralPrefix,
  REDACTED,
  type RedactionOutcome,
  type RedactionPattern,
  Redactor,
  type RedactorOptions,
} from "./redactor.ts";
export { jsonByteLength } from "./size.ts";
