/**
 * Random whole programs for differential testing against the reference: a seeded generator of small
 * functions with local and nested-function scopes, closures, loops with `break`/`continue`, `if`/`elif`,
 * augmented and indexed assignment, tuple unpacking, comprehensions, `print` and calls with every
 * parameter kind. Variables keep one type each (ints, strings, lists of ints, dicts of strings to ints) so
 * that most programs run to completion (loops
 * take at most four items, so growth stays bounded), while operations that can fail (index out of range, missing keys,
 * division by zero, mutation during iteration, frozen globals) still happen now and then.
 *
 * Ad-hoc exploration with other seeds (needs the reference `starlark` on PATH):
 *
 *     deno run -A tests/starlark/golden/random_programs.ts SEED COUNT [valid|mutated]
 *
 * @module
 */
import { SeededChoices } from "../../../src/starlark/seeded_random_test.ts";
import { compareSources } from "./run.ts";

type Kind = "int" | "str" | "list" | "dict";

const NAMES: Record<Kind, readonly string[]> = {
  int: ["i", "j", "n"],
  str: ["s", "t"],
  list: ["xs", "ys"],
  dict: ["d"],
};
const KINDS: readonly Kind[] = ["int", "str", "list", "dict"];

/** What `mutatedProgram` inserts: tokens, keywords, quotes, indents, bad literals and stray characters. */
const EDIT_TOKENS = [
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ":",
  ",",
  "=",
  "+=",
  "lambda",
  "def",
  "if",
  "else",
  "for",
  "in",
  "return",
  "pass",
  "break",
  "*",
  "**",
  "\n",
  "    ",
  "\t",
  "'",
  '"',
  "\\",
  "#",
  ".",
  "1.e",
  "0x",
  "load",
  "while",
  "not",
  "is",
  "!",
  "$",
  "->",
  ";",
  "yield",
  "class",
  "nonlocal",
  "x",
  "_",
  "0o8",
  "1_",
  "'''",
  "b'",
  "r'\\",
  "@",
  "//=",
  ">>",
];

/** A seeded generator of random Starlark programs. */
export class ProgramGenerator extends SeededChoices {
  private lines: string[] = [];
  private functionCount = 0;

  /** A generator whose sequence of programs is determined by `seed`. */
  constructor(seed: number) {
    super(seed);
  }

  private small(): string {
    return String(Math.floor(this.rnd() * 7) - 2);
  }

  /** One program: global data, a few helper functions and a `main` whose result is printed. */
  program(): string {
    this.lines = [];
    this.functionCount = 0;
    this.lines.push(`G = [1, 2, 3]`);
    this.lines.push(`def helper(a, b = 2, *rest, **opts):`);
    this.lines.push(`    return a * b + len(rest) + len(opts)`);
    this.lines.push(`def main():`);
    this.initLocals("    ");
    this.block("    ", 2, false);
    this.lines.push(`    return [i, j, n, s, t, xs, ys, d]`);
    this.lines.push(`print(main())`);
    return this.lines.join("\n") + "\n";
  }

  /**
   * A program with one or two random edits (a few characters deleted, or a token, quote, indent or
   * stray character inserted): mostly syntax and resolve errors, whose messages and positions count too.
   */
  mutatedProgram(): string {
    let p = this.program();
    const edits = 1 + Math.floor(this.rnd() * 2);
    for (let k = 0; k < edits; k++) {
      const at = Math.floor(this.rnd() * p.length);
      if (this.chance(.4)) p = p.slice(0, at) + p.slice(at + 1 + Math.floor(this.rnd() * 3));
      else p = p.slice(0, at) + this.pick(EDIT_TOKENS) + p.slice(at);
    }
    return p;
  }

  private initLocals(indent: string): void {
    this.lines.push(`${indent}i, j, n = 1, 2, 3`);
    this.lines.push(`${indent}s, t = "ab", "c,d"`);
    this.lines.push(`${indent}xs, ys = [1, 2], [3]`);
    this.lines.push(`${indent}d = {"a": 1}`);
  }

  private block(indent: string, depth: number, inLoop: boolean): void {
    const count = 1 + Math.floor(this.rnd() * 4);
    for (let k = 0; k < count; k++) this.statement(indent, depth, inLoop);
  }

