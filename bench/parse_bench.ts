/**
 * Front-end benchmarks on a realistic ~330-line Starlark program: parsing alone, and the whole
 * compilation the engine performs before running a program (parse, resolve, compile to closures).
 *
 * Run with `deno bench -A bench/parse_bench.ts`.
 *
 * @module
 */

import { parseFile } from "../src/starlark/syntax/mod.ts";
import { compile } from "../src/starlark/mod.ts";

const source = await Deno.readTextFile(new URL("./programs/parse300.star", import.meta.url));

Deno.bench("parseFile: 330-line program", () => {
  parseFile("parse300.star", source);
});

Deno.bench("parseFile: 330-line program, no static checks", () => {
  parseFile("parse300.star", source, { staticChecks: false });
});

Deno.bench("compile (parse + resolve + compile): 330-line program", () => {
  compile(source, { filename: "parse300.star", predeclared: ["json", "math", "sum"] });
});
