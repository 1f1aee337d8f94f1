/**
 * Records the golden outputs of `cases.ts` from the reference implementation: each case runs as
 * `starlark -c 'print(repr(EXPR))'` and its whole output (the reference prints to stderr) is stored in
 * `golden.txt` (JSON Lines; a .txt so that `deno fmt` leaves it alone). Run by hand after changing the cases:
 *
 *     deno run -A tests/starlark/golden/record.ts
 *
 * @module
 */
import { goldenCases, PROGRAMS } from "./cases.ts";
import { mapLimited, runReference } from "./run.ts";

/** One recorded case: an expression (run as `print(repr(EXPR))`) or a whole program. */
export interface GoldenCase {
  /** The expression, for expression cases. */
  expr?: string;
  /** The program text, for program cases. */
  program?: string;
  /** The reference's complete output (print text, or the error and its traceback). */
  out: string;
}

/** The program a case runs. */
export function caseSource(c: { expr?: string; program?: string }): string {
  return c.program ?? `print(repr(${c.expr}))`;
}

if (import.meta.main) {
  const cases = [...goldenCases().map((expr) => ({ expr })), ...PROGRAMS.map((program) => ({ program }))];
  const results = await mapLimited(cases, 3, async (c): Promise<GoldenCase | undefined> => {
    const out = await runReference(caseSource(c));
    if (out === undefined) {
      console.error(`skipped (the reference crashes): ${caseSource(c)}`);
      return undefined;
    }
    return { ...c, out };
  });
  const path = new URL("./golden.txt", import.meta.url);
  const kept = results.filter((r) => r !== undefined);
  await Deno.writeTextFile(path, kept.map((r) => JSON.stringify(r)).join("\n") + "\n");
  console.log(`recorded ${kept.length} cases into ${path.pathname}`);
}
