/**
 * Parts of `deno task serve` (src/mcp/serve_cli.ts) that tell about the server rather than run it: the
 * demo catalog as the execute description lists it, and the command a client spawns to run it on stdio.
 *
 * @module
 */
import { resolve as resolvePath } from "node:path";
import { buildDemoServer } from "../demo/mod.ts";
import type { ListedCapability } from "./catalog_listing.ts";
import { checkoutPath } from "./connect_hint.ts";
import type { ServeArgs } from "./serve_args.ts";

/**
 * The `--v8-flags=...` option of the `serve` task in this checkout's `deno.json` (none when it cannot be
 * read), so that a client's command runs the server as the task does.
 */
function serveTaskV8Flags(): string[] {
  try {
    const config = JSON.parse(Deno.readTextFileSync(checkoutPath("deno.json"))) as {
      tasks?: Record<string, string>;
    };
    const flag = String(config.tasks?.serve ?? "").split(/\s+/).find((w) => w.startsWith("--v8-flags="));
    return flag === undefined ? [] : [flag];
  } catch {
    return [];
  }
}

/**
 * The command a client spawns to run this stdio server as it runs now: `deno task serve`'s permissions and
 * V8 flags, this checkout's configuration and launcher (which starts the CLI from its bundle: a desktop
 * client spawns the server often), and the options given (header values as placeholders: they may be
 * credentials).
 */
export function stdioCommand(args: ServeArgs): string[] {
  const o = args.openapi;
  const listing = args.catalogListingBytes === false
    ? ["--no-catalog-listing"]
    : args.catalogListingBytes === undefined
    ? []
    : ["--catalog-listing-bytes", String(args.catalogListingBytes)];
  const openapi = o === undefined ? [] : [
    "--openapi",
    /^[a-z]+:\/\//i.test(o.document) ? o.document : resolvePath(o.document),
    "--base-url",
    o.baseUrl,
    ...Object.keys(o.headers).flatMap((name) => ["--header", `${name}: <value>`]),
    ...(o.readOnly ? ["--read-only"] : []),
    ...o.include.flatMap((g) => ["--include", g]),
    ...o.exclude.flatMap((g) => ["--exclude", g]),
  ];
  return [
    "run",
    "--allow-read",
    "--allow-env",
    "--allow-net",
    "--allow-run",
    ...serveTaskV8Flags(),
    "--config",
    checkoutPath("deno.json"),
    checkoutPath("src/mcp/serve_launcher.ts"),
    ...(args.subject === "local" ? [] : ["--subject", args.subject]),
    ...(args.executor === undefined ? [] : ["--executor", args.executor]),
    ...listing,
    ...openapi,
  ];
}

let demoListing: Promise<ListedCapability[]> | undefined;

/**
 * The demo capabilities as the execute description lists them, known without waiting for the served
 * server's build (its executor probe): a catalog-only build with the inline executor, described and closed.
 */
export function demoListed(): Promise<ListedCapability[]> {
  return demoListing ??= (async () => {
    const server = await buildDemoServer({ executor: "inline" });
    try {
      return server.capabilities().map((c) => {
        const d = server.describe(c.name);
        return { name: d.name, signature: d.signature, summary: d.summary, output: d.output };
      });
    } finally {
      await server.close();
    }
  })();
}
