/**
 * Issue 22, class 3: compilation inside the budgets. The compilation family of the hostile corpus
 * (`corpus_compile.ts`) runs with `maxSourceBytes` raised to 8 MiB and a 2 s deadline, one program at a
 * time next to a normal stream, in a child host (see `harness.ts`), on every executor. What is asserted:
 *
 * - the host survives and every program ends classified as the corpus labels it, by a budget or as a
 *   syntax error, never by running into the deadline;
 * - each answer comes within the deadline + 100 ms (scaled only by the load other processes put on the
 *   machine, `tests/timing.ts`);
 * - the host's event loop never stalls more than 150 ms (inline included: compiling takes turns between
 *   top-level statements like running does, and one statement is bounded by the step budget);
 * - the host's RSS after the answers is less than 3× the memory budget above its baseline (the front
 *   end is charged to that budget);
 * - CPU is idle in the second second after the last answer (a sandbox still compiling would spin).
 *
 * Before compilation was charged, the 100,000-key dict display alone held the inline host for 17 s.
 */
import { COMPILATION, COMPILE_LIMITS } from "./corpus_compile.ts";
import { checkFamily, EXECUTORS } from "./family_check.ts";
import { loadFactor } from "../timing.ts";

for (const { name, available } of EXECUTORS) {
  Deno.test({
    name: `containment: huge and pathological sources compile inside the budgets (${name} executor)`,
    ignore: !available,
    async fn() {
      const run = await checkFamily({
        label: "compile",
        executor: name,
        limits: COMPILE_LIMITS,
        programs: COMPILATION.map((p) => p.name),
        // The step and memory budgets hold from the first byte: a compilation ends by them (or as an
        // ordinary syntax error), long before the deadline, which only backs them up.
        wrongEnd: (r) =>
          !r.asExpected || r.timedOut
            ? `${r.name}: ${r.outcome}${r.timedOut ? " (deadline)" : ""} (${r.message})`
            : undefined,
        wrongEndMessage: "programs that ended other than labelled, or by the deadline instead of a budget",
        // What the host holds once the answers are in (the worker used to keep ~900 MB); the peak
        // includes the harness's own copies of multi-megabyte sources.
        rss: "after",
        external: loadFactor(),
      });
      const rows = run.report!.hostile.map((r) =>
        `${r.name}: ${r.outcome} ${r.elapsedMs.toFixed(0)} ms ${r.message}`
      );
      console.log(`[compile ${name}]\n  ${rows.join("\n  ")}`);
    },
  });
}
