/**
 * Tests of the interpreter's fast paths (pair loops over `enumerate`/`zip`, literal `%` formats, dict
 * displays with constant keys, `in` on dicts, list unpacking, per-site method caches, the `len`
 * intrinsic): each program's expected output was produced by the reference `starlark -set` command
 * (go.starlark.net), so the fast paths must be indistinguishable from the general ones.
 */
import assert from "node:assert/strict";
import { type CallFrame, EvalError, execFile, standardPredeclared } from "../mod.ts";

/** Runs a program like the reference command and returns everything it prints, error included. */
function run(src: string): string {
  let out = "";
  try {
    execFile(src, {
      filename: "t.star",
      dialect: { set: true },
      predeclared: standardPredeclared(),
      print: (_t, msg) => {
        out += msg + "\n";
      },
    });
  } catch (e) {
    if (!(e instanceof EvalError)) throw e;
    let stack: CallFrame[] = e.callStack;
    let where = "";
    const last = stack[stack.length - 1];
    if (last !== undefined && last.filename === "<builtin>") {
      where = ` in ${last.name}`;
      stack = stack.slice(0, -1);
    }
    out += "Traceback (most recent call last):\n";
    for (const f of stack) out += `  ${f.filename}:${f.line}:${f.col}: in ${f.name}\n`;
    out += `Error${where}: ${e.message}\n`;
  }
  return out;
}

const CASES: { name: string; src: string; want: string }[] = [
  {
    name: "pair loops over enumerate and zip",
    src:
      'def f():\n    xs = [1, 2, 3]\n    out = []\n    for i, x in enumerate(xs):\n        xs.append(x * 10)\n        xs[0] = 99\n        out.append((i, x))\n    print(out, xs)\n    ys = ["a", "b"]\n    print([(a, b) for a, b in zip(xs, ys)], [(a, b) for a, b in zip(ys, xs)])\n    print([(a, b) for a, b in zip(xs, xs)])\n    print({x: i for i, x in enumerate(("p", "q"))})\n    for i, x in enumerate(xs):\n        if i == 2:\n            break\n    print(i, x)\n    print([(i, c) for i, c in enumerate({"k": 1, "j": 2})], [(i, c) for i, c in enumerate(range(3))])\n    print([a for a, b in zip(range(3), "ab".elems())])\n    for (i), (x) in enumerate([5]):\n        print(i, x)\n    def g():\n        for i, x in enumerate(xs):\n            if x == 2:\n                return i\n    print(g())\n    for i, x in zip([], xs):\n        print("never")\n    print([(i, j) for i, x in enumerate([[1], [2]]) for j, y in enumerate(x)])\nf()\ndef h():\n    for a, b in zip([1], 5):\n        pass\nh()\n',
    want:
      '[(0, 1), (1, 2), (2, 3)] [99, 2, 3, 10, 20, 30]\n[(99, "a"), (2, "b")] [("a", 99), ("b", 2)]\n[(99, 99), (2, 2), (3, 3), (10, 10), (20, 20), (30, 30)]\n{"p": 0, "q": 1}\n2 3\n[(0, "k"), (1, "j")] [(0, 0), (1, 1), (2, 2)]\n[0, 1]\n0 5\n1\n[(0, 0), (1, 0)]\nTraceback (most recent call last):\n  t.star:33:2: in <toplevel>\n  t.star:31:20: in h\nError in zip: zip: argument #2 is not iterable: int\n',
  },
  {
    name: "literal formats",
    src:
      'n = 0\ndef f():\n    global_list.append(1)\n    return 5\nglobal_list = []\nprint("a%sb%dc" % ("x", 3), "%d" % 7, "%s" % "q", "%r" % 4, "%r" % "q", "%s" % (1,), "%s" % [1], "%d%%" % 5)\nprint("%s" % f(), len(global_list))\nprint("%s" % None, "%d" % 2.5, "x%sy" % (1 << 70), "%s %s" % ("a", 1))\nprint("%s" % True)\nprint("%d" % "x")\n',
    want:
      'axb3c 7 q 4 "q" 1 [1] 5%\n5 1\nNone 2 x1180591620717411303424y a 1\nTrue\nTraceback (most recent call last):\n  t.star:10:12: in <toplevel>\nError: %d format requires integer: cannot convert string to int\n',
  },
  {
    name: "dict displays with constant keys",
    src:
      'd = {"a": 1, "b": [2], 3: "c", "3": 4}\nprint(d, d["a"], d[3], d["3"], len(d))\ne = {"x": 1, ("x"): 2} if False else None\nprint(e)\nf = {"a": 1, "a": 2}\n',
    want:
      '{"a": 1, "b": [2], 3: "c", "3": 4} 1 c 4 4\nNone\nTraceback (most recent call last):\n  t.star:5:17: in <toplevel>\nError: duplicate key: "a"\n',
  },
  {
    name: "in on dicts",
    src:
      'd = {"a": 1, 2: 3, 1.5: 0}\nprint("a" in d, "b" in d, 2 in d, 2.0 in d, 3 not in d, "a" not in d, [] in d, 1.5 in d)\nprint("a" in "cat", 1 in [1])\n',
    want: "True False True True True False False True\nTrue True\n",
  },
  {
    name: "unpacking lists into element targets",
    src: "x = [1, 2]\nx[1], x[0] = x\nprint(x)\ny = [3, 4]\na, b = y\nprint(a, b)\n",
    want: "[2, 1]\n3 4\n",
  },
  {
    name: "method calls on changing receiver types, len",
    src:
      'def f(xs):\n    out = []\n    for x in xs:\n        out.append(x.index("2") if type(x) == "string" else x.get(2) if type(x) == "dict" else x.index(2))\n    return out\nprint(f([[1, 2], {2: "two"}, [5, 2], "x2", {}, ["a", 2]]))\ndef g(xs):\n    return [len(x) for x in xs]\nprint(g(["abc", [1], (1, 2), {"a": 1}, range(5), set([1, 2]), "é", {}]))\ndef k(d):\n    return d.get("a"), len(d)\nbig = {"k%d" % i: i for i in range(20)}\nprint(k({"a": 1}), k(big), k({}), k({"b": 1, "a": 0}))\nprint(len(5))\n',
    want:
      '[1, "two", 1, 1, None, 1]\n[3, 1, 2, 1, 5, 2, 2, 0]\n(1, 1) (None, 20) (None, 0) (0, 2)\nTraceback (most recent call last):\n  t.star:14:10: in <toplevel>\nError in len: len: value of type int has no len\n',
  },
];

for (const c of CASES) {
  Deno.test(`fast paths: ${c.name}`, () => {
    assert.equal(run(c.src), c.want);
  });
}
