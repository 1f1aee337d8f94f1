/**
 * Golden differential test: every case of `golden/golden.txt` (recorded from the reference with
 * `golden/record.ts`) runs in our engine as `starlark -c` would run it, and the whole output — printed
 * text, or the error with its traceback, positions included — must equal the reference's byte for byte.
 */
import assert from "node:assert/strict";
import { caseSource, type GoldenCase } from "./golden/record.ts";
import { runOurs } from "./golden/run.ts";

const cases: GoldenCase[] = (await Deno.readTextFile(new URL("./golden/golden.txt", import.meta.url)))
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => JSON.parse(line));

Deno.test(`golden: ${cases.length} programs print exactly what the reference prints`, () => {
  const failures: string[] = [];
  for (const c of cases) {
    const source = caseSource(c);
    const got = runOurs(source);
    if (got !== c.out) {
      failures.push(
        `${JSON.stringify(source)}\n    want: ${JSON.stringify(c.out)}\n    got:  ${JSON.stringify(got)}`,
      );
    }
  }
  const shown = failures.slice(0, 60).join("\n");
  assert.equal(failures.length, 0, `${failures.length} of ${cases.length} cases differ:\n${shown}`);
});
