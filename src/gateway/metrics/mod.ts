/**
 * Prometheus metrics of the gateway (calls, latency, redactions, downstream liveness, breakers, pools,
 * audit shedding, failed authentication), in the text exposition format.
 *
 * @module
 */
export { type CodeModePoolHealth, GatewayMetrics, UNKNOWN_LABEL } from "./metrics.ts";
