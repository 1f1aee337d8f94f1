/**
 * Deno Deploy entry: the demo catalog over stateless Streamable HTTP, as a module whose default export
 * is `{ fetch }` (run it locally with `deno serve`). Configuration comes from the environment:
 *
 * | variable | meaning |
 * |---|---|
 * | `CODEMODE_API_KEYS` | `subject=key` pairs, comma-separated (keys of 16+ characters); required unless OAuth is on |
 * | `CODEMODE_OAUTH_ISSUER`, `CODEMODE_OAUTH_AUDIENCE` | accept OAuth 2.1 bearer JWTs (more `CODEMODE_OAUTH_*` in docs/auth.md) |
 * | `CODEMODE_ALLOWED_HOSTS` | accepted `Host` values, comma-separated (e.g. `my-app.deno.dev`); any Host when unset |
 * | `CODEMODE_ALLOWED_ORIGINS` | accepted browser `Origin` values, comma-separated |
 * | `CODEMODE_EXECUTOR` | `worker` or `inline`; default `inline` on Deno Deploy, `worker` elsewhere |
 *
 * Deno Deploy cannot start permission-restricted workers, so there the programs run in the inline
 * executor: the same engine and budgets, without the worker boundary. The server is built on the first
 * request; SIGTERM (where the runtime has signals) closes it, so `deno serve` exits once it stops
 * listening. A missing key is one line on stderr and exit code 1.
 *
 * @example
 * ```sh
 * CODEMODE_API_KEYS="me=$(openssl rand -hex 24)" deno serve --allow-env --allow-read --port 8787 deploy.ts
 * ```
 *
 * @module
 */
import { createDeployEntry, DeployConfigError, type DeployEntry, type EnvReader } from "./src/mcp/deploy.ts";
import type { HttpHandler } from "./src/mcp/http.ts";

const readEnv: EnvReader = (name) => {
  try {
    return Deno.env.get(name);
  } catch {
    // Without env permission a variable reads as unset.
    return undefined;
  }
};

function start(): DeployEntry {
  try {
    return createDeployEntry(readEnv);
  } catch (e) {
    if (!(e instanceof DeployConfigError)) throw e;
    // An operator's mistake, not a crash: one line, no stack trace.
    console.error(`codemode: ${e.message}`);
    Deno.exit(1);
  }
}

const deployEntry = start();

try {
  // deno serve stops listening on SIGTERM; closing the server ends its workers so the process exits.
  Deno.addSignalListener("SIGTERM", () => void deployEntry.close());
} catch {
  // No signals here (Deno Deploy, Windows): the platform ends the isolate itself.
}

/** The Deploy / `deno serve` entry. */
const entry: { fetch: HttpHandler } = { fetch: (request, info) => deployEntry.fetch(request, info) };
export default entry;
