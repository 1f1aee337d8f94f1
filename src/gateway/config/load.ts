/**
 * Validates a gateway YAML file into a {@link GatewayConfig}, reading the environment variables it
 * names. Every problem is collected (unknown keys, bad types, missing variables, duplicate ids, rules
 * naming unknown downstreams, a non-loopback listen without clients ...) with its place in the file, and
 * the configuration is produced only when there is none.
 *
 * @module
 */
import { isValidDownstreamName } from "../domain/mod.ts";
import { parseRule, ruleDownstream } from "../policy/mod.ts";
import { LIMIT_FIELDS, resolveLimits } from "../../core/mod.ts";
import type {
  AuditConfig,
  AuthzConfig,
  ClientConfig,
  ClientPolicyConfig,
  CodeModeLimitsConfig,
  DownstreamConfig,
  GatewayConfig,
  ListenAddress,
  RedactionConfig,
  RedactionPatternConfig,
  ServeMode,
} from "./types.ts";
import { child, type ConfigProblem, type Located, parseYaml, Reader } from "./yaml_tree.ts";
import { loadOperators } from "./operators.ts";
import { checkExposures, type EnvExposure } from "./exposure.ts";
import { loadLimits } from "./limits.ts";
import { loadOAuth, loadOAuthSubjects } from "./oauth.ts";

/** Shortest accepted client API key. */
export const MIN_API_KEY_LENGTH = 16;
/** Shortest accepted injected secret: shorter values would redact ordinary text. */
export const MIN_SECRET_LENGTH = 8;

/** Defaults of optional keys. */
export const DEFAULTS: {
  readonly listen: string;
  readonly callTimeoutMs: number;
  readonly pool: number;
  readonly maxResultBytes: number;
  readonly audit: {
    readonly sink: string;
    readonly buffer: number;
    readonly highWater: number;
    readonly fsyncMs: number;
    readonly securityBlockMs: number;
  };
  readonly breaker: { readonly failureThreshold: number; readonly openMs: number };
  readonly authRateLimit: { readonly burst: number; readonly refillPerMinute: number };
} = Object.freeze({
  listen: "127.0.0.1:8790",
  callTimeoutMs: 30_000,
  pool: 4,
  maxResultBytes: 1_048_576,
  audit: { sink: "stdout", buffer: 4096, highWater: 3072, fsyncMs: 1000, securityBlockMs: 2000 },
  breaker: { failureThreshold: 5, openMs: 30_000 },
  authRateLimit: { burst: 10, refillPerMinute: 10 },
});

/** Looks up an environment variable. */
export type EnvLookup = (name: string) => string | undefined;

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
const COMMON_DS = ["transport", "session_mode", "pool", "secrets", "call_timeout_ms"];
const STDIO_DS = [...COMMON_DS, "command", "args", "env", "env_passthrough", "cwd"];
const HTTP_DS = [...COMMON_DS, "url", "headers"];
const MODES = ["passthrough", "codemode", "both"] as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/;
const DOWNSTREAM_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const KEY_CHARS = /^[\x21-\x7e]+$/;
// Header values must not smuggle line breaks into a request.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;
/** Headers the transport owns; configuring them would break or hijack the MCP session. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "mcp-session-id",
  "transfer-encoding",
]);

function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

function parseListen(r: Reader, at: Located, fallback?: string): ListenAddress | undefined {
  const text = r.present(at) ? r.string(at) : fallback;
  if (text === undefined) return undefined;
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text);
  const port = m === null ? NaN : Number(m[3]);
  if (m === null || port > 65535) {
    r.problems.add(at, `must be HOST:PORT (an IPv6 host in brackets), got "${text}"`);
    return undefined;
  }
  const host = m[1] ?? m[2];
  return { host, port, loopback: isLoopback(host) };
}

function optionalInt(r: Reader, at: Located, min: number, max: number, fallback: number): number {
  return r.present(at) ? (r.integer(at, min, max) ?? fallback) : fallback;
}

/**
 * Loads that check the file without its secrets (`unset: "warning"`): the warnings, and the stand-in
 * value each unset variable got (one per variable, so two entries naming one variable still agree).
 */
const LAX = new WeakMap<
  Reader,
  { readonly warnings: ConfigProblem[]; readonly standIns: Map<string, string> }
>();

