/**
 * Calling functions: argument binding with the reference's rules and messages, recursion and depth
 * checks, step charging, and the traceback bookkeeping of {@link leaveFunction}/{@link leaveBuiltin}.
 * Loading this module installs {@link callFromHost} and {@link callOne} as the value layer's calling
 * protocol (`values/call.ts`), through which built-ins and hosts call back into Starlark code.
 *
 * @module
 */
import {
  Builtin,
  CallDepthError,
  Dict,
  EvalError,
  installCalls,
  type Kwargs,
  reprBounded,
  type Thread,
  Tuple,
  typeName,
  type Value,
} from "../values/mod.ts";
import { DEEP_START, deepBase, runDeep } from "./deep.ts";
import { errorAt, leaveBuiltin, leaveFunction } from "./errors.ts";
import {
  callDepth,
  Cell,
  F_LOCALS,
  F_RESULT,
  type Frame,
  type FuncCode,
  MANDATORY,
  newFrame,
  type Pos,
  StarFunction,
} from "./function.ts";

/** Shared empty keyword list handed to built-ins called without keywords (frozen: never mutated). */
export const NO_KWARGS: Kwargs = Object.freeze([]) as unknown as Kwargs;

/** Charges one step; the slow path (budget exhausted, interrupt poll due) is in Thread.charge. */
export function tick(th: Thread): void {
  const s = ++th.steps;
  if (s > th.maxSteps || s >= th.nextPoll) th.charge(0);
}

/** Charges `n` steps at once (a block's statements, a loop iteration with its body). */
export function chargeSteps(th: Thread, n: number): void {
  const s = th.steps += n;
  if (s > th.maxSteps || s >= th.nextPoll) th.charge(0);
}

/**
 * The error of a call past `maxCallDepth`, raised in the callee's frame (the reference's traceback
 * lists the frame that could not start, at its entry position).
 */
export function depthError(th: Thread, code: FuncCode, site: Pos | null): unknown {
  // The reference's text, so a model reading either implementation learns the same thing.
  const e = new CallDepthError(`Starlark stack overflow (maximum call depth ${th.maxCallDepth} exceeded)`);
  return leaveFunction(e, code, site);
}

/**
 * Calls a Starlark function. `site` is the position of the call in the calling Starlark function, or
 * `null` when the caller is a built-in or the host.
 */
export function callFunction(
  th: Thread,
  fn: StarFunction,
  args: readonly Value[],
  kwargs: Kwargs | null,
  site: Pos | null,
): Value {
  const code = fn.code;
  const fr = newFrame(code, th, fn.module, fn.freevars);
  if (code.simple && args.length === code.numParams && (kwargs === null || kwargs.length === 0)) {
    for (let i = 0; i < args.length; i++) fr[F_LOCALS + i] = args[i];
    return runFunction(th, fn, fr, site);
  }
  return runFunction(th, fn, fr, site, args, kwargs);
}

/**
 * Runs `fn` in the frame `fr`. When `args` is given, binds the arguments first (binding errors are
 * reported in the callee's frame, like the reference); otherwise the caller has already filled the
 * parameter slots.
 */
export function runFunction(
  th: Thread,
  fn: StarFunction,
  fr: Frame,
  site: Pos | null,
  args?: readonly Value[],
  kwargs?: Kwargs | null,
): Value {
  const code = fn.code;
  // Deep recursion continues on the heap (deep.ts).
  if (callDepth.n - deepBase.n >= DEEP_START && code.deepMaker !== null) {
    return runDeep(th, fn, fr, site, args, kwargs);
  }
  chargeSteps(th, code.bodySteps);
  if (callDepth.n >= th.maxCallDepth) throw depthError(th, code, site);
  if (code.active > 0 && !code.recursion) {
    throw leaveFunction(new EvalError(`function ${code.name} called recursively`), code, site);
  }
  callDepth.n++;
  code.active++;
  try {
    if (args !== undefined) bindArgs(fr, fn, args, kwargs ?? null);
    const cells = code.cellSlots;
    for (let i = 0; i < cells.length; i++) fr[cells[i]] = new Cell(fr[cells[i]] as Value | undefined);
    const expr = code.expr;
    if (expr !== null) return expr(fr);
    code.body(fr);
    return fr[F_RESULT] as Value;
  } catch (e) {
    throw leaveFunction(e, code, site);
  } finally {
    callDepth.n--;
    code.active--;
  }
}

