/**
 * Sliced runs against ordinary runs on programs we did not write for them: the seeded random programs of
 * the reference differential (`golden/random_programs.ts`: locals, loops, helpers with defaults,
 * `*args`/`**kwargs`, comprehensions, slicing, string and dict methods) and the golden samples, each
 * compiled once with `sliced` and run both ways, the sliced run polled (and paused) after every step.
 * Every ending (value or error with its call stack),
 * every printed line and the step count must be the same.
 */
import assert from "node:assert/strict";
import { compile, type Dialect, type Program } from "../../src/starlark/mod.ts";
import { ProgramGenerator } from "./golden/random_programs.ts";
import { SAMPLES } from "./golden/cases.ts";
import { ordinary, sliced } from "../../src/starlark/eval/sliced_runs_test.ts";

const DIALECT: Partial<Dialect> = { set: true };

function compiled(src: string): Program | undefined {
  try {
    return compile(src, { dialect: DIALECT, sliced: true });
  } catch {
    return undefined; // syntax errors are not the evaluator's
  }
}

function compareAll(sources: readonly string[]): { ran: number; paused: number; differences: string[] } {
  let ran = 0, paused = 0;
  const differences: string[] = [];
  for (const src of sources) {
    const p = compiled(src);
    if (p === undefined) continue;
    ran++;
    const want = ordinary(p, DIALECT);
    const { pauses, ...got } = sliced(p, DIALECT, true);
    if (pauses > 0) paused++;
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      differences.push(`${src}\n  ordinary: ${JSON.stringify(want)}\n  sliced:   ${JSON.stringify(got)}`);
    }
  }
  return { ran, paused, differences };
}

Deno.test("sliced differential: 600 seeded random programs end alike sliced and ordinary", () => {
  const gen = new ProgramGenerator(20261202);
  const { ran, paused, differences } = compareAll(Array.from({ length: 600 }, () => gen.program()));
  assert.ok(ran >= 570, `only ${ran} programs compiled`);
  // Polled at every step, they pause at every loop turn and call of their generator forms.
  assert.ok(paused >= ran * 0.9, `only ${paused} of ${ran} paused`);
  assert.deepEqual(differences.slice(0, 5), []);
});

Deno.test("sliced differential: the golden samples end alike sliced and ordinary", () => {
  const { ran, differences } = compareAll(SAMPLES.map((s) => `print(${s})\n`));
  assert.ok(ran > 0);
  assert.deepEqual(differences.slice(0, 5), []);
});
