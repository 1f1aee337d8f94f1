/**
 * Runs the conformance suite (`tests/starlark/*.star`) against our engine: one test per file, one step per
 * chunk. Every chunk also passes on the reference implementation (see `check_reference.sh`), so a failure
 * here is a divergence from starlark-go.
 *
 * Each chunk gets the predeclared names `assert` (eq, ne, true, lt, contains, fails), `freeze`, `json`,
 * `math` and `sum`.
 */
import { fileURLToPath } from "node:url";
import { basename } from "node:path";
import { execFile } from "../../src/starlark/mod.ts";
import { json, math, sum } from "../../src/starlark/lib/mod.ts";
import { call } from "../../src/starlark/values/call.ts";
import { binary, compare, equals, freeze, repr, truth } from "../../src/starlark/values/ops.ts";
import {
  Builtin,
  type BuiltinFn,
  type Dialect,
  EvalError,
  type LoadHook,
  Module,
  ResourceError,
  StarlarkError,
  StarlarkSyntaxError,
  toJSString,
  type Value,
} from "../../src/starlark/values/value.ts";
import { type Chunk, chunkDialect, goRegExp, splitChunks } from "./chunks.ts";

function jsRepr(v: Value): string {
  return toJSString(repr(v));
}

function builtin(
  name: string,
  min: number,
  max: number,
  body: (args: Value[], fn: Builtin) => void,
): Builtin {
  const impl: BuiltinFn = (_thread, args, kwargs, self) => {
    if (kwargs.length > 0) throw new EvalError(`assert.${name}: unexpected keyword arguments`);
    if (args.length < min || args.length > max) {
      throw new EvalError(`assert.${name}: got ${args.length} arguments, want ${min}..${max}`);
    }
    body(args, self);
    return null;
  };
  return new Builtin(name, impl);
}

/** The `assert` module given to every chunk; messages mirror refcheck/main.go. */
function makeAssert(): Module {
  const members = new Map<string, Value>();
  members.set(
    "eq",
    builtin("eq", 2, 2, ([x, y]) => {
      if (!equals(x, y)) throw new EvalError(`assert.eq: ${jsRepr(x)} != ${jsRepr(y)}`);
    }),
  );
  members.set(
    "ne",
    builtin("ne", 2, 2, ([x, y]) => {
      if (equals(x, y)) throw new EvalError(`assert.ne: ${jsRepr(x)} == ${jsRepr(y)}`);
    }),
  );
  members.set(
    "true",
    builtin("true", 1, 2, ([cond, msg]) => {
      if (!truth(cond)) {
        throw new EvalError(`assert.true: ${typeof msg === "string" ? toJSString(msg) : "assertion failed"}`);
      }
    }),
  );
  members.set(
    "lt",
    builtin("lt", 2, 2, ([x, y]) => {
      if (!compare("<", x, y)) throw new EvalError(`assert.lt: ${jsRepr(x)} is not less than ${jsRepr(y)}`);
    }),
  );
  members.set(
    "contains",
    new Builtin("contains", (thread, args, kwargs) => {
      if (kwargs.length > 0 || args.length !== 2) throw new EvalError("assert.contains: want 2 arguments");
      if (!truth(binary(thread, "in", args[1], args[0]))) {
        throw new EvalError(`assert.contains: ${jsRepr(args[0])} does not contain ${jsRepr(args[1])}`);
      }
      return null;
    }),
  );
  members.set(
    "fails",
    new Builtin("fails", (thread, args, kwargs) => {
      if (kwargs.length > 0 || args.length !== 2) throw new EvalError("assert.fails: want 2 arguments");
      const [fn, pattern] = args;
      if (typeof pattern !== "string") throw new EvalError("assert.fails: pattern must be a string");
      const re = goRegExp(toJSString(pattern));
      let message: string | undefined;
      try {
        call(thread, fn, [], []);
      } catch (e) {
        // Budget exhaustion is never the failure a test expects; let it end the chunk.
        if (e instanceof ResourceError || !(e instanceof EvalError)) throw e;
        message = toJSString(e.message);
      }
      if (message === undefined) {
        throw new EvalError(
          `assert.fails: evaluation succeeded unexpectedly (want error matching ${
            JSON.stringify(re.source)
          })`,
        );
      }
      if (!re.test(message)) {
        throw new EvalError(
          `assert.fails: regular expression (${re.source}) did not match error (${message})`,
        );
      }
      return null;
    }),
  );
  return new Module("assert", members);
}

