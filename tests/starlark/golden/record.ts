/**
 * Records the golden outputs of `cases.ts` from the reference implementation: each case runs as
 * `starlark -c 'print(repr(EXPR))'` and its whole stderr (the reference prints there) is stored in
 * `golden.txt` (JSON Lines; a .txt so that `deno fmt` leaves it alone). Run by hand after changing the cases:
 *
 *     deno run -A tests/starlark/golden/record.ts
 *
 * @module
 */
import { goldenCases, PROGRAMS } from "./cases.ts";

/** One recorded case: an expression (run as `print(repr(EXPR))`) or a whole program. */
export interface GoldenCase {
  /** The expression, for expression cases. */
  expr?: string;
  /** The program text, for program cases. */
  program?: string;
  /** The reference's complete output (print text, or the error and its traceback). */
  out: string;
}

const decoder = new TextDecoder();

/** The program a case runs. */
export function caseSource(c: { expr?: string; program?: string }): string {
  return c.program ?? `print(repr(${c.expr}))`;
}

async function runReference(c: { expr?: string; program?: string }): Promise<GoldenCase | undefined> {
  const out = await new Deno.Command("starlark", {
    args: ["-c", caseSource(c)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = decoder.decode(out.stdout);
  if (stdout !== "") throw new Error(`unexpected stdout for ${caseSource(c)}: ${stdout}`);
  const stderr = decoder.decode(out.stderr);
  // A Go panic in the reference is a bug of its own, not a behaviour to copy: leave the case out.
  if (stderr.includes("panic:") || stderr.includes("goroutine ")) {
    console.error(`skipped (the reference crashes): ${caseSource(c)}`);
    return undefined;
  }
  return { ...c, out: stderr };
}

if (import.meta.main) {
  const cases = [...goldenCases().map((expr) => ({ expr })), ...PROGRAMS.map((program) => ({ program }))];
  const results: (GoldenCase | undefined)[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      results[i] = await runReference(cases[i]);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  const path = new URL("./golden.txt", import.meta.url);
  const kept = results.filter((r) => r !== undefined);
  await Deno.writeTextFile(path, kept.map((r) => JSON.stringify(r)).join("\n") + "\n");
  console.log(`recorded ${kept.length} cases into ${path.pathname}`);
}