/**
 * A call site's precomputed binding of keyword arguments for one function code: where each named
 * argument goes and which trailing parameters take their defaults. Only built when the call cannot fail
 * to bind; otherwise the general binder reports the error.
 */
export interface KwPlan {
  /** Frame slot of each named argument, in call order. */
  readonly slots: Int32Array;
  /** Parameter indices that take their default. */
  readonly defaulted: Int32Array;
  /** Index of the first parameter with a default. */
  readonly firstDefault: number;
}

/** Builds a {@link KwPlan} for calling `fn` with `npos` positionals and these keyword names, if safe. */
export function makeKwPlan(fn: StarFunction, npos: number, names: readonly string[]): KwPlan | null {
  const code = fn.code;
  if (!code.simple || npos > code.numParams) return null;
  const filled = new Array<boolean>(code.numParams).fill(false);
  for (let i = 0; i < npos; i++) filled[i] = true;
  const slots = new Int32Array(names.length);
  for (let j = 0; j < names.length; j++) {
    const i = code.paramNames.indexOf(names[j]);
    if (i < 0 || filled[i]) return null;
    filled[i] = true;
    slots[j] = F_LOCALS + i;
  }
  const firstDefault = code.numParams - fn.defaults.length;
  const defaulted: number[] = [];
  for (let i = npos; i < code.numParams; i++) {
    if (filled[i]) continue;
    if (i < firstDefault) return null;
    defaulted.push(i);
  }
  return { slots, defaulted: Int32Array.from(defaulted), firstDefault };
}

/**
 * Calls a callable value with one positional argument from a built-in (e.g. a `key` function): the
 * common case of a one-parameter Starlark function or lambda binds its frame directly.
 *
 * @throws {EvalError} `invalid call of non-function (T)`, or any error of the call.
 */
export function callOne(th: Thread, f: Value, a: Value): Value {
  if (f instanceof StarFunction) {
    const code = f.code;
    if (code.simple && code.numParams === 1) {
      const fr = newFrame(code, th, f.module, f.freevars);
      fr[F_LOCALS] = a;
      return runFunction(th, f, fr, null);
    }
    return runFunction(th, f, newFrame(code, th, f.module, f.freevars), null, [a], null);
  }
  if (f instanceof Builtin) return callBuiltin(th, f, [a], NO_KWARGS, null);
  throw new EvalError(`invalid call of non-function (${typeName(f)})`);
}

/** Calls a built-in, adding its frame to errors that leave it. */
export function callBuiltin(th: Thread, b: Builtin, args: Value[], kwargs: Kwargs, site: Pos | null): Value {
  if (b.gen !== undefined) return callCounted(th, b, args, kwargs, site);
  tick(th);
  let r: Value;
  try {
    r = b.fn(th, args, kwargs, b);
  } catch (e) {
    throw leaveBuiltin(e, b.name, site);
  }
  if (r === undefined) throw leaveBuiltin(undefinedResult(b.name), b.name, site);
  return r;
}

/**
 * {@link callBuiltin} for a built-in that can call back: its frame counts towards `maxCallDepth`
 * while it runs, as the reference counts every frame of its stack (a leaf built-in cannot nest).
 */
function callCounted(th: Thread, b: Builtin, args: Value[], kwargs: Kwargs, site: Pos | null): Value {
  tick(th);
  let r: Value;
  callDepth.n++;
  try {
    r = b.fn(th, args, kwargs, b);
  } catch (e) {
    throw leaveBuiltin(e, b.name, site);
  } finally {
    callDepth.n--;
  }
  if (r === undefined) throw leaveBuiltin(undefinedResult(b.name), b.name, site);
  return r;
}

/** The error of a built-in that returned `undefined` (a bug: None is `null`). */
export function undefinedResult(name: string): EvalError {
  return new EvalError(`internal error: undefined (not None) returned from ${name}`);
}

