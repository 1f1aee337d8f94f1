/**
 * Behavioural tests of the interpreter against the reference implementation: each case's expected output
 * (printed lines, then the error with its traceback) was produced by the reference `starlark` command
 * (go.starlark.net) on the same program and flags.
 */
import assert from "node:assert/strict";
import { type CallFrame, type Dialect, EvalError, execFile, standardPredeclared } from "../mod.ts";

interface Case {
  name: string;
  /** Reference command flags: `-recursion`, `-globalreassign` (which also enables while and top-level control). */
  flags?: string;
  src: string;
  want: string;
}

/** The reference command's rendering of a runtime error (a trailing built-in frame names the built-in). */
function traceback(e: EvalError): string {
  let stack: CallFrame[] = e.callStack;
  let suffix = "";
  const last = stack[stack.length - 1];
  if (last !== undefined && last.filename === "<builtin>") {
    suffix = ` in ${last.name}`;
    stack = stack.slice(0, -1);
  }
  let s = stack.length > 0 ? "Traceback (most recent call last):\n" : "";
  for (const f of stack) {
    s += f.filename === "<builtin>"
      ? `  <builtin>: in ${f.name}\n`
      : `  ${f.filename}:${f.line}:${f.col}: in ${f.name}\n`;
  }
  return `${s}Error${suffix}: ${e.message}`;
}

/** Runs a program like the reference command does and returns everything it would print. */
function runLikeReference(src: string, flags = ""): string {
  const dialect: Partial<Dialect> = { set: true };
  if (flags.includes("-recursion")) dialect.recursion = true;
  if (flags.includes("-globalreassign")) {
    Object.assign(dialect, { globalReassign: true, topLevelControl: true, while: true });
  }
  let out = "";
  try {
    execFile(src, {
      filename: "t.star",
      dialect,
      predeclared: standardPredeclared(),
      print: (_t, msg) => {
        out += msg + "\n";
      },
    });
  } catch (e) {
    out += (e instanceof EvalError ? traceback(e) : (e as Error).message) + "\n";
  }
  return out;
}

