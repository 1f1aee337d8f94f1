/**
 * The hostile corpus by attack shape: comprehensions, json, deep nesting, recursion, loops, native calls,
 * huge results, print spam and programs that hold memory and then spin. See `corpus.ts`.
 *
 * @module
 */
import { type HostileProgram, LIMIT, main } from "./corpus_kit.ts";

/** Hostile programs: comprehensions. */
export const COMPREHENSIONS: readonly HostileProgram[] = [
  {
    name: "comprehension-nested-2",
    kind: "comprehension",
    source: main("l = [[i * j for i in range(10000)] for j in range(10000)]", "return len(l)"),
    expect: LIMIT,
    why: "100M elements from a nested comprehension",
  },
  {
    name: "comprehension-nested-3",
    kind: "comprehension",
    source: main(
      "l = [(a, b, c) for a in range(1000) for b in range(1000) for c in range(1000)]",
      "return len(l)",
    ),
    expect: LIMIT,
    why: "a billion tuples",
  },
  {
    name: "comprehension-big-strings",
    kind: "comprehension",
    source: main('return len("".join([str(i) * 100000 for i in range(100000)]))'),
    expect: LIMIT,
    why: "100,000 strings of up to 500 KB, then their join",
  },
];

/** Hostile programs: json. */
export const JSON_PROGRAMS: readonly HostileProgram[] = [
  {
    name: "json-encode-big",
    kind: "json",
    source: main('return len(json.encode(["x" * 1000000] * 1000))'),
    expect: LIMIT,
    why: "encoding 1 GB of strings",
  },
  {
    name: "json-encode-shared-dag",
    kind: "json",
    source: main("a = [1]", "for i in range(40):", "    a = [a, a]", "return len(json.encode(a))"),
    expect: LIMIT,
    why: "a 40-level shared DAG encodes to 2^40 leaves",
  },
  {
    name: "json-encode-deep",
    kind: "json",
    source: main("x = []", "for i in range(300000):", "    x = [x]", "return len(json.encode(x))"),
    expect: LIMIT,
    why: "encoding 300,000 levels of nesting (JS recursion)",
  },
  {
    name: "json-decode-deep",
    kind: "json",
    source: main('s = "[" * 500000 + "]" * 500000', "return len(json.decode(s))"),
    expect: LIMIT,
    why: "decoding 500,000 levels of nesting",
  },
  {
    name: "json-decode-big",
    kind: "json",
    source: main('s = "[" + ",".join(["123456"] * 5000000) + "]"', "x = json.decode(s)", "return len(x)"),
    expect: LIMIT,
    why: "decoding a 35 MB array of 5M numbers",
  },
  {
    name: "json-indent-big",
    kind: "json",
    source: main(
      "s = json.encode([[1, 2, 3]] * 200000)",
      "for i in range(1000):",
      '    r = json.indent(s, indent = " " * 1000)',
      "return len(r)",
    ),
    expect: LIMIT,
    why: "indenting with a 1 KB indent multiplies 2.6 MB into ~1 GB per call",
  },
];

/** Hostile programs: nesting. */
export const NESTING: readonly HostileProgram[] = [
  {
    name: "nest-repr-deep",
    kind: "nesting",
    source: main("x = []", "for i in range(300000):", "    x = [x]", "return len(str(x))"),
    expect: LIMIT,
    why: "str() of 300,000 nested lists (JS recursion depth)",
  },
  {
    name: "nest-equality-deep",
    kind: "nesting",
    source: main(
      "a = {}",
      "b = {}",
      "for i in range(300000):",
      '    a = {"k": a}',
      '    b = {"k": b}',
      "return a == b",
    ),
    expect: ["invalid_program", "resource_limit"],
    why: "equality of two 300,000-deep dicts (the reference stops comparisons at a fixed depth)",
  },
  {
    name: "nest-equality-shared-dag",
    kind: "nesting",
    source: main(
      "a = [1]",
      "b = [1]",
      "for i in range(8):",
      "    a = [a] * 100",
      "    b = [b] * 100",
      "return a == b",
    ),
    expect: LIMIT,
    why: "equality of two 8-level shared DAGs of fan-out 100 compares 10^16 leaves",
  },
  {
    name: "nest-return-deep",
    kind: "nesting",
    source: main("x = []", "for i in range(100):", "    x = [x]", "return x"),
    expect: LIMIT,
    why: "a final value deeper than maxValueDepth",
  },
];

/** Hostile programs: recursion. */
export const RECURSION: readonly HostileProgram[] = [
  {
    name: "recursion-direct",
    kind: "recursion",
    source: "def f(n):\n    return f(n - 1) + 1 if n > 0 else 0\n\n" + main("return f(100000)"),
    expect: ["invalid_program"],
    why: "recursion is off: the engine must refuse, not recurse",
  },
  {
    name: "recursion-via-list",
    kind: "recursion",
    source: "fs = []\n\ndef f(n):\n    return fs[0](n - 1) if n > 0 else 0\n\nfs.append(f)\n\n" +
      main("return f(100000)"),
    expect: ["invalid_program"],
    why: "recursion through a function stored in a list",
  },
  {
    name: "recursion-via-sort-key",
    kind: "recursion",
    source: "def k(x):\n    return len(sorted([1, 2, 3], key = k))\n\n" +
      main("return sorted([3, 2, 1], key = k)"),
    expect: ["invalid_program"],
    why: "recursion through a builtin calling back",
  },
];

