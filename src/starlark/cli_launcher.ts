/**
 * How `deno task star` starts: from a single-file bundle of the CLI (`cli.ts`) instead of its ~80 modules.
 *
 * Loading the engine module by module costs 20–30 ms of a trivial run's ~65 ms; the bundle loads in ~7 ms
 * and takes 8 MiB less (measured on Deno 2.9.6, `deno task compare` prints the start-up row). The bundle
 * is made with `deno bundle` on first use and again whenever a file of `src/starlark/` is newer than it
 * (the engine imports nothing outside that folder, which the architecture test holds), one per Deno
 * version, under `.cache/star/` at the repository's root. Two first runs at once each write their own
 * temporary file and rename it into place, so neither reads a half-written bundle. When the bundle cannot
 * be made (no write access, `deno bundle` failing) the CLI runs from its modules, as before.
 *
 * Only this file and `cli.ts` of `src/starlark/` use Deno APIs; the engine itself does not.
 *
 * @module
 */

/** Where {@link freshBundle} finds the sources and keeps the bundle. */
export interface BundleLayout {
  /** Folder whose files (tests excluded) the entry's module graph is made of; ends in `/`. */
  readonly sourceDir: URL;
  /** The module to bundle. */
  readonly entry: URL;
  /** Folder for the bundle and its manifest; ends in `/`. */
  readonly cacheDir: URL;
}

/** The CLI's own layout: the engine folder, `cli.ts`, and `.cache/star/` at the repository's root. */
export const CLI_LAYOUT: BundleLayout = {
  sourceDir: new URL("./", import.meta.url),
  entry: new URL("./cli.ts", import.meta.url),
  cacheDir: new URL("../../.cache/star/", import.meta.url),
};

/** The CLI module's shape as the launcher uses it. */
interface CliModule {
  main(): never;
}

/** What a bundle was made from: when, and every source file and folder whose change makes it stale. */
interface Manifest {
  readonly startedAt: number;
  readonly paths: readonly string[];
}

/** The engine's folders (ending in `/`) and source files, tests excluded. */
function sources(dir: URL, into: string[] = []): string[] {
  into.push(dir.pathname);
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) sources(new URL(`${entry.name}/`, dir), into);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
      into.push(new URL(entry.name, dir).pathname);
    }
  }
  return into;
}

/**
 * File times come from the kernel's coarse clock, which may lag `Date.now()` by a tick: a file written
 * just after a build started can carry a time just before it. Anything that recent counts as newer.
 */
const CLOCK_MARGIN_MS = 20;

// A folder's time changes when a file is added, removed or renamed in it, a file's when it is written: so
// stat-ing the manifest's paths (~1 ms) finds every change without listing the folders again (~1.5 ms more).
function isFresh(manifestFile: URL): boolean {
  try {
    const manifest = JSON.parse(Deno.readTextFileSync(manifestFile)) as Manifest;
    for (const path of manifest.paths) {
      const mtime = Deno.statSync(path).mtime?.getTime();
      if (mtime === undefined || mtime > manifest.startedAt - CLOCK_MARGIN_MS) return false;
    }
    return manifest.paths.length > 0;
  } catch {
    return false;
  }
}

/** The bundle's URL, made or remade first when it is missing or stale; undefined when it cannot be made. */
export function freshBundle(layout: BundleLayout = CLI_LAYOUT): URL | undefined {
  const name = `cli-${Deno.version.deno}`;
  const bundle = new URL(`${name}.js`, layout.cacheDir);
  const manifestFile = new URL(`${name}.json`, layout.cacheDir);
  if (isFresh(manifestFile)) return bundle;
  const temp = (ext: string) => new URL(`${name}.${Deno.pid}.tmp${ext}`, layout.cacheDir);
  try {
    Deno.mkdirSync(layout.cacheDir, { recursive: true });
    const startedAt = Date.now();
    const manifest: Manifest = { startedAt, paths: sources(layout.sourceDir) };
    const made = new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "-o", temp(".js").pathname, layout.entry.pathname],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).outputSync();
    if (!made.success) return undefined;
    Deno.writeTextFileSync(temp(".json"), JSON.stringify(manifest));
    // The bundle first: a manifest in place always describes the bundle beside it, or an older one.
    Deno.renameSync(temp(".js"), bundle);
    Deno.renameSync(temp(".json"), manifestFile);
    return bundle;
  } catch {
    return undefined;
  } finally {
    for (const ext of [".js", ".json"]) {
      try {
        Deno.removeSync(temp(ext));
      } catch {
        // renamed into place, or never written
      }
    }
  }
}

if (import.meta.main) {
  const bundle = freshBundle();
  const cli = (await import((bundle ?? CLI_LAYOUT.entry).href)) as CliModule;
  cli.main();
}
