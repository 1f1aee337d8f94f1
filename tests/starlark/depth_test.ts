/**
 * Depth: programs whose syntax trees or values are deeper than any JS stack would allow if the engine
 * recursed once per level (chains of 10,000+ operators, `elif` chains, postfix chains, values nested
 * 100,000 deep). Each case's expected output is computed here, independently of the engine; with
 * `STARLARK_REF=1` the reference binary must print the same (the programs are too large for `-c`, so
 * they run from a file).
 */
import assert from "node:assert/strict";
import { runReferenceFile } from "./cli_runs.ts";
import { json, math } from "../../src/starlark/lib/mod.ts";
import {
  call,
  EvalError,
  execFile,
  List,
  ResourceError,
  StarlarkSyntaxError,
  toJSString,
} from "../../src/starlark/mod.ts";

const withReference = Deno.env.get("STARLARK_REF") === "1";
const FILE = "depth.star";

/** Runs `src` like the reference command runs a file with `-recursion`, returning what it would print. */
function runOurs(src: string): string {
  let out = "";
  try {
    execFile(src, {
      filename: FILE,
      predeclared: { json, math },
      dialect: { set: true, recursion: true, while: true },
      maxSteps: 100_000_000,
      print: (_t, msg) => void (out += toJSString(msg) + "\n"),
    });
  } catch (e) {
    if (e instanceof EvalError) out += toJSString(e.backtrace()) + "\n";
    else if (e instanceof StarlarkSyntaxError) out += e.message + "\n";
    else throw e;
  }
  return out;
}

const runReference = (src: string) => runReferenceFile(["-recursion"], FILE, src);

interface Case {
  name: string;
  src: string;
  want: string;
}

const N = 10_000;
const cases: Case[] = [];
const add = (name: string, src: string, want: string) => cases.push({ name, src, want });

// Left-associative operator chains, each term alternating operators of one precedence level.
{
  const terms = Array.from({ length: N }, (_, i) => (i * 7919) % 97);
  let acc = terms[0];
  let src = `x = ${terms[0]}`;
  for (let i = 1; i < N; i++) {
    if (i % 3 === 2) {
      src += ` - ${terms[i]}`;
      acc -= terms[i];
    } else {
      src += ` + ${terms[i]}`;
      acc += terms[i];
    }
  }
  add("+/- chain", `${src}\nprint(x)\n`, `${acc}\n`);
}
{
  let src = "x = 1", acc = 1;
  for (let i = 1; i < N; i++) {
    const v = (i % 5) + 1;
    if (i % 2 === 0) {
      src += ` * ${v}`;
      acc = (acc * v) % 1_000_003;
    } else {
      src += ` % 1000003`;
      acc %= 1_000_003;
    }
  }
  add("* and % chain", `${src}\nprint(x)\n`, `${acc}\n`);
}
{
  const parts = Array.from({ length: N }, (_, i) => `x == ${i}`);
  add("or chain", `x = ${N - 1}\nprint(${parts.join(" or ")})\n`, "True\n");
  add("and chain", `x = 1\nprint(${parts.map((_, i) => `x != ${i + 2}`).join(" and ")})\n`, "True\n");
  add(
    "| chain",
    `print(${Array.from({ length: N }, (_, i) => 1 << (i % 30)).join(" | ")})\n`,
    `${2 ** 30 - 1}\n`,
  );
}
{
  // Strings, with parentheses that the + flattening looks through.
  const src = `x = (${Array(N).fill('"a"').join(" + ")}) + str(len("b" ${
    '+ "c" '.repeat(N)
  }))\nprint(len(x))\n`;
  add("string + chain through parentheses", src, `${N + String(N + 1).length}\n`);
}
{
  // An error in the middle of a long chain is reported at its operator.
  const col = "x = ".length + "1 + ".repeat(N / 2).length - 1;
  add(
    "error inside a long chain",
    `x = ${"1 + ".repeat(N / 2)}"s"${" + 1".repeat(N / 2)}\n`,
    `Traceback (most recent call last):\n  ${FILE}:1:${col}: in <toplevel>\nError: unknown binary op: int + string\n`,
  );
}

// Postfix chains.
add(
  "method chain",
  `s = " ab "${'.strip().upper().lower().replace("a", " a ")'.repeat(N / 4)}\nprint(len(s))\n`,
  // " a b", then one more space per round: "a b" → " a  b" ...
  `${N / 4 + 3}\n`,
);
add("index chain", `x = [0]\nx[0] = x\nprint(len(x${"[0]".repeat(N)}))\n`, "1\n");
add("slice and index chain", `x = [[1]]\nprint(x${"[0:][-1:][0:1]".repeat(N / 3)}[0])\n`, "[1]\n");
add("call chain", `def f():\n    return f\nprint(f${"()".repeat(N)} == f)\n`, "True\n");
add(
  "attribute error at the end of a long chain",
  `x = json${".encode".repeat(1)}${"(1).upper()".repeat(1)}${".lower()".repeat(N)}.nope\n`,
  `Traceback (most recent call last):\n  ${FILE}:1:${
    "x = json.encode(1).upper()".length + ".lower()".length * N + 1
  }: in <toplevel>\nError: string has no .nope field or method\n`,
);

// elif chains.
{
  let src = "def f(x):\n    if x == 0:\n        return 0\n";
  for (let i = 1; i < N; i++) src += `    elif x == ${i}:\n        return ${i * 2}\n`;
  src += "    else:\n        return -1\n";
  add("elif chain", `${src}print(f(${N - 1}), f(${N}), f(3))\n`, `${(N - 1) * 2} -1 6\n`);
}

