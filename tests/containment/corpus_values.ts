/**
 * The hostile corpus by value type: the issue's programs, ints, strings, bytes, lists, tuples, dicts and
 * sets. See `corpus.ts`.
 *
 * @module
 */
import { bigInt, type HostileProgram, LIMIT, main } from "./corpus_kit.ts";

/** The issue's own programs, verbatim. */
export const ISSUE: readonly HostileProgram[] = [
  {
    name: "issue-int-tower-comprehension",
    kind: "int",
    source: "def main():\n    x = 3\n    for i in range(25):\n        x = x * x\n" +
      "    l = [x + i for i in range(750)]\n    return len(l)\n",
    expect: LIMIT,
    why: "3^(2^25) has 53M bits; 750 copies of it are 5 GB",
  },
  {
    name: "issue-str-concat-1mb",
    kind: "string",
    source: main(
      's = "x" * 1000000',
      't = ""',
      "for i in range(100000):",
      "    t = s + str(i)",
      "return t[-1]",
    ),
    expect: LIMIT,
    why: "100,000 concatenations of a 1 MB string: 100 GB of allocation",
  },
  {
    name: "issue-str-concat-1mb-index",
    kind: "string",
    source: main(
      's = "x" * 1000000',
      "n = 0",
      "for i in range(100000):",
      "    t = s + str(i)",
      "    n += len(t[-1])",
      "return n",
    ),
    expect: LIMIT,
    why: "as above, indexing each result (which flattens it: 100 GB copied)",
  },
];

/** Hostile programs: ints. */
export const INTS: readonly HostileProgram[] = [
  {
    name: "int-squaring-tower",
    kind: "int",
    source: main("x = 3", "for i in range(40):", "    x = x * x", "return x % 7"),
    expect: LIMIT,
    why: "repeated squaring doubles the size each time (2^40 bits)",
  },
  {
    name: "int-shift-count",
    kind: "int",
    source: main("return (1 << (1 << 31)) % 7"),
    expect: ["invalid_program"],
    why: "a 2^31-bit shift; the reference refuses shift counts of 512 or more",
  },
  {
    name: "int-shift-loop",
    kind: "int",
    source: main(...bigInt("x", 13), "for i in range(1000000):", "    x = (x << 511) | 1", "return x % 7"),
    expect: LIMIT,
    why: "shifts a 4M-bit integer a million times: each step copies it (quadratic)",
  },
  {
    name: "int-multiply-cpu",
    kind: "int",
    source: main(...bigInt("x", 13), "y = 0", "for i in range(2000):", "    y = x * x", "return y % 7"),
    expect: LIMIT,
    why: "2,000 products of 4M-bit integers: each one heavy, each result 1 MB",
  },
  {
    name: "int-floordiv-huge",
    kind: "int",
    source: main(
      ...bigInt("x", 14),
      ...bigInt("d", 13),
      "y = 0",
      "for i in range(2000):",
      "    y = x // (d + i)",
      "return y % 7",
    ),
    expect: LIMIT,
    why: "floor division of 8M-bit by 4M-bit integers is quadratic work per step",
  },
  {
    name: "int-mod-huge",
    kind: "int",
    source: main(
      ...bigInt("x", 14),
      ...bigInt("d", 13),
      "y = 0",
      "for i in range(2000):",
      "    y = x % (d + 2 * i + 1)",
      "return y",
    ),
    expect: LIMIT,
    why: "modulo of huge integers, quadratic work per step",
  },
  {
    name: "int-str-huge",
    kind: "int",
    source: main(...bigInt("x", 15), "return len(str(x))"),
    expect: LIMIT,
    why: "decimal conversion of a 16M-bit integer (5M digits) is super-linear",
  },
  {
    name: "int-percent-d-huge",
    kind: "int",
    source: main(...bigInt("x", 15), 'return len("%d" % x)'),
    expect: LIMIT,
    why: "%d of a 16M-bit integer",
  },
  {
    name: "int-json-huge",
    kind: "int",
    source: main(...bigInt("x", 15), "return len(json.encode(x))"),
    expect: LIMIT,
    why: "json.encode of a 16M-bit integer",
  },
  {
    name: "int-parse-digits",
    kind: "int",
    source: main('s = "7" * 20000000', "x = int(s)", "return x % 7"),
    expect: LIMIT,
    why: "int() of 20M decimal digits is super-linear",
  },
  {
    name: "float-parse-digits",
    kind: "string",
    source: main(
      's = "0." + "7" * 20000000',
      "n = 0",
      "for i in range(1000):",
      "    n += int(float(s) * 10)",
      "return n",
    ),
    expect: LIMIT,
    why: "float() of 20M digits reads them all: one native pass would hold the thread ~100 ms",
  },
  {
    name: "json-float-digits",
    kind: "json",
    source: main(
      's = "[1." + "3" * 10000000 + "]"',
      "n = 0",
      "for i in range(1000):",
      "    n += len(json.decode(s))",
      "return n",
    ),
    expect: LIMIT,
    why: "json.decode of a float literal of 10M digits",
  },
  {
    name: "int-dict-keys-huge",
    kind: "int",
    source: main("d = {}", ...bigInt("x", 14), "for i in range(2000):", "    d[x + i] = i", "return len(d)"),
    expect: LIMIT,
    why: "2,000 distinct 8M-bit keys (2 GB), each hashed in full",
  },
];

