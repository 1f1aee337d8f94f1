/**
 * Tests of the interpreter's fast paths (pair loops over `enumerate`/`zip`, literal `%` formats, dict
 * displays with constant keys, `in` on dicts, list unpacking, per-site method caches, the `len`
 * intrinsic): each program's expected output was produced by the reference `starlark -set` command
 * (go.starlark.net), so the fast paths must be indistinguishable from the general ones.
 */
import assert from "node:assert/strict";
import {
  type CallFrame,
  compile,
  EvalError,
  execFile,
  repr,
  standardPredeclared,
  Thread,
  type Value,
} from "../mod.ts";
import { binary, Dict } from "../values/mod.ts";
import { SEARCH_WINDOW } from "../values/ops_search.ts";

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
  {
    name: "parallel assignment of tuple displays to local variables",
    src:
      "log = []\ndef g(x):\n    log.append(x)\n    return x\ndef f():\n    a, b = 1, 2\n    a, b = b, a\n    print(a, b)\n    a, b, c = b, a + b, g(3)\n    print(a, b, c)\n    [a, b] = g(b), g(a)\n    (a), (b) = a * 10, b * 10\n    print(a, b, log)\n    a, a = 5, 6\n    print(a)\n    x, y, z = a, a + 1, a + 2\n    x, y, z = z, x, y\n    print(x, y, z)\n    for i in range(5):\n        x, y = y, x + y\n    print(x, y)\nf()\ndef h():\n    u, v = 1, w\n    w = 2\nh()\n",
    want:
      "2 1\n1 3 3\n30 10 [3, 3, 1]\n6\n8 6 7\n54 88\nTraceback (most recent call last):\n  t.star:26:2: in <toplevel>\n  t.star:24:15: in h\nError: local variable w referenced before assignment\n",
  },
  {
    name: "unpacking into two or three local variables",
    src:
      'def f():\n    out = []\n    for k, v in {"a": 1, "b": 2}.items():\n        out.append(k + str(v))\n    for a, b, c in [(1, 2, 3), [4, 5, 6], range(7, 10)]:\n        out.append(a + b + c)\n    for a, b in [set([1]) | set([2]), {"x": 1, "y": 2}, "ab".elems()]:\n        out.append((a, b))\n    x, y = [10, 20]\n    p, q, r = (1, 2, 3)\n    out.append((x, y, p, q, r))\n    print(out)\n    def g(items, n):\n        for a, b in items:\n            pass\n    for bad in [[(1, 2, 3)], [(1,)], [[]], [5], ["ab"], [None]]:\n        pass\nf()\ndef h():\n    for a, b, c in [(1, 2)]:\n        pass\nh()\n',
    want:
      '["a1", "b2", 6, 15, 24, (1, 2), ("x", "y"), ("a", "b"), (10, 20, 1, 2, 3)]\nTraceback (most recent call last):\n  t.star:22:2: in <toplevel>\n  t.star:20:5: in h\nError: too few values to unpack (got 2, want 3)\n',
  },
  {
    name: "append and get calls on every kind of key and receiver",
    src:
      'def f():\n    xs = []\n    d = {"a": 1, 2: "two", (1, 2): "t", 2.5: "f", "k" * 300: "long"}\n    for k in ["a", 2, 2.0, (1, 2), 2.5, "k" * 300, "missing", 7, True]:\n        xs.append(d.get(k))\n        xs.append(d.get(k, "dflt"))\n    print(xs)\n    holders = [xs, d, {"get": 1}]\n    for h in holders:\n        print(h.get("get", 0) if type(h) == "dict" else len(h))\n    print(catch_all())\ndef catch_all():\n    return "ok"\nf()\ndef g():\n    ys = [1, 2]\n    for y in ys:\n        ys.append(y)\ng()\n',
    want:
      '[1, 1, "two", "two", "two", "two", "t", "t", "f", "f", "long", "long", None, "dflt", None, "dflt", None, "dflt"]\n18\n0\n1\nok\nTraceback (most recent call last):\n  t.star:19:2: in <toplevel>\n  t.star:18:18: in g\nError in append: append: cannot append to list during iteration\n',
  },
  {
    name: "indexing strings",
    src:
      'def f(s):\n    out = []\n    for i in range(-len(s), len(s)):\n        out.append(s[i])\n    print("".join(out), s[0], s[-1])\n    xs = [s, ("a", "b"), ["c"], {0: "d"}]\n    print([x[0] for x in xs], [x[-1] for x in xs[:3]])\n    t = "\u00e9"\n    print(len(t), t[0] == t[-2])\n    return s[len(s)]\nf("hello")\n',
    want:
      'hellohello h o\n["h", "a", "c", "d"] ["o", "b", "c"]\n2 True\nTraceback (most recent call last):\n  t.star:11:2: in <toplevel>\n  t.star:10:13: in f\nError: string index 5 out of range [-5:4]\n',
  },
  {
    name: "loops over the items of a dict",
    src:
      'def f():\n    d = {"a": 1, "b": 2, 3: "c"}\n    out = []\n    for k, v in d.items():\n        out.append((k, v))\n        d[str(k) + "x"] = v\n    print(out, len(d))\n    print([(v, k) for k, v in {"p": 1, "q": 2}.items()])\n    print({v: k for (k), (v) in d.items() if type(v) == "int"})\n    big = {i: i * i for i in range(20)}\n    s = 0\n    for k, v in big.items():\n        if k == 5:\n            continue\n        if k == 15:\n            break\n        s += v\n    print(s)\n    def g():\n        for k, v in {"r": 1}.items():\n            return k\n    print(g())\n    for k, v in {}.items():\n        print("never")\n    for x, y in [("l", 1)]:\n        print(x, y)\n    xs = [1, 2]\n    for k, v in xs.items():\n        pass\nf()\n',
    want:
      '[("a", 1), ("b", 2), (3, "c")] 6\n[(1, "p"), (2, "q")]\n{1: "ax", 2: "bx"}\n990\nr\nl 1\nTraceback (most recent call last):\n  t.star:30:2: in <toplevel>\n  t.star:28:19: in f\nError: list has no .items field or method\n',
  },
];