const CASES: Case[] = [
  {
    name: "scoping: local shadows global",
    src: "x = 1\ndef f():\n    x = 2\n    return x\ndef g():\n    return x\nprint(f(), g(), x)\n",
    want: "2 1 1\n",
  },
  {
    name: "scoping: use before local assignment",
    src: "x = 1\ndef f():\n    y = x\n    x = 2\n    return y\nf()\n",
    want:
      "Traceback (most recent call last):\n  t.star:6:2: in <toplevel>\n  t.star:3:9: in f\nError: local variable x referenced before assignment\n",
  },
  {
    name: "scoping: global used before definition",
    src: "def f():\n    return later\nprint(f) if False else None\nlater = 3\nprint(f())\n",
    want: "3\n",
  },
  {
    name: "scoping: comprehension variables are local to the comprehension",
    src:
      'def f():\n    x = "outer"\n    ys = [x for x in range(3)]\n    return x, ys\nprint(f())\nprint([x for x in [1, 2] if x > 1], {k: v for k, v in [("a", 1)]})\n',
    want: '("outer", [0, 1, 2])\n[2] {"a": 1}\n',
  },
  {
    name: "scoping: first iterable evaluated in the enclosing scope",
    src: "def f():\n    x = [1, 2, 3]\n    return [x for x in x]\nprint(f())\n",
    want: "[1, 2, 3]\n",
  },
  {
    name: "closures: nested capture through two levels",
    src:
      'def a():\n    v = "a"\n    def b():\n        def c():\n            return v + "c"\n        return c()\n    return b()\nprint(a())\n',
    want: "ac\n",
  },
  {
    name: "closures: cells see later assignments",
    src:
      "def f():\n    fs = []\n    for i in range(3):\n        fs.append(lambda: i)\n    return [g() for g in fs]\nprint(f())\n",
    want: "[2, 2, 2]\n",
  },
  {
    name: "closures: counter",
    src:
      "def counter():\n    n = [0]\n    def inc(by = 1):\n        n[0] += by\n        return n[0]\n    return inc\nc = counter()\nc()\nc(5)\nprint(c())\n",
    want: "7\n",
  },
  {
    name: "closures: free variable referenced before assignment",
    src: "def f():\n    def g():\n        return y\n    r = g()\n    y = 1\n    return r\nf()\n",
    want:
      "Traceback (most recent call last):\n  t.star:7:2: in <toplevel>\n  t.star:4:10: in f\n  t.star:3:16: in g\nError: local variable y referenced before assignment\n",
  },
  {
    name: "params: all kinds",
    src:
      'def f(a, b = 2, *args, c, d = 4, **kw):\n    return (a, b, args, c, d, sorted(kw.items()))\nprint(f(1, c = 3))\nprint(f(1, 5, 6, 7, c = 3, e = 9, d = 0))\nprint(f(*[1, 2, 3], **{"c": 0, "z": 1}))\n',
    want: '(1, 2, (), 3, 4, [])\n(1, 5, (6, 7), 3, 0, [("e", 9)])\n(1, 2, (3,), 0, 4, [("z", 1)])\n',
  },
  {
    name: "params: defaults evaluated once",
    src: "def f(x = []):\n    x.append(1)\n    return len(x)\nprint(f(), f(), f([]))\n",
    want: "1 2 1\n",
  },
  {
    name: "params: keyword-only with bare star",
    src: "def f(a, *, b, c = 3):\n    return a + b + c\nprint(f(1, b = 2), f(a = 1, b = 1, c = 1))\n",
    want: "6 3\n",
  },
  {
    name: "binding: missing arguments",
    src: "def f(a, b, c = 1, *, d, e = 2):\n    pass\nf(1)\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:1:1: in f\nError: function f missing 2 arguments (b, d)\n",
  },
  {
    name: "binding: too many positionals (at most)",
    src: "def f(a, b = 1):\n    pass\nf(1, 2, 3)\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:1:1: in f\nError: function f accepts at most 2 positional arguments (3 given)\n",
  },
  {
    name: "binding: too many positionals (exact)",
    src: "def f(a):\n    pass\nf(1, 2)\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:1:1: in f\nError: function f accepts 1 positional argument (2 given)\n",
  },
  {
    name: "binding: no arguments",
    src: "def f():\n    pass\nf(1, x = 2)\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:1:1: in f\nError: function f accepts no arguments (2 given)\n",
  },
  {
    name: "binding: only keyword-only parameters",
    src: "def f(*, a):\n    pass\nf(1)\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:1:1: in f\nError: function f accepts 0 positional arguments (1 given)\n",
  },
  {
    name: "binding: multiple values",
    src: "def f(a, b):\n    pass\nf(1, 2, a = 3)\n",
    want:
      'Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:1:1: in f\nError: function f got multiple values for parameter "a"\n',
  },
  {
    name: "binding: unexpected keyword",
    src: "def f(a, b):\n    pass\nf(1, 2, c = 3)\n",
    want:
      'Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:1:1: in f\nError: function f got an unexpected keyword argument "c"\n',
  },
  {
    name: "binding: duplicate via kwargs",
    src: 'def f(**kw):\n    return kw\nf(a = 1, **{"a": 2})\n',
    want:
      'Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:2:12: in f\nError: function f got multiple values for parameter "a"\n',
  },
  {
    name: "calls: ** of non-mapping",
    src: "def f(**kw):\n    pass\nf(**[1])\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\nError: argument after ** must be a mapping, not list\n",
  },
  {
    name: "calls: ** with non-string key",
    src: "def f(**kw):\n    pass\nf(**{1: 2})\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\nError: keywords must be strings, not int\n",
  },
  {
    name: "calls: * of non-iterable",
    src: "def f(*a):\n    pass\nf(*1)\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\nError: argument after * must be iterable, not int\n",
  },
  {
    name: "calls: non-function",
    src: "x = 1\nx()\n",
    want:
      "Traceback (most recent call last):\n  t.star:2:2: in <toplevel>\nError: invalid call of non-function (int)\n",
  },
  {
    name: "statements: if elif else",
    src:
      'def f(n):\n    if n < 0:\n        return "neg"\n    elif n == 0:\n        return "zero"\n    elif n < 10:\n        return "small"\n    else:\n        return "big"\nprint([f(x) for x in [-1, 0, 5, 50]])\n',
    want: '["neg", "zero", "small", "big"]\n',
  },
  {
    name: "statements: for with break, continue and nested return",
    src:
      "def f():\n    out = []\n    for i in range(10):\n        if i % 2 == 0:\n            continue\n        if i > 7:\n            break\n        out.append(i)\n    for i in range(5):\n        for j in range(5):\n            if i * j == 6:\n                return out, i, j\n    return out\nprint(f())\n",
    want: "([1, 3, 5, 7], 2, 3)\n",
  },
  {
    name: "statements: for over dict, tuple, string elems, set",
    src:
      'def f():\n    out = []\n    for k in {"b": 1, "a": 2}:\n        out.append(k)\n    for x in (1, 2):\n        out.append(x)\n    for c in "hi".elems():\n        out.append(c)\n    for s in set([3, 4]):\n        out.append(s)\n    return out\nprint(f())\n',
    want: '["b", "a", 1, 2, "h", "i", 3, 4]\n',
  },
  {
    name: "statements: for over non-iterable",
    src: "def f():\n    for x in 3:\n        pass\nf()\n",
    want:
      "Traceback (most recent call last):\n  t.star:4:2: in <toplevel>\n  t.star:2:5: in f\nError: int value is not iterable\n",
  },
  {
    name: "statements: mutation during iteration",
    src: "def f():\n    l = [1, 2]\n    for x in l:\n        l.append(x)\nf()\n",
    want:
      "Traceback (most recent call last):\n  t.star:5:2: in <toplevel>\n  t.star:4:17: in f\nError in append: append: cannot append to list during iteration\n",
  },
  {
    name: "statements: element assignment during iteration",
    src: "def f():\n    l = [1, 2]\n    for x in l:\n        l[0] = 5\nf()\n",
    want:
      "Traceback (most recent call last):\n  t.star:5:2: in <toplevel>\n  t.star:4:10: in f\nError: cannot assign to element of list during iteration\n",
  },
  {
    name: "statements: while with break (while dialect)",
    flags: "-globalreassign",
    src:
      "def f():\n    i = 0\n    while True:\n        i += 1\n        if i < 5:\n            continue\n        if i >= 7:\n            break\n    return i\nprint(f())\n",
    want: "7\n",
  },
  {
    name: "unpacking: nested and mixed",
    src:
      "a, (b, [c, d]) = 1, (2, [3, 4])\nprint(a, b, c, d)\ndef f():\n    x, y = 1, 2\n    y, x = x, y\n    for (i, j), k in [((1, 2), 3)]:\n        pass\n    return x, y, i, j, k\nprint(f())\n",
    want: "1 2 3 4\n(2, 1, 1, 2, 3)\n",
  },
  {
    name: "unpacking: too many",
    src: "a, b = [1, 2, 3]\n",
    want:
      "Traceback (most recent call last):\n  t.star:1:6: in <toplevel>\nError: too many values to unpack (got 3, want 2)\n",
  },
  {
    name: "unpacking: too few",
    src: "def f():\n    for a, b in [(1, 2), (3,)]:\n        pass\nf()\n",
    want:
      "Traceback (most recent call last):\n  t.star:4:2: in <toplevel>\n  t.star:2:5: in f\nError: too few values to unpack (got 1, want 2)\n",
  },
  {
    name: "unpacking: non-iterable",
    src: "a, b = 1\n",
    want:
      "Traceback (most recent call last):\n  t.star:1:6: in <toplevel>\nError: got int in sequence assignment\n",
  },
  {
    name: "unpacking: too many from a dict",
    src: "a, b = {1: 2, 3: 4, 5: 6}\n",
    want:
      "Traceback (most recent call last):\n  t.star:1:6: in <toplevel>\nError: too many values to unpack (got 3, want 2)\n",
  },
  {
    name: "augmented: list += mutates in place",
    src:
      'def f():\n    a = [1]\n    b = a\n    a += [2]\n    a += (3,)\n    a += {"k": 1}\n    t = (1,)\n    u = t\n    t += (2,)\n    return a, b, t, u\nprint(f())\n',
    want: '([1, 2, 3, "k"], [1, 2, 3, "k"], (1, 2), (1,))\n',
  },
  {
    name: "augmented: dict |= mutates in place",
    src: 'def f():\n    a = {"x": 1}\n    b = a\n    a |= {"y": 2}\n    return a, b\nprint(f())\n',
    want: '({"x": 1, "y": 2}, {"x": 1, "y": 2})\n',
  },
  {
    name: "augmented: index and attribute targets",
    src:
      'def f():\n    d = {"k": 1}\n    d["k"] += 10\n    l = [1, 2]\n    l[-1] *= 7\n    return d, l\nprint(f())\n',
    want: '({"k": 11}, [1, 14])\n',
  },
  {
    name: "augmented: list += string",
    src: 'def f():\n    l = []\n    l += "ab"\nf()\n',
    want:
      "Traceback (most recent call last):\n  t.star:4:2: in <toplevel>\n  t.star:3:7: in f\nError: unknown binary op: list + string\n",
  },
  {
    name: "augmented: ints",
    src:
      "def f():\n    n = 100\n    n += 1\n    n -= 3\n    n *= 2\n    n //= 3\n    n %= 40\n    n <<= 70\n    n >>= 60\n    n |= 5\n    n &= 0xFF\n    n ^= 3\n    return n\nprint(f())\n",
    want: "6\n",
  },
  {
    name: "expressions: arithmetic edge cases",
    src:
      'print(-7 // 2, -7 % 2, 7 % -2, 7 // -2, 0 * -5, -0)\nprint(9007199254740991 + 2, 1 << 60, -9007199254740991 - 2)\nprint(3037000500 * 3037000500, 123456789012345678901234567890 // 10)\nprint(1 == 1.0, 1 < 2.5, "a" * 3, [0] * 3, (1,) + (2,))\n',
    want:
      "-4 1 -1 -4 0 0\n9007199254740993 1152921504606846976 -9007199254740993\n9223372037000250000 12345678901234567890123456789\nTrue True aaa [0, 0, 0] (1, 2)\n",
  },
  {
    name: "expressions: slices",
    src:
      's = "abcdef"\nl = [0, 1, 2, 3, 4, 5]\nprint(s[1:3], s[::-1], s[::2], l[-2:], l[:-4], l[4:1:-1], (1, 2, 3)[1:])\n',
    want: "bc fedcba ace [4, 5] [0, 1] [4, 3, 2] (2, 3)\n",
  },
  {
    name: "expressions: conditional and short circuit",
    src:
      'def boom():\n    fail("evaluated")\nprint(1 if True else boom(), False and boom(), True or boom(), 0 or [], [] and 1)\n',
    want: "1 False True [] []\n",
  },
  {
    name: "expressions: string concatenation folding",
    src: 'x = "a" + "b" + "c"\ny = [1] + [2] + [3]\nz = (1,) + (2,)\nprint(x, y, z, "p" + x + "q")\n',
    want: "abc [1, 2, 3] (1, 2) pabcq\n",
  },
  {
    name: "expressions: dict display with duplicate key",
    src: 'd = {"a": 1, "b": 2, "a": 3}\n',
    want: 'Traceback (most recent call last):\n  t.star:1:25: in <toplevel>\nError: duplicate key: "a"\n',
  },
  {
    name: "expressions: unhashable dict key",
    src: "def f():\n    return {[]: 1}\nf()\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:2:15: in f\nError: unhashable type: list\n",
  },
  {
    name: "expressions: comparisons of different types",
    src: 'def f():\n    return 1 < "a"\nf()\n',
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:2:14: in f\nError: int < string not implemented\n",
  },
  {
    name: "expressions: index out of range",
    src: "def f():\n    l = [1, 2]\n    return l[2]\nf()\n",
    want:
      "Traceback (most recent call last):\n  t.star:4:2: in <toplevel>\n  t.star:3:13: in f\nError: list index 2 out of range [-2:1]\n",
  },
  {
    name: "expressions: missing attribute",
    src: 'def f():\n    return "abc".upperr()\nf()\n',
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:2:17: in f\nError: string has no .upperr field or method (did you mean .upper?)\n",
  },
  {
    name: "expressions: set field on non-struct",
    src: "def f():\n    x = [1]\n    x.y = 1\nf()\n",
    want:
      "Traceback (most recent call last):\n  t.star:4:2: in <toplevel>\n  t.star:3:6: in f\nError: can't assign to .y field of list\n",
  },
  {
    name: "expressions: slice error position",
    src: "def f(x):\n    return x  [1:2]\nf(1)\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:2:12: in f\nError: invalid slice operand int\n",
  },
  {
    name: "tracebacks: nested calls through a builtin",
    src:
      'def key(x):\n    return x + ""\ndef f():\n    return sorted([1, 2], key = key)\ndef g():\n    return f()\ng()\n',
    want:
      "Traceback (most recent call last):\n  t.star:7:2: in <toplevel>\n  t.star:6:13: in g\n  t.star:4:18: in f\n  <builtin>: in sorted\n  t.star:2:14: in key\nError: unknown binary op: int + string\n",
  },
  {
    name: "tracebacks: fail in nested call",
    src:
      'def check(x):\n    if x > 1:\n        fail("too big:", x)\ndef main():\n    for i in range(3):\n        check(i)\nmain()\n',
    want:
      "Traceback (most recent call last):\n  t.star:7:5: in <toplevel>\n  t.star:6:14: in main\n  t.star:3:13: in check\nError in fail: fail: too big: 2\n",
  },
  {
    name: "tracebacks: error in lambda",
    src: "f = lambda x: x // 0\nf(1)\n",
    want:
      "Traceback (most recent call last):\n  t.star:2:2: in <toplevel>\n  t.star:1:17: in lambda\nError: floored division by zero\n",
  },
  {
    name: "recursion: forbidden by default",
    src: "def f(n):\n    return f(n - 1) if n > 0 else 0\nf(3)\n",
    want:
      "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:2:13: in f\n  t.star:2:24: in f\nError: function f called recursively\n",
  },
  {
    name: "recursion: mutual recursion forbidden",
    src: "def a(n):\n    return b(n)\ndef b(n):\n    return a(n - 1) if n > 0 else 0\na(2)\n",
    want:
      "Traceback (most recent call last):\n  t.star:5:2: in <toplevel>\n  t.star:2:13: in a\n  t.star:4:13: in b\n  t.star:2:12: in a\nError: function a called recursively\n",
  },
  {
    name: "recursion: allowed by option",
    flags: "-recursion",
    src: "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nprint(fib(15))\n",
    want: "610\n",
  },
  {
    name: "globals: reassignment allowed by option",
    flags: "-globalreassign",
    src: 'x = 1\nx = 2\nx += 1\nif x > 2:\n    y = "big"\nfor i in range(2):\n    x += i\nprint(x, y)\n',
    want: "4 big\n",
  },
  {
    name: "globals: referenced before assignment",
    src: "print(x)\nx = 1\n",
    want:
      "Traceback (most recent call last):\n  t.star:1:7: in <toplevel>\nError: global variable x referenced before assignment\n",
  },
  {
    name: "functions: repr, type and equality",
    src:
      "def f():\n    pass\ng = lambda: 0\nprint(f, g, type(f), str(f), f == f, f != g)\nd = {f: 1}\nprint(d[f])\n",
    want: "<function f> <function lambda> function <function f> True True\n1\n",
  },
  {
    name: "functions: frozen defaults after module execution",
    src: "def f(x = []):\n    x.append(1)\nf()\n",
    want: "",
  },
  {
    name: "print: multiple args and sep",
    src: 'print("a", 1, [2], None, True, 1.5)\nprint()\n',
    want: "a 1 [2] None True 1.5\n\n",
  },
];

for (const c of CASES) {
  Deno.test(`eval: ${c.name}`, () => {
    assert.equal(runLikeReference(c.src, c.flags), c.want);
  });
}