function envValue(r: Reader, env: EnvLookup, at: Located, name: string, what: string): string | undefined {
  const lax = LAX.get(r);
  if (lax !== undefined && ENV_NAME.test(name) && (env(name) ?? "") === "") {
    r.problems.add(at, `environment variable ${name} (${what}) is not set`);
    lax.warnings.push(r.problems.list.pop()!);
    let standIn = lax.standIns.get(name);
    if (standIn === undefined) lax.standIns.set(name, standIn = unusableKey());
    return standIn;
  }
  if (!ENV_NAME.test(name)) {
    r.problems.add(at, `"${name}" is not an environment variable name`);
    return undefined;
  }
  const value = env(name);
  if (value === undefined || value === "") {
    r.problems.add(at, `environment variable ${name} (${what}) is not set`);
    return undefined;
  }
  return value;
}

/** Options of {@link loadConfig}. */
export interface LoadOptions {
  /**
   * `"ignored"`: client key variables are not read and need not be set (`--stdio`, where the operator
   * names the client on the command line and no HTTP edge authenticates anyone); each client gets a
   * random key no caller can know. Default `"required"`.
   */
  readonly clientKeys?: "required" | "ignored";
  /**
   * `"warning"`: a variable the file names (a key, a secret) that is not set is a warning, not a
   * problem, and a stand-in value takes its place, so the file's shape and references can be checked
   * without its secrets (`--check` in CI). Default `"problem"`.
   */
  readonly unset?: "problem" | "warning";
}

/** A random key standing in for a client key that is not read: 32 hex characters nobody can present. */
function unusableKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

function loadClients(
  r: Reader,
  env: EnvLookup,
  at: Located,
  options: LoadOptions & { readonly oauth?: boolean } = {},
): { clients: ClientConfig[]; ids: Set<string> } {
  const out: ClientConfig[] = [];
  const ids = new Set<string>();
  if (!r.present(at)) return { clients: out, ids };
  const keys = new Map<string, string>();
  const subjects = new Map<string, string>();
  for (const item of r.list(at) ?? []) {
    const entries = r.map(item, ["id", "api_key_env", "mode", "oauth_subjects"]);
    if (entries === undefined) continue;
    const modeAt = child(entries, item, "mode");
    const mode: ServeMode | undefined = r.present(modeAt) ? r.oneOf(modeAt, MODES) : undefined;
    const idAt = child(entries, item, "id");
    const id = r.string(idAt);
    if (id !== undefined && !CLIENT_ID.test(id)) {
      r.problems.add(idAt, "must be 1-128 letters, digits or . _ @ : - starting with a letter or digit");
    } else if (id !== undefined && ids.has(id)) {
      r.problems.add(idAt, `duplicate client id "${id}"`);
    }
    if (id !== undefined) ids.add(id);
    const envAt = child(entries, item, "api_key_env");
    const subjectsAt = child(entries, item, "oauth_subjects");
    const oauthSubjects = loadOAuthSubjects(r, subjectsAt, id, subjects);
    if (r.present(subjectsAt) && !options.oauth) {
      r.problems.add(subjectsAt, "oauth_subjects needs an oauth: section");
    }
    const extra = {
      ...(mode === undefined ? {} : { mode }),
      ...(oauthSubjects === undefined ? {} : { oauthSubjects: Object.freeze(oauthSubjects) }),
    };
    if (!r.present(envAt) && r.present(subjectsAt)) {
      // Signs in with OAuth only: an empty key, which no request can present.
      if (id !== undefined && oauthSubjects !== undefined) {
        out.push({ id, apiKeyEnv: "", apiKey: "", ...extra });
      }
      continue;
    }
    const envName = r.string(envAt);
    const ignored = options.clientKeys === "ignored";
    if (ignored && envName !== undefined && !ENV_NAME.test(envName)) {
      r.problems.add(envAt, `"${envName}" is not an environment variable name`);
    }
    const key = envName === undefined
      ? undefined
      : ignored
      ? unusableKey()
      : envValue(r, env, envAt, envName, `API key of client ${id}`);
    if (key !== undefined && (key.length < MIN_API_KEY_LENGTH || !KEY_CHARS.test(key))) {
      r.problems.add(
        envAt,
        `the key in ${envName} must be at least ${MIN_API_KEY_LENGTH} printable ASCII characters without spaces`,
      );
    } else if (key !== undefined && keys.has(key)) {
      // Never quote the key: name the other client instead.
      r.problems.add(envAt, `client ${id} has the same API key as client ${keys.get(key)}`);
    } else if (key !== undefined && id !== undefined) {
      keys.set(key, id);
      out.push({ id, apiKeyEnv: envName!, apiKey: key, ...extra });
    }
  }
  return { clients: out, ids };
}

