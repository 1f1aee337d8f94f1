/**
 * Loops over `enumerate(x)` and `zip(x, y)` unpacked into two names (`for i, v in enumerate(xs)`,
 * `[... for a, b in zip(xs, ys)]`): when the arguments are lists or tuples, the loop walks them directly
 * instead of building a list of pair tuples first. The work and memory are charged exactly as the
 * built-in charges them, and the loop sees the same snapshot of the arguments the built-in would have
 * taken, so the only difference is speed. Any other argument goes through the built-in itself.
 *
 * @module
 */
import {
  chargeSlots,
  chargeTuples,
  copyElems,
  Dict,
  List,
  type Thread,
  Tuple,
  type Value,
} from "../values/mod.ts";
import type { CallExpr, Expr } from "../syntax/ast.ts";
import { callValue, tick } from "./calls.ts";
import type { Compiler } from "./compile.ts";
import { compileExpr, compileSetter } from "./compile_expr.ts";
import { type ExprFn, F_THREAD, type Frame, type Pos } from "./function.ts";
import { Pairs } from "./loops.ts";
import { callMethodNamed } from "./compile_call.ts";
import { leaveBuiltin } from "./errors.ts";

/** A compiled pair loop source. */
export interface PairPlan {
  /** Evaluates the call's arguments: the pairs, or the list the built-in returned (iterate it as usual). */
  source: (fr: Frame) => Pairs | Value;
  /** Assigns the first name. */
  setA: (fr: Frame, v: Value) => void;
  /** Assigns the second name. */
  setB: (fr: Frame, v: Value) => void;
}

function unparen(e: Expr): Expr {
  while (e.kind === "ParenExpr") e = e.x;
  return e;
}

/**
 * Recognizes `for A, B in enumerate(X)` / `zip(X, Y)` (the universal built-ins, positional arguments,
 * two plain names) and compiles the call's arguments, exactly where compiling the call would (so that
 * positions match); undefined when the loop has another shape.
 */
export function planPairLoop(c: Compiler, x: Expr, vars: Expr): PairPlan | undefined {
  const call = unparen(x);
  const target = unparen(vars);
  if (
    call.kind === "CallExpr" && call.fn.kind === "DotExpr" && call.fn.name === "items" &&
    call.args.length === 0
  ) {
    return planItemsLoop(c, x, call, target);
  }
  if (call.kind !== "CallExpr" || call.fn.kind !== "Ident" || call.fn.binding?.scope !== "universal") {
    return undefined;
  }
  const name = call.fn.name;
  const arity = name === "enumerate" ? 1 : name === "zip" ? 2 : 0;
  if (arity === 0 || call.args.length !== arity || call.args.some((a) => a.kind !== "positional")) {
    return undefined;
  }
  if ((target.kind !== "TupleExpr" && target.kind !== "ListExpr") || target.list.length !== 2) {
    return undefined;
  }
  const a = unparen(target.list[0]), b = unparen(target.list[1]);
  if (a.kind !== "Ident" || b.kind !== "Ident") return undefined;
  const builtin = c.settings.universe.get(name);
  if (builtin === undefined) return undefined;
  // The callee is recorded too (a universal name: no position): the generator forms call the
  // built-in itself when an argument calls.
  if (c.fastExprs !== null) compileExpr(c, call.fn);
  const args: ExprFn[] = call.args.map((arg) => compileExpr(c, arg.value));
  c.setPos({ line: call.lparenLine, col: call.lparenCol });
  const site = c.pos;
  const source = arity === 1
    ? enumerateSource(builtin, args[0], site)
    : zipSource(builtin, args[0], args[1], site);
  // The generator forms (deep_compile.ts) iterate the source itself: iterateDeep walks Pairs too.
  c.fastExprs?.set(x, source as ExprFn);
  return { source, setA: compileSetter(c, a), setB: compileSetter(c, b) };
}

function enumerateSource(builtin: Value, X: ExprFn, site: Pos): (fr: Frame) => Pairs | Value {
  return (fr) => {
    const th = fr[F_THREAD] as Thread;
    const x = X(fr);
    if (!(x instanceof List || x instanceof Tuple)) return callValue(th, builtin, [x], null, site);
    // As enumerate: a call, a copy of the elements, and the pair tuples.
    tick(th);
    const n = x.elems.length;
    chargeSlots(th, n);
    const elems = x instanceof List ? copyElems(th, x.elems) : x.elems;
    chargeTuples(th, n, 2);
    return new Pairs(null, elems, n);
  };
}

function zipSource(builtin: Value, X: ExprFn, Y: ExprFn, site: Pos): (fr: Frame) => Pairs | Value {
  return (fr) => {
    const th = fr[F_THREAD] as Thread;
    const x = X(fr), y = Y(fr);
    if (!(x instanceof List || x instanceof Tuple) || !(y instanceof List || y instanceof Tuple)) {
      return callValue(th, builtin, [x, y], null, site);
    }
    // As zip: a call and the pair tuples. The loop body may change a list, so lists are copied.
    tick(th);
    const n = Math.min(x.elems.length, y.elems.length);
    chargeTuples(th, n, 2);
    const left = x instanceof List ? x.elems.slice(0, n) : x.elems;
    const right = y instanceof List ? (y === x ? left : y.elems.slice(0, n)) : y.elems;
    return new Pairs(left, right, n);
  };
}

/**
 * `for k, v in d.items()` (two plain names): a dict's keys and values are walked in place of the list of
 * pair tuples `items` would build, charged as it charges them; any other receiver makes the method call.
 * The call is compiled as a method call compiles (same positions, same compile steps).
 */
function planItemsLoop(c: Compiler, x: Expr, call: CallExpr, target: Expr): PairPlan | undefined {
  if ((target.kind !== "TupleExpr" && target.kind !== "ListExpr") || target.list.length !== 2) {
    return undefined;
  }
  const a = unparen(target.list[0]), b = unparen(target.list[1]);
  const dot = call.fn;
  if (a.kind !== "Ident" || b.kind !== "Ident" || dot.kind !== "DotExpr") return undefined;
  c.enter(call);
  let source: (fr: Frame) => Pairs | Value;
  try {
    const X = compileExpr(c, dot.x);
    c.setPos({ line: dot.dotLine, col: dot.dotCol });
    const dotPos = c.pos;
    c.setPos({ line: call.lparenLine, col: call.lparenCol });
    source = itemsSource(X, dotPos, c.pos);
  } finally {
    c.leave();
  }
  // The generator forms (deep_compile.ts) iterate the source itself: iterateDeep walks Pairs too.
  c.fastExprs?.set(x, source as ExprFn);
  return { source, setA: compileSetter(c, a), setB: compileSetter(c, b) };
}

function itemsSource(X: ExprFn, dotPos: Pos, site: Pos): (fr: Frame) => Pairs | Value {
  return (fr) => {
    const th = fr[F_THREAD] as Thread;
    const d = X(fr);
    if (!(d instanceof Dict)) return callMethodNamed(th, d, "items", [], dotPos, site);
    // As the method: its call's step, then the pair tuples (a failed charge is the method's error).
    tick(th);
    try {
      chargeTuples(th, d.size, 2);
    } catch (err) {
      throw leaveBuiltin(err, "items", site);
    }
    const keys = d.keys();
    return new Pairs(keys, d.valueList(), keys.length);
  };
}
