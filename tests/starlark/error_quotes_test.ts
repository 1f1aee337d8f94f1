/**
 * Error messages that quote a program's value stay bounded (issue 22, class 2): every construct whose
 * message embeds an operand (`repr` of a key, a raw string, an int's digits, `fail`'s text) is run with
 * huge operands of every kind it accepts (long strings with and without escapes, multi-byte text, bytes,
 * big tuples and lists, deep dicts, huge ints). Each message must be short, quote a prefix of the text
 * the reference would print, and end that prefix with `... (N more UNIT)` where N is right; the rest of
 * the message must be the reference's. With small operands the message must be the reference's byte for
 * byte: the same text built from the whole `repr`, and with `STARLARK_REF=1` the reference command's own
 * output.
 */
import assert from "node:assert/strict";
import {
  Bytes,
  Dict,
  EvalError,
  execFile,
  List,
  repr,
  standardPredeclared,
  Tuple,
  type Value,
} from "../../src/starlark/mod.ts";
import { FAIL_LIMIT, QUOTE_LIMIT } from "../../src/starlark/values/mod.ts";
import { runCliCapture, runReferenceFile } from "./cli_runs.ts";

const withReference = Deno.env.get("STARLARK_REF") === "1";

/** How a construct's message shows the operand. */
type Form = "repr" | "text" | "int" | "fail";

/** An operand kind: Starlark statements that set `v`, small and huge. */
interface Kind {
  readonly name: string;
  readonly small: string;
  readonly huge: string;
  readonly str?: boolean;
  readonly hashable: boolean;
  readonly int?: boolean;
}

const KINDS: readonly Kind[] = [
  { name: "plain str", small: 'v = "ab"', huge: 'v = "x" * 2000000', str: true, hashable: true },
  {
    name: "escaped str",
    small: 'v = "a\\x01\\"\\n"',
    huge: 'v = "\\x01\\"" * 1000000',
    str: true,
    hashable: true,
  },
  {
    name: "utf-8 str",
    small: 'v = "\\u65e5\\u00e9"',
    huge: 'v = "\\u65e5" * 700000',
    str: true,
    hashable: true,
  },
  { name: "bytes", small: 'v = b"\\x01a"', huge: 'v = b"\\xff" * 2000000', hashable: true },
  {
    name: "int",
    small: "v = 1 << 70",
    huge: "v = 1 << 511\nfor _ in range(8):\n    v = v * v",
    int: true,
    hashable: true,
  },
  { name: "tuple", small: 'v = ("a", 1)', huge: 'v = tuple(["x" * 1000] * 2000)', hashable: true },
  { name: "list", small: 'v = [1, "a"]', huge: "v = list(range(200000))", hashable: false },
  {
    name: "deep dict",
    small: 'v = {"k": {"j": 1}}',
    huge: 'v = {}\nfor _ in range(5000):\n    v = {"k": v}',
    hashable: false,
  },
];

/** A construct whose error message embeds its operand `v`. */
interface Construct {
  readonly name: string;
  /** Starlark statements raising the error (may use `v`). */
  readonly code: string;
  /** The message, with the operand's text where `@` stands. */
  readonly message: string;
  readonly form: Form;
  /** Which operand kinds it accepts. */
  readonly kinds: (k: Kind) => boolean;
  /** The operand text in the whole message, when it is not `v` itself (e.g. `v + "!"`). */
  readonly operand?: (v: Value) => Value;
}

const strs = (k: Kind) => k.str === true;
const hashables = (k: Kind) => k.hashable;
const ints = (k: Kind) => k.int === true;

