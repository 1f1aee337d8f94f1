/**
 * What every part of the gateway configuration loader shares: the limits and defaults of the file's
 * values, the name and header shapes it accepts, listen addresses, and reading the environment variables
 * the file names (strictly, or with stand-ins when only the file's shape is checked).
 *
 * @module
 */
import type { ListenAddress } from "./types.ts";
import type { ConfigProblem, Located, Reader } from "./yaml_tree.ts";

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

/** Keys of every downstream entry. */
const COMMON_DS = ["transport", "session_mode", "pool", "secrets", "call_timeout_ms"];
/** Keys of a stdio downstream. */
export const STDIO_DS = [...COMMON_DS, "command", "args", "env", "env_passthrough", "cwd"];
/** Keys of an HTTP downstream. */
export const HTTP_DS = [...COMMON_DS, "url", "headers"];
/** The serve modes of the gateway and of a client. */
export const MODES = ["passthrough", "codemode", "both"] as const;
/** An environment variable name. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A client id. */
export const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/;
/** A downstream name (the domain adds its own rules). */
export const DOWNSTREAM_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** The characters of an API key: printable ASCII without spaces. */
export const KEY_CHARS = /^[\x21-\x7e]+$/;
// Header values must not smuggle line breaks into a request.
/** A header value without line breaks. */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;
/** Headers the transport owns; configuring them would break or hijack the MCP session. */
export const RESERVED_HEADERS = new Set([
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

/** Reads a `HOST:PORT` listen address (or `fallback` when absent). */
export function parseListen(r: Reader, at: Located, fallback?: string): ListenAddress | undefined {
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

/** An optional integer within `[min, max]`, or `fallback`. */
export function optionalInt(r: Reader, at: Located, min: number, max: number, fallback: number): number {
  return r.present(at) ? (r.integer(at, min, max) ?? fallback) : fallback;
}

/**
 * Loads that check the file without its secrets (`unset: "warning"`): the warnings, and the stand-in
 * value each unset variable got (one per variable, so two entries naming one variable still agree).
 */
export const LAX = new WeakMap<
  Reader,
  { readonly warnings: ConfigProblem[]; readonly standIns: Map<string, string> }
>();

/**
 * The value of the variable `name` the file names at `at`; `undefined` with a problem when it is not set
 * (with a stand-in and a warning instead in a lax load).
 */
export function envValue(
  r: Reader,
  env: EnvLookup,
  at: Located,
  name: string,
  what: string,
): string | undefined {
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
export function unusableKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}
