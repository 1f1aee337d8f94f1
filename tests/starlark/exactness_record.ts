/**
 * Records `exactness_expected.json`: the reference command's output for every case of
 * `exactness_cases.ts`, summarized. Run with the reference `starlark` on PATH:
 * `deno run -A tests/starlark/exactness_record.ts`. A case on which the reference crashes is left out (a
 * Go panic is the reference's bug, not a behaviour to copy; see the README's deviations).
 *
 * @module
 */
import { allCases, summary } from "./exactness_cases.ts";
import { referenceOutput } from "./exactness_reference.ts";

const expected: Record<string, string> = {};
for (const c of allCases()) {
  const out = await referenceOutput(c.source);
  if (out !== undefined) expected[c.key] = summary(out);
}
const path = new URL("./exactness_expected.json", import.meta.url);
await Deno.writeTextFile(path, JSON.stringify(expected, null, 2) + "\n");
console.log(`recorded ${Object.keys(expected).length} cases`);