/** Hostile programs: loops. */
export const LOOPS: readonly HostileProgram[] = [
  {
    name: "loop-busy-range",
    kind: "loop",
    source: main("n = 0", "for i in range(1 << 62):", "    n += 1", "return n"),
    expect: LIMIT,
    why: "a practically endless loop",
  },
  {
    name: "loop-busy-nested",
    kind: "loop",
    source: main(
      "n = 0",
      "for i in range(100000):",
      "    for j in range(100000):",
      "        n += i ^ j",
      "return n",
    ),
    expect: LIMIT,
    why: "10^10 iterations",
  },
  {
    name: "loop-builtin-heavy",
    kind: "loop",
    source: main("n = 0", "for i in range(1000000):", "    n += len(sorted(range(1000)))", "return n"),
    expect: LIMIT,
    why: "few steps, heavy builtins per step",
  },
  {
    name: "loop-many-small-allocs",
    kind: "loop",
    source: main(
      "keep = []",
      "for i in range(10000000):",
      '    keep.append({"i": i, "s": "v" + str(i)})',
      "return len(keep)",
    ),
    expect: LIMIT,
    why: "millions of small dicts kept alive",
  },
];

/** Hostile programs: native (capability) calls. */
export const NATIVE: readonly HostileProgram[] = [
  {
    name: "native-many-calls",
    kind: "native",
    source: main(
      "n = 0",
      "for i in range(100000):",
      '    n += len(crm.customer(id = "c-101")["name"])',
      "return n",
    ),
    expect: LIMIT,
    why: "more native calls than maxNativeCalls",
  },
  {
    name: "native-huge-argument",
    kind: "native",
    source: main('return text.echo(text = "x" * 5000000)'),
    expect: LIMIT,
    why: "a 5 MB argument (over maxValueBytes)",
    harnessOnly: true,
  },
  {
    name: "native-huge-search-query",
    kind: "native",
    source: main('return crm.customers.search(query = "a " * 2000000)'),
    expect: LIMIT,
    why: "a 4 MB query to a demo capability",
  },
  {
    name: "native-huge-list-argument",
    kind: "native",
    source: main("return data.total(values = list(range(800000)))"),
    expect: LIMIT,
    why: "an 800,000-element list argument",
    harnessOnly: true,
  },
  {
    name: "native-deep-argument",
    kind: "native",
    source: main("x = [1]", "for i in range(200):", "    x = [x]", "return data.total(values = x)"),
    expect: ["resource_limit", "invalid_arguments"],
    why: "an argument deeper than maxValueDepth",
    harnessOnly: true,
  },
  {
    name: "native-big-int-argument",
    kind: "native",
    source: main("return data.total(values = [1 << 500])"),
    expect: ["invalid_arguments", "resource_limit"],
    why: "an int far outside the safe range",
    harnessOnly: true,
  },
  {
    name: "native-intermediate-flood",
    kind: "native",
    source: main(
      's = "y" * 900000',
      "n = 0",
      "for i in range(50):",
      "    n += len(text.echo(text = s))",
      "return n",
    ),
    expect: LIMIT,
    why: "50 results of 900 KB: over maxIntermediateValueBytes",
    harnessOnly: true,
  },
];

/** Hostile programs: huge final values. */
export const RESULTS: readonly HostileProgram[] = [
  {
    name: "result-huge-string",
    kind: "result",
    source: main('return "x" * 5000000'),
    expect: LIMIT,
    why: "a 5 MB final value",
  },
  {
    name: "result-huge-list",
    kind: "result",
    source: main("return [0] * 900000"),
    expect: LIMIT,
    why: "a 900,000-element final value",
  },
  {
    name: "result-huge-dict",
    kind: "result",
    source: main('return {str(i): "v" * 100 for i in range(50000)}'),
    expect: LIMIT,
    why: "a 5 MB dict as final value",
  },
];

/** Hostile programs: print spam. */
export const PRINTS: readonly HostileProgram[] = [
  {
    name: "print-spam-big-list",
    kind: "print",
    source: main("l = list(range(100000))", "for i in range(10000):", "    print(l)", "return 1"),
    expect: ["resource_limit", "ok"],
    why: "each print would format 700 KB (charged to the memory budget; only the last 8 KiB is kept)",
  },
  {
    name: "print-spam-many",
    kind: "print",
    source: main("for i in range(1000000):", '    print("line", i, "x" * 1000)', "return 1"),
    expect: LIMIT,
    why: "a million prints",
  },
];

/** Hostile programs that hold memory, then spin. */
export const HOLD: readonly HostileProgram[] = [
  {
    name: "hold-strings-then-spin",
    kind: "hold",
    source: main(
      'keep = [("%d" % i) * 100 for i in range(100000)]',
      "n = 0",
      "for i in range(1 << 62):",
      "    n += len(keep[i % 100000])",
      "return n",
    ),
    expect: LIMIT,
    why: "holds ~50 MB of strings, then spins",
  },
  {
    name: "hold-bytes-then-spin",
    kind: "hold",
    source: main(
      'keep = b"x" * 60000000',
      "n = 0",
      "for i in range(1 << 62):",
      "    n += len(keep[i % 1000])",
      "return n",
    ),
    expect: LIMIT,
    why: "holds 60 MB of bytes, then spins",
  },
  {
    name: "hold-list-then-sort",
    kind: "hold",
    source: main(
      "keep = list(range(7000000))",
      "for i in range(1000):",
      "    keep = sorted(keep, reverse = True)",
      "return keep[0]",
    ),
    expect: LIMIT,
    why: "holds a 7M-element list and keeps sorting it",
  },
];
