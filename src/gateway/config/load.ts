/**
 * Validates a gateway YAML file into a {@link GatewayConfig}, reading the environment variables it
 * names. Every problem is collected (unknown keys, bad types, missing variables, duplicate ids, rules
 * naming unknown downstreams, a non-loopback listen without clients ...) with its place in the file, and
 * the configuration is produced only when there is none. The sections are read by `load_clients.ts`,
 * `load_downstreams.ts` and `load_sections.ts`; what they share is in `load_shared.ts`.
 *
 * @module
 */
import type { DownstreamConfig, GatewayConfig, ServeMode } from "./types.ts";
import { child, type ConfigProblem, parseYaml, Reader } from "./yaml_tree.ts";
import { loadOperators } from "./operators.ts";
import { checkExposures, type EnvExposure } from "./exposure.ts";
import { loadLimits } from "./limits.ts";
import { loadOAuth } from "./oauth.ts";
import {
  DEFAULTS,
  type EnvLookup,
  envValue,
  LAX,
  type LoadOptions,
  MIN_API_KEY_LENGTH,
  MODES,
  optionalInt,
  parseListen,
  unusableKey,
} from "./load_shared.ts";
import { loadClients } from "./load_clients.ts";
import { loadDownstream } from "./load_downstreams.ts";
import {
  loadAudit,
  loadAuthz,
  loadCodeMode,
  loadHosts,
  loadOrigins,
  loadPolicy,
  loadRedaction,
} from "./load_sections.ts";

export {
  DEFAULTS,
  type EnvLookup,
  type LoadOptions,
  MIN_API_KEY_LENGTH,
  MIN_SECRET_LENGTH,
} from "./load_shared.ts";

/** The outcome of loading: a configuration, or every problem found. */
export type LoadResult =
  | {
    readonly ok: true;
    readonly config: GatewayConfig;
    /** With `unset: "warning"`: each variable the file names that is not set (its key or secret is a stand-in). */
    readonly warnings?: readonly ConfigProblem[];
  }
  | {
    readonly ok: false;
    readonly problems: readonly ConfigProblem[];
    /** As on success (`unset: "warning"`): the variables that are not set. */
    readonly warnings?: readonly ConfigProblem[];
  };

const TOP = [
  "mode",
  "codemode",
  "authz",
  "listen",
  "metrics_listen",
  "allowed_origins",
  "allowed_hosts",
  "call_timeout_ms",
  "clients",
  "operators",
  "downstreams",
  "policy",
  "redaction",
  "audit",
  "breaker",
  "auth_rate_limit",
  "limits",
  "oauth",
] as const;

/**
 * Validates YAML text. `env` reads the variables the file names (API keys, secrets); nothing else of the
 * environment is consulted. Problems are ordered by position in the file.
 */