for (const c of CASES) {
  Deno.test(`fast paths: ${c.name}`, () => {
    assert.equal(run(c.src), c.want);
  });
}

/** A run of `src` with recursion and `while` on: its thread, and the globals it left. */
function runAll(src: string): { thread: Thread; globals: Map<string, unknown> } {
  const thread = new Thread();
  const globals = compile(src, { dialect: { recursion: true, while: true } }).run(thread);
  return { thread, globals };
}

Deno.test("fast paths: a parallel assignment is charged the tuple it no longer makes", () => {
  // `a, b = x, y` into locals (the fast path) against the same values assigned through a tuple held in a
  // variable (the general path): the same memory, and one statement fewer per iteration.
  for (const n of [1, 7, 100]) {
    for (const width of [2, 3]) {
      const vars = ["a", "b", "c"].slice(0, width).join(", ");
      const vals = ["b + 1", "a", "c * 2"].slice(0, width).join(", ");
      const init = `${vars} = ${["1", "2", "3"].slice(0, width).join(", ")}`;
      const fast = runAll(
        `def f():\n    ${init}\n    for i in range(${n}):\n        ${vars} = ${vals}\n    return [${vars}]\nr = f()\n`,
      );
      const slow = runAll(
        `def f():\n    ${init}\n    for i in range(${n}):\n        t = (${vals})\n        ${vars} = t\n    return [${vars}]\nr = f()\n`,
      );
      const what = `${width} names, ${n} iterations`;
      assert.deepEqual(fast.globals.get("r"), slow.globals.get("r"), what);
      assert.equal(fast.thread.memory, slow.thread.memory, what);
      assert.equal(fast.thread.steps + n, slow.thread.steps, what);
    }
  }
});

Deno.test("fast paths: a parallel assignment whose values recurse into it keeps each call's values", () => {
  // Checked with the reference (`starlark -recursion`): 720.
  const { globals } = runAll(
    "def f(n):\n    if n == 0:\n        return 0\n    a, b, c = n, f(n - 1), n * 2\n    d, e = a, f(n - 1) + c\n    return a + b + c + d + e\nr = f(6)\n",
  );
  assert.equal(globals.get("r"), 720);
});

Deno.test("fast paths: unpacking into local variables fails like the reference on every kind of value", () => {
  // Each message was printed by the reference command for `for a, b in items` over the given items.
  const cases: [string, string][] = [
    ["[(1, 2, 3)]", "too many values to unpack (got 3, want 2)"],
    ["[(1, 2, 3, 4)]", "too many values to unpack (got 4, want 2)"],
    ["[(1,)]", "too few values to unpack (got 1, want 2)"],
    ["[[]]", "too few values to unpack (got 0, want 2)"],
    ["[5]", "got int in sequence assignment"],
    ['["ab"]', "got string in sequence assignment"],
    ["[None]", "got NoneType in sequence assignment"],
  ];
  for (const [items, message] of cases) {
    const out = run(`def g(items):\n    for a, b in items:\n        pass\ng(${items})\n`);
    assert.equal(out.trim().split("\n").pop(), `Error: ${message}`, items);
  }
  assert.equal(
    run('def g():\n    a, b, c = "xy".elems()\ng()\n'),
    "Traceback (most recent call last):\n  t.star:3:2: in <toplevel>\n  t.star:2:13: in g\nError: too few values to unpack (got 2, want 3)\n",
  );
});

