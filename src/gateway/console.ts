/**
 * The gateway's side of the operator console: adapts the gateway's configuration, downstreams and
 * events to the console's ports, and builds the console's view of the configuration — every secret and
 * key shown as the name of the environment variable it came from, never its value (a whitelist of
 * fields, then the redactor in force over the whole view as a second guard).
 *
 * @module
 */
import {
  type ConfigView,
  ConsoleHttp,
  ConsoleLive,
  type ConsoleLiveOptions,
  type DownstreamReport,
  type ExplanationView,
} from "../console/mod.ts";
import type { GatewayConfig } from "./config/mod.ts";
import type { JsonValue } from "./domain/mod.ts";
import { explainDecision, presenceIn } from "./explain.ts";

/** What the console adapter reads from the running gateway. */
export interface ConsoleWiring {
  /** The configuration in force. */
  readonly config: () => GatewayConfig;
  /** The downstreams' names, states and tool counts, in configuration order. */
  readonly downstreams: () => readonly { name: string; state: DownstreamReport["state"]; tools: number }[];
  /** The downstreams with the tools each lists (whether a tool exists, for explanations). */
  readonly listed: () => readonly { name: string; state: string; tools: readonly { name: string }[] }[];
  /** The configuration file, to point at rules by line (read when an explanation is asked for). */
  readonly configFile?: string;
  /** The redactor in force, applied to the configuration view and explanations. */
  readonly redact: (value: JsonValue) => JsonValue;
  /** Options of the live model (tests shorten its periods). */
  readonly live?: ConsoleLiveOptions;
}

/** A URL without user info (a password in it is a secret) and without query or fragment. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(not a URL)";
  }
}

/** The configuration as the console shows it (see the module docs). */
export function configView(c: GatewayConfig): ConfigView {
  const secrets = (d: GatewayConfig["downstreams"][number]) =>
    Object.fromEntries(Object.keys(d.secrets).map((name) => [name, `\${${d.secretEnv[name] ?? "?"}}`]));
  const address = (a: { host: string; port: number } | undefined) =>
    a === undefined ? null : `${a.host.includes(":") ? `[${a.host}]` : a.host}:${a.port}`;
  return {
    mode: c.mode,
    listen: address(c.listen),
    metrics_listen: address(c.metricsListen),
    allowed_origins: [...c.allowedOrigins],
    allowed_hosts: [...c.allowedHosts],
    call_timeout_ms: c.callTimeoutMs,
    clients: c.clients.map((cl) => ({ id: cl.id, mode: cl.mode ?? null, api_key_env: cl.apiKeyEnv })),
    operators: c.operators.map((o) => ({ id: o.id, api_key_env: o.apiKeyEnv })),
    downstreams: c.downstreams.map((d) => ({
      name: d.name,
      transport: d.transport,
      ...(d.transport === "stdio"
        ? {
          command: d.command,
          args: [...d.args],
          env: { ...d.env },
          env_passthrough: [...d.envPassthrough],
          cwd: d.cwd ?? null,
        }
        : { url: safeUrl(d.url), headers: Object.keys(d.headers) }),
      secrets: secrets(d),
      session_mode: d.sessionMode,
      pool: d.pool,
      call_timeout_ms: d.callTimeoutMs ?? null,
    })),
    policy: { default: c.policy.default, clients: structuredClone(c.policy.clients) },
    redaction: {
      max_result_bytes: c.redaction.maxResultBytes,
      patterns: c.redaction.patterns.map((p) => p.name),
    },
    audit: {
      sink: c.audit.sink.kind === "stdout" ? "stdout" : `file:${c.audit.sink.path}`,
      buffer: c.audit.buffer,
      high_water: c.audit.highWater,
      fsync_ms: c.audit.fsyncMs,
      security_block_ms: c.audit.securityBlockMs,
    },
    breaker: { failure_threshold: c.breaker.failureThreshold, open_ms: c.breaker.openMs },
    auth_rate_limit: { burst: c.authRateLimit.burst, refill_per_minute: c.authRateLimit.refillPerMinute },
    authz: c.authz?.rego === undefined ? null : { rego: { policy: c.authz.rego.policy } },
    limits: c.limits === undefined ? null : {
      store: c.limits.store === "memory" ? "memory" : "redis (address hidden)",
      on_store_error: c.limits.onStoreError,
      rules: structuredClone(c.limits.rules),
    },
    codemode: structuredClone(c.codemode),
  };
}

/** The console of one gateway: its live model (fed by the gateway's events) and its HTTP handler. */
export class GatewayConsole {
  /** The live model; the gateway feeds it audit records, downstream and breaker events. */
  readonly live: ConsoleLive;
  /** The `/console` handler the HTTP edge delegates to. */
  readonly http: ConsoleHttp;

  /** Wires the console to the gateway. */
  constructor(wiring: ConsoleWiring) {
    let cached: { config: GatewayConfig; view: ConfigView } | undefined;
    this.live = new ConsoleLive({
      downstreams: () => {
        const config = wiring.config();
        const transports = new Map(config.downstreams.map((d) => [d.name, d.transport]));
        return wiring.downstreams().map((d) => ({
          name: d.name,
          transport: transports.get(d.name) ?? "",
          state: d.state,
          tools: d.tools,
        }));
      },
      config: () => {
        const config = wiring.config();
        // Built once per configuration (a reload replaces it).
        if (cached?.config !== config) {
          cached = { config, view: wiring.redact(configView(config) as JsonValue) as ConfigView };
        }
        return cached.view;
      },
      breakerOpenMs: () => wiring.config().breaker.openMs,
      explain: async (client, tool) => {
        const file = wiring.configFile;
        const text = file === undefined ? undefined : await Deno.readTextFile(file).catch(() => undefined);
        const explanation = await explainDecision(
          wiring.config(),
          client,
          tool,
          (ref) => presenceIn(wiring.listed(), ref),
          file === undefined || text === undefined ? undefined : { file, text },
        );
        return wiring.redact(explanation as unknown as JsonValue) as unknown as ExplanationView;
      },
    }, wiring.live);
    this.http = new ConsoleHttp({ live: this.live });
  }
}
