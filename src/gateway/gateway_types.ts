/**
 * The public shapes around the gateway's composition root ({@link Gateway} in `gateway.ts`): the options
 * it is created with, what a reload changed, a downstream's status and the addresses it serves on.
 *
 * @module
 */
import type { DownstreamState } from "./downstream/mod.ts";

/** Options of {@link Gateway.create}. */
export interface GatewayOptions {
  /** Reads the gateway's environment (for children's minimal environment and passthrough). */
  readonly env?: (name: string) => string | undefined;
  /** Operator log lines (default: stderr). Never receives secrets or client input verbatim. */
  readonly log?: (line: string) => void;
  /** Time allowed for each downstream to start and list its tools (default 60000: a cold npm cache). */
  readonly startTimeoutMs?: number;
  /** How long shutdown waits for in-flight calls before cancelling them (default 10000). */
  readonly drainTimeoutMs?: number;
  /** First restart delay of a crashed downstream (default 500, doubling per consecutive crash). */
  readonly backoffBaseMs?: number;
  /**
   * Sends audit records to stderr when the sink is `stdout` (`--stdio` mode, where stdout carries the
   * MCP protocol).
   */
  readonly auditToStderr?: boolean;
  /** Largest request body in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** How long a client may take to send its request body, in milliseconds (default 10000). */
  readonly bodyTimeoutMs?: number;
  /**
   * Writes each line stdio downstreams print on stderr to the operator log (redacted, prefixed with the
   * downstream's name). Default: dropped.
   */
  readonly logDownstreamStderr?: boolean;
  /**
   * Where code-mode programs run (default: permission-less child processes when the gateway may spawn
   * them, else zero-permission workers).
   */
  readonly codeModeSandbox?: "process" | "worker" | "inline";
  /** The configuration file, so the operator console can point at policy rules by line. */
  readonly configFile?: string;
}

/** What {@link Gateway.reload} changed. */
export interface ReloadOutcome {
  /** Downstreams started, restarted or stopped. */
  readonly downstreams: {
    readonly started: string[];
    readonly restarted: string[];
    readonly stopped: string[];
  };
  /** Settings that only take effect after a restart and were left as they are. */
  readonly ignored: string[];
}

/** One downstream as {@link Gateway.downstreams} reports it. */
export interface DownstreamStatus {
  /** The configured name. */
  readonly name: string;
  /** `starting`, `up`, `down` (restarting with back-off) or `stopped`. */
  readonly state: DownstreamState;
  /** How many tools it lists. */
  readonly tools: number;
  /** The pids of its live stdio children (their process-group ids). */
  readonly pids: readonly number[];
}

/** Where {@link Gateway.serve} listens. */
export interface ServeAddresses {
  /** The MCP endpoint URL. */
  readonly url: string;
  /** The separate metrics URL, when `metrics_listen` is set. */
  readonly metricsUrl?: string;
}
