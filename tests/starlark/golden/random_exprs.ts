/**
 * Random expressions for differential testing against the reference: a seeded generator of nested
 * Starlark expressions over every value type, operator, built-in, method, slice and `%` format, in two
 * flavours — "loose" (any operand anywhere, so most cases exercise error paths and their messages) and
 * "typed" (operands of the types the operation expects, so most cases compute a value).
 *
 * Ad-hoc exploration with other seeds (needs the reference `starlark` on PATH):
 *
 *     deno run -A tests/starlark/golden/random_exprs.ts SEED COUNT [typed|loose]
 *
 * @module
 */
import { SeededChoices } from "../../../src/starlark/seeded_random_test.ts";
import { UNIVERSE } from "../../../src/starlark/builtins/mod.ts";
import { BINARY_OPS, METHODS } from "./cases.ts";
import { compareSources, type Comparison } from "./run.ts";

/** The methods of the golden suite's receiver of type `kind` (its table is the spec of what exists). */
function methodsOf(kind: "string" | "list" | "dict" | "set"): readonly string[] {
  const prefix = { string: '"', list: "[", dict: "{", set: "set(" }[kind];
  return METHODS.find(([receiver]) => receiver.startsWith(prefix))![1];
}

const STRING_METHODS = methodsOf("string");
const LIST_METHODS = methodsOf("list");
const DICT_METHODS = methodsOf("dict");
const SET_METHODS = methodsOf("set");

const INTS = [
  "0",
  "1",
  "-1",
  "2",
  "3",
  "-3",
  "7",
  "10",
  "-10",
  "100",
  "255",
  "256",
  "65",
  "0x10",
  "0o17",
  "0b101",
  "1<<31",
  "1<<32",
  "-(1<<63)",
  "1<<64",
  "(1<<64)-1",
  "10**20",
  "-10**19",
];
const FLOATS = [
  "0.0",
  "-0.0",
  "1.5",
  "-2.5",
  "1e100",
  "1e-7",
  "123456789.0",
  "1e21",
  "1e16",
  "0.1",
  "3.0",
  "2.0**53",
  "1/3",
  "float('inf')",
  "-float('inf')",
  "float('nan')",
];
const STRINGS = [
  '""',
  '"abc"',
  '"a,b,,c"',
  '"  x y  "',
  '"Hello World"',
  '"é"',
  '"日本語"',
  '"a\\tb\\nc"',
  '"123"',
  '"-5"',
  '"ABC"',
  '"aBc"',
  '"x%sy"',
  '"{}"',
  '"{0}{1}"',
  '"{a}"',
  '"\\x00"',
  '"ab"*3',
  '" "',
  '"a.b.c"',
  '"İ"',
  '"ß"',
  '"\\u0130x"',
  '"\\ud7ff"',
  '"😀a"',
];
const OTHERS = [
  "None",
  "True",
  "False",
  "[]",
  "[1,2,3]",
  "[3,1,2]",
  "['b','a']",
  "()",
  "(1,)",
  "(1,2,3)",
  "{}",
  "{'a':1,'b':2}",
  "{1:2}",
  "range(5)",
  "range(1,10,3)",
  "range(10,0,-2)",
  "set([1,2])",
  "set()",
  'b"abc"',
  'b""',
  'b"\\xff\\x00"',
  "len",
  "lambda x: x",
];
const LISTS = ["[]", "['a','b','c']", "['x']", "[1,2,3]", "[3,1,2]", "[1.5, 1, -1]"];
const INT_OPS = ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"];
const FLOAT_OPS = ["+", "-", "*", "/", "//", "%"];
/** Every universe function except those with effects (print, fail), plus the library functions. */
const BUILTINS = [
  ...[...UNIVERSE.keys()].filter((name) => /^[a-z]/.test(name) && name !== "print" && name !== "fail"),
  ...["encode", "decode", "indent"].map((name) => `json.${name}`),
  ...["floor", "ceil", "sqrt", "log", "pow", "round", "copysign", "mod", "remainder"].map((name) =>
    `math.${name}`
  ),
];
const KEYWORDS = ["sep", "maxsplit", "key", "reverse", "default", "base", "indent", "prefix", "start", "end"];
const FORMATS = [
  '"%d"',
  '"%s %r"',
  '"%5.2f"',
  '"%x %o"',
  '"%e"',
  '"%g"',
  '"%c"',
  '"%(a)s"',
  '"%%"',
  '"%10s|"',
  '"%-5d|"',
  '"%+d"',
];
const TYPED_FORMATS = [
  '"%s-%s"',
  '"%r|%d"',
  '"%5s"',
  '"%-6r"',
  '"%.3s"',
  '"%o %x %X"',
  '"%3d|%-4d|%04d"',
  '"%e|%f|%g"',
  '"%.0e %.10g %.2f"',
];
const UNARY_MATH = [
  "sqrt",
  "exp",
  "log",
  "sin",
  "cos",
  "atan",
  "floor",
  "ceil",
  "round",
  "fabs",
  "log10",
  "log2",
  "tanh",
  "asinh",
  "degrees",
  "radians",
  "gamma",
];
const BINARY_MATH = ["pow", "atan2", "hypot", "copysign", "mod", "remainder", "log"];