export function loadConfig(text: string, env: EnvLookup, options: LoadOptions = {}): LoadResult {
  const parsed = parseYaml(text);
  const r = new Reader(parsed);
  const root = parsed.root;
  if (root.node === undefined) {
    if (parsed.problems.list.length === 0) r.problems.add(root, "the configuration is empty");
    return { ok: false, problems: parsed.problems.list };
  }
  const lax = options.unset === "warning" ? { warnings: [], standIns: new Map<string, string>() } : undefined;
  if (lax !== undefined) LAX.set(r, lax);
  const exposures: EnvExposure[] = [];
  const top = r.map(root, TOP);
  const at = (key: (typeof TOP)[number]) => child(top, root, key);
  const modeAt = at("mode");
  const mode: ServeMode = r.present(modeAt) ? r.oneOf(modeAt, MODES) ?? "passthrough" : "passthrough";
  const codemode = loadCodeMode(r, at("codemode"));
  const authz = loadAuthz(r, at("authz"));
  const listen = parseListen(r, at("listen"), DEFAULTS.listen);
  const metricsListen = r.present(at("metrics_listen")) ? parseListen(r, at("metrics_listen")) : undefined;
  const allowedOrigins = loadOrigins(r, at("allowed_origins"));
  const allowedHosts = loadHosts(r, at("allowed_hosts"));
  const callTimeoutMs = optionalInt(r, at("call_timeout_ms"), 1, 3_600_000, DEFAULTS.callTimeoutMs);
  const oauth = loadOAuth(r, at("oauth"), (a, name, what) => envValue(r, env, a, name, what));
  const { clients, ids: clientIds } = loadClients(r, env, at("clients"), {
    ...options,
    oauth: r.present(at("oauth")),
  });
  const keyed = clients.filter((c) => c.apiKey !== "");
  const operators = loadOperators(r, at("operators"), {
    // Like client keys: not read when clients' are not (--stdio serves no metrics).
    keyOf: (keyAt, name, what) =>
      options.clientKeys === "ignored" ? unusableKey() : envValue(r, env, keyAt, name, what),
    minKeyLength: MIN_API_KEY_LENGTH,
    clients: keyed,
  });
  const downstreams: DownstreamConfig[] = [];
  const names = new Set<string>();
  const dsAt = at("downstreams");
  for (const [name, dAt] of r.map(dsAt) ?? []) {
    names.add(name);
    const ds = loadDownstream(r, env, name, dAt, exposures);
    if (ds !== undefined) downstreams.push(ds);
  }
  const standIns = new Set(lax?.standIns.values());
  checkExposures(r, env, exposures, {
    clients: keyed,
    operators,
    downstreams,
    known: (value) => !standIns.has(value),
  });
  // Ids of clients whose entry had other problems still count as known for the policy section.
  const policyClients = loadPolicy(r, at("policy"), clientIds, names);
  const redaction = loadRedaction(r, at("redaction"));
  const audit = loadAudit(r, at("audit"));
  const bAt = at("breaker");
  const bEntries = r.present(bAt) ? r.map(bAt, ["failure_threshold", "open_ms"]) : undefined;
  const breaker = Object.freeze({
    failureThreshold: optionalInt(
      r,
      child(bEntries, bAt, "failure_threshold"),
      1,
      1_000_000,
      DEFAULTS.breaker.failureThreshold,
    ),
    openMs: optionalInt(r, child(bEntries, bAt, "open_ms"), 1, 86_400_000, DEFAULTS.breaker.openMs),
  });
  const lAt = at("auth_rate_limit");
  const lEntries = r.present(lAt) ? r.map(lAt, ["burst", "refill_per_minute"]) : undefined;
  const authRateLimit = Object.freeze({
    burst: optionalInt(r, child(lEntries, lAt, "burst"), 0, 1_000_000, DEFAULTS.authRateLimit.burst),
    refillPerMinute: optionalInt(
      r,
      child(lEntries, lAt, "refill_per_minute"),
      1,
      1_000_000,
      DEFAULTS.authRateLimit.refillPerMinute,
    ),
  });
  const limits = loadLimits(r, at("limits"), { clients: clientIds, downstreams: names });
  if (listen !== undefined && !listen.loopback && clientIds.size === 0) {
    r.problems.add(at("listen"), `a non-loopback address (${listen.host}) needs at least one client`);
  }
  const problems = [...parsed.problems.list].sort((a, b) => a.line - b.line || a.column - b.column);
  if (problems.length > 0 || listen === undefined) {
    return {
      ok: false,
      problems,
      ...(lax === undefined ? {} : { warnings: Object.freeze([...lax.warnings]) }),
    };
  }
  const config: GatewayConfig = {
    mode,
    codemode,
    ...(authz === undefined ? {} : { authz }),
    listen: Object.freeze(listen),
    ...(metricsListen === undefined ? {} : { metricsListen: Object.freeze(metricsListen) }),
    allowedOrigins: Object.freeze(allowedOrigins),
    allowedHosts: Object.freeze(allowedHosts),
    callTimeoutMs,
    clients: Object.freeze(clients.map((c) => Object.freeze(c))),
    operators: Object.freeze(operators),
    downstreams: Object.freeze(downstreams),
    policy: Object.freeze({ default: "deny", clients: Object.freeze(policyClients) }),
    redaction,
    audit,
    breaker,
    authRateLimit,
    ...(limits === undefined ? {} : { limits }),
    ...(oauth === undefined ? {} : { oauth }),
  };
  return {
    ok: true,
    config: Object.freeze(config),
    ...(lax === undefined ? {} : { warnings: Object.freeze([...lax.warnings]) }),
  };
}