function loadSecrets(
  r: Reader,
  env: EnvLookup,
  at: Located,
  downstream: string,
  nameRule: RegExp,
  nameKind: string,
): { secrets: Record<string, string>; secretEnv: Record<string, string> } {
  const secrets: Record<string, string> = {};
  const secretEnv: Record<string, string> = {};
  if (!r.present(at)) return { secrets, secretEnv };
  for (const [name, { value: envName, at: vAt }] of r.stringMap(at) ?? []) {
    if (!nameRule.test(name)) {
      r.problems.add(vAt, `"${name}" is not a valid ${nameKind}`);
      continue;
    }
    const value = envValue(r, env, vAt, envName, `secret ${name} of downstream ${downstream}`);
    if (value === undefined) continue;
    if (value.length < MIN_SECRET_LENGTH) {
      r.problems.add(vAt, `the secret in ${envName} is shorter than ${MIN_SECRET_LENGTH} characters`);
      continue;
    }
    secrets[name] = value;
    secretEnv[name] = envName;
  }
  return { secrets, secretEnv };
}

function loadDownstream(
  r: Reader,
  env: EnvLookup,
  name: string,
  at: Located,
  exposures: EnvExposure[] = [],
): DownstreamConfig | undefined {
  if (!DOWNSTREAM_NAME.test(name) || !isValidDownstreamName(name)) {
    r.problems.add(
      at,
      `downstream name "${name}" must be 1-64 letters, digits, _ or -, without "__" and not ending in "_"`,
    );
  }
  const probe = r.map(at);
  if (probe === undefined) return undefined;
  const transport = r.oneOf(child(probe, at, "transport"), ["stdio", "http"] as const);
  if (transport === undefined) return undefined;
  const entries = r.map(at, transport === "stdio" ? STDIO_DS : HTTP_DS)!;
  const sessionAt = child(entries, at, "session_mode");
  const sessionMode = r.present(sessionAt) ? r.oneOf(sessionAt, ["shared", "per_client"] as const) : "shared";
  const pool = optionalInt(r, child(entries, at, "pool"), 1, 1024, DEFAULTS.pool);
  const timeoutAt = child(entries, at, "call_timeout_ms");
  const callTimeoutMs = r.present(timeoutAt) ? r.integer(timeoutAt, 1, 3_600_000) : undefined;
  const base = {
    name,
    sessionMode: sessionMode ?? "shared",
    pool,
    ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }),
  };
  if (transport === "stdio") {
    const command = r.string(child(entries, at, "command"));
    const argsAt = child(entries, at, "args");
    const args = r.present(argsAt) ? r.strings(argsAt) ?? [] : [];
    const envAt = child(entries, at, "env");
    const extra: Record<string, string> = {};
    if (r.present(envAt)) {
      for (const [k, { value, at: vAt }] of r.stringMap(envAt, true) ?? []) {
        if (!ENV_NAME.test(k)) r.problems.add(vAt, `"${k}" is not an environment variable name`);
        else extra[k] = value;
      }
    }
    const passAt = child(entries, at, "env_passthrough");
    const passthrough = r.present(passAt) ? r.strings(passAt) ?? [] : [];
    for (const p of passthrough) {
      if (!ENV_NAME.test(p)) r.problems.add(passAt, `"${p}" is not a variable name`);
    }
    const cwdAt = child(entries, at, "cwd");
    const cwd = r.present(cwdAt) ? r.string(cwdAt) : undefined;
    const s = loadSecrets(r, env, child(entries, at, "secrets"), name, ENV_NAME, "environment variable name");
    exposures.push({
      downstream: name,
      passAt,
      passthrough: passthrough.filter((p) => ENV_NAME.test(p)),
      envAt,
      env: extra,
    });
    if (command === undefined) return undefined;
    return Object.freeze({
      ...base,
      ...s,
      transport,
      command,
      args,
      env: extra,
      envPassthrough: passthrough.filter((p) => ENV_NAME.test(p)),
      ...(cwd === undefined ? {} : { cwd }),
    });
  }
  const urlAt = child(entries, at, "url");
  const url = r.string(urlAt);
  if (url !== undefined) {
    let ok = false;
    try {
      const u = new URL(url);
      ok = u.protocol === "http:" || u.protocol === "https:";
    } catch { /* reported below */ }
    if (!ok) r.problems.add(urlAt, `must be an http:// or https:// URL`);
  }
  const headersAt = child(entries, at, "headers");
  const headers: Record<string, string> = {};
  if (r.present(headersAt)) {
    for (const [k, { value, at: vAt }] of r.stringMap(headersAt, true) ?? []) {
      if (!HEADER_NAME.test(k) || RESERVED_HEADERS.has(k.toLowerCase())) {
        r.problems.add(vAt, `"${k}" is not a header the gateway may set`);
      } else if (!HEADER_VALUE.test(value)) r.problems.add(vAt, "header values may not contain line breaks");
      else headers[k] = value;
    }
  }
  const s = loadSecrets(r, env, child(entries, at, "secrets"), name, HEADER_NAME, "header name");
  for (const k of Object.keys(s.secrets)) {
    if (RESERVED_HEADERS.has(k.toLowerCase())) {
      r.problems.add(child(entries, at, "secrets"), `"${k}" is reserved`);
    }
  }
  if (url === undefined) return undefined;
  return Object.freeze({ ...base, ...s, transport, url, headers });
}

