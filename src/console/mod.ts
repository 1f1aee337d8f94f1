/**
 * The operator console: a read-only web page under `/console` on the gateway's listeners, for operator
 * credentials only, that shows the gateway live (downstreams and their breakers, clients, calls and
 * errors per second, recent audit records, the configuration as loaded and the last reload) over
 * server-sent events. The gateway feeds it through the ports of its domain; it never imports the
 * gateway.
 *
 * @module
 */
export type {
  AuditEntry,
  BreakerView,
  ClientView,
  ConfigView,
  ConsoleRequestContext,
  ConsoleSources,
  DownstreamLifecycle,
  DownstreamReport,
  DownstreamView,
  ExplanationView,
  OperatorIdentity,
  RateSeries,
  ReloadView,
} from "./domain.ts";
export { AuditRing, type RingSlice } from "./ring.ts";
export { classify, LiveStats, type LiveStatsOptions } from "./stats.ts";
export { cookieValue, SESSION_COOKIE, type SessionOptions, SessionStore } from "./sessions.ts";
export { encodeEvent, SseStream } from "./sse.ts";
export { ConsoleLive, type ConsoleLiveOptions } from "./live.ts";
export {
  CONSOLE_PATH,
  ConsoleHttp,
  type ConsoleHttpOptions,
  CONTENT_SECURITY_POLICY,
  isConsolePath,
} from "./http.ts";
