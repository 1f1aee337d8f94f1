/**
 * The Deno Deploy wiring behind the root `deploy.ts`: the executor choice and the handler built from the
 * environment.
 *
 * @module
 */
import type { Server } from "../core/mod.ts";
import { buildDemoServer } from "../demo/mod.ts";
import { jsonLogHook } from "./log.ts";
import { ALLOWED_HOSTS_ENV, ALLOWED_ORIGINS_ENV, createHttpHandler, type HttpHandler } from "./http.ts";
import { checkOAuthSettings, OAUTH_ENV, type OAuthEnvConfig, oauthFromEnv } from "../auth/mod.ts";
import { API_KEYS_ENV, parseApiKeys } from "./keys.ts";
import { executeLimitsFromEnv, limitedService } from "./limits.ts";
import { Limits, type LimitsSettings } from "../limits/mod.ts";

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

/** The configuration is unusable (no keys, a bad executor name): one line for the operator, no stack. */
export class DeployConfigError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "DeployConfigError";
  }
}

/** The `deploy.ts` entry: the request handler, and how to release the server it built. */
export interface DeployEntry {
  /** Answers one request; the first one builds the demo server. */
  readonly fetch: HttpHandler;
  /** Closes the server if it was built (its idle workers would otherwise keep the process alive). */
  close(): Promise<void>;
}

/**
 * The Deploy entry from the environment. The configuration is checked at once (throws
 * {@link DeployConfigError}); the server — and with it any worker pool — is built on the first request,
 * so a module that is only loaded (`deno run deploy.ts`, a type check, a cold isolate that never gets a
 * request) holds nothing that keeps the process alive. A failed build answers 503 and is retried by the
 * next request; its cause is logged once per attempt on stderr, never sent to the client.
 */
export function createDeployEntry(env: EnvReader): DeployEntry {
  const apiKeys = (() => {
    try {
      return parseApiKeys(env(API_KEYS_ENV) ?? "");
    } catch (e) {
      throw new DeployConfigError(`${API_KEYS_ENV}: ${e instanceof Error ? e.message : String(e)}`);
    }
  })();
  let oauth: OAuthEnvConfig | undefined;
  try {
    oauth = oauthFromEnv(env);
    if (oauth !== undefined) checkOAuthSettings(oauth.settings);
  } catch (e) {
    throw new DeployConfigError(`OAuth: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (apiKeys.length === 0 && oauth === undefined) {
    throw new DeployConfigError(
      `refusing to start without API keys: set ${API_KEYS_ENV}="subject=key,..." or ` +
        `${OAUTH_ENV.issuer} and ${OAUTH_ENV.audience}`,
    );
  }
  let executor: "worker" | "inline";
  try {
    executor = chooseExecutor(env);
  } catch (e) {
    throw new DeployConfigError(e instanceof Error ? e.message : String(e));
  }
  let executeLimits: LimitsSettings | undefined;
  try {
    executeLimits = executeLimitsFromEnv(env);
  } catch (e) {
    throw new DeployConfigError(e instanceof Error ? e.message : String(e));
  }
  // Opened with the server, on the first request, and closed with it.
  let limits: Promise<Limits> | undefined;
  const hosts = envList(env, ALLOWED_HOSTS_ENV);
  const options = {
    apiKeys,
    allowedHosts: hosts.length > 0 ? hosts : undefined,
    allowedOrigins: envList(env, ALLOWED_ORIGINS_ENV),
    ...(oauth === undefined ? {} : { oauth }),
  };
  let built: Promise<{ server: Server; handler: HttpHandler }> | undefined;
  let closed = false;
  const build = () => {
    built ??= buildDemoServer({ executor, onError: jsonLogHook() }).then(async (server) => ({
      server,
      handler: createHttpHandler(
        executeLimits === undefined
          ? server
          : limitedService(server, await (limits ??= Limits.open(executeLimits))),
        options,
      ),
    }));
    // A failed build is forgotten, so the next request tries again.
    built.catch(() => (built = undefined));
    return built;
  };
  return {
    async fetch(request, info) {
      if (closed) return unavailable();
      let ready: { handler: HttpHandler };
      try {
        ready = await build();
      } catch (e) {
        console.error(`codemode: the demo server failed to build: ${e instanceof Error ? e.message : e}`);
        return unavailable();
      }
      return ready.handler(request, info);
    },
    async close() {
      closed = true;
      const pending = built;
      built = undefined;
      if (pending === undefined) return;
      await pending.then(({ server }) => server.close(), () => {});
      await (await limits?.catch(() => undefined))?.close();
    },
  };
}

function unavailable(): Response {
  return Response.json(
    { jsonrpc: "2.0", id: null, error: { code: -32603, message: "server unavailable" } },
    { status: 503 },
  );
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
