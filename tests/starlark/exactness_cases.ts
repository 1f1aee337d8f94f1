/**
 * The generated programs of the exactness checks against the reference (`exactness_test.ts`), one family
 * per class of difference the engine once had: callbacks that mutate what a built-in iterates, the
 * built-in's name on "unhashable" errors, the position of slice errors after `and`/`or`/conditional
 * arms, escape sequences measured in UTF-8 bytes, and a NUL in a comment ending the file. Each case has a
 * stable key; `exactness_expected.json` holds the reference's output for it, summarized by {@link summary}
 * (written by `exactness_record.ts`).
 *
 * @module
 */
import { seededRandom } from "../../src/starlark/seeded_random_test.ts";

/** One program and the key its expectation is recorded under. */
export interface Case {
  readonly key: string;
  readonly source: string;
}

/** A container the callback families iterate, and the mutations its callback makes. */
interface ContainerKind {
  readonly init: string;
  /** Statements run by the callback `f(k)`; `c` is the iterated container, `o` another one like it. */
  readonly mutations: readonly string[];
}

const CONTAINERS: Readonly<Record<string, ContainerKind>> = {
  list: {
    init: "[3, 1, 2]",
    mutations: [
      "c.append(0)",
      "c.clear()",
      "c.pop()",
      "c.insert(0, 0)",
      "c.extend([0])",
      "c.extend([])",
      "c.remove(k)",
      "c[0] = 0",
      "c[0] += 1",
      "o.append(0)",
    ],
  },
  dict: {
    init: '{3: "a", 1: "b", 2: "c"}',
    mutations: [
      'c[9] = "z"',
      'c[k] = "z"',
      "c.pop(k)",
      "c.pop(99, None)",
      "c.clear()",
      "c.popitem()",
      'c.setdefault(9, "z")',
      'c.setdefault(k, "z")',
      'c.update({9: "z"})',
      "c.update({})",
      'o[9] = "z"',
    ],
  },
  set: {
    init: "set([3, 1, 2])",
    mutations: [
      "c.add(9)",
      "c.add(k)",
      "c.discard(k)",
      "c.discard(99)",
      "c.remove(k)",
      "c.pop()",
      "c.clear()",
      "c.update([9])",
      "c.update([])",
      "o.add(9)",
    ],
  },
};

/**
 * Every way a program runs its own code while something iterates `c`: the key functions of `sorted`,
 * `min` and `max`, comprehensions and a loop (which hold `c` open), and uses that copy `c` first
 * (`enumerate`, `zip`, `list`), where mutating `c` is allowed.
 */
const CONSUMERS: readonly string[] = [
  "sorted(c, key = f)",
  "sorted(c, key = f, reverse = True)",
  "min(c, key = f)",
  "max(c, key = f)",
  "[f(k) for k in c]",
  "{k: f(k) for k in c}",
  "[k for k in c if f(k)]",
  "[f(k) for _, k in enumerate(c)]",
  "[f(k) for (k,) in zip(c)]",
  "sorted(list(c), key = f)",
  "g()",
];

/** Each consumer × each mutation × each container kind. */
export function callbackCases(): Case[] {
  const out: Case[] = [];
  for (const [kind, { init, mutations }] of Object.entries(CONTAINERS)) {
    for (const m of mutations) {
      for (const use of CONSUMERS) {
        out.push({
          key: `callback ${kind} | ${m} | ${use}`,
          source: `c = ${init}\no = ${init}\ndef f(k):\n    ${m}\n    return k\n` +
            `def g():\n    for k in c:\n        f(k)\n    return c\nprint(${use})\n`,
        });
      }
    }
  }
  return out;
}

/** Unhashable values: lists, dicts, sets, a module, a range, the string and bytes views, a tuple of one. */
const UNHASHABLE: readonly string[] = [
  "json",
  "[1]",
  "{}",
  "set()",
  "range(2)",
  '"ab".elems()',
  '"ab".codepoints()',
  'b"ab".elems()',
  "(1, [2])",
];

