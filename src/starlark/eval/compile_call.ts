/**
 * Compilation of calls: plain calls with specialized closures for the common argument shapes, method
 * calls `x.m(...)` that invoke the built-in method directly (no bound-method allocation), and the
 * general case with keywords, `*args` and `**kwargs`.
 *
 * @module
 */
import {
  Dict,
  EvalError,
  iterate,
  type Kwargs,
  List,
  LONG_KEY_LENGTH,
  SLOT_BYTES,
  type Thread,
  Tuple,
  typeName,
  type Value,
} from "../values/mod.ts";
import { lookupMethod, type MethodFn } from "../methods/mod.ts";
import type { CallExpr } from "../syntax/ast.ts";
import { callValue, type KwPlan, makeKwPlan, NO_KWARGS, runFunction, tick } from "./calls.ts";
import type { Compiler } from "./compile.ts";
import { attrAt, compileExpr, evalAll } from "./compile_expr.ts";
import { collect } from "./augmented.ts";
import { errorAt, leaveBuiltin } from "./errors.ts";
import {
  type ExprFn,
  F_LOCALS,
  F_THREAD,
  type Frame,
  type FuncCode,
  newFrame,
  type Pos,
  StarFunction,
} from "./function.ts";

interface ArgCode {
  pos: ExprFn[];
  named: { name: string; value: ExprFn }[];
  star: ExprFn | undefined;
  starstar: ExprFn | undefined;
}

/** Evaluates the arguments of a call; `site` locates `*`/`**` errors. */
type ArgsFn = (fr: Frame, site: Pos) => [Value[], Kwargs | null];

function compileArgs(c: Compiler, e: CallExpr): ArgCode {
  const code: ArgCode = { pos: [], named: [], star: undefined, starstar: undefined };
  let star: CallExpr["args"][number] | undefined, starstar: CallExpr["args"][number] | undefined;
  for (const a of e.args) {
    switch (a.kind) {
      case "positional":
        code.pos.push(compileExpr(c, a.value));
        break;
      case "named":
        code.named.push({ name: a.name, value: compileExpr(c, a.value) });
        break;
      case "star":
        star = a;
        break;
      case "starstar":
        starstar = a;
        break;
    }
  }
  if (star !== undefined) code.star = compileExpr(c, star.value);
  if (starstar !== undefined) code.starstar = compileExpr(c, starstar.value);
  return code;
}

function generalArgs(code: ArgCode): ArgsFn {
  const P = code.pos, N = code.named, S = code.star, SS = code.starstar;
  return (fr, site) => {
    const args = evalAll(P, fr);
    let kw: Kwargs | null = null;
    if (N.length > 0) {
      kw = [];
      for (let i = 0; i < N.length; i++) kw.push([N[i].name, N[i].value(fr)]);
    }
    // Both operands are evaluated in source order, but, as in the reference, `**kwargs` is unpacked (and
    // its errors reported) before `*args`.
    const star = S !== undefined ? S(fr) : undefined;
    if (SS !== undefined) kw = spreadKwargs(fr[F_THREAD] as Thread, SS(fr), kw ?? [], site);
    if (star !== undefined) spreadArgs(fr[F_THREAD] as Thread, star, args, site);
    return [args, kw];
  };
}

/** Appends the elements of `*v` to `args` (errors at the call's `site`). */
export function spreadArgs(th: Thread, v: Value, args: Value[], site: Pos): void {
  if (v instanceof List || v instanceof Tuple) {
    const a = v.elems;
    if (a.length >= 8) th.charge(a.length >>> 3);
    th.allocate(8 * a.length);
    for (let i = 0; i < a.length; i++) args.push(a[i]);
    return;
  }
  let it;
  try {
    it = iterate(v);
  } catch {
    throw errorAt(`argument after * must be iterable, not ${typeName(v)}`, site);
  }
  try {
    collect(th, it, args);
  } finally {
    it.done();
  }
}

