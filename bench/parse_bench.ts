/**
 * Parser benchmark: parses a realistic ~300-line Starlark program.
 *
 * Run with `deno bench -A bench/parse_bench.ts`.
 *
 * @module
 */

import { parseFile } from "../src/starlark/syntax/mod.ts";

const source = await Deno.readTextFile(new URL("./programs/parse300.star", import.meta.url));

Deno.bench("parseFile: 330-line program", () => {
  parseFile("parse300.star", source);
});

Deno.bench("parseFile: 330-line program, no static checks", () => {
  parseFile("parse300.star", source, { staticChecks: false });
});