  private statement(indent: string, depth: number, inLoop: boolean): void {
    const r = this.rnd();
    const inner = indent + "    ";
    if (depth > 0 && r < .12) {
      this.lines.push(`${indent}if ${this.cond(1)}:`);
      this.block(inner, depth - 1, inLoop);
      if (this.chance(.4)) {
        this.lines.push(`${indent}elif ${this.cond(1)}:`);
        this.block(inner, depth - 1, inLoop);
      }
      if (this.chance(.5)) {
        this.lines.push(`${indent}else:`);
        this.block(inner, depth - 1, inLoop);
      }
      return;
    }
    if (depth > 0 && r < .24) {
      const v = this.pick(["x", "y"]);
      const source = this.pick([
        `range(${this.small()}, ${this.small()})`,
        `${this.pick(NAMES.list)}[:4]`,
        `${this.pick(NAMES.str)}[:4].elems()`,
        `list(${this.pick(NAMES.list)}[:4])`,
        `sorted(${this.pick(NAMES.dict)}.keys())[:4]`,
        `enumerate(${this.pick(NAMES.list)}[:4])`,
      ]);
      const target = source.startsWith("enumerate") ? `${v}, z` : v;
      this.lines.push(`${indent}for ${target} in ${source}:`);
      if (this.chance(.3)) this.lines.push(`${inner}if ${v} == ${this.small()}:\n${inner}    continue`);
      if (this.chance(.3)) this.lines.push(`${inner}if ${this.cond(0)}:\n${inner}    break`);
      this.block(inner, depth - 1, true);
      return;
    }
    if (depth > 0 && r < .32) {
      // A nested function reading (never assigning) the enclosing locals: a closure.
      const name = `f${this.functionCount++}`;
      const kind = this.pick(KINDS);
      this.lines.push(`${indent}def ${name}(p, q = ${this.small()}):`);
      if (this.chance(.5)) this.lines.push(`${inner}r = p + q`);
      else this.lines.push(`${inner}r = p - q`);
      this.lines.push(`${inner}return ${kind === "int" ? `r + ${this.expr("int", 1)}` : this.expr(kind, 1)}`);
      const target = kind === "int" ? this.pick(NAMES.int) : this.pick(NAMES[kind]);
      this.lines.push(
        `${indent}${target} = ${name}(${this.expr("int", 1)}${this.chance(.4) ? ", q = 2" : ""})`,
      );
      return;
    }
    if (inLoop && r < .35) {
      this.lines.push(`${indent}${this.pick(["break", "continue"])}`);
      return;
    }
    if (r < .45) {
      const kind = this.pick(KINDS);
      this.lines.push(`${indent}${this.pick(NAMES[kind])} = ${this.expr(kind, 2)}`);
      return;
    }
    if (r < .55) {
      const kind = this.pick(["int", "str", "list"] as const);
      const op = kind === "int" ? this.pick(["+=", "-=", "*=", "//=", "%=", "|=", "^=", "<<="]) : "+=";
      const operand = kind === "int" && op === "<<="
        ? String(Math.floor(this.rnd() * 5))
        : this.expr(kind, 1);
      this.lines.push(`${indent}${this.pick(NAMES[kind])} ${op} ${operand}`);
      return;
    }
    if (r < .63) {
      const list = this.pick(NAMES.list);
      const index = this.chance(.8) ? this.pick(["0", "-1"]) : this.small();
      this.lines.push(
        `${indent}if ${list}:\n${indent}    ${list}[${index}] ${this.pick(["=", "+="])} ${
          this.expr("int", 1)
        }`,
      );
      return;
    }
    if (r < .71) {
      const dict = this.pick(NAMES.dict);
      const key = this.pick(['"a"', '"b"', "s", "t[:1]"]);
      const op = this.chance(.8) ? "=" : "+=";
      this.lines.push(`${indent}${dict}[${key}] ${op} ${this.expr("int", 1)}`);
      return;
    }
    if (r < .79) {
      const method = this.pick([
        `append(${this.expr("int", 1)})`,
        `extend(${this.expr("list", 1)})`,
        `insert(${this.small()}, ${this.expr("int", 1)})`,
        `pop()`,
        `remove(${this.small()})`,
        `clear()`,
      ]);
      this.lines.push(`${indent}${this.pick([...NAMES.list, "G"])}.${method}`);
      return;
    }
    if (r < .85) {
      this.lines.push(
        `${indent}i, (s, j) = ${this.expr("int", 1)}, (${this.expr("str", 1)}, ${this.expr("int", 1)})`,
      );
      return;
    }
    if (r < .92) {
      this.lines.push(`${indent}print(${this.expr(this.pick(KINDS), 1)}, ${this.expr(this.pick(KINDS), 1)})`);
      return;
    }
    this.lines.push(`${indent}d.update({${this.expr("str", 1)}: ${this.expr("int", 1)}})`);
  }