Deno.test("fast paths: append and get calls fail like the reference", () => {
  // Each expected text was printed by the reference command.
  const cases: [string, string][] = [
    ["d = {}\nd.get([1])\n", "  t.star:2:6: in <toplevel>\nError in get: get: unhashable type: list\n"],
    [
      "def f(xs):\n    for x in xs:\n        x.append(1)\nf([[], {}])\n",
      "  t.star:4:2: in <toplevel>\n  t.star:3:10: in f\nError: dict has no .append field or method\n",
    ],
    [
      'def f(xs):\n    for x in xs:\n        print(x.get("a"))\nf([{"a": 1}, []])\n',
      "  t.star:4:2: in <toplevel>\n  t.star:3:16: in f\nError: list has no .get field or method\n",
    ],
    [
      "d = {}\nd.get(1, 2, 3)\n",
      "  t.star:2:6: in <toplevel>\nError in get: get: got 3 arguments, want at most 2\n",
    ],
  ];
  for (const [src, tail] of cases) {
    assert.ok(run(src).endsWith(`Traceback (most recent call last):\n${tail}`), src);
  }
});

Deno.test("fast paths: append and get calls charge what the bound methods charge, on generated programs", () => {
  // The same operations through `xs.append(v)`/`d.get(k)` (the inline paths) and through bound methods
  // taken once before the loop (the general call): same results, steps and memory.
  let seed = 4242;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return (seed >> 8) % n;
  };
  const keys = ['"a"', '"b"', "1", "2", "2.0", "(1, 2)", '"k" * 300', "None", "True", '"zz"'];
  for (let t = 0; t < 40; t++) {
    const ops: [string, string][] = [];
    for (let i = 0; i < 12; i++) {
      const k = keys[next(keys.length)];
      const choice = next(3);
      if (choice === 0) ops.push([`xs.append(${k})`, `app(${k})`]);
      else if (choice === 1) ops.push([`xs.append(d.get(${k}))`, `app(get(${k}))`]);
      else ops.push([`xs.append(d.get(${k}, ${k}))`, `app(get(${k}, ${k}))`]);
    }
    const n = 1 + next(30);
    const program = (body: string) =>
      `def f(n):\n    xs = []\n    d = {"a": 1, 2: "two", (1, 2): "t", "k" * 300: "long", None: 0}\n` +
      `    app, get = xs.append, d.get\n    for i in range(n):\n${body}\n    return xs\nr = f(${n})\n`;
    const inline = runAll(program(ops.map((o) => `        ${o[0]}`).join("\n")));
    const bound = runAll(program(ops.map((o) => `        ${o[1]}`).join("\n")));
    const what = ops.map((o) => o[0]).join("; ");
    assert.equal(repr(inline.globals.get("r") as Value), repr(bound.globals.get("r") as Value), what);
    assert.equal(inline.thread.steps, bound.thread.steps, what);
    assert.equal(inline.thread.memory, bound.thread.memory, what);
  }
});

Deno.test("fast paths: indexing strings out of range fails like the reference", () => {
  // Each expected text was printed by the reference command.
  const cases: [string, string][] = [
    ['s = "ab"\nprint(s[-3])\n', "  t.star:2:8: in <toplevel>\nError: string index -3 out of range [-2:1]\n"],
    [
      's = "ab"\ns[0] += "x"\n',
      "  t.star:2:2: in <toplevel>\nError: string value does not support item assignment\n",
    ],
    [
      's = "ab"\nprint(s[1 << 40])\n',
      "  t.star:2:8: in <toplevel>\nError: string index: 1099511627776 out of range\n",
    ],
  ];
  for (const [src, tail] of cases) {
    assert.equal(run(src), `Traceback (most recent call last):\n${tail}`, src);
  }
});

