/**
 * How `deno task serve` starts: from a single-file bundle of the serve CLI (`serve_cli.ts`) instead of its
 * ~200 modules and their npm packages, so that a desktop client that spawns the server gets its first
 * `tools/list` answer sooner (`deno run -A bench/stdio_start.ts` prints both ways side by side).
 *
 * The bundle lives in `.cache/serve/` at the repository's root: two folders deep, like this file, so the
 * URLs the bundled modules resolve against `import.meta.url` (the sandbox worker's and the sandbox
 * process's entries under `workers/`, which run from their own modules with their own permissions) still
 * name the same files. It is remade whenever a module of the CLI's graph, `deno.json` or `deno.lock` is
 * newer than it; when it cannot be made the CLI runs from its modules, exactly as before. The server's
 * permissions are the task's: the bundle is written by a child that may write `.cache/serve/` only.
 *
 * The task adds `--no-enable-lazy-source-positions` to V8's flags: a module that creates an `Error` (or
 * catches a thrown one) while it loads makes V8 re-parse the script around it for source positions, which
 * for a 3 MB bundle cost ~30 ms per such module; with the flag the positions come with the first compile.
 *
 * @module
 */
import { type BundleSpec, freshBundle } from "../bundle/mod.ts";

/** The serve CLI's bundle: its entry, its cache folder and the configuration that resolves its imports. */
export const SERVE_BUNDLE: BundleSpec = {
  entry: new URL("./serve_cli.ts", import.meta.url),
  cacheDir: new URL("../../.cache/serve/", import.meta.url),
  name: "serve",
  sources: "graph",
  config: new URL("../../deno.json", import.meta.url),
};

/** The serve CLI module's shape as the launcher uses it. */
export interface ServeModule {
  /** Runs the CLI with these arguments; resolves to the exit status. */
  main(args: readonly string[]): Promise<number>;
}

/** The serve CLI, loaded from its bundle or, when none can be made, from its modules. */
export async function loadServe(spec: BundleSpec = SERVE_BUNDLE): Promise<{
  readonly cli: ServeModule;
  readonly from: "bundle" | "modules";
}> {
  const bundle = freshBundle(spec);
  if (bundle !== undefined) {
    try {
      return { cli: (await import(bundle.href)) as ServeModule, from: "bundle" };
    } catch {
      // A bundle that does not load (cut short on disk, say): the modules still serve.
    }
  }
  return { cli: (await import(spec.entry.href)) as ServeModule, from: "modules" };
}

if (import.meta.main) {
  const { cli, from } = await loadServe();
  if (from === "modules") {
    console.error(
      `codemode: no bundle in ${SERVE_BUNDLE.cacheDir.pathname}: serving from the modules (slower start)`,
    );
  }
  Deno.exit(await cli.main(Deno.args));
}
