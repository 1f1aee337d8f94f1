/**
 * Random differential test: seeded random expressions (see `golden/random_exprs.ts`) run in our engine
 * and in the reference binary, and the whole outputs must match byte for byte. It needs the reference,
 * so it runs with `STARLARK_REF=1` (as CI does); the fixed seeds make every failure reproducible with
 * `deno run -A tests/starlark/golden/random_exprs.ts SEED COUNT FLAVOUR`.
 */
import assert from "node:assert/strict";
import { compareRandomPrograms } from "./golden/random_exprs.ts";

const RUNS = [
  { seed: 20261130, count: 2500, flavour: "typed" },
  { seed: 7, count: 2500, flavour: "loose" },
] as const;

for (const { seed, count, flavour } of RUNS) {
  Deno.test({
    name:
      `random differential: ${count} ${flavour} expressions (seed ${seed}) print what the reference prints`,
    ignore: Deno.env.get("STARLARK_REF") !== "1",
    fn: async () => {
      const { ran, differences } = await compareRandomPrograms(seed, count, flavour);
      // Nearly every case runs: the reference crashing on many would hollow the test out.
      assert.ok(ran >= count * 0.95, `only ${ran} of ${count} cases ran`);
      const shown = differences.slice(0, 20).map((d) =>
        `${JSON.stringify(d.source)}\n    want: ${JSON.stringify(d.reference)}\n    got:  ${
          JSON.stringify(d.ours)
        }`
      );
      assert.equal(
        differences.length,
        0,
        `${differences.length} of ${ran} cases differ:\n${shown.join("\n")}`,
      );
    },
  });
}
