/**
 * The per-call security pipeline, outermost first: audit → redact(out) → policy → redact(in) →
 * resilience → dispatch. The dispatch end is a port ({@link Dispatcher}) the downstream layer implements.
 *
 * @module
 */
export type {
  AuditPort,
  CallAuthorizerPort,
  CallInfo,
  CallObserver,
  CallOptions,
  CatalogSource,
  Dispatcher,
  PipelineDeps,
  PipelineSettings,
  PolicyPort,
  Redacted,
  RedactorPort,
} from "./ports.ts";
export { Pipeline } from "./pipeline.ts";
export {
  AuditStage,
  AuthorizeStage,
  callRecord,
  compose,
  PolicyStage,
  RedactInStage,
  RedactOutStage,
} from "./stages.ts";
export { traceCall, type TracedCall } from "./tracing.ts";
export { type LimitsPort, LimitStage } from "./limits.ts";