/** Appends the entries of `**v` to `kw` and returns it (errors at the call's `site`). */
export function spreadKwargs(th: Thread, v: Value, kw: Kwargs, site: Pos): Kwargs {
  if (!(v instanceof Dict)) throw errorAt(`argument after ** must be a mapping, not ${typeName(v)}`, site);
  if (v.size >= 8) th.charge(v.size >>> 3);
  th.allocate(16 * v.size);
  v.forEach((key, value) => {
    if (typeof key !== "string") throw errorAt(`keywords must be strings, not ${typeName(key)}`, site);
    kw.push([key, value]);
  });
  return kw;
}

/** Compiles a call expression. */
export function compileCall(c: Compiler, e: CallExpr): ExprFn {
  if (e.fn.kind === "DotExpr") return compileMethodCall(c, e);
  const F = compileExpr(c, e.fn);
  const code = compileArgs(c, e);
  c.setPos({ line: e.lparenLine, col: e.lparenCol });
  const site = c.pos;
  if (code.star !== undefined || code.starstar !== undefined) {
    const argsFn = generalArgs(code);
    return (fr) => {
      const f = F(fr);
      const [args, kw] = argsFn(fr, site);
      return callValue(fr[F_THREAD] as Thread, f, args, kw, site);
    };
  }
  if (code.named.length > 0) return keywordCall(F, code, site);
  // Positional only: Starlark functions whose parameters match get their frame filled directly.
  const P = code.pos;
  const fn = e.fn.kind === "Ident" && e.fn.binding?.scope === "universal" ? e.fn.name : "";
  if (fn === "len" && P.length === 1) return compileLen(c, P[0], site);
  switch (P.length) {
    case 0:
      return (fr) => {
        const f = F(fr);
        const th = fr[F_THREAD] as Thread;
        if (f instanceof StarFunction && f.code.simple && f.code.numParams === 0) {
          return runFunction(th, f, newFrame(f.code, th, f.module, f.freevars), site);
        }
        return callValue(th, f, [], null, site);
      };
    case 1: {
      const [A] = P;
      return (fr) => {
        const f = F(fr);
        const a = A(fr);
        const th = fr[F_THREAD] as Thread;
        if (f instanceof StarFunction && f.code.simple && f.code.numParams === 1) {
          const nf = newFrame(f.code, th, f.module, f.freevars);
          nf[F_LOCALS] = a;
          return runFunction(th, f, nf, site);
        }
        return callValue(th, f, [a], null, site);
      };
    }
    case 2: {
      const [A, B] = P;
      return (fr) => {
        const f = F(fr);
        const a = A(fr), b = B(fr);
        const th = fr[F_THREAD] as Thread;
        if (f instanceof StarFunction && f.code.simple && f.code.numParams === 2) {
          const nf = newFrame(f.code, th, f.module, f.freevars);
          nf[F_LOCALS] = a;
          nf[F_LOCALS + 1] = b;
          return runFunction(th, f, nf, site);
        }
        return callValue(th, f, [a, b], null, site);
      };
    }
    case 3: {
      const [A, B, C] = P;
      return (fr) => {
        const f = F(fr);
        const a = A(fr), b = B(fr), x = C(fr);
        const th = fr[F_THREAD] as Thread;
        if (f instanceof StarFunction && f.code.simple && f.code.numParams === 3) {
          const nf = newFrame(f.code, th, f.module, f.freevars);
          nf[F_LOCALS] = a;
          nf[F_LOCALS + 1] = b;
          nf[F_LOCALS + 2] = x;
          return runFunction(th, f, nf, site);
        }
        return callValue(th, f, [a, b, x], null, site);
      };
    }
    default:
      return (fr) => {
        const f = F(fr);
        return callValue(fr[F_THREAD] as Thread, f, evalAll(P, fr), null, site);
      };
  }
}

/**
 * `len(x)` of the universal `len`: the common sizes are read inline (charged the step of a built-in
 * call); other values go to the built-in.
 */
