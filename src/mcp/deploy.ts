/**
 * The Deno Deploy wiring behind the root `deploy.ts`: the executor choice and the handler built from the
 * environment.
 *
 * @module
 */
import { buildDemoServer } from "../demo/mod.ts";
import { ALLOWED_HOSTS_ENV, ALLOWED_ORIGINS_ENV, createHttpHandler, type HttpHandler } from "./http.ts";
import { API_KEYS_ENV, parseApiKeys } from "./keys.ts";

/** The environment variable that overrides the executor choice. */
export const EXECUTOR_ENV = "CODEMODE_EXECUTOR";

/** Reads one environment variable (absent when unset or not readable). */
export type EnvReader = (name: string) => string | undefined;

function envList(env: EnvReader, name: string): string[] {
  return (env(name) ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * The executor for this runtime: `CODEMODE_EXECUTOR` when set; otherwise `inline` on Deno Deploy
 * (recognised by `DENO_DEPLOYMENT_ID`), where workers cannot drop their permissions, and `worker`
 * elsewhere.
 */
export function chooseExecutor(env: EnvReader): "worker" | "inline" {
  const explicit = env(EXECUTOR_ENV);
  if (explicit === "worker" || explicit === "inline") return explicit;
  if (explicit !== undefined && explicit !== "") {
    throw new Error(`${EXECUTOR_ENV} must be "worker" or "inline"`);
  }
  return env("DENO_DEPLOYMENT_ID") !== undefined ? "inline" : "worker";
}

/**
 * Builds the demo server and its HTTP handler from the environment. Throws when no API keys are
 * configured: a public deployment never serves without them.
 */
export async function createDeployHandler(env: EnvReader): Promise<HttpHandler> {
  const apiKeys = parseApiKeys(env(API_KEYS_ENV) ?? "");
  if (apiKeys.length === 0) {
    throw new Error(`refusing to start without API keys: set ${API_KEYS_ENV}="subject=key,..."`);
  }
  const server = await buildDemoServer({ executor: chooseExecutor(env) });
  const hosts = envList(env, ALLOWED_HOSTS_ENV);
  return createHttpHandler(server, {
    apiKeys,
    allowedHosts: hosts.length > 0 ? hosts : undefined,
    allowedOrigins: envList(env, ALLOWED_ORIGINS_ENV),
  });
}
