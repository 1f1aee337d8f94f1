/**
 * The `downstreams:` section of the gateway configuration: stdio and HTTP servers, their environment,
 * headers and injected secrets (read from the environment, never shorter than a redactable value).
 *
 * @module
 */
import { isValidDownstreamName } from "../domain/mod.ts";
import type { DownstreamConfig } from "./types.ts";
import { child, type Located, type Reader } from "./yaml_tree.ts";
import type { EnvExposure } from "./exposure.ts";
import {
  DEFAULTS,
  DOWNSTREAM_NAME,
  ENV_NAME,
  type EnvLookup,
  envValue,
  HEADER_NAME,
  HEADER_VALUE,
  HTTP_DS,
  MIN_SECRET_LENGTH,
  optionalInt,
  RESERVED_HEADERS,
  STDIO_DS,
} from "./load_shared.ts";

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

/** Loads one downstream entry; its environment exposure is added to `exposures`. */
export function loadDownstream(
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
