/**
 * The hostile corpus of issue 9: small Starlark programs written as an attacker would write them against
 * the default limits, across every value type. Each is labelled with the outcomes it may legitimately end
 * with; almost all must end as `resource_limit` (a budget stops them), a few are ordinary program errors
 * (`invalid_program`, `invalid_arguments`), and a few may succeed because the work they ask for is
 * bounded. None may kill the host, overrun its deadline, or end as `internal`.
 *
 * The programs call the harness catalog (`tests/containment/harness.ts`): the demo shop capabilities plus
 * `text.echo(text)`, `data.total(values)` and `data.size(value)` (any JSON value).
 *
 * @module
 */
import { type HostileProgram, main } from "./corpus_kit.ts";
import { BOUNDED, BYTES, DICTS, INTS, ISSUE, LISTS, SETS, STRINGS, TUPLES } from "./corpus_values.ts";
import { LONG_BUILTINS } from "./corpus_builtins.ts";
import {
  COMPREHENSIONS,
  HOLD,
  JSON_PROGRAMS,
  LOOPS,
  NATIVE,
  NESTING,
  PRINTS,
  RECURSION,
  RESULTS,
} from "./corpus_flows.ts";
import { COMPILATION } from "./corpus_compile.ts";
import { ERROR_QUOTES } from "./corpus_error_quotes.ts";
import { HANDLER_OBJECTS } from "./corpus_handlers.ts";
import { COLLISIONS } from "./corpus_collisions.ts";

export type { HostileClass, HostileProgram, Outcome } from "./corpus_kit.ts";

/** The whole hostile corpus, in a stable order. */
export const HOSTILE_CORPUS: readonly HostileProgram[] = Object.freeze([
  ...ISSUE,
  ...INTS,
  ...STRINGS,
  ...BYTES,
  ...LISTS,
  ...TUPLES,
  ...DICTS,
  ...SETS,
  ...COMPREHENSIONS,
  ...JSON_PROGRAMS,
  ...NESTING,
  ...RECURSION,
  ...LOOPS,
  ...NATIVE,
  ...LONG_BUILTINS,
  ...RESULTS,
  ...PRINTS,
  ...HOLD,
  ...BOUNDED,
  ...COMPILATION,
  ...ERROR_QUOTES,
  ...HANDLER_OBJECTS,
  ...COLLISIONS,
]);

/** The normal program the well-behaved subject runs next to the corpus, and its expected result. */
export const NORMAL_PROGRAM: { readonly source: string; readonly expected: unknown } = Object.freeze({
  source: main(
    'c = crm.customer(id = "c-104")',
    "total = 0",
    "for i in range(100):",
    "    total += i % 7",
    'return {"city": c["city"], "total": total, "echo": text.echo(text = "ok")["text"]}',
  ),
  expected: { city: "Berlin", total: 295, echo: "ok" },
});

/** Looks a program up by name (throws for an unknown name, so a typo fails loudly). */
export function hostileProgram(name: string): HostileProgram {
  const p = HOSTILE_CORPUS.find((x) => x.name === name);
  if (p === undefined) throw new Error(`no hostile program named ${name}`);
  return p;
}