/** A seeded generator of random Starlark expressions. */
export class ExpressionGenerator extends SeededChoices {
  /** A generator whose sequence of expressions is determined by `seed`. */
  constructor(seed: number) {
    super(seed);
  }

  private depth(): number {
    return 1 + Math.floor(this.rnd() * 3);
  }

  /** A program printing the `repr` of a random expression of either flavour. */
  program(flavour: "typed" | "loose"): string {
    const e = flavour === "typed" ? this.any(this.depth()) : this.loose(this.depth());
    return `print(repr(${e}))`;
  }

  private atom(): string {
    const r = this.rnd();
    return this.pick(r < .3 ? INTS : r < .45 ? FLOATS : r < .75 ? STRINGS : OTHERS);
  }

  private args(n: number, d: number): string {
    const a: string[] = [];
    for (let i = 0; i < n; i++) a.push(this.loose(d));
    if (this.chance(.15)) a.push(`${this.pick(KEYWORDS)}=${this.loose(d)}`);
    return a.join(", ");
  }

  private argCount(max: number): number {
    return Math.floor(this.rnd() * max);
  }

  /** Any operand anywhere. */
  private loose(d: number): string {
    if (d <= 0) return this.atom();
    const r = this.rnd();
    const e = d - 1;
    if (r < .25) return `(${this.loose(e)}) ${this.pick(BINARY_OPS)} (${this.loose(e)})`;
    if (r < .5) return `${this.pick(BUILTINS)}(${this.args(this.argCount(3), e)})`;
    if (r < .7) {
      return `${this.pick(STRINGS)}.${this.pick(STRING_METHODS)}(${this.args(this.argCount(3), e)})`;
    }
    if (r < .76) {
      return `${this.pick(["[1,2,3]", "['a','b']", "[]"])}.${this.pick(LIST_METHODS)}(${
        this.args(this.argCount(3), e)
      })`;
    }
    if (r < .82) {
      return `${this.pick(["{'a':1,'b':2}", "{}", "{1:2}"])}.${this.pick(DICT_METHODS)}(${
        this.args(this.argCount(3), e)
      })`;
    }
    if (r < .86) {
      return `set(${this.pick(["[1,2]", "'ab'.elems()", "[]"])}).${this.pick(SET_METHODS)}(${
        this.args(this.argCount(2), e)
      })`;
    }
    if (r < .92) {
      const seq = this.pick([...STRINGS, "[1,2,3,4,5]", "(1,2,3)", "range(10)", 'b"hello"']);
      const lo = this.pick(["", "-1", "2", "-10", "10", "None"]);
      const hi = this.pick(["", "-1", "2", "-10", "10"]);
      const step = this.chance(.5) ? ":" + this.pick(["1", "-1", "2", "-2", "3", "0"]) : "";
      return `${seq}[${lo}:${hi}${step}]`;
    }
    if (r < .96) {
      const second = this.chance(.5) ? ", " + this.loose(e) : "";
      return `${this.pick(FORMATS)} % (${this.loose(e)}${second}${this.chance(.3) ? "," : ""})`;
    }
    const source = this.pick(["range(3)", "'ab'.elems()", "[1,2]", this.loose(e)]);
    return `[${this.loose(e)} for x in ${source} if ${this.pick(["x", "True", "x != 1"])}]`;
  }

  private any(d: number): string {
    const r = this.rnd();
    if (r < .3) return this.str(d);
    if (r < .55) return this.int(d);
    if (r < .75) return this.float(d);
    if (r < .9) return this.list(d);
    return this.loose(d);
  }

  private str(d: number): string {
    if (d <= 0) return this.pick(STRINGS);
    const r = this.rnd();
    const e = d - 1;
    if (r < .15) return `${this.str(e)} + ${this.str(e)}`;
    if (r < .3) {
      const method = this.pick(["lower", "upper", "title", "capitalize", "strip", "lstrip", "rstrip"]);
      return `${this.str(e)}.${method}(${this.chance(.3) ? this.str(e) : ""})`;
    }
    if (r < .4) {
      return `${this.str(e)}.replace(${this.str(e)}, ${this.str(e)}${
        this.chance(.4) ? ", " + this.int(e) : ""
      })`;
    }
    if (r < .5) {
      const lo = this.chance(.5) ? this.int(e) : "";
      const hi = this.chance(.5) ? this.int(e) : "";
      const step = this.chance(.4) ? ":" + this.pick(["1", "-1", "2", "-2", "3"]) : "";
      return `${this.str(e)}[${lo}:${hi}${step}]`;
    }
    if (r < .6) return `${this.str(e)}.join(${this.list(e)})`;
    if (r < .7) {
      const third = this.chance(.5) ? ", " + this.any(e) : "";
      return `${this.pick(TYPED_FORMATS)} % (${this.any(e)}, ${this.any(e)}${third})`;
    }
    if (r < .8) return `str(${this.any(e)})`;
    if (r < .85) return `repr(${this.any(e)})`;
    if (r < .9) return `json.encode(${this.any(e)})`;
    if (r < .95) return `"{} {!r} {:}".format(${this.any(e)}, ${this.any(e)}, ${this.any(e)})`;
    return `${this.str(e)} * ${this.pick(["0", "1", "2", "-1", "3"])}`;
  }