const CONSTRUCTS: readonly Construct[] = [
  { name: "dict index", code: '{"a": 1}[v]', message: "key @ not in dict", form: "repr", kinds: hashables },
  {
    name: "duplicate key",
    code: "{v: 1, v: 2}",
    message: "duplicate key: @",
    form: "repr",
    kinds: hashables,
  },
  { name: "fail(v)", code: "fail(v)", message: "fail: @", form: "fail", kinds: () => true },
  {
    name: "function keyword",
    code: "def f(x = 1):\n        pass\n    f(**{v: 1})",
    message: "function f got an unexpected keyword argument @",
    form: "repr",
    kinds: strs,
  },
  {
    name: "builtin keyword",
    code: "sorted([], **{v: 1})",
    message: "sorted: unexpected keyword argument @",
    form: "repr",
    kinds: strs,
  },
  {
    name: "json.encode key",
    code: 'json.encode({v: float("nan")})',
    message: "json.encode: in dict key @: cannot encode non-finite float nan",
    form: "repr",
    kinds: strs,
  },
  {
    name: "format conversion",
    code: '("{!" + v + "}").format(1)',
    message: "format: unknown conversion @",
    form: "repr",
    kinds: strs,
  },
  {
    name: "format keyword",
    code: '("{" + v + "}").format()',
    message: "format: keyword @ not found",
    form: "text",
    kinds: strs,
  },
  {
    name: "percent key",
    code: '("%(" + v + ")s") % {}',
    message: "key not found: @",
    form: "text",
    kinds: strs,
  },
  {
    name: "getattr",
    code: "getattr(1, v)",
    message: "getattr: int has no .@ field or method",
    form: "text",
    kinds: strs,
  },
  {
    name: "module attribute",
    code: "getattr(json, v)",
    message: "getattr: module has no .@ field or method",
    form: "text",
    kinds: strs,
  },
  {
    name: "int literal",
    code: 'int(v + "!")',
    message: "int: invalid literal with base 10: @",
    form: "text",
    kinds: strs,
    operand: (v) => (v as string) + "!",
  },
  {
    name: "float literal",
    code: 'float(v + "!")',
    message: "invalid float literal: @",
    form: "text",
    kinds: strs,
    operand: (v) => (v as string) + "!",
  },
  {
    name: "percent %c",
    code: '"%c" % v',
    message: "%c format requires a valid Unicode code point, got @",
    form: "int",
    kinds: ints,
  },
  { name: "repeat count", code: '"ab" * v', message: "repeat count @ too large", form: "int", kinds: ints },
  { name: "list index", code: "[1][v]", message: "list index: @ out of range", form: "int", kinds: ints },
  {
    name: "int in bytes",
    code: 'v in b"ab"',
    message: "int in bytes: @ out of range (want value in unsigned 8-bit range)",
    form: "int",
    kinds: ints,
  },
  {
    name: "bytes element",
    code: "bytes([v])",
    message: "bytes: at index 0, @ out of range (want value in unsigned 8-bit range)",
    form: "int",
    kinds: ints,
  },
  {
    name: "int64 parameter",
    code: "range(v)",
    message: "range: for parameter 1: @ out of range (want value in signed 64-bit range)",
    form: "int",
    kinds: ints,
  },
];

/** The JSON number construct takes a string of digits (its own operand kind). */
const JSON_NUMBER = {
  small: 'v = "12"',
  huge: 'v = "1" * 2000000',
  code: 'json.decode("[" + v + ".5.5]")',
  message: "json.decode: at offset ?, invalid number: @",
};

function program(setup: string, code: string): string {
  const body = [...setup.split("\n"), ...code.split("\n").map((l) => l.replace(/^ {4}/, ""))];
  return `def main():\n${body.map((l) => `    ${l}`).join("\n")}\nmain()\n`;
}

/** Runs `src`; returns the error and the value `v` the program set up (from a run without the error). */
function runError(setup: string, code: string): { message: string; v: Value } {
  let message = "";
  try {
    execFile(program(setup, code), { predeclared: standardPredeclared() });
    assert.fail(`no error from ${code}`);
  } catch (e) {
    if (!(e instanceof EvalError)) throw e;
    message = e.message;
  }
  const { globals } = execFile(
    `def main():\n${setup.split("\n").map((l) => `    ${l}`).join("\n")}\n    return v\nv = main()\n`,
  );
  return { message, v: globals.get("v")! };
}

/** The operand's whole text in a message, as the reference prints it. */
function wholeText(form: Form, v: Value): string {
  if (form === "text") return v as string;
  if (form === "int") return String(v);
  if (form === "fail") return typeof v === "string" ? v : repr(v);
  return repr(v);
}

const MARKER = /\.\.\. \((\d+) more (bytes?|digits?|elements?|entry|entries)\)/;

/** How many bytes of `s` a cut quoted prefix `shown` covers (it is the quote of s[0:k], unclosed). */
function bytesQuoted(v: string | Bytes, shown: string): number {
  const s = typeof v === "string" ? v : v.data;
  for (let k = Math.min(s.length, shown.length); k >= 0; k--) {
    const q = repr(typeof v === "string" ? s.slice(0, k) : new Bytes(s.slice(0, k)));
    if (q.slice(0, -1) === shown) return k;
  }
  throw new Error(`no prefix of the operand quotes as ${shown.slice(0, 40)}`);
}

/** Top-level elements whose text ends within the first `n` characters of `repr(x)`. */
function elementsShown(x: List | Tuple | Dict, n: number): number {
  const parts = x instanceof Dict
    ? x.keys().map((k) => `${repr(k)}: ${repr(x.get(k)!)}`)
    : x.elems.map((e) => repr(e));
  let pos = 1, done = 0;
  for (let i = 0; i < parts.length; i++) {
    pos += (i > 0 ? 2 : 0) + parts[i].length;
    if (pos <= n) done++;
    else break;
  }
  return done;
}