function loadPolicy(
  r: Reader,
  at: Located,
  clientIds: ReadonlySet<string>,
  downstreams: ReadonlySet<string>,
): Record<string, ClientPolicyConfig> {
  const out: Record<string, ClientPolicyConfig> = {};
  if (!r.present(at)) return out;
  const entries = r.map(at, ["default", "clients"]);
  const defAt = child(entries, at, "default");
  if (r.present(defAt)) r.oneOf(defAt, ["deny"] as const);
  const clientsAt = child(entries, at, "clients");
  if (!r.present(clientsAt)) return out;
  for (const [id, cAt] of r.map(clientsAt) ?? []) {
    if (!clientIds.has(id)) r.problems.add(cAt, `policy for unknown client "${id}"`);
    const rules = r.map(cAt, ["allow", "deny"]);
    const lists: Record<"allow" | "deny", string[]> = { allow: [], deny: [] };
    for (const kind of ["allow", "deny"] as const) {
      const listAt = child(rules, cAt, kind);
      if (!r.present(listAt)) continue;
      for (const [i, rule] of (r.strings(listAt) ?? []).entries()) {
        const parsed = parseRule(rule);
        const ruleAt = { path: `${listAt.path}[${i}]`, offset: listAt.offset };
        const named = typeof parsed === "string" ? undefined : ruleDownstream(parsed);
        if (typeof parsed === "string") r.problems.add(ruleAt, parsed);
        // A pattern over downstream names (`*__search`) names none; `--check --probe` warns when it
        // matches no tool.
        else if (named !== undefined && !downstreams.has(named)) {
          r.problems.add(ruleAt, `rule "${rule}" names unknown downstream "${named}"`);
        } else lists[kind].push(rule);
      }
    }
    out[id] = Object.freeze(lists);
  }
  return out;
}

function loadRedaction(r: Reader, at: Located): RedactionConfig {
  const entries = r.present(at) ? r.map(at, ["max_result_bytes", "patterns"]) : undefined;
  const maxResultBytes = optionalInt(
    r,
    child(entries, at, "max_result_bytes"),
    1,
    1 << 30,
    DEFAULTS.maxResultBytes,
  );
  const patterns: RedactionPatternConfig[] = [];
  const patternsAt = child(entries, at, "patterns");
  const names = new Set<string>();
  for (const item of r.present(patternsAt) ? r.list(patternsAt) ?? [] : []) {
    const e = r.map(item, ["name", "regex", "anchor"]);
    if (e === undefined) continue;
    const nameAt = child(e, item, "name");
    const name = r.string(nameAt);
    if (name !== undefined && names.has(name)) r.problems.add(nameAt, `duplicate pattern name "${name}"`);
    if (name !== undefined) names.add(name);
    const regexAt = child(e, item, "regex");
    const regex = r.string(regexAt);
    const anchorAt = child(e, item, "anchor");
    const anchor = r.string(anchorAt);
    let ok = regex !== undefined;
    if (regex !== undefined) {
      try {
        if (new RegExp(`^(?:${regex})$`).test("")) {
          r.problems.add(regexAt, "must not match the empty string");
          ok = false;
        }
      } catch (err) {
        r.problems.add(regexAt, `is not a valid regular expression (${(err as Error).message})`);
        ok = false;
      }
    }
    if (ok && anchor !== undefined && regex !== undefined && name !== undefined) {
      patterns.push(Object.freeze({ name, regex, anchor }));
    }
  }
  return Object.freeze({ maxResultBytes, patterns });
}

