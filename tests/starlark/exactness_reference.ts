/**
 * Runs a case of `exactness_cases.ts` with the reference command (`starlark`, on PATH) as the golden
 * harness does: `starlark -c`, or a file named `cmdline` when the source holds a NUL (which a command
 * line cannot carry), so that positions read `cmdline:LINE:COL` either way.
 *
 * @module
 */
import { runReference } from "./golden/run.ts";
import { runReferenceFile } from "./cli_runs.ts";

/** The reference's whole output for `source`, or undefined when it crashes (a Go panic). */
export async function referenceOutput(source: string): Promise<string | undefined> {
  if (!source.includes("\0")) return await runReference(source);
  const out = await runReferenceFile([], "cmdline", source);
  return out.includes("panic:") ? undefined : out;
}
