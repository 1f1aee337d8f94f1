/**
 * Single-file bundles of a program's entry, made with `deno bundle` and kept fresh, for the launchers of
 * `deno task star` (src/starlark/cli_launcher.ts) and `deno task serve` (src/mcp/serve_launcher.ts).
 *
 * Loading one bundled file costs a fraction of loading the same code module by module (no resolution, no
 * per-module compile and evaluation set-up), which is most of a short-lived process's start-up. The bundle
 * is made on first use and again whenever a file it was made from is newer than it, one per Deno version,
 * in the spec's cache folder. Two first runs at once each write their own temporary file and rename it into
 * place, so neither reads a half-written bundle. When the bundle cannot be made (no `deno` to run, a graph
 * that does not bundle, a relative URL the bundle's place would break) the caller gets `undefined` and runs
 * its modules, as before; a failure is remembered in the manifest, so later starts do not pay for it again
 * until a source changes.
 *
 * A process that may run Deno but not write the cache folder (the MCP server runs with `--allow-run` and
 * no `--allow-write`) builds in a child that may write that folder only: the server's own permissions stay
 * as they are.
 *
 * Launchers only: no shipped module imports this folder (it is excluded from publishing).
 *
 * @module
 */

/** What to bundle, where to keep it, and what makes it stale. */
export interface BundleSpec {
  /** The module to bundle. */
  readonly entry: URL;
  /** Folder for the bundle and its manifest; ends in `/`. */
  readonly cacheDir: URL;
  /** File name stem: the bundle is `<name>-<deno version>.js`. */
  readonly name: string;
  /**
   * What the bundle is made from: the `.ts` files (tests excluded) and folders under these folders (a
   * folder's time changes when a file is added, removed or renamed in it), or `"graph"`: the local modules
   * of the entry's module graph as `deno info` lists them, with the configuration and its lock file.
   */
  readonly sources: readonly URL[] | "graph";
  /** The `deno.json` to resolve imports with (its import map); Deno's own discovery when absent. */
  readonly config?: URL;
}

/**
 * What a bundle was made from: when, and every file and folder whose change makes it stale. `failed` marks
 * sources that could not be bundled: until one of them changes, the caller runs its modules at once
 * instead of paying for a bundling that fails again on every start.
 */
interface Manifest {
  readonly startedAt: number;
  readonly paths: readonly string[];
  /** Files the graph names that did not exist (a failed build's missing module): stale once one does. */
  readonly absent?: readonly string[];
  readonly failed?: true;
}

/** The bundle and manifest files of a spec. */
function files(spec: BundleSpec): { bundle: URL; manifest: URL; stem: string } {
  const stem = `${spec.name}-${Deno.version.deno}`;
  return {
    stem,
    bundle: new URL(`${stem}.js`, spec.cacheDir),
    manifest: new URL(`${stem}.json`, spec.cacheDir),
  };
}

/** The folders (ending in `/`) and `.ts` source files under `dir`, tests excluded. */
export function folderSources(dir: URL, into: string[] = []): string[] {
  into.push(dir.pathname);
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) folderSources(new URL(`${entry.name}/`, dir), into);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
      into.push(new URL(entry.name, dir).pathname);
    }
  }
  return into;
}

function configArgs(spec: BundleSpec): string[] {
  return spec.config === undefined ? [] : ["--config", spec.config.pathname];
}

/** The local files of the entry's module graph, the configuration and its lock file. */
function graphSources(spec: BundleSpec): string[] | undefined {
  const listed = new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", ...configArgs(spec), spec.entry.pathname],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  if (!listed.success) return undefined;
  const info = JSON.parse(new TextDecoder().decode(listed.stdout)) as {
    modules: { specifier: string }[];
  };
  const paths = info.modules.map((m) => m.specifier).filter((s) => s.startsWith("file:"))
    .map((s) => new URL(s).pathname);
  if (spec.config !== undefined) {
    paths.push(spec.config.pathname);
    const lock = new URL("deno.lock", spec.config);
    if (exists(lock)) paths.push(lock.pathname);
  }
  return paths;
}

function exists(url: URL): boolean {
  try {
    Deno.statSync(url);
    return true;
  } catch {
    return false;
  }
}

/**
 * File times come from the kernel's coarse clock, which may lag `Date.now()` by a tick: a file written
 * just after a build started can carry a time just before it. Anything that recent counts as newer.
 */
const CLOCK_MARGIN_MS = 20;

// Stat-ing the manifest's paths (~1 ms for 200) finds every change without listing folders or asking
// `deno info` again. Undefined when the manifest is missing or stale.
function upToDate(manifestFile: URL): Manifest | undefined {
  try {
    const manifest = JSON.parse(Deno.readTextFileSync(manifestFile)) as Manifest;
    for (const path of manifest.paths) {
      const mtime = Deno.statSync(path).mtime?.getTime();
      if (mtime === undefined || mtime > manifest.startedAt - CLOCK_MARGIN_MS) return undefined;
    }
    if ((manifest.absent ?? []).some((path) => exists(new URL(`file://${path}`)))) return undefined;
    return manifest.paths.length > 0 ? manifest : undefined;
  } catch {
    return undefined;
  }
}