/** Hostile programs: strings. */
export const STRINGS: readonly HostileProgram[] = [
  {
    name: "str-concat-doubling",
    kind: "string",
    source: main('s = "ab"', "for i in range(40):", "    s = s + s", "return len(s)"),
    expect: LIMIT,
    why: "doubling a string 40 times (2 TB)",
  },
  {
    name: "str-repeat-huge",
    kind: "string",
    source: main('return len("x" * (1 << 29))'),
    expect: LIMIT,
    why: "one repetition of 2^29 characters (the reference allows up to 2^30)",
  },
  {
    name: "str-repeat-nested",
    kind: "string",
    source: main('s = "x" * 1000000', "t = s * 1000", "return len(t)"),
    expect: LIMIT,
    why: "a 1 GB repetition of a 1 MB string",
  },
  {
    name: "str-join-huge",
    kind: "string",
    source: main('parts = ["x" * 100000] * 10000', 'return len(",".join(parts))'),
    expect: LIMIT,
    why: "joining 10,000 parts of 100 KB (1 GB)",
  },
  {
    name: "str-replace-explosion",
    kind: "string",
    source: main('s = "a" * 100000', "for i in range(12):", '    s = s.replace("a", "aa")', "return len(s)"),
    expect: LIMIT,
    why: "each replace doubles the string (400 MB after 12)",
  },
  {
    name: "str-replace-empty",
    kind: "string",
    source: main(
      's = "x" * 1000000',
      "for i in range(100):",
      '    t = s.replace("", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy")',
      "return len(t)",
    ),
    expect: LIMIT,
    why: "replacing the empty string inserts 64 bytes between every character (64 MB per call)",
  },
  {
    name: "str-percent-width",
    kind: "string",
    source: main('return "%10000000d" % 1'),
    expect: ["invalid_program", "resource_limit"],
    why: "a 10M padding width (the reference has no widths: unknown conversion)",
  },
  {
    name: "str-format-width",
    kind: "string",
    source: main('return "{:>100000000}".format(1)'),
    expect: ["invalid_program", "resource_limit"],
    why: "a 100M format width (the reference rejects format specs)",
  },
  {
    name: "str-repr-escapes",
    kind: "string",
    source: main('s = "\\x01" * 10000000', "for i in range(100):", "    r = repr(s)", "return len(r)"),
    expect: LIMIT,
    why: "repr quadruples a control-character string (40 MB per call)",
  },
  {
    name: "str-repr-shared-dag",
    kind: "string",
    source: main('a = ["x" * 1000]', "for i in range(30):", "    a = [a, a]", "return len(repr(a))"),
    expect: LIMIT,
    why: "repr of a 30-level shared list DAG visits 2^30 strings of 1 KB",
  },
  {
    name: "str-upper-loop",
    kind: "string",
    source: main('s = "x" * 10000000', "for i in range(10000):", "    t = s.upper()", "return len(t)"),
    expect: LIMIT,
    why: "10,000 case conversions of a 10 MB string",
  },
  {
    name: "str-split-huge",
    kind: "string",
    source: main('s = "a," * 10000000', 'parts = s.split(",")', "return len(parts)"),
    expect: LIMIT,
    why: "splitting into 10M strings",
  },
  {
    name: "str-find-quadratic",
    kind: "string",
    source: main(
      's = "a" * 1000000',
      't = "a" * 500000 + "b"',
      "n = 0",
      "for i in range(10000):",
      "    n += s.find(t) + s.count(t) + int(t in s)",
      "return n",
    ),
    expect: LIMIT,
    why: "naive substring search of aaa...b in aaa...a is O(n*m) per call",
  },
];

