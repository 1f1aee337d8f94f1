/**
 * Redaction of secrets and anchored patterns from everything that flows through the gateway, and the
 * exact JSON size measure used by the result size cap.
 *
 * @module
 */
export { Automaton, mergeIntervals } from "./automaton.ts";
export { type DecodedView, decodeEscapes, deeperView, MAX_ESCAPE_LAYERS, toRawIntervals } from "./escapes.ts";
export {
  anchorIsLiteralPrefix,
  MAX_REDACT_DEPTH,
  REDACTED,
  type RedactionOutcome,
  type RedactionPattern,
  Redactor,
  type RedactorOptions,
} from "./redactor.ts";
export { jsonByteLength } from "./size.ts";
export { CatalogRedaction, redactCatalog, type RedactedCatalog, type TextRedactor } from "./catalog.ts";
