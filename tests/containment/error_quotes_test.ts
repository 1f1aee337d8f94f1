/**
 * Issue 22, class 2: error messages that quote huge values. The error-quote family of the hostile corpus
 * (`corpus_error_quotes.ts`) runs on every executor, one program at a time next to a normal stream, in a
 * child host (see `harness.ts`), with a 2 s deadline and the default 64 MiB memory budget. What is
 * asserted:
 *
 * - the host survives and every program ends as an ordinary error (`invalid_program`, or
 *   `invalid_arguments` for a native call): the message is built, and building it exhausts no budget;
 * - each answer comes within the deadline + 100 ms (scaled only by the load other processes put on the
 *   machine, `tests/timing.ts`);
 * - the host's event loop never stalls more than 150 ms (inline included);
 * - the host's RSS never grows by 3× the memory budget over its baseline;
 * - CPU is idle in the second second after the last answer.
 *
 * And in this process, on every executor: the message the caller receives names the operand by a
 * bounded prefix ending in `... (N more UNIT)`, well inside the detail a host shows (2 KiB).
 *
 * Before messages were bounded, `{"a": 1}["\x01" * 20000000]` held the inline host 1.8–3.5 s to build
 * an 80-million-character message, and the family together stalled it 13 s with RSS near 1 GB.
 */
import assert from "node:assert/strict";
import { isCodeModeError, type Limits } from "../../mod.ts";
import { ERROR_QUOTES } from "./corpus_error_quotes.ts";
import { buildHarnessServer } from "./harness.ts";
import { checkFamily, EXECUTORS } from "./family_check.ts";
import { loadFactor } from "../timing.ts";

const LIMITS: Partial<Limits> = Object.freeze({ maxExecutionTime: 2_000 });
/** The most of an error's detail a host shows. */
const DETAIL_CHARS = 2_048;

/** The outcome a program of the family has under the default limits (the first of its labels). */
const expected = (name: string) => ERROR_QUOTES.find((p) => p.name === name)!.expect[0];

for (const { name, available } of EXECUTORS) {
  Deno.test({
    name: `containment: errors about huge values end classified, bounded and fast (${name} executor)`,
    ignore: !available,
    async fn() {
      await checkFamily({
        label: "error quotes",
        executor: name,
        limits: LIMITS,
        programs: ERROR_QUOTES.map((p) => p.name),
        wrongEnd: (r) =>
          r.outcome !== expected(r.name) ? `${r.name}: ${r.outcome} (${r.message})` : undefined,
        wrongEndMessage: "programs that did not end as an ordinary error",
        external: loadFactor(),
      });
    },
  });

  Deno.test({
    name: `containment: the caller reads a bounded prefix and how much is left out (${name} executor)`,
    ignore: !available,
    async fn() {
      const server = await buildHarnessServer(name, LIMITS);
      try {
        const wrong: string[] = [];
        for (const p of ERROR_QUOTES) {
          let message = "";
          try {
            await server.execute({ id: "quoter" }, p.source);
            wrong.push(`${p.name}: no error`);
            continue;
          } catch (e) {
            if (!isCodeModeError(e) || e.code !== p.expect[0]) throw e;
            message = e.message;
          }
          // fail's message (1 KiB, escaped by the host at 4 characters a control byte) and a path through
          // nested values (4 KiB of levels) may fill the 2 KiB the host shows before their marker; every
          // other message is short and shows it.
          const long = p.name.startsWith("error-quote-fail") || p.name.startsWith("error-quote-json-path");
          const markerHidden = long && (p.name.endsWith("control-str") || p.name.includes("json-path"));
          const marker = /\.\.\. \(\d+ more (bytes?|digits?|elements?|entry|entries)\)/.test(message);
          const bound = long ? DETAIL_CHARS : 1_200;
          if (message.length > bound || (!marker && !markerHidden)) {
            wrong.push(`${p.name}: ${message.length} chars: ${message.slice(0, 100)}…${message.slice(-100)}`);
          }
        }
        assert.deepEqual(wrong, []);
      } finally {
        await server.close();
      }
    },
  });
}
