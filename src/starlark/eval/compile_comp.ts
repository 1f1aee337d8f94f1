/**
 * Compilation of list and dict comprehensions. Clauses become nested closures `(frame, acc) => void`,
 * assembled from the innermost (the body, which appends to the accumulator) outwards.
 *
 * @module
 */
import type { Comprehension, Expr } from "../syntax/ast.ts";
import { Dict, ENTRY_BYTES, List, type Thread, type Value } from "../values/mod.ts";
import { isTrue } from "./arith.ts";
import type { Compiler } from "./compile.ts";
import { compileExpr, setBuilt } from "./compile_expr.ts";
import { compileAssign } from "./compile_stmt.ts";
import { type ExprFn, F_THREAD, type Frame, NORMAL, type Pos } from "./function.ts";
import { Pairs, runLoop, type Step } from "./loops.ts";
import { type PairPlan, planPairLoop } from "./pairs.ts";
import { chargeSteps } from "./calls.ts";

type Clause = (fr: Frame, acc: unknown) => void;

type Part =
  | { kind: "for"; X: ExprFn; pos: Pos; set: (fr: Frame, v: Value) => void }
  | { kind: "pairs"; plan: PairPlan; pos: Pos; set: (fr: Frame, v: Value) => void }
  | { kind: "if"; C: ExprFn };

/** Compiles a comprehension. */
export function compileComprehension(c: Compiler, e: Comprehension): ExprFn {
  // Compile in source order (positions are tracked in that order), then assemble inside out.
  const parts: Part[] = [];
  for (const clause of e.clauses) {
    if (clause.kind === "ForClause") {
      const plan = planPairLoop(c, clause.x, clause.vars);
      if (plan !== undefined) {
        c.setPos(clause);
        const pos = c.pos;
        parts.push({ kind: "pairs", plan, pos, set: compileAssign(c, pos, clause.vars) });
        continue;
      }
      const X = compileExpr(c, clause.x);
      c.setPos(clause);
      const pos = c.pos;
      const set = compileAssign(c, pos, clause.vars);
      parts.push({ kind: "for", X, pos, set });
    } else {
      parts.push({ kind: "if", C: compileExpr(c, clause.cond) });
    }
  }
  let inner: Clause;
  if (e.curly) {
    const body = e.body;
    if (body.kind !== "DictEntry") throw new Error("dict comprehension without entry");
    const K = compileExpr(c, body.key), V = compileExpr(c, body.value);
    c.setPos({ line: body.colonLine, col: body.colonCol });
    const pos = c.pos;
    inner = (fr, acc) => {
      const k = K(fr), v = V(fr);
      const d = acc as Dict;
      if (setBuilt(fr, d, k, v, pos) && (d.size & 1023) === 0) {
        (fr[F_THREAD] as Thread).allocate(ENTRY_BYTES * 1024);
      }
    };
  } else {
    const B = compileExpr(c, e.body as Expr);
    inner = (fr, acc) => {
      const a = acc as Value[];
      if (a.length > 0 && (a.length & 1023) === 0) (fr[F_THREAD] as Thread).allocate(8 * 1024);
      a.push(B(fr));
    };
  }
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i];
    const next = inner;
    if (p.kind === "if") {
      const C = p.C;
      inner = (fr, acc) => {
        if (isTrue(C(fr))) next(fr, acc);
      };
    } else if (p.kind === "pairs") {
      inner = pairClause(p.plan, p.pos, p.set, next);
    } else {
      const { X, pos, set } = p;
      // Like a for statement: one step for the iteration, one for evaluating what it leads to.
      const weight = 2;
      const step: Step = (fr, v, acc) => {
        set(fr, v);
        next(fr, acc);
        return NORMAL;
      };
      inner = (fr, acc) => {
        runLoop(fr[F_THREAD] as Thread, X(fr), pos, fr, step, acc, weight);
      };
    }
  }
  const run = inner;
  if (e.curly) {
    return (fr) => {
      const d = new Dict();
      run(fr, d);
      return d;
    };
  }
  return (fr) => {
    const acc: Value[] = [];
    run(fr, acc);
    return new List(acc);
  };
}

/** A `for a, b in enumerate(...)` / `zip(...)` clause (see pairs.ts). */
function pairClause(plan: PairPlan, pos: Pos, set: (fr: Frame, v: Value) => void, next: Clause): Clause {
  const { source, setA, setB } = plan;
  const weight = 2; // as runLoop charges a clause: the iteration and what it leads to
  const step: Step = (fr, v, acc) => {
    set(fr, v);
    next(fr, acc);
    return NORMAL;
  };
  return (fr, acc) => {
    const th = fr[F_THREAD] as Thread;
    const src = source(fr);
    if (!(src instanceof Pairs)) {
      runLoop(th, src, pos, fr, step, acc, weight);
      return;
    }
    const left = src.left, right = src.right, n = src.n;
    for (let i = 0; i < n; i++) {
      chargeSteps(th, weight);
      setA(fr, left === null ? i : left[i]);
      setB(fr, right[i]);
      next(fr, acc);
    }
  };
}