const RELATIVE_URL = /new URL\(\s*(["'])([^"'`]+)\1\s*,\s*import\.meta\.url\s*\)/g;

/**
 * The relative URLs a bundled module resolves against `import.meta.url` (a worker's entry, say) now resolve
 * against the bundle's place: a bundle kept at the same folder depth as its modules keeps them right. One
 * that names a file that is not there is refused, so such a program runs from its modules.
 */
function brokenRelativeUrls(code: string, bundle: URL): string[] {
  return [...code.matchAll(RELATIVE_URL)].map((m) => m[2]).filter((rel) => !exists(new URL(rel, bundle)));
}

/** Makes the bundle in this process; true when it is in place. */
function build(spec: BundleSpec): boolean {
  const { bundle, manifest: manifestFile, stem } = files(spec);
  const temp = (ext: string) => new URL(`${stem}.${Deno.pid}.tmp${ext}`, spec.cacheDir);
  try {
    Deno.mkdirSync(spec.cacheDir, { recursive: true });
    const startedAt = Date.now();
    const listed = spec.sources === "graph"
      ? graphSources(spec)
      : spec.sources.flatMap((dir) => folderSources(dir));
    if (listed === undefined || listed.length === 0) return false;
    const paths = listed.filter((path) => exists(new URL(`file://${path}`)));
    const absent = listed.filter((path) => !paths.includes(path));
    const made = new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", ...configArgs(spec), "-o", temp(".js").pathname, spec.entry.pathname],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).outputSync();
    const ok = made.success && brokenRelativeUrls(Deno.readTextFileSync(temp(".js")), bundle).length === 0;
    const manifest: Manifest = {
      startedAt,
      paths,
      ...(absent.length === 0 ? {} : { absent }),
      ...(ok ? {} : { failed: true }),
    };
    Deno.writeTextFileSync(temp(".json"), JSON.stringify(manifest));
    if (!ok) {
      // Remembered, so the next start does not try again until a source changes.
      Deno.renameSync(temp(".json"), manifestFile);
      return false;
    }
    // The bundle first: a manifest in place always describes the bundle beside it, or an older one.
    Deno.renameSync(temp(".js"), bundle);
    Deno.renameSync(temp(".json"), manifestFile);
    return true;
  } catch {
    return false;
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

function mayWrite(dir: URL): boolean {
  try {
    return Deno.permissions.querySync({ name: "write", path: dir }).state === "granted";
  } catch {
    return false;
  }
}

/** The spec as the builder child reads it from its command line. */
interface WireSpec {
  readonly entry: string;
  readonly cacheDir: string;
  readonly name: string;
  readonly sources: readonly string[] | "graph";
  readonly config?: string;
}

function toWire(spec: BundleSpec): WireSpec {
  return {
    entry: spec.entry.href,
    cacheDir: spec.cacheDir.href,
    name: spec.name,
    sources: spec.sources === "graph" ? "graph" : spec.sources.map((u) => u.href),
    ...(spec.config === undefined ? {} : { config: spec.config.href }),
  };
}

function fromWire(wire: WireSpec): BundleSpec {
  return {
    entry: new URL(wire.entry),
    cacheDir: new URL(wire.cacheDir),
    name: wire.name,
    sources: wire.sources === "graph" ? "graph" : wire.sources.map((s) => new URL(s)),
    ...(wire.config === undefined ? {} : { config: new URL(wire.config) }),
  };
}

/** Builds in a child that may read, run Deno and write the cache folder: nothing more. */
function buildInChild(spec: BundleSpec): boolean {
  const done = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-config",
      "--allow-read",
      `--allow-write=${spec.cacheDir.pathname}`,
      `--allow-run=${Deno.execPath()}`,
      new URL(import.meta.url).pathname,
      JSON.stringify(toWire(spec)),
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).outputSync();
  return done.success;
}

/**
 * The bundle's URL, made or remade first when it is missing or stale; `undefined` when it cannot be made
 * (the caller then loads `spec.entry` itself).
 */
export function freshBundle(spec: BundleSpec): URL | undefined {
  const { bundle, manifest } = files(spec);
  const current = upToDate(manifest);
  if (current !== undefined) return current.failed ? undefined : bundle;
  try {
    const made = mayWrite(spec.cacheDir) ? build(spec) : buildInChild(spec);
    return made ? bundle : undefined;
  } catch {
    // No permission to run Deno: the modules it is.
    return undefined;
  }
}

if (import.meta.main) {
  // The builder child of buildInChild.
  Deno.exit(build(fromWire(JSON.parse(Deno.args[0]) as WireSpec)) ? 0 : 1);
}