  private cond(depth: number): string {
    const r = this.rnd();
    if (depth > 0 && r < .3) {
      return `${this.cond(depth - 1)} ${this.pick(["and", "or"])} not ${this.cond(depth - 1)}`;
    }
    if (r < .6) {
      return `${this.expr("int", 1)} ${this.pick(["<", "<=", "==", "!=", ">"])} ${this.expr("int", 1)}`;
    }
    if (r < .8) return `${this.expr("str", 0)} in ${this.pick([...NAMES.str, ...NAMES.dict])}`;
    return this.expr(this.pick(KINDS), 1);
  }

  private expr(kind: Kind, depth: number): string {
    if (depth <= 0 || this.chance(.35)) {
      if (kind === "int") return this.chance(.5) ? this.pick(NAMES.int) : this.small();
      if (kind === "str") return this.chance(.6) ? this.pick(NAMES.str) : this.pick(['"x"', '""', '"a,b"']);
      if (kind === "list") return this.chance(.7) ? this.pick(NAMES.list) : "[0]";
      return this.pick(NAMES.dict);
    }
    const e = depth - 1;
    const r = this.rnd();
    switch (kind) {
      case "int":
        if (r < .3) {
          return `(${this.expr("int", e)} ${this.pick(["+", "-", "*", "//", "%"])} ${this.expr("int", e)})`;
        }
        if (r < .45) return `len(${this.expr(this.pick(["str", "list", "dict"] as const), e)})`;
        if (r < .55) return `(${this.expr("list", e)} + [7])[${this.pick(["0", "-1", this.small()])}]`;
        if (r < .65) return `${this.pick(NAMES.dict)}.get(${this.expr("str", e)}, ${this.small()})`;
        if (r < .75) {
          return `helper(${this.expr("int", e)}${this.chance(.5) ? ", 3, 4" : ""}${
            this.chance(.3) ? ", k = 1" : ""
          })`;
        }
        if (r < .85) return `(${this.expr("int", e)} if ${this.cond(0)} else ${this.expr("int", e)})`;
        return `max([${this.expr("int", e)}] + [x + 1 for x in ${this.expr("list", e)}])`;
      case "str":
        if (r < .3) return `${this.expr("str", e)} + ${this.expr("str", e)}`;
        if (r < .5) return `"%d-%s" % (${this.expr("int", e)}, ${this.expr("str", e)})`;
        if (r < .65) return `${this.expr("str", e)}[${this.small()}:${this.small()}]`;
        if (r < .8) return `",".join([str(x) for x in ${this.expr("list", e)}])`;
        return `str(${this.expr(this.pick(KINDS), e)})`;
      case "list":
        if (r < .3) return `${this.expr("list", e)} + ${this.expr("list", e)}`;
        if (r < .5) {
          return `[x * ${this.expr("int", e)} for x in ${this.expr("list", e)} if x != ${this.small()}]`;
        }
        if (r < .6) return `sorted(${this.expr("list", e)}, reverse = ${this.pick(["True", "False"])})`;
        if (r < .75) return `${this.expr("list", e)}[${this.small()}:${this.small()}]`;
        if (r < .9) return `list(range(${this.expr("int", e)}))[:5]`;
        return `[len(k) for k in ${this.pick(NAMES.dict)}]`;
      case "dict":
        if (r < .5) return `{k: v + ${this.expr("int", e)} for k, v in ${this.pick(NAMES.dict)}.items()}`;
        return `dict(${this.pick(NAMES.dict)}, z = ${this.expr("int", e)})`;
    }
  }
}

if (import.meta.main) {
  const [seed = "1", count = "500", flavour = "valid"] = Deno.args;
  if (flavour !== "valid" && flavour !== "mutated") {
    throw new Error(`flavour must be valid or mutated, not ${flavour}`);
  }
  const gen = new ProgramGenerator(Number(seed));
  const sources = Array.from(
    { length: Number(count) },
    () => flavour === "valid" ? gen.program() : gen.mutatedProgram(),
  );
  const { ran, differences } = await compareSources(sources);
  for (const d of differences) {
    console.log(
      `${d.source}\n  reference: ${JSON.stringify(d.reference)}\n  ours:      ${JSON.stringify(d.ours)}`,
    );
  }
  console.log(`${ran} programs, ${differences.length} differences`);
}