const freezeBuiltin = new Builtin("freeze", (_thread, args, kwargs) => {
  if (args.length !== 1 || kwargs.length !== 0) throw new EvalError("freeze: want exactly one argument");
  freeze(args[0]);
  return args[0];
});

/** The line an error is reported at (innermost frame in this file) and its bare message. */
function errorLine(filename: string, e: unknown): { line: number; message: string } {
  if (e instanceof StarlarkSyntaxError) return { line: e.line, message: toJSString(e.msg) };
  if (e instanceof EvalError) {
    for (let i = e.callStack.length - 1; i >= 0; i--) {
      const f = e.callStack[i];
      if (f.filename === filename && f.line > 0) return { line: f.line, message: toJSString(e.message) };
    }
    return { line: 0, message: toJSString(e.message) };
  }
  if (e instanceof StarlarkError) return { line: 0, message: `${e.name}: ${toJSString(e.message)}` };
  const err = e as Error;
  return { line: 0, message: `internal error ${err?.name}: ${err?.message}\n${err?.stack ?? ""}` };
}

const modulesDir = fileURLToPath(new URL("./modules/", import.meta.url));

/**
 * The load hook of a chunk: `load("NAME", ...)` runs `modules/NAME` (at most once per chunk) with the same
 * predeclared names and dialect, like refcheck/main.go does for the reference.
 */
function makeLoader(predeclared: Record<string, Value>, dialect: Dialect): LoadHook {
  const cache = new Map<string, ReadonlyMap<string, Value>>();
  const load: LoadHook = (_thread, module) => {
    const name = toJSString(module);
    const cached = cache.get(name);
    if (cached !== undefined) return cached;
    let text: string;
    try {
      text = Deno.readTextFileSync(modulesDir + name);
    } catch {
      throw new EvalError("no such module");
    }
    const { globals } = execFile(text, { filename: name, predeclared, dialect, load, print: () => {} });
    cache.set(name, globals);
    return globals;
  };
  return load;
}

/** Runs one chunk; returns undefined on success or the reason it failed. */
export function runChunk(filename: string, chunk: Chunk): string | undefined {
  let error: unknown;
  try {
    const predeclared = { assert: makeAssert(), freeze: freezeBuiltin, json, math, sum };
    const dialect = chunkDialect(chunk);
    execFile(chunk.source, {
      filename,
      predeclared,
      dialect,
      load: makeLoader(predeclared, dialect),
      // A runaway chunk must not hang the suite; no chunk needs anywhere near this many steps.
      maxSteps: 50_000_000,
      print: () => {},
    });
  } catch (e) {
    error = e;
  }
  if (error === undefined) {
    return chunk.expect.size > 0 ? "succeeded, but an error was expected" : undefined;
  }
  const { line, message } = errorLine(filename, error);
  if (chunk.expect.size === 0) return `unexpected error at line ${line}: ${message}`;
  const pattern = chunk.expect.get(line);
  if (pattern === undefined) {
    return `error at line ${line}, but expected at line(s) ${[...chunk.expect.keys()]}: ${message}`;
  }
  if (!goRegExp(pattern).test(message)) {
    return `error at line ${line} does not match /${pattern}/: ${message}`;
  }
  return undefined;
}

const dir = fileURLToPath(new URL(".", import.meta.url));
const files = [...Deno.readDirSync(dir)]
  .filter((e) => e.isFile && e.name.endsWith(".star"))
  .map((e) => e.name)
  .sort();

for (const name of files) {
  Deno.test(`conformance: ${name}`, async (t) => {
    const text = await Deno.readTextFile(`${dir}/${name}`);
    for (const chunk of splitChunks(text)) {
      await t.step(`${name}:${chunk.start}`, () => {
        const why = runChunk(basename(name), chunk);
        if (why !== undefined) throw new Error(`${name}:${chunk.start}: ${why}`);
      });
    }
  });
}

Deno.test("conformance: suite size", async () => {
  // The suite is meant to cover the language broadly: keep at least 1,500 assertions in 20 files.
  let count = 0;
  for (const name of files) {
    const text = await Deno.readTextFile(`${dir}/${name}`);
    count += text.match(/\bassert\.(eq|ne|true|lt|contains|fails)\(/g)?.length ?? 0;
  }
  if (files.length < 20 || count < 1500) {
    throw new Error(`suite has ${count} assertions in ${files.length} files (want >= 1500 in >= 20)`);
  }
});
