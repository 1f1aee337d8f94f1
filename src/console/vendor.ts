/**
 * The build step that puts the pinned charting library (`uplot` in deno.json) into `assets/vendor/`,
 * so the gateway serves it itself (no CDN, no npm download when a gateway starts). Run after changing
 * the pin: `deno run --allow-read --allow-write src/console/vendor.ts`; `--check` only compares (the
 * vendor test runs it).
 *
 * @module
 */

/** The files taken from the package, relative to its `dist/` folder (the license from its root). */
export const VENDORED: readonly { readonly from: string; readonly to: string }[] = [
  { from: "dist/uPlot.iife.min.js", to: "uPlot.iife.min.js" },
  { from: "dist/uPlot.min.css", to: "uPlot.min.css" },
  { from: "LICENSE", to: "uPlot.LICENSE" },
];

/** Where the vendored files live. */
export const VENDOR_DIR: URL = new URL("./assets/vendor/", import.meta.url);

/** The package's root folder in Deno's npm cache (loading it once makes sure it is there). */
export async function packageRoot(): Promise<URL> {
  await import("uplot");
  // The package's main entry is dist/uPlot.cjs.js.
  return new URL("../", import.meta.resolve("uplot"));
}

/** The vendored files that differ from the pinned package's (empty when in step). */
export async function differences(): Promise<string[]> {
  const root = await packageRoot();
  const out: string[] = [];
  for (const f of VENDORED) {
    const want = await Deno.readFile(new URL(f.from, root));
    const have = await Deno.readFile(new URL(f.to, VENDOR_DIR)).catch(() => new Uint8Array());
    if (want.length !== have.length || want.some((b, i) => b !== have[i])) out.push(f.to);
  }
  return out;
}

if (import.meta.main) {
  if (Deno.args.includes("--check")) {
    const stale = await differences();
    if (stale.length > 0) {
      console.error(`out of step with the pinned uplot: ${stale.join(", ")}`);
      Deno.exit(1);
    }
  } else {
    const root = await packageRoot();
    await Deno.mkdir(VENDOR_DIR, { recursive: true });
    for (const f of VENDORED) await Deno.copyFile(new URL(f.from, root), new URL(f.to, VENDOR_DIR));
  }
}
