/**
 * A seeded generator of hostile Starlark programs for the containment test: each program tries to make
 * one operation (or a short loop of them) allocate far more memory, or run far longer, than its budgets
 * allow — big-int towers, string and bytes concatenation and doubling, list and tuple growth, nested
 * comprehensions, dict and set growth, `json` of big or shared structures, `repr` of nested shared
 * containers, formatting, joins, replacements and conversions. Sizes are drawn at random around the
 * thresholds that matter (a 16 MiB memory budget, the integer-size cap, a few hundred milliseconds), so a
 * seed explores both programs that finish and programs that must be stopped.
 *
 * Every program defines `main()` and ends with `main()` at top level; `json` is predeclared.
 *
 * @module
 */
import { SeededChoices } from "../../src/starlark/seeded_random_test.ts";

/** One generated program. */
export interface HostileProgram {
  /** Which shape produced it (for messages). */
  readonly shape: string;
  /** Starlark source. */
  readonly source: string;
}

/** A shape: builds the body of `main()` (4-space indented lines) from random choices. */
type Shape = (g: HostileGenerator) => string[];

const SHAPES: Record<string, Shape> = {
  // The program: an int squared into a tower, then a comprehension of results of its size.
  intTower: (g) => [
    `x = ${g.pick(["3", "7", "12345678901234567", "2"])}`,
    `for i in range(${g.int(14, 30)}):`,
    `    x = x * x${g.pick(["", " + 1", " - i"])}`,
    `l = [x + i for i in range(${g.int(10, 2000)})]`,
    `return len(l)`,
  ],
  // Products of a huge int with itself and division by a big one, many times.
  intMulDiv: (g) => [
    `x = (1 << ${g.int(400, 511)}) - 1`,
    `for i in range(${g.int(6, 12)}):`,
    `    x = x * x`,
    `y = x // 3`,
    `t = 0`,
    `for i in range(${g.int(100, 100000)}):`,
    `    t += ${g.pick(["(x * y) % 1000", "x // (y + i) ", "(x % (y - i)) & 1", "(x ^ y) >> 100"])}`,
    `return t`,
  ],
  // Shifts grow an int by up to 511 bits a step.
  intShift: (g) => [
    `x = 1`,
    `for i in range(${g.int(100, 100000)}):`,
    `    x = (x << ${g.int(100, 511)}) | 1`,
    `return x & 255`,
  ],
  // Decimal conversions of huge ints, both ways.
  intDecimal: (g) => [
    `x = 7`,
    `for i in range(${g.int(12, 19)}):`,
    `    x = x * x`,
    `n = 0`,
    `for i in range(${g.int(5, 2000)}):`,
    `    ${
      g.pick([
        "n += len(str(x + i))",
        'n += len("%d" % (x - i))',
        "n += len(json.encode([x, i]))",
        "n += int(str(x))  % 7",
        'n += len(repr({"k": x}))',
        'n += len("{}".format(x))',
        "n += hash(str(x)) % 3",
      ])
    }`,
    `return n`,
  ],
  // int() of long digit strings.
  intParse: (g) => [
    `s = "${g.pick(["9", "12", "z", "1"])}" * ${g.int(1000, 200000)}`,
    `n = 0`,
    `for i in range(${g.int(5, 500)}):`,
    `    n += int(s, ${g.pick(["10", "36", "16", "0", "7"])}) % 5`,
    `return n`,
  ],
  // The second program: concatenation with a long string, then an access that flattens it.
  strConcat: (g) => [
    `s = "${g.pick(["a", "é", "xy"])}" * ${g.int(1 << 16, 1 << 21)}`,
    `keep = []`,
    `for i in range(${g.int(10, 100000)}):`,
    `    t = ${g.pick(["s + str(i)", "str(i) + s", 's + "-"', "s[1:] + s[:1]"])}`,
    `    ${g.pick(["x = t[-1]", "x = t.find('q')", "x = len(t)", "keep.append(t)", "x = hash(t)"])}`,
    `return len(keep)`,
  ],
  // Doubling a string, bytes, a list or a tuple.
  doubling: (g) => {
    const [init, grow] = g.pick([
      ['"ab"', g.pick(["s = s + s", "s += s", "s = s * 2", "s = s + s[1:]"])],
      ['b"ab"', g.pick(["s = s + s", "s += s", "s = s * 2"])],
      ["[1, 2]", g.pick(["s = s + s", "s += s", "s = s * 2", "s.extend(s)", "s = s[:] + s"])],
      ["(1, 2)", g.pick(["s = s + s", "s += s", "s = s * 2"])],
    ]);
    return [
      `s = ${init}`,
      `for i in range(${g.int(20, 40)}):`,
      `    ${grow}`,
      `    x = s[-1]`,
      `return len(s)`,
    ];
  },
  // Nested comprehensions whose total size is the product of the ranges.
  comprehension: (g) => [
    `n = ${g.int(100, 5000)}`,
    `l = [${
      g.pick([
        "[j for j in range(n)] for i in range(n)",
        "(i, j) for i in range(n) for j in range(n)",
        "str(i) * 10 for i in range(n * n)",
        "{i: j} for i in range(n) for j in range(50)",
      ])
    }]`,
    `return len(l)`,
  ],
  // Dicts and sets growing with big values or keys.
  dictGrowth: (g) => [
    `d = {}`,
    `v = "v" * ${g.int(1, 100000)}`,
    `for i in range(${g.int(1000, 1000000)}):`,
    `    ${
      g.pick([
        "d[i] = v",
        "d[str(i) + v] = i",
        "d[(i, i, i)] = [i]",
        "d.update({i: v, -i: v})",
        "d.setdefault(i, [v, v])",
      ])
    }`,
    `    ${
      g.pick(["pass", "e = dict(d) if i % 1000 == 0 else None", "e = (d | d) if i % 500 == 0 else None"])
    }`,
    `return len(d)`,
  ],
  // json.encode and json.indent of big or shared structures.
  json: (g) => [
    `l = [${g.pick(['"x" * 1000', "123456789", "1.5", "None", '{"a": [1, 2]}'])}]`,
    `for i in range(${g.int(10, 40)}):`,
    `    l = ${g.pick(["[l, l]", "l + l", "{'a': l, 'b': l}", "[l] * 3"])}`,
    `    s = json.${g.pick(["encode(l)", "indent(json.encode(l))", "decode(json.encode(l))"])}`,
    `return len(l)`,
  ],
  // repr/str of nested shared containers (text exponential in the memory).
  repr: (g) => [
    `l = [${g.pick(['"ab"', "1", "(1, 2)", '"é\\n"'])}]`,
    `for i in range(${g.int(10, 40)}):`,
    `    l = ${g.pick(["[l, l]", "(l, l)", "{1: l, 2: l}", "[l, l, l]"])}`,
    `    s = ${g.pick(["str(l)", "repr(l)", '"%s" % (l,)', '"{}".format(l)', "str([l])"])}`,
    `return len(s)`,
  ],
  // String methods that produce strings: join, replace, format, case, padding-like repetition.
  strMethods: (g) => [
    `s = "${g.pick(["a", "ab", "a b"])}" * ${g.int(1000, 1 << 20)}`,
    `for i in range(${g.int(5, 50)}):`,
    `    s = ${
      g.pick([
        's.replace("a", "aa")',
        '",".join([s, s])',
        '"".join([s] * 3)',
        '" ".join(s.split(" ") * 2)',
        "s.upper() + s.lower()",
        '"%s%s" % (s, s)',
        '"{}{}".format(s, s)',
        "s + s.title()",
        'repr(s)[1:-1] + "\\t"',
        "s.strip() * 2",
      ])
    }`,
    `return len(s)`,
  ],
  // Bytes operations.
  bytesOps: (g) => [
    `b = b"${g.pick(["a", "\\xff", "ab"])}" * ${g.int(1000, 1 << 20)}`,
    `for i in range(${g.int(5, 50)}):`,
    `    b = ${
      g.pick(["b + b", "b * 2", 'b"".join([b, b])', "bytes(str(b), 'utf-8')", "b + bytes(repr(b))"])
    }`,
    `return len(b)`,
  ],
  // Scans that allocate nothing: only the deadline (or the step budget) stops them.
  scan: (g) => [
    `s = "${g.pick(["a", "é", "a\\n"])}" * ${g.int(1 << 16, 1 << 21)}`,
    `l = list(range(${g.int(1000, 1 << 18)}))`,
    `n = 0`,
    `for i in range(1000000000):`,
    `    n += ${
      g.pick([
        "hash(s)",
        's.count("q")',
        's.find("q")',
        'int("q" in s)',
        "int(s.isalpha())",
        "int(-1 in l)",
        "l.index(0)",
        "int(s.startswith(s))",
        "int(s == s[:])",
        "len(s.strip())",
      ])
    }`,
    `return n`,
  ],
  // Hash keys whose cost grows with their content: a long string compared whole with an equal key in the
  // table, bytes and tuples whose keys are built from their content, tables compared key by key.
  keys: (g) => [
    `s = "${g.pick(["x", "é", "ab"])}" * ${g.int(1000, 1 << 21)}`,
    `t = s[:-1] + s[-1]`,
    `b = bytes(s)`,
    `c = bytes(t)`,
    `big = tuple(range(${g.int(1000, 1 << 20)}))`,
    `d = {s: 1, b: 2, (s, 1): 3, big: 4}`,
    `e = {t: 1, c: 2, (t, 1): 3, big[:]: 4}`,
    `n = 0`,
    `for i in range(1000000000):`,
    `    n += ${
      g.pick([
        "d[t]",
        "d[c]",
        "d.get((t, 1), 0)",
        "int(d == e)",
        "d.get(big[:], 0)",
        "int(t in d) + int(c in d)",
        "len(d | e)",
        "e.setdefault((t, i % 3), 0)",
        "int(b < c) + int(b == c)",
        "len({(t, i): i})",
      ])
    }`,
    `return n`,
  ],
  // Sorting, reversing and materialising large sequences.
  sequences: (g) => [
    `l = list(range(${g.int(1000, 1 << 20)}))`,
    `for i in range(${g.int(3, 30)}):`,
    `    l = ${
      g.pick([
        "sorted(l + l)",
        "list(reversed(l)) + l",
        "[x for x in l] + [x for x in l]",
        "list(zip(l, l)) + l",
        "list(enumerate(l)) + l",
        "tuple(l) + tuple(l)",
        "l * 2",
        "list(dict.fromkeys(l, l).keys()) + l",
      ])
    }`,
    `return len(l)`,
  ],
};

/** The seeded generator of {@link HostileProgram}s. */
export class HostileGenerator extends SeededChoices {
  /** A generator determined by `seed`. */
  constructor(seed: number) {
    super(seed);
  }

  /** An int in [lo, hi], log-uniform so that small and large sizes both occur. */
  int(lo: number, hi: number): number {
    const x = Math.exp(Math.log(lo) + this.rnd() * (Math.log(hi) - Math.log(lo)));
    return Math.min(hi, Math.max(lo, Math.round(x)));
  }

  /** One of `items`, uniformly. */
  override pick<T>(items: readonly T[]): T {
    return super.pick(items);
  }

  /** The next program; `shape` forces one shape. */
  program(shape?: string): HostileProgram {
    const name = shape ?? this.pick(Object.keys(SHAPES));
    const body = SHAPES[name](this);
    const source = "def main():\n" + body.map((l) => "    " + l + "\n").join("") + "\nmain()\n";
    return { shape: name, source };
  }
}

/** Names of every shape. */
export const SHAPE_NAMES: readonly string[] = Object.freeze(Object.keys(SHAPES));
