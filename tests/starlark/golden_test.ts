/**
 * Golden differential test: every case of `golden/golden.txt` (recorded from the reference with
 * `golden/record.ts`) runs in our engine as `starlark -c` would run it, and the whole output — printed
 * text, or the error with its traceback, positions included — must equal the reference's byte for byte.
 */
import assert from "node:assert/strict";
import { execFile } from "../../src/starlark/mod.ts";
import { json, math } from "../../src/starlark/lib/mod.ts";
import { EvalError, StarlarkSyntaxError, toJSString } from "../../src/starlark/value.ts";
import { caseSource, type GoldenCase } from "./golden/record.ts";

/** Runs one program like `starlark -c` does and returns everything it would print. */
function runCase(source: string): string {
  let out = "";
  try {
    execFile(source, {
      filename: "cmdline",
      predeclared: { json, math },
      // The reference command enables `set` (its -set flag is on by default) and nothing else.
      dialect: { set: true },
      maxSteps: 10_000_000,
      print: (_thread, msg) => {
        out += toJSString(msg) + "\n";
      },
    });
  } catch (e) {
    if (e instanceof EvalError) out += toJSString(e.backtrace()) + "\n";
    else if (e instanceof StarlarkSyntaxError) out += toJSString(e.message) + "\n";
    else out += `internal error: ${(e as Error)?.stack ?? e}\n`;
  }
  return out;
}

const cases: GoldenCase[] = (await Deno.readTextFile(new URL("./golden/golden.txt", import.meta.url)))
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => JSON.parse(line));

Deno.test(`golden: ${cases.length} programs print exactly what the reference prints`, () => {
  const failures: string[] = [];
  for (const c of cases) {
    const source = caseSource(c);
    const got = runCase(source);
    if (got !== c.out) {
      failures.push(
        `${JSON.stringify(source)}\n    want: ${JSON.stringify(c.out)}\n    got:  ${JSON.stringify(got)}`,
      );
    }
  }
  const shown = failures.slice(0, 60).join("\n");
  assert.equal(failures.length, 0, `${failures.length} of ${cases.length} cases differ:\n${shown}`);
});