/** Hostile programs: bytes. */
export const BYTES: readonly HostileProgram[] = [
  {
    name: "bytes-repeat-huge",
    kind: "bytes",
    source: main('return len(b"x" * (1 << 29))'),
    expect: LIMIT,
    why: "512 MB of bytes from one repetition",
  },
  {
    name: "bytes-concat-loop",
    kind: "bytes",
    source: main(
      'b = b"x" * 1000000',
      'c = b""',
      "for i in range(100000):",
      '    c = b + b"y"',
      "return len(c)",
    ),
    expect: LIMIT,
    why: "100,000 copies of 1 MB of bytes",
  },
  {
    name: "bytes-doubling",
    kind: "bytes",
    source: main('b = b"ab"', "for i in range(40):", "    b = b + b", "return len(b)"),
    expect: LIMIT,
    why: "doubling bytes 40 times",
  },
  {
    name: "bytes-elems-list",
    kind: "bytes",
    source: main('b = b"x" * 30000000', "l = list(b.elems())", "return len(l)"),
    expect: LIMIT,
    why: "a 30M-element list of ints from bytes",
  },
];

/** Hostile programs: lists. */
export const LISTS: readonly HostileProgram[] = [
  {
    name: "list-doubling",
    kind: "list",
    source: main("l = [0]", "for i in range(40):", "    l = l + l", "return len(l)"),
    expect: LIMIT,
    why: "list concatenation doubling (2^40 elements)",
  },
  {
    name: "list-iadd-self",
    kind: "list",
    source: main("l = [1]", "for i in range(40):", "    l += l", "return len(l)"),
    expect: LIMIT,
    why: "in-place += of a list onto itself",
  },
  {
    name: "list-extend-self",
    kind: "list",
    source: main("l = [1]", "for i in range(40):", "    l.extend(l)", "return len(l)"),
    expect: LIMIT,
    why: "extend with itself doubles",
  },
  {
    name: "list-repeat-huge",
    kind: "list",
    source: main("return len([0] * (1 << 28))"),
    expect: LIMIT,
    why: "one repetition of 2^28 elements",
  },
  {
    name: "list-slice-copies",
    kind: "list",
    source: main("l = [0] * 4000000", "m = []", "for i in range(100000):", "    m = l[1:]", "return len(m)"),
    expect: LIMIT,
    why: "100,000 slice copies of a 4M-element list",
  },
  {
    name: "list-sort-huge",
    kind: "list",
    source: main(
      "l = [3, 1, 2] * 2000000",
      "for i in range(100):",
      "    s = sorted(l, reverse = True)",
      "return s[0]",
    ),
    expect: LIMIT,
    why: "100 sorts of 6M elements",
  },
  {
    name: "list-membership-scan",
    kind: "list",
    source: main(
      "l = [0] * 6000000",
      "n = 0",
      "for i in range(100000):",
      "    if -1 in l:",
      "        n += 1",
      "return n",
    ),
    expect: LIMIT,
    why: "each `in` scans 6M elements, 100,000 times",
  },
  {
    name: "list-insert-front",
    kind: "list",
    source: main("l = []", "for i in range(300000):", "    l.insert(0, i)", "return len(l)"),
    expect: LIMIT,
    why: "inserting at the front moves every element: quadratic",
  },
  {
    name: "list-pop-front",
    kind: "list",
    source: main("l = [0] * 5000000", "for i in range(300000):", "    l.pop(0)", "return len(l)"),
    expect: LIMIT,
    why: "popping the front of a 5M-element list moves every element each time",
  },
];

/** Hostile programs: tuples. */
export const TUPLES: readonly HostileProgram[] = [
  {
    name: "tuple-doubling",
    kind: "tuple",
    source: main("t = (1,)", "for i in range(40):", "    t = t + t", "return len(t)"),
    expect: LIMIT,
    why: "tuple concatenation doubling",
  },
  {
    name: "tuple-repeat-huge",
    kind: "tuple",
    source: main("return len((1, 2) * (1 << 27))"),
    expect: LIMIT,
    why: "one repetition of 2^28 elements",
  },
  {
    name: "tuple-hash-key",
    kind: "tuple",
    source: main("t = (0,) * 6000000", "d = {}", "for i in range(100000):", "    d[t] = i", "return len(d)"),
    expect: LIMIT,
    why: "each dict store hashes a 6M-element tuple",
  },
];