  private int(d: number): string {
    if (d <= 0) return this.pick(INTS);
    const r = this.rnd();
    const e = d - 1;
    if (r < .4) return `(${this.int(e)}) ${this.pick(INT_OPS)} (${this.int(e)})`;
    if (r < .5) return `len(${this.chance(.5) ? this.str(e) : this.list(e)})`;
    if (r < .6) {
      const method = this.pick(["find", "rfind", "count"]);
      return `${this.str(e)}.${method}(${this.str(e)}${this.chance(.5) ? ", " + this.int(e) : ""})`;
    }
    if (r < .7) {
      const text = this.pick([
        this.float(e),
        '"0x1f"',
        '"-12"',
        '"  7 "',
        '"1_000"',
        '"0b11"',
        '"077"',
        '"0o77"',
      ]);
      const base = this.chance(.3) ? ", " + this.pick(["0", "2", "8", "10", "16", "36"]) : "";
      return `int(${text}${base})`;
    }
    if (r < .8) return `hash(${this.str(e)})`;
    if (r < .9) return `-(${this.int(e)})`;
    return `${this.pick(["abs", "int"])}(${this.int(e)})`;
  }

  private float(d: number): string {
    if (d <= 0) return this.pick(FLOATS);
    const r = this.rnd();
    const e = d - 1;
    const number = () => this.chance(.5) ? this.float(e) : this.int(e);
    if (r < .5) return `(${number()}) ${this.pick(FLOAT_OPS)} (${this.float(e)})`;
    if (r < .7) {
      return `float(${this.pick([this.int(e), '"1e5"', '"-inf"', '"nan"', '" 2.5 "', '"1_0.5"', '"0x10"'])})`;
    }
    if (r < .85) return `math.${this.pick(UNARY_MATH)}(${number()})`;
    return `math.${this.pick(BINARY_MATH)}(${this.float(e)}, ${number()})`;
  }

  private list(d: number): string {
    if (d <= 0) return this.pick(LISTS);
    const r = this.rnd();
    const e = d - 1;
    if (r < .2) {
      const sep = this.chance(.5) ? this.str(e) : "";
      const max = sep !== "" && this.chance(.4) ? ", " + this.int(e) : "";
      return `${this.str(e)}.${this.pick(["split", "rsplit"])}(${sep}${max})`;
    }
    if (r < .3) return `${this.str(e)}.splitlines(${this.chance(.3) ? "True" : ""})`;
    if (r < .4) {
      return `sorted(${this.list(e)}${this.chance(.4) ? ", reverse=True" : ""}${
        this.chance(.3) ? ", key=str" : ""
      })`;
    }
    if (r < .5) {
      const view = this.pick(["elems", "codepoints", "elem_ords", "codepoint_ords"]);
      return `list(${this.str(e)}.${view}())`;
    }
    if (r < .6) return `${this.list(e)} + ${this.list(e)}`;
    if (r < .7) return `[${this.any(e)} for x in ${this.list(e)}]`;
    if (r < .8) return `list(${this.str(e)}.${this.pick(["partition", "rpartition"])}(${this.str(e)}))`;
    if (r < .9) return `list(zip(${this.list(e)}, ${this.list(e)}))`;
    return `list(reversed(${this.list(e)}))`;
  }
}

/**
 * Generates `count` expression programs of `flavour` from `seed` and compares them with the reference
 * (see `compareSources`).
 */
export function compareRandomPrograms(
  seed: number,
  count: number,
  flavour: "typed" | "loose",
): Promise<Comparison> {
  const gen = new ExpressionGenerator(seed);
  return compareSources(Array.from({ length: count }, () => gen.program(flavour)));
}

if (import.meta.main) {
  const [seed = "1", count = "1000", flavour = "typed"] = Deno.args;
  if (flavour !== "typed" && flavour !== "loose") {
    throw new Error(`flavour must be typed or loose, not ${flavour}`);
  }
  const { ran, differences } = await compareRandomPrograms(Number(seed), Number(count), flavour);
  for (const d of differences) {
    console.log(
      `${JSON.stringify(d.source)}\n  reference: ${JSON.stringify(d.reference)}\n  ours:      ${
        JSON.stringify(d.ours)
      }`,
    );
  }
  console.log(`${ran} cases, ${differences.length} differences`);
}
