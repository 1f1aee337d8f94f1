/**
 * Issue 22, class 1: hash-colliding keys. The collision family of the hostile corpus
 * (`corpus_collisions.ts`) runs on every executor, one program at a time next to a normal stream, in a
 * child host (see `harness.ts`), with the default budgets and a 4 s deadline (stretched by the load other
 * processes put on the machine). What is asserted:
 *
 * - the host survives and every program ends as labelled, stopped by its step or memory budget and not by
 *   the deadline: table operations are charged for what they cost, so the budget comes first;
 * - each answer comes within the deadline + 100 ms (scaled only by the load other processes put on the
 *   machine, `tests/timing.ts`);
 * - the host's event loop never stalls more than 150 ms (inline included), scaled by load likewise;
 * - the host's RSS never grows by 3× the memory budget over its baseline;
 * - CPU is idle in the second second after the last answer (a worker still walking a chain after its
 *   answer keeps a core busy).
 *
 * Before dict and set tables were keyed by table keys (src/starlark/values/table_key.ts), one `dict(d)`
 * of 12,000 big ints sharing their low 64 bits walked a 12,000-long chain per entry in one native call:
 * the engine polled 9–15 times in 3 s, the inline host froze up to 1.3 s at a time, and a worker kept
 * computing after its answer.
 */
import { COLLISIONS } from "./corpus_collisions.ts";
import { checkFamily, EXECUTORS } from "./family_check.ts";
import { loadFactor, slack } from "../timing.ts";

/** The deadline on a quiet machine: each program reaches its budget in well under a second there. */
const DEADLINE_MS = 4_000;

for (const { name, available } of EXECUTORS) {
  Deno.test({
    name:
      `containment: hash-colliding keys end classified, on time, without stalling the host (${name} executor)`,
    ignore: !available,
    async fn() {
      const external = loadFactor();
      await checkFamily({
        label: "collisions",
        executor: name,
        limits: { maxExecutionTime: Math.round(slack(DEADLINE_MS, external)) },
        programs: COLLISIONS.map((p) => p.name),
        wrongEnd: (r) =>
          !r.asExpected || r.timedOut
            ? `${r.name}: ${r.outcome}${r.timedOut ? " (deadline)" : ""} (${r.message})`
            : undefined,
        wrongEndMessage: "programs that ended other than by the budget their label names",
        external,
      });
    },
  });
}