/** Checks a message about a huge operand: bounded, a prefix of the whole message, the right count. */
function checkHuge(label: string, template: string, form: Form, message: string, operand: Value): void {
  const [pre, post] = template.split("@");
  const limit = form === "fail" ? FAIL_LIMIT : QUOTE_LIMIT;
  assert.ok(message.length <= limit + pre.length + post.length + 40, `${label}: ${message.length} chars`);
  const m = MARKER.exec(message);
  assert.ok(m !== null, `${label}: no marker in ${message.slice(0, 80)}...${message.slice(-80)}`);
  assert.ok(message.startsWith(pre), `${label}: ${message.slice(0, 80)}`);
  assert.equal(message.slice(m.index + m[0].length), post, `${label}: the text after the operand`);
  const shown = message.slice(pre.length, m.index);
  const whole = wholeText(form, operand);
  assert.ok(whole.startsWith(shown), `${label}: the quoted part is not a prefix of the whole text`);
  assert.ok(shown.length <= limit, `${label}: ${shown.length} characters of the operand`);
  const n = Number(m[1]);
  if (typeof operand === "string" && (form === "text" || form === "fail")) {
    assert.equal(n, operand.length - shown.length, `${label}: bytes left`);
  } else if (typeof operand === "string" || operand instanceof Bytes) {
    const size = typeof operand === "string" ? operand.length : operand.data.length;
    assert.equal(n, size - bytesQuoted(operand, shown), `${label}: bytes left`);
  } else if (typeof operand === "bigint") {
    assert.equal(n, whole.length - shown.length, `${label}: digits left`);
  } else if (operand instanceof List || operand instanceof Tuple || operand instanceof Dict) {
    const size = operand instanceof Dict ? operand.size : operand.elems.length;
    assert.equal(n, size - elementsShown(operand, shown.length), `${label}: elements left`);
  } else {
    assert.fail(`${label}: unexpected operand ${typeof operand}`);
  }
}

for (const c of CONSTRUCTS) {
  Deno.test(`error quotes: ${c.name} quotes a bounded prefix of a huge operand`, () => {
    const kinds = KINDS.filter(c.kinds);
    assert.ok(kinds.length > 0);
    for (const k of kinds) {
      const { message, v } = runError(k.huge, c.code);
      checkHuge(`${c.name} × ${k.name}`, c.message, c.form, message, c.operand?.(v) ?? v);
    }
  });

  Deno.test(`error quotes: ${c.name} with a small operand prints the whole text`, () => {
    for (const k of KINDS.filter(c.kinds)) {
      const { message, v } = runError(k.small, c.code);
      assert.equal(
        message,
        c.message.replace("@", wholeText(c.form, c.operand?.(v) ?? v)),
        `${c.name} × ${k.name}`,
      );
    }
  });
}

Deno.test("error quotes: json.decode's invalid number quotes a bounded prefix", () => {
  const { message, v } = runError(JSON_NUMBER.huge, JSON_NUMBER.code);
  const template = JSON_NUMBER.message.replace("?", String((v as string).length + 5));
  checkHuge("json number", template, "text", message, (v as string) + ".5.5");
  const small = runError(JSON_NUMBER.small, JSON_NUMBER.code);
  assert.equal(small.message, "json.decode: at offset 7, invalid number: 12.5.5");
});

Deno.test("error quotes: fail with several arguments cuts the text and counts what is left", () => {
  const { message } = runError('v = "y" * 100000', 'fail("got", v, "and", 1)');
  assert.equal(
    message,
    "fail: got " + "y".repeat(FAIL_LIMIT - 4) +
      `... (${100000 - FAIL_LIMIT + 4} more bytes) and 2 more arguments`,
  );
});

// With the reference command: the small-operand messages are its own, byte for byte.
Deno.test({
  name: "error quotes: small-operand messages equal the reference command's",
  ignore: !withReference,
  async fn() {
    const cases: string[] = [];
    for (const c of CONSTRUCTS) for (const k of KINDS.filter(c.kinds)) cases.push(program(k.small, c.code));
    cases.push(program(JSON_NUMBER.small, JSON_NUMBER.code));
    for (const src of cases) {
      const ref = (await runReferenceFile([], "main.star", src)).trimEnd().split("\n").pop()!;
      const ours = runCliCapture(["--no-steps"], "main.star", src).trimEnd().split("\n").pop()!;
      assert.equal(ours, ref, src);
    }
  },
});

Deno.test("error quotes: json.encode's path through deeply nested values is bounded and counts the levels", () => {
  for (const key of ['"k"', '"\\x01" * 300']) {
    const { message } = runError(
      `k = ${key}\nv = float("nan")\nfor _ in range(20000):\n    v = [{k: v}]`,
      "json.encode(v)",
    );
    assert.ok(message.length < 6_000, `${message.length} chars`);
    const m = /\.\.\. \((\d+) more levels\): cannot encode non-finite float nan$/.exec(message);
    assert.ok(m !== null, message.slice(-100));
    const shown = message.split(/: (?=at list index|in dict key)/).length - 1;
    assert.equal(shown + Number(m[1]), 40_000, "every level is shown or counted");
  }
  // A shallow path is the reference's, whole.
  const small = runError('v = {"a": [1, {"b\\x01": float("nan")}]}', "json.encode(v)");
  assert.equal(
    small.message,
    'json.encode: in dict key "a": at list index 1: in dict key "b\\x01": cannot encode non-finite float nan',
  );
});
