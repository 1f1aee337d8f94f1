/**
 * Shared helpers of the console's browser tests: Debian's headless Chromium (found on PATH, installed
 * by .ci/run) driven by puppeteer-core, and where screenshots go (`$CONSOLE_ARTIFACTS`, else a
 * temporary folder; never the repository).
 *
 * @module
 */
import puppeteer, { type Browser } from "puppeteer-core";

/** The Chromium binary on PATH; throws (the test fails, never skips) when there is none. */
export function chromiumPath(): string {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    for (const name of ["chromium", "chromium-browser"]) {
      const path = `${dir}/${name}`;
      try {
        if (Deno.statSync(path).isFile) return path;
      } catch {
        // Not in this folder.
      }
    }
  }
  throw new Error("chromium is not on PATH: install Debian's chromium package (.ci/run does)");
}

/** Launches headless Chromium. */
export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    // As root (CI) Chromium needs --no-sandbox; /dev/shm may be small on a CI machine.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
}

/** The folder screenshots are saved in (created on first use). */
export async function artifactsDir(): Promise<string> {
  const dir = Deno.env.get("CONSOLE_ARTIFACTS") ?? await Deno.makeTempDir({ prefix: "console-artifacts-" });
  await Deno.mkdir(dir, { recursive: true });
  return dir;
}