/** Calls any callable value from a Starlark call site at `site`. */
export function callValue(th: Thread, f: Value, args: Value[], kwargs: Kwargs | null, site: Pos): Value {
  if (f instanceof StarFunction) return callFunction(th, f, args, kwargs, site);
  if (f instanceof Builtin) return callBuiltin(th, f, args, kwargs ?? NO_KWARGS, site);
  throw errorAt(`invalid call of non-function (${typeName(f)})`, site);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * Binds arguments to parameters in the general case (the rules of the reference's `setArgs`): extra
 * positionals go to `*args` or are an error; keywords fill named parameters or go to `**kwargs`; missing
 * parameters take their defaults or are reported together.
 */
/** Binds arguments to the parameter slots of `fr` with the reference's rules and messages. */
export function bindArgs(fr: Frame, fn: StarFunction, args: readonly Value[], kwargs: Kwargs | null): void {
  const code: FuncCode = fn.code;
  const name = code.name;
  const nkw = kwargs === null ? 0 : kwargs.length;
  if (code.numParams === 0) {
    const n = args.length + nkw;
    if (n > 0) throw new EvalError(`function ${name} accepts no arguments (${n} given)`);
    return;
  }
  let nparams = code.numParams;
  let kwdict: Dict | undefined;
  if (code.hasKwargs) {
    nparams--;
    kwdict = new Dict();
    fr[F_LOCALS + nparams] = kwdict;
  }
  if (code.hasVarargs) nparams--;
  const nonKwonly = nparams - code.numKwonly;
  const defaults = fn.defaults;

  let n = args.length;
  if (n > nonKwonly) {
    if (!code.hasVarargs) {
      const atMost = defaults.length > code.numKwonly ? "at most " : "";
      throw new EvalError(
        `function ${name} accepts ${atMost}${
          plural(nonKwonly, "positional argument")
        } (${args.length} given)`,
      );
    }
    n = nonKwonly;
  }
  for (let i = 0; i < n; i++) fr[F_LOCALS + i] = args[i];
  if (code.hasVarargs) fr[F_LOCALS + nparams] = new Tuple(args.slice(n));

  if (kwargs !== null) {
    const names = code.paramNames;
    for (const [k, v] of kwargs) {
      let i = -1;
      for (let j = 0; j < nparams; j++) {
        if (names[j] === k) {
          i = j;
          break;
        }
      }
      if (i >= 0) {
        if (fr[F_LOCALS + i] !== undefined) {
          throw new EvalError(`function ${name} got multiple values for parameter ${reprBounded(k)}`);
        }
        fr[F_LOCALS + i] = v;
        continue;
      }
      if (kwdict === undefined) {
        throw new EvalError(`function ${name} got an unexpected keyword argument ${reprBounded(k)}`);
      }
      const before = kwdict.size;
      kwdict.setUnchecked(k, v);
      if (kwdict.size === before) {
        throw new EvalError(`function ${name} got multiple values for parameter ${reprBounded(k)}`);
      }
    }
  }

  if (n < nparams || code.numKwonly > 0) {
    const m = nparams - defaults.length; // index of the first parameter with a default
    const missing: string[] = [];
    let i = n;
    for (; i < m; i++) {
      if (fr[F_LOCALS + i] === undefined) missing.push(code.paramNames[i]);
    }
    for (; i < nparams; i++) {
      if (fr[F_LOCALS + i] === undefined) {
        const d = defaults[i - m];
        if (d === MANDATORY) {
          missing.push(code.paramNames[i]);
          continue;
        }
        fr[F_LOCALS + i] = d;
      }
    }
    if (missing.length > 0) {
      throw new EvalError(
        `function ${name} missing ${plural(missing.length, "argument")} (${missing.join(", ")})`,
      );
    }
  }
}

/** Calls any callable value on behalf of a built-in or the host: there is no Starlark call site. */
export function callFromHost(thread: Thread, fn: Value, args: Value[], kwargs: Kwargs): Value {
  if (fn instanceof StarFunction) {
    return callFunction(thread, fn, args, kwargs.length === 0 ? null : kwargs, null);
  }
  if (fn instanceof Builtin) return callBuiltin(thread, fn, args, kwargs, null);
  throw new EvalError(`invalid call of non-function (${typeName(fn)})`);
}

installCalls({ call: callFromHost, callOne });
