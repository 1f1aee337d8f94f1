/**
 * The Go side of starlark-go's test harness, in TypeScript: the natives `starlarktest/starlarktest.go`
 * predeclares for `assert.star` (`error`, `catch`, `matches`, `module`, `_freeze`, `_floateq`), the
 * one-time loading of the real `assert.star`, and the driver's `load` function (`starlark/eval_test.go`).
 *
 * @module
 */

import {
  callableArg,
  floatArg,
  stringArg,
  unpackArgs,
  unpackPositional,
} from "../../../src/starlark/values/args.ts";
import { call } from "../../../src/starlark/values/call.ts";
import { execFile, json, math } from "../../../src/starlark/mod.ts";
import { freeze, str } from "../../../src/starlark/values/ops.ts";
import {
  Builtin,
  EvalError,
  type LoadHook,
  StarlarkError,
  type Thread,
  toJSString,
  type Value,
} from "../../../src/starlark/values/value.ts";
import { goRegExp } from "./chunkedfile.ts";
import { moduleBuiltin } from "./values.ts";

/** Receives the failures `assert.star` reports through `error()` (the reference's `testing.T`). */
export interface Reporter {
  /** Records one failure; execution continues, as with `t.Error`. */
  error(msg: string): void;
}

const REPORTER_KEY = "Reporter";

/** Associates a reporter with a thread (the reference's `starlarktest.SetReporter`). */
export function setReporter(thread: Thread, reporter: Reporter): void {
  thread.locals.set(REPORTER_KEY, reporter);
}

function getReporter(thread: Thread): Reporter {
  const r = thread.locals.get(REPORTER_KEY) as Reporter | undefined;
  if (r === undefined) throw new Error("internal error: setReporter was not called");
  return r;
}

/** The thread's call stack without its innermost frame, rendered like the reference's `CallStack`. */
function callerStack(thread: Thread): string {
  const frames = thread.callStack.slice(0, -1);
  if (frames.length === 0) return "";
  let out = "Traceback (most recent call last):\n";
  for (const f of frames) out += `  ${f.filename}:${f.line}:${f.col}: in ${f.name}\n`;
  return out;
}

/** `error(msg)`: reports a failure without stopping the program. */
const errorBuiltin = new Builtin("error", (thread, args) => {
  if (args.length !== 1) throw new EvalError(`error: got ${args.length} arguments, want 1`);
  const x = args[0];
  const text = typeof x === "string" ? x : str(x);
  getReporter(thread).error(toJSString(`${callerStack(thread)}Error: ${text}`));
  return null;
});

/** `catch(fn)`: calls `fn()` and returns its error message, or None when it succeeds. */
const catchBuiltin = new Builtin("catch", (thread, args, kwargs) => {
  const [fn] = unpackArgs("catch", args, kwargs, ["fn", callableArg]);
  try {
    call(thread, fn!, [], []);
  } catch (e) {
    // Every Starlark error counts, including a stack overflow (which our engine reports as a
    // ResourceError): recursion.star expects `assert.fails(runaway, "Starlark stack overflow")`.
    if (e instanceof StarlarkError) return e.message;
    throw e;
  }
  return null;
});

/** `matches(pattern, str)`: whether the regular expression matches somewhere in `str`. */
const matchesBuiltin = new Builtin("matches", (_thread, args, kwargs) => {
  const [pattern, s] = unpackArgs("matches", args, kwargs, ["pattern", stringArg], ["str", stringArg]);
  let re: RegExp;
  try {
    re = goRegExp(toJSString(pattern!));
  } catch (e) {
    throw new EvalError(`matches: ${(e as Error).message}`);
  }
  return re.test(toJSString(s!));
});

/** `_freeze(x)`: freezes `x` and returns it. */
const freezeBuiltin = new Builtin("freeze", (_thread, args, kwargs) => {
  if (kwargs.length > 0) throw new EvalError("freeze does not accept keyword arguments");
  if (args.length !== 1) throw new EvalError(`freeze got ${args.length} arguments, wants 1`);
  freeze(args[0]);
  return args[0];
});

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

function floatBits(x: number): bigint {
  f64[0] = x;
  return u64[0];
}

/** `_floateq(x, y)`: whether two floats are equal or adjacent (within one ULP); NaN equals NaN. */
const floateqBuiltin = new Builtin("floateq", (_thread, args, kwargs, self) => {
  const [x, y] = unpackPositional(self.name, args, kwargs, 2, floatArg, floatArg) as [number, number];
  if (x === y) return true;
  if (Number.isNaN(x)) return Number.isNaN(y);
  if (Number.isNaN(y)) return false;
  const bx = floatBits(x), by = floatBits(y);
  return bx === by + 1n || by === bx + 1n;
});

/** The names `assert.star` is executed with. */
export function assertPredeclared(): Record<string, Value> {
  return {
    error: errorBuiltin,
    catch: catchBuiltin,
    matches: matchesBuiltin,
    module: new Builtin("module", moduleBuiltin),
    _freeze: freezeBuiltin,
    _floateq: floateqBuiltin,
  };
}

/**
 * Executes `assert.star` (its text is read from the module cache) once, like `LoadAssertModule`'s
 * `sync.Once`: every chunk of every file shares the same frozen module.
 */
export function assertModuleLoader(source: string): () => ReadonlyMap<string, Value> {
  let result: { globals?: ReadonlyMap<string, Value>; error?: unknown } | undefined;
  return () => {
    if (result === undefined) {
      try {
        result = {
          globals: execFile(source, { filename: "assert.star", predeclared: assertPredeclared() }).globals,
        };
      } catch (e) {
        result = { error: e };
      }
    }
    if (result.error !== undefined) throw result.error;
    return result.globals!;
  };
}

/** Modules the driver's `load` serves that a reference-corpus file cannot use (Go-only libraries). */
export const UNSUPPORTED_MODULES: ReadonlySet<string> = new Set(["time.star", "proto.star"]);

/**
 * The driver's `load`: `assert.star` from the module cache, `json.star` and `math.star` from our
 * library, and any other name as a file next to the test data (executed with no predeclared names).
 */
export function makeLoad(loadAssert: () => ReadonlyMap<string, Value>, dir: string): LoadHook {
  const load: LoadHook = (_thread, module) => {
    const name = toJSString(module);
    if (name === "assert.star") return loadAssert();
    if (name === "json.star") return new Map([["json", json]]);
    if (name === "math.star") return new Map([["math", math]]);
    if (UNSUPPORTED_MODULES.has(name)) throw new EvalError(`${name} is a Go-only module, not provided`);
    let text: string;
    try {
      text = Deno.readTextFileSync(`${dir}/${name}`);
    } catch (e) {
      throw new EvalError(`open ${dir}/${name}: ${(e as Error).message}`);
    }
    // Like the reference's ExecFile: a fresh module with default (legacy) options, no predeclared names.
    return execFile(text, { filename: `${dir}/${name}`, load }).globals;
  };
  return load;
}
