/**
 * Test harness for built-in functions and methods: each case is a call described once, run in
 * TypeScript and (with `STARLARK_REF=1` and the `starlark` reference binary on PATH) also run through
 * the reference implementation to check that the expected text is the reference's.
 *
 * Expected results are `repr` texts, or `ERR: <message>` for errors.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  binaryToBytes,
  type Builtin,
  fromJSString,
  type Kwargs,
  repr,
  StarlarkError,
  Thread,
  toJSString,
  Tuple,
  type Value,
} from "../values/mod.ts";
import { lookupMethod } from "../methods/mod.ts";
import { UNIVERSE } from "./mod.ts";

/** An argument given by Starlark source and a factory for the equivalent fresh TS value. */
export interface Src {
  /** Starlark source of the value. */
  src: string;
  /** Builds the value (fresh for each run, so mutations do not leak between runs). */
  make: () => Value;
}

/** An argument: a plain value (its source is its repr) or a {@link Src}. */
export type Arg = Value | Src;

/** One test case. */
export interface Case {
  /** Starlark statements to run before the expression (reference check only). */
  setup: string;
  /** The Starlark expression whose repr is printed. */
  src: string;
  /** Runs the case in TypeScript. */
  run: (th: Thread) => Value;
  /** Expected repr, or `ERR: message`. */
  want: string;
  /** Whether to check the case against the reference binary (default true). */
  ref: boolean;
}

function isSrc(a: Arg): a is Src {
  return typeof a === "object" && a !== null && "make" in a && "src" in a && !("typeName" in a);
}

/** Builds a {@link Src}. */
export function src(source: string, make: () => Value): Src {
  return { src: source, make };
}

function srcOf(a: Arg): string {
  return isSrc(a) ? a.src : toJSString(repr(a));
}

function valueOf(a: Arg): Value {
  return isSrc(a) ? a.make() : a;
}

function argList(args: Arg[], kwargs: Record<string, Arg>): string {
  return [...args.map(srcOf), ...Object.entries(kwargs).map(([k, v]) => `${k}=${srcOf(v)}`)].join(", ");
}

function kw(kwargs: Record<string, Arg>): Kwargs {
  return Object.entries(kwargs).map(([k, v]) => [k, valueOf(v)]);
}

/** Converts JS text arguments to binary strings (test sources are written as ordinary JS strings). */
function bin(a: Arg): Arg {
  return typeof a === "string" ? fromJSString(a) : a;
}

/** A call of a universe function. */
export function fn(
  name: string,
  args: Arg[],
  want: string,
  kwargs: Record<string, Arg> = {},
  ref = true,
): Case {
  args = args.map(bin);
  return {
    setup: "",
    src: `${name}(${argList(args, kwargs)})`,
    run: (th) => {
      const b = UNIVERSE.get(name) as Builtin;
      return b.fn(th, args.map(valueOf), kw(kwargs), b);
    },
    want,
    ref,
  };
}

/**
 * A method call. With `after`, the result is the tuple `(result, receiver)` so that mutations of the
 * receiver are checked too.
 */
export function meth(
  recv: Arg,
  name: string,
  args: Arg[],
  want: string,
  opts: { kwargs?: Record<string, Arg>; after?: boolean; ref?: boolean } = {},
): Case {
  recv = bin(recv);
  args = args.map(bin);
  const kwargs = opts.kwargs ?? {};
  const call = `x.${name}(${argList(args, kwargs)})`;
  return {
    setup: `x = ${srcOf(recv)}`,
    src: opts.after ? `(${call}, x)` : call,
    run: (th) => {
      const r = valueOf(recv);
      const f = lookupMethod(r, name);
      if (f === undefined) throw new Error(`no method ${name}`);
      const res = f(th, r, args.map(valueOf), kw(kwargs));
      return opts.after ? new Tuple([res, r]) : res;
    },
    want,
    ref: opts.ref ?? true,
  };
}

/** Runs a case in TypeScript and returns the repr of the result or `ERR: message`. */
export function runCase(c: Case, th: Thread = new Thread()): string {
  try {
    return toJSString(repr(c.run(th)));
  } catch (e) {
    if (e instanceof StarlarkError) return "ERR: " + toJSString(e.message);
    throw e;
  }
}

/** Registers the TS run of `cases` and (opt-in) the check of their expectations against the reference. */
export function registerCases(title: string, cases: Case[]): void {
  Deno.test(`${title}: ${cases.length} cases`, () => {
    for (const c of cases) assert.equal(runCase(c), c.want, `${c.setup ? c.setup + "; " : ""}${c.src}`);
  });
  Deno.test({
    name: `${title}: expectations match the reference binary`,
    ignore: Deno.env.get("STARLARK_REF") !== "1",
    fn: async () => {
      const dir = await Deno.makeTempDir();
      const todo = cases.filter((c) => c.ref);
      const results = await Promise.all(todo.map((c, i) => reference(dir, i, c)));
      const bad = todo.map((c, i) => [c, results[i]] as const).filter(([c, got]) => got !== c.want);
      await Deno.remove(dir, { recursive: true });
      assert.deepEqual(bad.map(([c, got]) => `${c.setup}; ${c.src} => ${got}`), []);
    },
  });
}

let running = 0;
const waiting: (() => void)[] = [];

async function reference(dir: string, i: number, c: Case): Promise<string> {
  while (running >= 4) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    const file = `${dir}/case${i}.star`;
    const prog = `${c.setup}\nprint(repr(${c.src}))\n`;
    await Deno.writeFile(file, binaryToBytes(fromJSString(prog)));
    const out = await new Deno.Command("starlark", { args: [file], stdout: "piped", stderr: "piped" })
      .output();
    const text = new TextDecoder().decode(out.stderr).replace(/\n+$/, "");
    const last = text.split("\n").at(-1) ?? "";
    if (out.code === 0) return last;
    const m = /^Error(?: in [^:]+)?: (.*)$/s.exec(last);
    return m ? "ERR: " + m[1] : "CRASH: " + last;
  } finally {
    running--;
    waiting.shift()?.();
  }
}
