// Runs every case of testdata/golden.txt through the whole engine (parser, interpreter, built-ins and
// these modules) and compares with the reference implementation's recorded result.
import assert from "node:assert/strict";
import { UNIVERSE } from "../builtins/mod.ts";
import { compileProgram } from "../eval/exec.ts";
import {
  ALL_OPTIONS_DIALECT,
  EvalError,
  repr,
  StarlarkError,
  Thread,
  toJSString,
  type Value,
} from "../values/mod.ts";
import { json, math, sum } from "./mod.ts";

const PREDECLARED = new Map<string, Value>([["json", json], ["math", math], ["sum", sum]]);

function run(expr: string): string {
  const src = expr.startsWith("EXEC ") ? expr.slice(5).replaceAll("⏎", "\n") : "result = " + expr;
  try {
    const prog = compileProgram(
      src,
      { filename: "x.star", dialect: ALL_OPTIONS_DIALECT, predeclared: PREDECLARED.keys() },
      UNIVERSE,
    );
    const globals = prog.run(new Thread({ dialect: ALL_OPTIONS_DIALECT, maxSteps: 1e8 }), PREDECLARED);
    return "OK " + toJSString(repr(globals.get("result")!)).replaceAll("\n", "\\n");
  } catch (e) {
    if (e instanceof EvalError || e instanceof StarlarkError) {
      return "ERR " + toJSString(e.message).replaceAll("\n", "\\n");
    }
    throw e;
  }
}

Deno.test("json and math: golden cases recorded from the reference implementation", () => {
  const text = Deno.readTextFileSync(new URL("./testdata/golden.txt", import.meta.url));
  const failures: string[] = [];
  let n = 0;
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const tab = line.indexOf("\t");
    const expr = line.slice(0, tab);
    const want = line.slice(tab + 1);
    const got = run(expr);
    n++;
    if (got !== want) failures.push(`${expr}\n  got:  ${got}\n  want: ${want}`);
  }
  assert.equal(failures.length, 0, failures.slice(0, 20).join("\n"));
  assert.ok(n > 1900, `only ${n} cases`);
});
