/**
 * The hostile corpus, compilation family (issue 22, class 3): programs whose source alone is the attack.
 * Scanning, parsing, resolving and compiling them used to run outside every budget — a dict display of
 * 100,000 keys compiled in quadratic time (17 s past a 2 s deadline on inline), and 200,000 statements
 * or a 4-million-digit literal kept a worker busy after its answer. They are generated here at sizes
 * that need `maxSourceBytes` raised ({@link COMPILE_LIMITS}); under the default 64 KiB they are refused
 * for their size. Raised, each must end classified within its deadline: the front end is charged to
 * the step and memory budgets and polls the deadline like execution.
 *
 * @module
 */
import type { HostileProgram } from "./corpus_kit.ts";
import type { Limits } from "../../mod.ts";

/** The limits the family is meant for: room for multi-megabyte sources, a 2 s deadline. */
export const COMPILE_LIMITS: Partial<Limits> = Object.freeze({
  maxSourceBytes: 8 * 2 ** 20,
  maxExecutionTime: 2_000,
});

const join = (n: number, sep: string, f: (i: number) => string) => {
  const parts: string[] = new Array(n);
  for (let i = 0; i < n; i++) parts[i] = f(i);
  return parts.join(sep);
};
const lines = (n: number, f: (i: number) => string) => join(n, "", f);
const MAIN = "def main():\n    return 1\n";

function program(name: string, why: string, source: () => string, ok = false): HostileProgram {
  // With the default maxSourceBytes every one is refused for its size (resource_limit); raised, the
  // budgets stop most of them, a few are ordinary syntax errors, and the cheap ones may succeed.
  const expect: HostileProgram["expect"] = ok
    ? ["resource_limit", "invalid_program", "ok"]
    : ["resource_limit", "invalid_program"];
  // harnessOnly: sources of megabytes are for the harness, not the HTTP edge (bodies are capped at 1 MiB).
  // The source is made when read: the family's ~45 MB of text must not stay in every host that imports
  // the corpus (the containment checks bound the live heap left after a run).
  return {
    name,
    kind: "compile",
    get source() {
      return source();
    },
    expect,
    why,
    harnessOnly: true,
  };
}

/** Hostile programs: compilation (generated families; see the module doc). */
export const COMPILATION: readonly HostileProgram[] = [
  program(
    "compile-dict-distinct-keys",
    "a dict display of 100,000 distinct constant keys (quadratic duplicate check)",
    () => `d = {${join(100_000, ", ", (i) => `"k${i}": ${i}`)}}\n${MAIN}`,
  ),
  program(
    "compile-dict-int-keys",
    "a dict display of 150,000 distinct int keys",
    () => `d = {${join(150_000, ", ", (i) => `${i}: ${i}`)}}\n${MAIN}`,
  ),
  program(
    "compile-dict-duplicated-keys",
    "a dict display of 150,000 entries over two keys, inside main (a runtime error if it ever runs)",
    () => `def main():\n    return {${join(150_000, ", ", (i) => `"k${i % 2}": ${i}`)}}\n`,
  ),
  program(
    "compile-list-display",
    "a list display of 400,000 elements",
    () => `l = [${join(400_000, ", ", (i) => `${i}`)}]\n${MAIN}`,
  ),
  program(
    "compile-statements",
    "200,000 top-level assignments to distinct globals",
    () => `${lines(200_000, (i) => `x${i} = ${i}\n`)}${MAIN}`,
  ),
  program(
    "compile-defs",
    "60,000 function definitions",
    () => `${lines(60_000, (i) => `def f${i}(a, b = ${i}):\n    return a + b\n`)}${MAIN}`,
  ),
  program(
    "compile-nested-defs",
    "200 levels of nested defs, 100 times over",
    () =>
      lines(100, (k) => {
        let s = "";
        for (let i = 0; i < 200; i++) s += `${" ".repeat(i)}def g${k}_${i}():\n`;
        return `${s}${" ".repeat(200)}return 0\n`;
      }) + MAIN,
    true,
  ),
  program(
    "compile-binary-chain",
    "a chain of 500,000 additions",
    () => `x = 1${" + 1".repeat(500_000)}\n${MAIN}`,
  ),
  program(
    "compile-string-concatenation",
    "300,000 string literals joined by +",
    () => `x = ${join(300_000, " + ", (i) => `"s${i % 10}"`)}\n${MAIN}`,
  ),
  program(
    "compile-int-literal",
    "a 4-million-digit int literal (superlinear decimal conversion)",
    () => `x = ${"7".repeat(4_000_000)}\n${MAIN}`,
  ),
  program(
    "compile-int-literals",
    "2,000 int literals of 2,000 digits each",
    () => `x = [${join(2_000, ", ", (i) => `${(i % 9) + 1}${"3".repeat(1_999)}`)}]\n${MAIN}`,
  ),
  program(
    "compile-float-literal",
    "a float literal of 3 million digits",
    () => `x = ${"7".repeat(3_000_000)}.5\n${MAIN}`,
  ),
  program(
    "compile-string-literal",
    "a 4 MB string literal with escapes",
    () => `x = "${"ab\\n\\x41".repeat(500_000)}"\n${MAIN}`,
    true,
  ),
  program(
    "compile-distinct-identifiers",
    "a function with 200,000 distinct locals",
    () => `def f():\n${lines(200_000, (i) => `    v${i} = ${i}\n`)}    return v0\n${MAIN}`,
  ),
  program(
    "compile-undefined-names",
    "20,000 globals and 20,000 undefined names (a spelling hint each, against every global)",
    () =>
      `${lines(20_000, (i) => `g${i} = ${i}\n`)}def main():\n${
        lines(20_000, (i) => `    u${i}x = g${i}\n    w${i}\n`)
      }    return 0\n`,
  ),
  program(
    "compile-comprehension-clauses",
    "one comprehension of 100,000 clauses",
    () => `x = [1 ${lines(100_000, (i) => `for a${i} in [1] `)}]\n${MAIN}`,
  ),
  program(
    "compile-comprehension-nest",
    "comprehensions nested 12 deep, 20,000 times over",
    () => lines(20_000, (k) => `c${k} = ${"[".repeat(12)}1${" for _ in []]".repeat(12)}\n`) + MAIN,
  ),
  program(
    "compile-brackets",
    "30,000 statements nesting brackets 75 deep (near the parser's limit)",
    () => lines(30_000, (i) => `b${i} = ${"[".repeat(75)}${"]".repeat(75)}\n`) + MAIN,
  ),
  program(
    "compile-elif-chain",
    "an elif chain of 100,000 branches",
    () =>
      `def main():\n    x = 1\n    if x == 0:\n        return 0\n${
        lines(100_000, (i) => `    elif x == ${i + 2}:\n        return ${i}\n`)
      }    return 1\n`,
  ),
];