/** Hostile programs: dicts. */
export const DICTS: readonly HostileProgram[] = [
  {
    name: "dict-popitem-drain",
    kind: "dict",
    source: main(
      "d = {i: i for i in range(600000)}",
      "n = 0",
      "for i in range(600000):",
      "    n += d.popitem()[0]",
      "return n",
    ),
    expect: ["ok", "resource_limit"],
    why: "each popitem walks the slots its predecessors emptied unless the front is remembered (O(n²))",
  },
  {
    name: "dict-key-equal-long-string",
    kind: "dict",
    source: main(
      's = "x" * 8000000',
      's2 = s[:-1] + "x"',
      "d = {s: 1}",
      "n = 0",
      "for i in range(1000000):",
      "    n += d[s2] + int(s2 in d)",
      "return n",
    ),
    expect: LIMIT,
    why: "each lookup compares an 8 MB key with the equal but distinct one in the table",
  },
  {
    name: "dict-key-long-bytes",
    kind: "bytes",
    source: main(
      'b = b"x" * 8000000',
      "d = {b: 1}",
      "n = 0",
      "for i in range(1000000):",
      "    n += d[b]",
      "return n",
    ),
    expect: LIMIT,
    why: "a bytes key is a wide copy of its data; rebuilt at every lookup it would be 16 MB each",
  },
  {
    name: "dict-tuple-keys-keep-copies",
    kind: "dict",
    source: main(
      's = "x" * 1000000',
      "d = {}",
      "for i in range(100000):",
      "    d[(s, i)] = i",
      "return len(d)",
    ),
    expect: LIMIT,
    why: "every tuple key the table keeps holds a 2 MB wide copy of the string",
  },
  {
    name: "dict-equal-long-keys",
    kind: "dict",
    source: main(
      's = "x" * 2000000',
      "a = {s + str(i): i for i in range(8)}",
      "b = {s + str(i): i for i in range(8)}",
      "n = 0",
      "for i in range(1000000):",
      "    n += int(a == b) + len(a | b)",
      "return n",
    ),
    expect: LIMIT,
    why: "each comparison and union reads 16 MB of equal but distinct keys",
  },
  {
    name: "dict-growth",
    kind: "dict",
    source: main("d = {}", "for i in range(100000000):", '    d[i] = "v"', "return len(d)"),
    expect: LIMIT,
    why: "100M entries",
  },
  {
    name: "dict-copy-loop",
    kind: "dict",
    source: main(
      "d = {i: i for i in range(200000)}",
      "e = {}",
      "for i in range(100000):",
      "    e = dict(d)",
      "return len(e)",
    ),
    expect: LIMIT,
    why: "100,000 copies of a 200,000-entry dict",
  },
  {
    name: "dict-union-loop",
    kind: "dict",
    source: main(
      "d = {i: i for i in range(200000)}",
      "e = {}",
      "for i in range(100000):",
      "    e = d | d",
      "return len(e)",
    ),
    expect: LIMIT,
    why: "100,000 unions of 200,000-entry dicts",
  },
  {
    name: "dict-nested-str",
    kind: "dict",
    source: main(
      'd = {"k": "x" * 100000}',
      "for i in range(30):",
      '    d = {"a": d, "b": d, "s": str(d)}',
      "return len(str(d))",
    ),
    expect: LIMIT,
    why: "str() of a dict that embeds its own previous str: exponential",
  },
  {
    name: "dict-items-loop",
    kind: "dict",
    source: main(
      "d = {i: i for i in range(200000)}",
      "n = 0",
      "for i in range(100000):",
      "    n += len(d.items())",
      "return n",
    ),
    expect: LIMIT,
    why: "100,000 materialisations of 200,000 item pairs",
  },
];

/** Hostile programs: sets. */
export const SETS: readonly HostileProgram[] = [
  {
    name: "set-disabled",
    kind: "set",
    source: main("s = set(range(10000000))", "return len(s)"),
    expect: ["invalid_program", "resource_limit"],
    why: "`set` is off in CodeMode's dialect; if enabled, 10M elements",
  },
];

/**
 * Programs that look hostile but ask for bounded work well inside the budgets (even a 16 MiB memory
 * budget): they must succeed, so a budget that is charged too eagerly fails them.
 */
export const BOUNDED: readonly HostileProgram[] = [
  {
    name: "bounded-2mb-string",
    kind: "string",
    source: main('s = "x" * 2000000', "return len(s + s[:1000])"),
    expect: ["ok"],
    why: "a 2 MB string and one copy fit even a 16 MiB budget",
  },
  {
    name: "bounded-int-tower",
    kind: "int",
    source: main(...bigInt("x", 8), "return len(str(x)) > 30000"),
    expect: ["ok"],
    why: "a 128K-bit integer and its 38K decimal digits",
  },
  {
    name: "bounded-sort",
    kind: "list",
    source: main("l = [(i * 7919) % 10007 for i in range(20000)]", "return sorted(l)[-1]"),
    expect: ["ok"],
    why: "sorting 20,000 ints",
  },
  {
    name: "bounded-json-roundtrip",
    kind: "json",
    source: main(
      'd = {"k%d" % i: ["v"] * 10 for i in range(2000)}',
      "return len(json.decode(json.encode(d)))",
    ),
    expect: ["ok"],
    why: "a 100 KB json round trip",
  },
];
