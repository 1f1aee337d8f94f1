/**
 * Deno Deploy entry: the demo catalog over stateless Streamable HTTP, as a module whose default export
 * is `{ fetch }` (run it locally with `deno serve`). Configuration comes from the environment:
 *
 * | variable | meaning |
 * |---|---|
 * | `CODEMODE_API_KEYS` | required: `subject=key` pairs, comma-separated (keys of 16+ characters) |
 * | `CODEMODE_ALLOWED_HOSTS` | accepted `Host` values, comma-separated (e.g. `my-app.deno.dev`); any Host when unset |
 * | `CODEMODE_ALLOWED_ORIGINS` | accepted browser `Origin` values, comma-separated |
 * | `CODEMODE_EXECUTOR` | `worker` or `inline`; default `inline` on Deno Deploy, `worker` elsewhere |
 *
 * Deno Deploy cannot start permission-restricted workers, so there the programs run in the inline
 * executor: the same engine and budgets, without the worker boundary.
 *
 * @example
 * ```sh
 * CODEMODE_API_KEYS="me=$(openssl rand -hex 24)" deno serve --allow-env --allow-read --port 8787 deploy.ts
 * ```
 *
 * @module
 */
import { createDeployHandler, type EnvReader } from "./src/mcp/deploy.ts";
import type { HttpHandler } from "./src/mcp/http.ts";

const readEnv: EnvReader = (name) => {
  try {
    return Deno.env.get(name);
  } catch {
    // Without env permission a variable reads as unset.
    return undefined;
  }
};

const handler: HttpHandler = await createDeployHandler(readEnv);

/** The Deploy / `deno serve` entry. */
const entry: { fetch: HttpHandler } = { fetch: (request, info) => handler(request, info) };
export default entry;