function loadAudit(r: Reader, at: Located): AuditConfig {
  const d = DEFAULTS.audit;
  const entries = r.present(at)
    ? r.map(at, ["sink", "buffer", "high_water", "fsync_ms", "security_block_ms"])
    : undefined;
  const sinkAt = child(entries, at, "sink");
  const sinkText = r.present(sinkAt) ? r.string(sinkAt) : d.sink;
  let sink: AuditConfig["sink"] = { kind: "stdout" };
  if (sinkText !== undefined && sinkText !== "stdout") {
    if (sinkText.startsWith("file:") && sinkText.length > 5) sink = { kind: "file", path: sinkText.slice(5) };
    else r.problems.add(sinkAt, `must be "stdout" or "file:PATH", got "${sinkText}"`);
  }
  const buffer = optionalInt(r, child(entries, at, "buffer"), 1, 1 << 20, d.buffer);
  const hwAt = child(entries, at, "high_water");
  const highWater = optionalInt(r, hwAt, 0, 1 << 20, Math.min(d.highWater, buffer));
  if (highWater > buffer) r.problems.add(hwAt, `must not exceed buffer (${buffer})`);
  return Object.freeze({
    sink: Object.freeze(sink),
    buffer,
    highWater: Math.min(highWater, buffer),
    fsyncMs: optionalInt(r, child(entries, at, "fsync_ms"), 0, 3_600_000, d.fsyncMs),
    securityBlockMs: optionalInt(r, child(entries, at, "security_block_ms"), 1, 600_000, d.securityBlockMs),
  });
}

/** `max_execution_time` → `maxExecutionTime`: the core's field names in the file's snake_case. */
function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function loadCodeMode(r: Reader, at: Located): CodeModeLimitsConfig {
  if (!r.present(at)) return Object.freeze({});
  const byKey = new Map(LIMIT_FIELDS.map((f) => [snakeCase(f), f]));
  const entries = r.map(at, [...byKey.keys()]);
  const out: Record<string, number> = {};
  for (const [key, field] of byKey) {
    const fAt = child(entries, at, key);
    if (!r.present(fAt)) continue;
    const value = r.integer(fAt, 1);
    if (value === undefined) continue;
    // The core's own bounds (a time that fits a timer, the smallest int size ...), reported here.
    try {
      resolveLimits({ [field]: value });
      out[field] = value;
    } catch (err) {
      r.problems.add(fAt, (err as Error).message.replace(/^limits: \w+ /, ""));
    }
  }
  return Object.freeze(out);
}

function loadAuthz(r: Reader, at: Located): AuthzConfig | undefined {
  if (!r.present(at)) return undefined;
  const entries = r.map(at, ["rego"]);
  const regoAt = child(entries, at, "rego");
  if (!r.present(regoAt)) return undefined;
  const rego = r.map(regoAt, ["policy", "decision"]);
  const policy = r.string(child(rego, regoAt, "policy"));
  const decisionAt = child(rego, regoAt, "decision");
  const decision = r.string(decisionAt);
  if (decision !== undefined && !/^data(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(decision)) {
    r.problems.add(decisionAt, `must be a data reference such as data.gateway.args.allow, got "${decision}"`);
    return undefined;
  }
  if (policy === undefined || decision === undefined) return undefined;
  return Object.freeze({ rego: Object.freeze({ policy, decision }) });
}

function loadOrigins(r: Reader, at: Located): string[] {
  if (!r.present(at)) return [];
  const out: string[] = [];
  for (const [i, o] of (r.strings(at) ?? []).entries()) {
    let origin: string | undefined;
    try {
      origin = new URL(o).origin;
    } catch { /* reported below */ }
    if (origin === undefined || origin === "null" || origin !== o.replace(/\/$/, "")) {
      r.problems.add(
        { path: `${at.path}[${i}]`, offset: at.offset },
        `"${o}" is not an origin (scheme://host[:port])`,
      );
    } else out.push(origin);
  }
  return out;
}

// The shape of a Host header value: `name`, `name:port` or `[v6]:port`.
const HOST_RE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

function loadHosts(r: Reader, at: Located): string[] {
  if (!r.present(at)) return [];
  const out: string[] = [];
  for (const [i, h] of (r.strings(at) ?? []).entries()) {
    if (!HOST_RE.test(h)) {
      r.problems.add(
        { path: `${at.path}[${i}]`, offset: at.offset },
        `"${h}" is not a host (name or name:port)`,
      );
    } else out.push(h.toLowerCase());
  }
  return out;
}

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