function compileLen(c: Compiler, A: ExprFn, site: Pos): ExprFn {
  const len = c.settings.universe.get("len");
  if (len === undefined) throw new Error("universal len has no value");
  return (fr) => {
    const a = A(fr);
    const th = fr[F_THREAD] as Thread;
    let n: number;
    if (typeof a === "string") n = a.length;
    else if (a instanceof List || a instanceof Tuple) n = a.elems.length;
    else if (a instanceof Dict) n = a.size;
    else return callValue(th, len, [a], null, site);
    tick(th);
    return n;
  };
}

/**
 * A call with keyword arguments (no `*`/`**`). A monomorphic cache keyed by the callee's code holds the
 * binding plan, so repeated calls of the same function write arguments straight into its frame.
 */
function keywordCall(F: ExprFn, code: ArgCode, site: Pos): ExprFn {
  const P = code.pos, N = code.named;
  const names = N.map((n) => n.name);
  let cachedCode: FuncCode | null = null;
  let plan: KwPlan | null = null;
  const general = generalArgs(code);
  return (fr) => {
    const f = F(fr);
    const th = fr[F_THREAD] as Thread;
    if (f instanceof StarFunction) {
      if (f.code !== cachedCode) {
        cachedCode = f.code;
        plan = makeKwPlan(f, P.length, names);
      }
      if (plan !== null) {
        const nf = newFrame(f.code, th, f.module, f.freevars);
        for (let i = 0; i < P.length; i++) nf[F_LOCALS + i] = P[i](fr);
        const slots = plan.slots;
        for (let j = 0; j < N.length; j++) nf[slots[j]] = N[j].value(fr);
        const dflt = plan.defaulted, defs = f.defaults, m = plan.firstDefault;
        for (let k = 0; k < dflt.length; k++) nf[F_LOCALS + dflt[k]] = defs[dflt[k] - m] as Value;
        return runFunction(th, f, nf, site);
      }
    }
    const [args, kw] = general(fr, site);
    return callValue(th, f, args, kw, site);
  };
}

/** `x.name(args)`: built-in methods are called directly; anything else goes through getAttr. */
function compileMethodCall(c: Compiler, e: CallExpr): ExprFn {
  const dot = e.fn;
  if (dot.kind !== "DotExpr") throw new Error("not a method call");
  const X = compileExpr(c, dot.x);
  c.setPos({ line: dot.dotLine, col: dot.dotCol });
  const dotPos = c.pos;
  const name = dot.name;
  const code = compileArgs(c, e);
  c.setPos({ line: e.lparenLine, col: e.lparenCol });
  const site = c.pos;
  const P = code.pos;
  // A per-site cache of the method for the last receiver type (strings by typeof, objects by class).
  let cachedType: unknown = null;
  let cached: MethodFn | undefined;
  const method = (recv: Value): MethodFn | undefined => {
    const t = typeof recv === "string" ? "string" : recv === null ? null : (recv as object).constructor;
    if (t !== cachedType || t === null) {
      cached = lookupMethod(recv, name);
      cachedType = t;
    }
    return cached;
  };
  if (code.named.length === 0 && code.star === undefined && code.starstar === undefined) {
    const args: (fr: Frame) => Value[] = P.length === 0
      ? () => []
      : P.length === 1
      ? (fr) => [P[0](fr)]
      : P.length === 2
      ? (fr) => [P[0](fr), P[1](fr)]
      : (fr) => evalAll(P, fr);
    const call = (fr: Frame, th: Thread, recv: Value): Value => {
      const m = method(recv);
      if (m === undefined) {
        const f = attrAt(th, recv, name, dotPos);
        return callValue(th, f, args(fr), null, site);
      }
      return callMethod(th, m, recv, args(fr), NO_KWARGS, name, site);
    };
    if (name === "append" && P.length === 1) return appendCall(X, P[0], call, method, site);
    if (name === "get" && (P.length === 1 || P.length === 2)) return dictGetCall(X, P, call, method, site);
    return (fr) => call(fr, fr[F_THREAD] as Thread, X(fr));
  }
  const argsFn = generalArgs(code);
  return (fr) => {
    const th = fr[F_THREAD] as Thread;
    const recv = X(fr);
    const m = method(recv);
    if (m === undefined) {
      const f = attrAt(th, recv, name, dotPos);
      const [args, kw] = argsFn(fr, site);
      return callValue(th, f, args, kw, site);
    }
    const [args, kw] = argsFn(fr, site);
    return callMethod(th, m, recv, args, kw ?? NO_KWARGS, name, site);
  };
}

