/**
 * The hostile corpus, error-quote family (issue 22, class 2): programs whose error message would quote a
 * huge value. `{"a": 1}["\x01" * 20000000]` used to build an 80-million-character message in one step
 * that was neither charged nor polled (1.8 s on the host thread, RSS +350 MB against a 64 MiB budget),
 * only for the host to cut it to 4 KB. The family is generated: every construct whose message embeds an
 * operand (a dict key's repr, a keyword's name, an attribute name, a literal's text, an int's digits,
 * `fail`'s text, a native call's keyword or key) × every huge operand kind it accepts. Each must end as
 * an ordinary program error (`invalid_program`, or `invalid_arguments` for a native call) whose message
 * quotes a bounded prefix; under a small memory budget building the operand itself may be what stops it
 * (`resource_limit`).
 *
 * @module
 */
import { type HostileProgram, main } from "./corpus_kit.ts";

/** A huge operand: lines that set `v`. */
interface Operand {
  readonly name: string;
  readonly lines: readonly string[];
}

/** A string operand of `n` bytes repeating `unit` (a Starlark literal of `size` bytes). */
function text(name: string, unit: string, size: number, n: number): Operand {
  return { name, lines: [`v = "${unit}" * ${n / size}`] };
}

// Messages that quote the operand: tens of megabytes of text (80 MB once `\x01` is escaped).
const CONTROL = text("control-str", "\\x01", 1, 20_000_000);
const PLAIN = text("plain-str", "x", 1, 20_000_000);
// Capitals: the spelling hint of an attribute or keyword folds the name to lower case.
const CAPITALS = text("capitals-str", "X", 1, 20_000_000);
// Constructs that copy, parse or hash the operand (a dict key, a keyword) are charged steps per byte,
// and the default budget is 1M steps: their operands are smaller, still megabytes of message before.
const DIGITS = text("digit-str", "1", 1, 1_000_000);
const CONTROL_4M = text("control-str", "\\x01", 1, 4_000_000);
const PLAIN_4M = text("plain-str", "x", 1, 4_000_000);
const PLAIN_1M = text("plain-str", "x", 1, 1_000_000);
const KEY_CONTROL = text("control-str", "\\x01", 1, 1_000_000);
const KEY_PLAIN = text("plain-str", "x", 1, 1_000_000);
const KEY_CAPITALS = text("capitals-str", "X", 1, 1_000_000);
const KEY_UTF8 = text("utf8-str", "\\u65e5", 3, 999_999);
const BYTES: Operand = { name: "bytes", lines: ['v = b"\\xff" * 1000000'] };
// 511 · 2^9 bits: just under the default cap on int size (2^18 bits, 78,913 digits).
const INT: Operand = { name: "int", lines: ["v = 1 << 511", "for _ in range(9):", "    v = v * v"] };
const TUPLE: Operand = { name: "tuple", lines: ['v = tuple(["\\x01" * 10000] * 100)'] };
const LIST: Operand = { name: "list", lines: ["v = list(range(200000))"] };
// A path of 40,000 levels (the default step budget allows no more): the message names every one.
const DEEP_PATH: Operand = {
  name: "deep-path",
  lines: ['v = float("nan")', "for _ in range(40000):", "    v = [v]"],
};
const DEEP: Operand = { name: "deep-dict", lines: ["v = {}", "for _ in range(100000):", '    v = {"k": v}'] };

/** A construct whose message embeds `v`, with the operands it accepts. */
interface Construct {
  readonly name: string;
  readonly lines: readonly string[];
  readonly operands: readonly Operand[];
  /** How it ends under the default limits (default: a program error). */
  readonly outcome?: "invalid_arguments";
  /** Whether it calls the harness-only capabilities. */
  readonly harnessOnly?: boolean;
}

const KEYS = [KEY_CONTROL, KEY_PLAIN, KEY_UTF8];
const HASHABLE = [...KEYS, BYTES, INT, TUPLE];

const CONSTRUCTS: readonly Construct[] = [
  { name: "dict-index", lines: ['return {"a": 1}[v]'], operands: HASHABLE },
  { name: "duplicate-key", lines: ["return {v: 1, v: 2}"], operands: [KEY_CONTROL, BYTES, INT, TUPLE] },
  { name: "fail", lines: ["fail(v)"], operands: [CONTROL, PLAIN, BYTES, INT, TUPLE, LIST, DEEP] },
  { name: "fail-args", lines: ['fail("got", v, "and", v)'], operands: [CONTROL, LIST] },
  {
    name: "function-keyword",
    lines: ["def f(x = 1):", "    return x", "return f(**{v: 1})"],
    operands: KEYS,
  },
  {
    name: "builtin-keyword",
    lines: ["return sorted([], **{v: 1})"],
    operands: [KEY_CONTROL, KEY_PLAIN, KEY_CAPITALS],
  },
  {
    name: "native-keyword",
    lines: ["return text.echo(**{v: 1})"],
    operands: [KEY_CONTROL, KEY_PLAIN],
    outcome: "invalid_arguments",
    harnessOnly: true,
  },
  {
    name: "native-key-path",
    lines: ['return data.size(value = {v: float("nan")})'],
    operands: [KEY_CONTROL],
    outcome: "invalid_arguments",
    harnessOnly: true,
  },
  { name: "json-path", lines: ["return json.encode(v)"], operands: [DEEP_PATH] },
  { name: "json-key", lines: ['return json.encode({v: float("nan")})'], operands: [PLAIN_1M] },
  {
    name: "format-conversion",
    lines: ['return ("{!" + v + "}").format(1)'],
    operands: [CONTROL_4M, PLAIN_4M],
  },
  { name: "format-keyword", lines: ['return ("{" + v + "}").format()'], operands: [CONTROL_4M, PLAIN_4M] },
  { name: "percent-key", lines: ['return ("%(" + v + ")s") % {}'], operands: [CONTROL_4M, PLAIN_4M] },
  { name: "getattr", lines: ["return getattr(1, v)"], operands: [CONTROL, PLAIN, CAPITALS] },
  { name: "module-attr", lines: ["return getattr(json, v)"], operands: [PLAIN] },
  { name: "int-literal", lines: ['return int(v + "x")'], operands: [DIGITS, CONTROL_4M] },
  { name: "float-literal", lines: ['return float(v + "x")'], operands: [DIGITS] },
  { name: "json-number", lines: ['return json.decode("[" + v + ".5.5]")'], operands: [DIGITS] },
  { name: "percent-c", lines: ['return "%c" % v'], operands: [INT] },
  { name: "repeat-count", lines: ['return "ab" * v'], operands: [INT] },
  { name: "list-index", lines: ["return [1][v]"], operands: [INT] },
  { name: "int-in-bytes", lines: ['return v in b"ab"'], operands: [INT] },
  { name: "bytes-element", lines: ["return bytes([v])"], operands: [INT] },
  { name: "int64-parameter", lines: ["return range(v)"], operands: [INT] },
];

/** Hostile programs: error messages about huge values (generated; see the module doc). */
export const ERROR_QUOTES: readonly HostileProgram[] = CONSTRUCTS.flatMap((c) =>
  c.operands.map((o): HostileProgram => ({
    name: `error-quote-${c.name}-${o.name}`,
    kind: "error-quote",
    source: main(...o.lines, ...c.lines),
    expect: [c.outcome ?? "invalid_program", "resource_limit"],
    why: `the ${c.name} error quotes a ${o.name} operand whose whole text is tens of megabytes`,
    ...(c.harnessOnly === true ? { harnessOnly: true } : {}),
  }))
);