/** Where a value is hashed (`X`): every built-in, method and operator that takes a key or an element. */
const HASH_SITES: readonly string[] = [
  "set([X])",
  "set((X,))",
  "set([1, X])",
  "set().add(X)",
  "set([1]).add(X)",
  "set().union([X])",
  "set([1]).union([1, X])",
  "set().update([X])",
  "set().update([1], [X])",
  "set([1]).union([1], [X])",
  "set([1]).difference([X])",
  "set([1]).intersection([X])",
  "set([1]).symmetric_difference([X])",
  "set([1]).issubset([X])",
  "set([1]).issuperset([X])",
  "set([1]).discard(X)",
  "set().discard(X)",
  "set([1]).remove(X)",
  "set().remove(X)",
  "X in set([1])",
  "X in set()",
  "X not in set([1])",
  "X in {1: 2}",
  "X in {}",
  "dict([(X, 1)])",
  "dict([[X, 1]])",
  "{}.update([(X, 1)])",
  "{1: 2}.update([(X, 1)])",
  "{}.get(X)",
  "{1: 2}.get(X)",
  "{}.pop(X)",
  "{1: 2}.pop(X, 0)",
  "{}.setdefault(X)",
  "{1: 2}[X]",
  "{}[X]",
  "{X: 1}",
  "{1: 2, X: 1}",
  "{X: 1 for _ in [1]}",
  "{1: 1 for _ in [1]} | {X: 1}",
  "set([1]) | set([X])",
  "set([1]) & set([X])",
  "set([1]) - set([X])",
  "set([1]) ^ set([X])",
  "hash(X)",
];

/** Each hashing site × each unhashable value, plus the statement forms. */
export function unhashableCases(): Case[] {
  const out: Case[] = [];
  for (const x of UNHASHABLE) {
    for (const site of HASH_SITES) {
      out.push({ key: `unhashable ${site} | ${x}`, source: `print(${site.replaceAll("X", x)})\n` });
    }
    out.push(
      { key: `unhashable d[X] = 2 | ${x}`, source: `def f():\n    d = {}\n    d[${x}] = 2\nf()\n` },
      { key: `unhashable d[X] += 1 | ${x}`, source: `def f():\n    d = {}\n    d[${x}] += 1\nf()\n` },
      { key: `unhashable s |= | ${x}`, source: `s = set()\ns |= set([${x}])\n` },
      { key: `unhashable d |= | ${x}`, source: `d = {}\nd |= {${x}: 1}\n` },
    );
  }
  return out;
}

/**
 * Operands that record positions (`-2`, `x` read as a global, a call, an index, a method) and some that
 * record none (literals).
 */
const ATOMS: readonly string[] = ["1", "0", "-2", "x", "f(1)", "[1][0]", "-x", "True", "None", "(x)", "~x"];

/** Operands of the long chains: ints, some holding an `and` or a conditional of their own. */
const INT_ATOMS: readonly string[] = [
  "1",
  "0",
  "-2",
  "x",
  "f(1)",
  "-x",
  "~x",
  "(x and -x)",
  "(-x if x else 1)",
];