// Values nested 100,000 deep, built in a loop.
{
  const build = (name: string, wrap: string) =>
    `def ${name}():\n    t = ()\n    for i in range(100000):\n        t = ${wrap}\n    return t\n`;
  const defs = build("tup", "(t,)") + build("lst", "[t]") + build("dct", '{"a": t}');
  add(
    "deep values: hashing, repr, str, json and membership",
    defs + "t, u, l, d = tup(), tup(), lst(), dct()\n" +
      "print(len({t: 1}), t in {u: 1}, len(set([t])), len(repr(t)), len(str(l)), len(repr(d)))\n" +
      'print(len(json.encode(l)), len(json.encode(json.decode(json.encode(d)))), l in [[]], hash("x") != 0)\n',
    `1 False 1 ${3 * 100_000 + 2} ${2 * 100_000 + 2} ${7 * 100_000 + 2}\n${2 * 100_000 + 2} ${
      6 * 100_000 + 2
    } False True\n`,
  );
  for (
    const [expr, col, err] of [
      // The column of the operator, `[`, `:` or `(` the reference reports.
      ["t == u", 7, ""],
      ["{t: 1}[u]", 11, ""],
      ["{t: 1, u: 2}", 13, ""],
      ["u in set([t])", 7, ""],
      ["len(set([t, u]))", 12, " in set: set"],
    ] as const
  ) {
    add(
      `deep values: ${expr} fails like the reference's comparison`,
      defs + `t, u = tup(), tup()\nx = ${expr}\n`,
      `Traceback (most recent call last):\n  ${FILE}:17:${col}: in <toplevel>\n` +
        `Error${err}: comparison exceeded maximum recursion depth\n`,
    );
  }
}

// Recursion far deeper than the JS stack holds (deep calls run on the heap), with tracebacks.
{
  const M = 5000;
  add(
    "deep recursion with keywords and defaults",
    `def f(n, acc = 0, step = 1):\n    if n == 0:\n        return acc\n    return f(n - step, acc = acc + n, step = step)\nprint(f(${M}))\n`,
    `${(M * (M + 1)) / 2}\n`,
  );
  add(
    "deep mutual recursion",
    `def even(n):\n    return True if n == 0 else odd(n - 1)\ndef odd(n):\n    return False if n == 0 else even(n - 1)\nprint(even(${M}), odd(${M}))\n`,
    "True False\n",
  );
  add(
    "deep recursion through loops, methods, cells and comprehensions",
    [
      "def walk(t, d):",
      "    total = 0",
      "    for c in t:",
      '        if type(c) == "list":',
      "            total += walk(c, d + 1)",
      "        elif c >= 0:",
      "            total += c",
      "        else:",
      "            break",
      "    k = d",
      "    def g():",
      "        return k",
      "    return total + g() + max([one(x) for x in [total]]) - 1",
      "def one(x):",
      "    return 1",
      "def build(n):",
      "    t = [1]",
      "    for i in range(n):",
      "        t = [t, i, -1, 7]",
      "    return t",
      `print(walk(build(${M}), 0))`,
      "",
    ].join("\n"),
    // Each level adds its index, its depth and nothing else; the innermost [1] sits at depth M.
    `${(M * (M - 1)) / 2 + 1 + (M * (M + 1)) / 2}\n`,
  );
  add(
    "deep recursion through a list comprehension",
    "def depth(t):\n    return 1 + max([0] + [depth(c) for c in t if c != None])\n" +
      `def build(n):\n    t = []\n    for i in range(n):\n        t = [t]\n    return t\nprint(depth(build(${M})))\n`,
    `${M + 1}\n`,
  );
  const frames = `  ${FILE}:4:13: in f\n`.repeat(M);
  add(
    "an error deep in a recursion has the full traceback",
    `def f(n):\n    if n == 0:\n        return {}["missing"]\n    return f(n - 1) + 1\nprint(f(${M}))\n`,
    `Traceback (most recent call last):\n  ${FILE}:5:8: in <toplevel>\n${frames}  ${FILE}:3:18: in f\n` +
      `Error: key "missing" not in dict\n`,
  );
}

for (const c of cases) {
  Deno.test(`depth: ${c.name}`, async () => {
    assert.equal(runOurs(c.src), c.want);
    if (withReference) assert.equal(await runReference(c.src), c.want, "the reference disagrees");
  });
}

Deno.test("depth: recursion stops at the reference's depth with a depth error", () => {
  const src = "def f(n):\n    return f(n - 1) + 1 if n else 0\nprint(f(N))\n";
  assert.equal(runOurs(src.replace("N", "99998")), "99998\n");
  assert.throws(
    () => execFile(src.replace("N", "99999"), { dialect: { recursion: true } }),
    (e: unknown) =>
      e instanceof ResourceError && e.resource === "depth" && /maximum call depth 100000/.test(e.message),
  );
});

Deno.test("depth: an error unwinding deep frames releases the lists their loops hold", () => {
  const src = "def f(n, l):\n    for x in l:\n        if n == 0:\n            return {}[x]\n" +
    "        return f(n - 1, l)\n";
  const { globals, thread } = execFile(src, { dialect: { recursion: true } });
  const l = new List([1]);
  assert.throws(() => call(thread, globals.get("f")!, [3000, l], []), EvalError);
  assert.equal(l.itercount, 0);
  // Deep frames are given back to the memory budget as they end.
  assert.ok(thread.memory < 1 << 20, `${thread.memory} bytes still charged`);
});