Deno.test("fast paths: `in` on strings and dicts gives and charges what ops.binary does", () => {
  // Generated operands, short and long (past the one-window search and the long-key limits), tested by
  // `a in b` / `a not in b` in a function against ops.binary on the same values: same answers, and the
  // program's steps exceed those of `a == a` by exactly what ops.binary charged.
  let seed = 31337;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return (seed >> 8) % n;
  };
  const text = (n: number) => Array.from({ length: n }, () => "ab"[next(2)]).join("");
  for (let t = 0; t < 300; t++) {
    const bigY = next(6) === 0;
    const y = text(bigY ? SEARCH_WINDOW + next(300) : next(40));
    const x = next(3) === 0 ? y.slice(next(y.length + 1)) : text(next(8) === 0 ? 300 : next(6));
    const keys = new Dict();
    for (let i = 0; i < 12; i++) keys.setUnchecked(text(next(4)), i);
    if (next(2) === 0) keys.setUnchecked(x, 99);
    for (const op of ["in", "not in"] as const) {
      for (const container of [y, keys, next(3) - 1] as Value[]) {
        const steps = (body: string): [number, string] => {
          const thread = new Thread();
          let outcome: string;
          try {
            const g = compile(`def f():\n    return ${body}\nr = f()\n`, { predeclared: ["a", "b"] }).run(
              thread,
              {
                a: x,
                b: container,
              },
            );
            outcome = repr(g.get("r") as Value);
          } catch (e) {
            if (!(e instanceof EvalError)) throw e;
            outcome = `error: ${e.message}`;
          }
          return [thread.steps, outcome];
        };
        const [withIn, got] = steps(`a ${op} b`);
        const [plain] = steps("a == a");
        const direct = new Thread();
        let want: string;
        try {
          want = repr(binary(direct, op, x, container));
        } catch (e) {
          if (!(e instanceof EvalError)) throw e;
          want = `error: ${e.message}`;
        }
        const plainCharge = new Thread();
        binary(plainCharge, "==", x, x);
        const what = `|a|=${x.length} ${op} ${
          typeof container === "string" ? `|b|=${container.length}` : repr(container)
        }`;
        assert.equal(got, want, what);
        if (!got.startsWith("error")) assert.equal(withIn - plain, direct.steps - plainCharge.steps, what);
      }
    }
  }
});

Deno.test("fast paths: loops over items fail like the reference", () => {
  // Each expected text was printed by the reference command.
  const cases: [string, string][] = [
    [
      "def f():\n    for k, v in json.items():\n        pass\nf()\n",
      "  t.star:4:2: in <toplevel>\n  t.star:2:21: in f\nError: module has no .items field or method\n",
    ],
    [
      'def f(d):\n    for k, v, w in d.items():\n        pass\nf({"a": 1})\n',
      "  t.star:4:2: in <toplevel>\n  t.star:2:5: in f\nError: too few values to unpack (got 2, want 3)\n",
    ],
    [
      'def f(d):\n    for k, v in d.items(1):\n        pass\nf({"a": 1})\n',
      "  t.star:4:2: in <toplevel>\n  t.star:2:24: in f\nError in items: items: got 1 arguments, want 0\n",
    ],
  ];
  for (const [src, tail] of cases) {
    assert.equal(run(src), `Traceback (most recent call last):\n${tail}`, src);
  }
});

Deno.test("fast paths: loops over items charge what looping over the list items returns charges", () => {
  // `for k, v in d.items()` (pairs walked in place) against the list of items held in a variable first
  // (the general loop): the same memory, one statement more for the variable; in statements and in
  // comprehensions, for compact and hashed dicts, with break and continue.
  for (const n of [0, 1, 5, 8, 9, 40, 300]) {
    const init = `d = {"k%d" % i: i for i in range(${n})}\n`;
    const loops: [string, string][] = [
      [
        "    for k, v in d.items():\n        if v == 3:\n            continue\n        t += v\n",
        "    for k, v in it:\n        if v == 3:\n            continue\n        t += v\n",
      ],
      ["    t += len([k for k, v in d.items() if v % 2])\n", "    t += len([k for k, v in it if v % 2])\n"],
      [
        "    for k, v in d.items():\n        if v == 7:\n            break\n",
        "    for k, v in it:\n        if v == 7:\n            break\n",
      ],
    ];
    for (const [fast, general] of loops) {
      const a = runAll(`${init}def f():\n    t = 0\n${fast}    return t\nr = f()\n`);
      const b = runAll(`${init}def f():\n    t = 0\n    it = d.items()\n${general}    return t\nr = f()\n`);
      const what = `${n} entries: ${fast.trim().split("\n")[0]}`;
      assert.deepEqual(a.globals.get("r"), b.globals.get("r"), what);
      assert.equal(a.thread.memory, b.thread.memory, what);
      assert.equal(a.thread.steps + 1, b.thread.steps, what);
    }
  }
});