/** Seeded slices of a dict (always an error) whose bounds nest `and`, `or`, `not`, conditionals... */
export function slicePositionCases(count = 400, seed = 27): Case[] {
  const rnd = seededRandom(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const expr = (d: number): string => {
    if (d === 0 || rnd() < 0.25) return pick(ATOMS);
    switch (Math.floor(rnd() * 8)) {
      case 0:
        return `${expr(d - 1)} and ${expr(d - 1)}`;
      case 1:
        return `${expr(d - 1)} or ${expr(d - 1)}`;
      case 2:
        return `${expr(d - 1)} if ${expr(d - 1)} else ${expr(d - 1)}`;
      case 3:
        return `not ${expr(d - 1)}`;
      case 4:
        return `(${expr(d - 1)})`;
      case 5:
        return `${expr(d - 1)} not in [${expr(d - 1)}]`;
      case 6:
        return `${expr(d - 1)} == ${expr(d - 1)}`;
      default:
        return `${rnd() < 0.5 ? "-" : ""}(${expr(d - 1)})`;
    }
  };
  const out: Case[] = [];
  for (let i = 0; i < count; i++) {
    const target = pick(["{}", "d", "{1: x}"]);
    const lo = rnd() < 0.7 ? `(${expr(3)})` : "", hi = rnd() < 0.5 ? `(${expr(2)})` : "";
    const bounds = rnd() < 0.3 ? `${lo}:${hi}:(${expr(2)})` : `${lo}:${hi}`;
    const line = `y = ${target}[${bounds}]`;
    const head = "x = 1\nd = {}\ndef f(v):\n    return v\n";
    const source = rnd() < 0.5 ? `${head}${line}\n` : `${head}def g():\n    ${line}\ng()\n`;
    out.push({ key: `slice ${i}`, source });
  }
  // Chains longer than the compiler's recursion (compiled in groups, see compile_chain.ts).
  for (const n of [40, 100, 300]) {
    for (let k = 0; k < 3; k++) {
      let e = pick(INT_ATOMS);
      for (let j = 0; j < n; j++) e += `${pick([" and ", " or ", " + "])}${pick(INT_ATOMS)}`;
      out.push({
        key: `slice chain ${n} ${k}`,
        source: `x = 1
def f(v):
    return v
y = {}[(${e}):]
`,
      });
    }
  }
  return out;
}

/** Escapes cut short or spoiled by non-ASCII text: every hex escape × valid digits × what follows. */
export function escapeCases(): Case[] {
  const out: Case[] = [];
  const followers = ["é", "€", "😀", "g", "é€", "😀😀", "éé", ""];
  for (const [esc, digits] of [["x", 2], ["u", 4], ["U", 8]] as const) {
    for (let valid = 0; valid < digits; valid++) {
      for (const after of followers) {
        for (const prefix of ["", "b"]) {
          const body = `\\${esc}${"1aF0E2d3".slice(0, valid)}${after}`;
          out.push({ key: `escape ${prefix}${body}`, source: `x = ${prefix}"${body}"\n` });
        }
      }
    }
  }
  for (const body of ["\\é", "\\1é", "\\😀", "\\x", "\\u00e9é", "\\U0001F600😀"]) {
    out.push({ key: `escape ${body}`, source: `x = "${body}"\n` });
  }
  return out;
}

/** A NUL inside a comment, at the top level, in blocks, in brackets and after non-ASCII text. */
export function nulCases(): Case[] {
  return [
    "x = 1 # a\0b\nprint(x)\nfail(1)\n",
    "print(1) # \0\nprint(2)\n",
    "def f():\n    # \0\n    return 1\nprint(f())\n",
    "def f():\n    return 1 # \0 x\nprint(f())\n",
    "print(1)\n# \0 print(2)\n",
    "x = [1, # \0\n 2]\nprint(x)\n",
    "print(1) # é\0\nprint(2)\n",
    "print(1) # 😀\0\nprint(2)\n",
    "def f():\n    print(1) #\0\n    print(2)\nf()\n",
    "#\0\nprint(3)\n",
    "print(1) # \0 \n  fail(2)\n",
  ].map((source, i) => ({ key: `nul ${i}`, source }));
}

/** Every family, in the order of `exactness_expected.json`. */
export function allCases(): Case[] {
  return [...callbackCases(), ...unhashableCases(), ...slicePositionCases(), ...escapeCases(), ...nulCases()];
}

/**
 * What the checks compare without the reference at hand: every `cmdline:LINE:COL` position of the
 * output, then its last line (the error, or the last value printed).
 */
export function summary(output: string): string {
  const positions = [...output.matchAll(/cmdline:(\d+:\d+)/g)].map((m) => m[1]);
  const lines = output.split("\n").filter((l) => l !== "");
  return `${positions.join(" ")} | ${lines.at(-1) ?? ""}`;
}
