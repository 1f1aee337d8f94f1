/**
 * What the model reads when its program fails: a runtime error's position and message, and hints for
 * the Python habits that a Starlark error message alone does not explain.
 *
 * @module
 */
import type { EvalError, StarlarkSyntaxError } from "../starlark/mod.ts";
import { safeDetail } from "./protocol.ts";
import { displayText } from "./star_codec.ts";
import { listNames, nearestName } from "../suggest/mod.ts";

/**
 * The names a program runs with: its predeclared roots (`json`, `math`, `sum`, the capability
 * namespaces) and the capabilities. Only the catalog the program may call is there, so a suggestion
 * drawn from it never names a capability the caller may not use.
 */
export interface ProgramNames {
  /** The predeclared names, by name. */
  readonly predeclared: ReadonlyMap<string, unknown>;
  /** The capabilities, with their dotted names. */
  readonly stubs: readonly { readonly name: string }[];
}

/** The model-facing detail of a runtime error: where it happened, its message, and a hint. */
export function evalDetail(e: EvalError, source = "", names?: ProgramNames): string {
  const frames = e.callStack.filter((f) => f.line > 0);
  const inner = frames[frames.length - 1];
  const where = inner === undefined ? "" : `${inner.filename}:${inner.line}:${inner.col}: in ${inner.name}: `;
  const hint = RECURSIVE_CALL.test(e.message)
    ? "recursion is off: rewrite it as a for loop over range(n), keeping state in a list or dict"
    : inner === undefined || names === undefined
    ? undefined
    : missingCapabilityHint(e.message, source, inner.line, inner.col, names);
  return withHint(safeDetail(where + displayText(e.message)), hint);
}

// The engine's own message for a namespace without that member, when it found no near member to name.
const NO_MEMBER = /^module has no \.([A-Za-z_][A-Za-z0-9_]*) field or method$/;

/**
 * For `crm.delete_all` (a namespace without that member): the nearest capability the program may call,
 * else the capabilities of that namespace. The namespace is read from the source before the failing
 * `.` (the error's position).
 */
function missingCapabilityHint(
  message: string,
  source: string,
  line: number,
  col: number,
  names: ProgramNames,
): string | undefined {
  const member = NO_MEMBER.exec(message)?.[1];
  if (member === undefined) return undefined;
  const text = source.split("\n", line)[line - 1] ?? "";
  if (text[col - 1] !== ".") return undefined;
  const namespace = /([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/.exec(text.slice(0, col - 1))
    ?.[1];
  if (namespace === undefined) return undefined;
  const inside = names.stubs.map((s) => s.name).filter((n) => n.startsWith(`${namespace}.`)).sort();
  if (inside.length === 0) return undefined;
  // Compared below the namespace, so a long namespace does not widen what counts as near.
  const near = nearestName(member, inside.map((n) => n.slice(namespace.length + 1)));
  return near !== undefined
    ? `did you mean ${namespace}.${near}? ${namespace} has ${listNames(inside)}`
    : `${namespace} has ${listNames(inside)}; search_api finds capabilities by task words`;
}

/** For `undefined: crn`: the nearest predeclared root (`crm`), else a capability named like it. */
function undefinedNameHint(name: string, names: ProgramNames): string | undefined {
  const roots = [...names.predeclared.keys()].sort();
  const near = nearestName(name, roots) ?? nearestName(name, names.stubs.map((s) => s.name).sort());
  return near === undefined ? undefined : `did you mean ${near}?`;
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

const UNDEFINED = /^undefined: ([A-Za-z_][A-Za-z0-9_]*)$/;

const F_STRING_HINT = 'there are no f-strings: use "total: %s" % x or "total: {}".format(x)';

/** `detail` with a hint appended, if there is one. */
export function withHint(detail: string, hint: string | undefined): string {
  return hint === undefined ? detail : safeDetail(`${detail} (hint: ${hint})`);
}

/**
 * The hint for a syntax or resolve error: a Python habit, or for an undefined name (that the resolver
 * found no near local or global for) the nearest of `names`.
 */
export function syntaxHint(e: StarlarkSyntaxError, source: string, names?: ProgramNames): string | undefined {
  for (const [pattern, hint] of SYNTAX_HINTS) if (pattern.test(e.msg)) return hint;
  const undefinedName = UNDEFINED.exec(e.msg)?.[1];
  if (undefinedName !== undefined && names !== undefined) return undefinedNameHint(undefinedName, names);
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
