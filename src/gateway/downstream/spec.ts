/**
 * The connection-level environment and headers of a downstream, built from its configuration entry:
 * secrets go in at connection level (environment for stdio, headers for http), never per call.
 *
 * @module
 */

import type { DownstreamConfig, HttpDownstreamConfig, StdioDownstreamConfig } from "../config/mod.ts";

/** One downstream server as the downstream layer runs it: its validated configuration entry. */
export type DownstreamSpec = DownstreamConfig;

/**
 * The variables a stdio child inherits from the gateway by default: the same list as the SDK's
 * `getDefaultEnvironment` on POSIX (inspired by sudo's), so a child gets a working shell
 * environment and nothing the gateway itself was given (its API keys, its own secrets).
 */
export const MINIMAL_ENV_VARS: readonly string[] = Object.freeze([
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
]);

/**
 * The complete environment of a stdio child: the minimal set, then `envPassthrough`, then `env`,
 * then `secrets` (later entries win, so a secret cannot be shadowed by a literal). A host value that
 * starts with `()` is a shell function export and is skipped, as the SDK does.
 */
export function childEnvironment(
  spec: StdioDownstreamConfig,
  host: (name: string) => string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...MINIMAL_ENV_VARS, ...spec.envPassthrough]) {
    const value = host(name);
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  Object.assign(env, spec.env, spec.secrets);
  return env;
}

/** The request headers of an http downstream: its literal headers, then its secrets. */
export function connectionHeaders(spec: HttpDownstreamConfig): Record<string, string> {
  return { ...spec.headers, ...spec.secrets };
}