/** The general method call of a site, for a receiver already evaluated. */
type MethodSite = (fr: Frame, th: Thread, recv: Value) => Value;

/**
 * `x.append(a)`: a list that may change takes the element here, with the step and the memory the method
 * charges (a failed charge is the method's error, as there); anything else is the site's general call.
 */
function appendCall(
  X: ExprFn,
  A: ExprFn,
  call: MethodSite,
  method: (recv: Value) => MethodFn | undefined,
  site: Pos,
): ExprFn {
  return (fr) => {
    const th = fr[F_THREAD] as Thread;
    const recv = X(fr);
    if (!(recv instanceof List)) return call(fr, th, recv);
    const a = A(fr);
    if (recv.frozen || recv.itercount > 0) {
      return callMethod(th, method(recv)!, recv, [a], NO_KWARGS, "append", site);
    }
    tick(th);
    try {
      th.allocate(SLOT_BYTES);
    } catch (err) {
      throw leaveBuiltin(err, "append", site);
    }
    recv.elems.push(a);
    return null;
  };
}

/**
 * `d.get(k)` and `d.get(k, default)` on a dict with an int or string key (not a long one, whose hashing
 * the method charges): looked up here, charged the method's one step; anything else is the site's
 * general call.
 */
function dictGetCall(
  X: ExprFn,
  P: readonly ExprFn[],
  call: MethodSite,
  method: (recv: Value) => MethodFn | undefined,
  site: Pos,
): ExprFn {
  const [K] = P;
  const D = P.length === 2 ? P[1] : undefined;
  return (fr) => {
    const th = fr[F_THREAD] as Thread;
    const recv = X(fr);
    if (!(recv instanceof Dict)) return call(fr, th, recv);
    const k = K(fr);
    const d = D === undefined ? null : D(fr);
    if (typeof k === "number" || (typeof k === "string" && k.length <= LONG_KEY_LENGTH)) {
      tick(th);
      const v = recv.getByHash(k); // strings and ints are their own hash keys
      return v !== undefined ? v : d;
    }
    return callMethod(th, method(recv)!, recv, D === undefined ? [k] : [k, d], NO_KWARGS, "get", site);
  };
}

/**
 * `recv.name(*args)` without a per-site cache: the built-in method, or the attribute called (its absence
 * fails at `dotPos`), as a compiled method call makes it.
 */
export function callMethodNamed(
  th: Thread,
  recv: Value,
  name: string,
  args: Value[],
  dotPos: Pos,
  site: Pos,
): Value {
  const m = lookupMethod(recv, name);
  if (m === undefined) return callValue(th, attrAt(th, recv, name, dotPos), args, null, site);
  return callMethod(th, m, recv, args, NO_KWARGS, name, site);
}

/** Calls a built-in method of `recv`, adding its frame to errors. */
function callMethod(
  th: Thread,
  m: MethodFn,
  recv: Value,
  args: Value[],
  kwargs: Kwargs,
  name: string,
  site: Pos,
): Value {
  tick(th);
  let r: Value;
  try {
    r = m(th, recv, args, kwargs);
  } catch (err) {
    throw leaveBuiltin(err, name, site);
  }
  if (r === undefined) {
    throw leaveBuiltin(
      new EvalError(`internal error: undefined (not None) returned from ${name}`),
      name,
      site,
    );
  }
  return r;
}
