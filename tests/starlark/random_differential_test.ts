/**
 * Random differential test: seeded random expressions (`golden/random_exprs.ts`) and whole programs
 * (`golden/random_programs.ts`) run in our engine and in the reference binary, and the whole outputs must
 * match byte for byte. It needs the reference, so it runs with `STARLARK_REF=1` (as CI does); the fixed
 * seeds make every failure reproducible with those files' command lines.
 */
import assert from "node:assert/strict";
import { compareRandomPrograms } from "./golden/random_exprs.ts";
import { ProgramGenerator } from "./golden/random_programs.ts";
import { compareSources, type Comparison } from "./golden/run.ts";

const needsReference = Deno.env.get("STARLARK_REF") !== "1";

function assertSame({ ran, differences }: Comparison, count: number): void {
  // Nearly every case runs: the reference crashing on many would hollow the test out.
  assert.ok(ran >= count * 0.95, `only ${ran} of ${count} cases ran`);
  const shown = differences.slice(0, 20).map((d) =>
    `${JSON.stringify(d.source)}\n    want: ${JSON.stringify(d.reference)}\n    got:  ${
      JSON.stringify(d.ours)
    }`
  );
  assert.equal(differences.length, 0, `${differences.length} of ${ran} cases differ:\n${shown.join("\n")}`);
}

const EXPRESSION_RUNS = [
  { seed: 20261130, count: 2500, flavour: "typed" },
  { seed: 7, count: 2500, flavour: "loose" },
] as const;

for (const { seed, count, flavour } of EXPRESSION_RUNS) {
  Deno.test({
    name:
      `random differential: ${count} ${flavour} expressions (seed ${seed}) print what the reference prints`,
    ignore: needsReference,
    fn: async () => assertSame(await compareRandomPrograms(seed, count, flavour), count),
  });
}

const PROGRAM_RUNS = [
  { seed: 11, count: 1000, flavour: "valid", outcome: "print what the reference prints" },
  { seed: 12, count: 1500, flavour: "mutated", outcome: "fail or run exactly as in the reference" },
] as const;

for (const { seed, count, flavour, outcome } of PROGRAM_RUNS) {
  Deno.test({
    name: `random differential: ${count} ${flavour} programs (seed ${seed}) ${outcome}`,
    ignore: needsReference,
    fn: async () => {
      const gen = new ProgramGenerator(seed);
      const next = () => flavour === "valid" ? gen.program() : gen.mutatedProgram();
      assertSame(await compareSources(Array.from({ length: count }, next)), count);
    },
  });
}
