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
 * The `star` task starts Deno with two V8 flags that bound the memory a program takes above the process's
 * fixed floor (the engine's values and the garbage V8 lets pile up around them):
 *
 * - `--heap-growing-percent=100`: after a full GC V8 lets the old generation grow to twice what survived
 *   (Go's default heap target, `GOGC=100`), not up to four times, which it does while GCs are cheap.
 * - `--max-semi-space-size=2`: a young generation of 2 × 2 MiB instead of 2 × 4. Alone it saves nothing
 *   (objects that die soon after a scavenge get promoted and pile up in the old generation); with the
 *   bounded growth above it does.
 *
 * Measured with `deno task compare --cpu --v8-flags ...` over the 19 programs of issue 27 (Deno 2.9.6, a
 * busy 2-core machine): the geometric mean of (peak − empty-program peak) over the reference's went from
 * 1.7 to 1.35, CPU time +0–3% (+10% on programs that keep large sets or documents alive, which pay for
 * more full GCs), start-up unchanged. `--no-concurrent-recompilation` would bring it to 1.2 (no compiler
 * thread's zones), but moves 0.1–0.2 s of optimizing compiles per program onto the main thread: 25–35%
 * more wall time on an idle machine for `json_floats` and `text_report`. `--optimize-for-size` reaches 1.1
 * but costs 28% of CPU time; `--minor-ms`, `--single-threaded` and `--sqrt-allocation-limits` took more
 * memory.
 *
 * @module
 */

import { freshBundle as freshSpecBundle } from "../bundle/mod.ts";

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

/**
 * The bundle's URL, made or remade first when it is missing or stale (src/bundle/mod.ts, shared with the
 * serve launcher, does the work); undefined when it cannot be made.
 */
export function freshBundle(layout: BundleLayout = CLI_LAYOUT): URL | undefined {
  return freshSpecBundle({
    entry: layout.entry,
    cacheDir: layout.cacheDir,
    name: "cli",
    sources: [layout.sourceDir],
  });
}

if (import.meta.main) {
  const bundle = freshBundle();
  const cli = (await import((bundle ?? CLI_LAYOUT.entry).href)) as CliModule;
  cli.main();
}
