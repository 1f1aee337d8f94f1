/**
 * What the model reads when its program fails: a runtime error's position and message, and hints for
 * the Python habits that a Starlark error message alone does not explain.
 *
 * @module
 */
import type { EvalError, StarlarkSyntaxError } from "../starlark/mod.ts";
import { safeDetail } from "./protocol.ts";
import { displayText } from "./star_codec.ts";

/** The model-facing detail of a runtime error: where it happened, its message, and a hint. */
export function evalDetail(e: EvalError): string {
  const frames = e.callStack.filter((f) => f.line > 0);
  const inner = frames[frames.length - 1];
  const where = inner === undefined ? "" : `${inner.filename}:${inner.line}:${inner.col}: in ${inner.name}: `;
  const hint = RECURSIVE_CALL.test(e.message)
    ? "recursion is off: rewrite it as a for loop over range(n), keeping state in a list or dict"
    : undefined;
  return withHint(safeDetail(where + displayText(e.message)), hint);
}

const RECURSIVE_CALL = /^function \S+ called recursively$/;

/**
 * Hints for Python habits, keyed by the reference parser's or resolver's bare message. The message
 * itself stays the reference's, byte for byte (the golden suites compare it); the hint is added to the
 * model's detail only, because "got '**', want newline" does not tell a Python writer what to do.
 */
const SYNTAX_HINTS: readonly (readonly [RegExp, string])[] = [
  [/^got '\*\*', want /, "Starlark has no ** operator: use math.pow(x, y) for a float, or multiply"],
  [
    /^got (import|from), want /,
    "there is no import: json, math and the capability namespaces are predeclared",
  ],
  [/^got class, want /, "there are no classes: use dicts, and functions that take them"],
  [/^got try, want /, "there is no try/except: check first (k in d, d.get(k)); fail() stops the program"],
  [/^got is, want /, "there is no 'is' operator: use == and != (x == None)"],
  [/^got del, want /, "there is no del: use d.pop(k), list.pop(i) or list.remove(x), or build a new value"],
  [/^got with, want /, "there is no with statement"],
  [/^got yield, want /, "there are no generators: build a list and return it"],
  [
    /^got (global|nonlocal), want /,
    "globals are frozen once the top level ran: keep state in locals or a dict",
  ],
  [/does not support while loops$/, "while loops are off: use a for loop over range(n) with a break"],
  [/^undefined: (true|false)$/, "booleans are spelled True and False"],
  [/^undefined: (null|nil|undefined)$/, "the null value is spelled None"],
];

const F_STRING_HINT = 'there are no f-strings: use "total: %s" % x or "total: {}".format(x)';

/** `detail` with a hint appended, if there is one. */
export function withHint(detail: string, hint: string | undefined): string {
  return hint === undefined ? detail : safeDetail(`${detail} (hint: ${hint})`);
}

/** The hint for a syntax or resolve error, if it looks like a Python habit. */
export function syntaxHint(e: StarlarkSyntaxError, source: string): string | undefined {
  for (const [pattern, hint] of SYNTAX_HINTS) if (pattern.test(e.msg)) return hint;
  // `f"..."` scans as the name f followed by a string: the parser then wants a newline.
  if (e.msg.startsWith("got string literal, want ")) {
    const line = source.split("\n", e.line)[e.line - 1] ?? "";
    // The reference reports the position where the literal ends, so look for an f-prefixed quote
    // anywhere before it on the line.
    const before = line.slice(0, Math.max(0, e.col - 1));
    if (/(^|[^\w])[rR]?[fF][rR]?["']/.test(before)) return F_STRING_HINT;
  }
  return undefined;
}
