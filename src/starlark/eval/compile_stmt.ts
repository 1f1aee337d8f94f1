/**
 * Compilation of statements, blocks and assignment targets.
 *
 * A statement closure returns a completion code (NORMAL, BREAK, CONTINUE, RETURN); a block charges one
 * step per statement it executes.
 *
 * @module
 */
import { withSpellingHint } from "../methods/mod.ts";
import {
  Dict,
  ENTRY_BYTES,
  EvalError,
  fromJSString,
  List,
  LONG_KEY_LENGTH,
  nearest,
  NoSuchAttrError,
  ResourceError,
  setIndex,
  StarlarkSyntaxError,
  type Thread,
  typeName,
  type Value,
} from "../values/mod.ts";
import {
  type AssignStmt,
  type BinaryOp,
  elifOf,
  type Expr,
  type ForStmt,
  type IfStmt,
  type LoadStmt,
  type Position,
  type Stmt,
} from "../syntax/ast.ts";
import { fastIntOp, isTrue } from "./arith.ts";
import { chargeSteps } from "./calls.ts";
import type { Compiler } from "./compile.ts";
import { attrAt, compileExpr, compileSetter, indexAt, quickIndex } from "./compile_expr.ts";
import { atPos, errorAt } from "./errors.ts";
import { augmentedValue, type Setter, storeAugmented } from "./augmented.ts";
import { type PairPlan, planPairLoop } from "./pairs.ts";
import {
  BREAK,
  CONTINUE,
  type ExprFn,
  F_LOCALS,
  F_RESULT,
  F_THREAD,
  NORMAL,
  type Pos,
  RETURN,
  type StmtFn,
} from "./function.ts";
import { Pairs, runLoop, type Step, unpack } from "./loops.ts";
import { localSlots, parallelAssign, unpackLocals } from "./compile_unpack.ts";

/** The expression of each compiled `return EXPR` statement, so that a function made of one can run it directly. */
const returnedExprs = new WeakMap<StmtFn, ExprFn>();

/** The expression of a compiled `return EXPR` statement, or undefined for any other statement. */
export function returnedExpr(s: StmtFn): ExprFn | undefined {
  return returnedExprs.get(s);
}

/** A compiled assignment target. */
export type { Setter };

/** Compiles a statement list into one closure that charges one step per statement on entry. */
export function compileBlock(c: Compiler, stmts: readonly Stmt[]): StmtFn {
  const list = compileStmts(c, stmts);
  const run = sequence(list);
  const n = list.length;
  if (n === 0) return run;
  return (fr) => {
    chargeSteps(fr[F_THREAD] as Thread, n);
    return run(fr);
  };
}

/** Compiles statements, dropping those that do nothing (`pass`, docstrings). */
export function compileStmts(c: Compiler, stmts: readonly Stmt[]): StmtFn[] {
  const list: StmtFn[] = [];
  for (const s of stmts) {
    const f = compileStmt(c, s);
    if (f !== undefined) list.push(f);
  }
  return list;
}

/** Runs statements in order until one completes abnormally; charges nothing (the caller does). */
export function sequence(list: StmtFn[]): StmtFn {
  switch (list.length) {
    case 0:
      return () => NORMAL;
    case 1:
      return list[0];
    case 2: {
      const [a, b] = list;
      return (fr) => {
        const r = a(fr);
        return r !== NORMAL ? r : b(fr);
      };
    }
    case 3: {
      const [a, b, d] = list;
      return (fr) => {
        let r = a(fr);
        if (r !== NORMAL) return r;
        r = b(fr);
        return r !== NORMAL ? r : d(fr);
      };
    }
    default: {
      const n = list.length;
      return (fr) => {
        for (let i = 0; i < n; i++) {
          const r = list[i](fr);
          if (r !== NORMAL) return r;
        }
        return NORMAL;
      };
    }
  }
}

/** Compiles one statement; `undefined` for statements that do nothing (`pass`, docstrings). */
function compileStmt(c: Compiler, s: Stmt): StmtFn | undefined {
  c.enter(s);
  try {
    const f = compileStmtInner(c, s);
    c.fastStmts?.set(s, f);
    return f;
  } finally {
    c.leave();
  }
}

function compileStmtInner(c: Compiler, s: Stmt): StmtFn | undefined {
  switch (s.kind) {
    case "ExprStmt": {
      if (s.x.kind === "Literal") return undefined;
      const X = compileExpr(c, s.x);
      return (fr) => {
        X(fr);
        return NORMAL;
      };
    }
    case "BranchStmt":
      if (s.token === "pass") return undefined;
      return s.token === "break" ? () => BREAK : () => CONTINUE;
    case "IfStmt": {
      if (elifCount(s) >= ELIF_LOOP) return compileElifChain(c, s);
      const C = compileExpr(c, s.cond);
      const T = compileBlock(c, s.then);
      const E = compileBlock(c, s.else);
      return (fr) => isTrue(C(fr)) ? T(fr) : E(fr);
    }
    case "AssignStmt":
      return s.op === "=" ? compileSimpleAssign(c, s) : compileAugmented(c, s);
    case "DefStmt": {
      const MK = c.compileFunction(s, s.name.name, s.body);
      const set = compileSetter(c, s.name);
      return (fr) => {
        set(fr, MK(fr));
        return NORMAL;
      };
    }
    case "ForStmt": {
      const plan = planPairLoop(c, s.x, s.vars);
      if (plan !== undefined) return compilePairFor(c, s, plan);
      const X = compileExpr(c, s.x);
      c.setPos(s);
      const pos = c.pos;
      const target = unparen(s.vars);
      const local = target.kind === "Ident" && target.binding?.scope === "local";
      const k = local ? F_LOCALS + target.binding!.index : -1;
      const set = local ? undefined : compileAssign(c, pos, s.vars);
      const body = compileStmts(c, s.body);
      const B = sequence(body);
      const weight = 1 + body.length;
      const step: Step = set === undefined
        ? (fr, v) => {
          fr[k] = v;
          return B(fr);
        }
        : (fr, v) => {
          set(fr, v);
          return B(fr);
        };
      return (fr) => runLoop(fr[F_THREAD] as Thread, X(fr), pos, fr, step, null, weight);
    }
    case "WhileStmt": {
      const C = compileExpr(c, s.cond);
      const body = compileStmts(c, s.body);
      const B = sequence(body);
      const weight = 1 + body.length;
      return (fr) => {
        const th = fr[F_THREAD] as Thread;
        while (isTrue(C(fr))) {
          chargeSteps(th, weight);
          const r = B(fr);
          if (r !== NORMAL) {
            if (r === BREAK) break;
            if (r === RETURN) return RETURN;
          }
        }
        return NORMAL;
      };
    }
    case "ReturnStmt": {
      if (s.result === undefined) {
        return (fr) => {
          fr[F_RESULT] = null;
          return RETURN;
        };
      }
      const X = compileExpr(c, s.result);
      const ret: StmtFn = (fr) => {
        fr[F_RESULT] = X(fr);
        return RETURN;
      };
      returnedExprs.set(ret, X);
      return ret;
    }
    case "LoadStmt":
      return compileLoad(c, s);
  }
}

/** Number of `elif`s from which an if statement runs as one loop over its branches. */
const ELIF_LOOP = 8;

/** How many `elif`s follow `s`, counted up to {@link ELIF_LOOP}. */
function elifCount(s: IfStmt): number {
  let n = 0;
  for (let e = elifOf(s); e !== undefined && n < ELIF_LOOP; e = elifOf(e)) n++;
  return n;
}

/**
 * `if`/`elif`.../`else` as one loop over (condition, body) pairs, so that a chain of any length costs
 * neither compiler nor evaluator stack per branch. It compiles and charges like the nested statements
 * it stands for: one step for each `elif` reached (the one statement of the `else` block holding it).
 */
function compileElifChain(c: Compiler, s: IfStmt): StmtFn {
  const conds: ExprFn[] = [], bodies: StmtFn[] = [];
  let st: IfStmt = s;
  for (;;) {
    conds.push(compileExpr(c, st.cond));
    bodies.push(compileBlock(c, st.then));
    const next = elifOf(st);
    if (next === undefined) break;
    st = next;
  }
  const E = compileBlock(c, st.else);
  const n = conds.length;
  return (fr) => {
    if (isTrue(conds[0](fr))) return bodies[0](fr);
    const th = fr[F_THREAD] as Thread;
    for (let i = 1; i < n; i++) {
      chargeSteps(th, 1);
      if (isTrue(conds[i](fr))) return bodies[i](fr);
    }
    return E(fr);
  };
}

/** A `for` over `enumerate`/`zip` unpacked into two names (see pairs.ts). */
function compilePairFor(c: Compiler, s: ForStmt, plan: PairPlan): StmtFn {
  c.setPos(s);
  const pos = c.pos;
  const set = compileAssign(c, pos, s.vars);
  const body = compileStmts(c, s.body);
  const B = sequence(body);
  const weight = 1 + body.length;
  const { source, setA, setB } = plan;
  const step: Step = (fr, v) => {
    set(fr, v);
    return B(fr);
  };
  return (fr) => {
    const th = fr[F_THREAD] as Thread;
    const src = source(fr);
    if (!(src instanceof Pairs)) return runLoop(th, src, pos, fr, step, null, weight);
    const left = src.left, right = src.right, n = src.n;
    for (let i = 0; i < n; i++) {
      chargeSteps(th, weight);
      setA(fr, left === null ? i : left[i]);
      setB(fr, right[i]);
      const r = B(fr);
      if (r !== NORMAL) {
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
    }
    return NORMAL;
  };
}

function unparen(e: Expr): Expr {
  while (e.kind === "ParenExpr") e = e.x;
  return e;
}

function compileSimpleAssign(c: Compiler, s: AssignStmt): StmtFn {
  const R = compileExpr(c, s.rhs);
  const target = unparen(s.lhs);
  if (target.kind === "Ident") {
    const b = target.binding!;
    if (b.scope === "local") {
      const k = F_LOCALS + b.index;
      return (fr) => {
        fr[k] = R(fr);
        return NORMAL;
      };
    }
  }
  const set = compileAssign(c, { line: s.opLine, col: s.opCol }, s.lhs);
  const parallel = parallelAssign(target, R);
  if (parallel !== undefined) return parallel;
  return (fr) => {
    set(fr, R(fr));
    return NORMAL;
  };
}

/** Compiles an assignment target; `pos` locates unpacking errors. */
export function compileAssign(c: Compiler, pos: Position, lhs: Expr): Setter {
  switch (lhs.kind) {
    case "ParenExpr":
      return compileAssign(c, pos, lhs.x);
    case "Ident":
      return compileSetter(c, lhs);
    case "TupleExpr":
    case "ListExpr": {
      c.setPos(pos);
      const upos = c.pos;
      const n = lhs.list.length;
      const sets = lhs.list.map((x) => compileAssign(c, pos, x));
      // Only element or field targets can observe the source list while it is being unpacked.
      const copy = lhs.list.some((x) => unparen(x).kind !== "Ident");
      const locals = localSlots(lhs.list);
      if (locals !== undefined && (n === 2 || n === 3)) return unpackLocals(locals, upos);
      return (fr, v) => {
        const vals = unpack(v, n, upos, copy);
        for (let i = 0; i < n; i++) sets[i](fr, vals[i]);
      };
    }
    case "IndexExpr": {
      const X = compileExpr(c, lhs.x), I = compileExpr(c, lhs.index);
      c.setPos({ line: lhs.lbrackLine, col: lhs.lbrackCol });
      const ipos = c.pos;
      return (fr, v) => {
        const x = X(fr), i = I(fr);
        setIndexAt(fr[F_THREAD] as Thread, x, i, v, ipos);
      };
    }
    case "DotExpr": {
      const X = compileExpr(c, lhs.x);
      c.setPos({ line: lhs.dotLine, col: lhs.dotCol });
      const dpos = c.pos, name = lhs.name;
      return (fr, v) => setFieldAt(X(fr), name, v, dpos);
    }
    default:
      throw new Error(`invalid assignment target ${lhs.kind}`);
  }
}

/** `x[i] = v`, with the common list and dict cases inline. */
export function setIndexAt(th: Thread, x: Value, i: Value, v: Value, pos: Pos): void {
  if (x instanceof List) {
    if (typeof i === "number" && !x.frozen && x.itercount === 0) {
      const a = x.elems;
      const j = i < 0 ? i + a.length : i;
      if (j >= 0 && j < a.length) {
        a[j] = v;
        return;
      }
    }
  } else if (x instanceof Dict) {
    if (
      (typeof i === "number" || (typeof i === "string" && i.length <= LONG_KEY_LENGTH)) && !x.frozen &&
      x.itercount === 0
    ) {
      // Strings and ints are their own hash keys (a long string is charged for its hashing by setIndex).
      if (x.setByHash(i, i, v)) th.allocate(ENTRY_BYTES);
      return;
    }
    const before = x.size;
    try {
      setIndex(th, x, i, v);
    } catch (err) {
      throw atPos(err, pos);
    }
    if (x.size !== before) th.allocate(ENTRY_BYTES);
    return;
  }
  try {
    setIndex(th, x, i, v);
  } catch (err) {
    throw atPos(err, pos);
  }
}

/** Implemented by host values with assignable fields. */
interface HasSetField {
  setField(name: string, v: Value): void;
}

export function setFieldAt(x: Value, name: string, v: Value, pos: Pos): void {
  const sf = (x as Partial<HasSetField> | null)?.setField;
  if (typeof sf !== "function") {
    throw errorAt(`can't assign to .${name} field of ${typeName(x)}`, pos);
  }
  try {
    sf.call(x, name, v);
  } catch (err) {
    // Like the reference, a "no such field" refusal gets a spelling hint from the value's field names.
    const e = err instanceof NoSuchAttrError ? new EvalError(withSpellingHint(err.message, name, x)) : err;
    throw atPos(e, pos);
  }
}

// ---------------------------------------------------------------------------
// Augmented assignment

/** The end of `x[i] op= y`: `old op y` (small ints directly) stored at `x[i]`. */
export function storeIndexed(
  th: Thread,
  op: BinaryOp,
  x: Value,
  i: Value,
  old: Value,
  y: Value,
  ipos: Pos,
  pos: Pos,
): void {
  let z: Value | undefined;
  if (typeof old === "number" && typeof y === "number") z = fastIntOp(op, old, y);
  if (z === undefined) z = augmentedValue(th, op, old, y, pos);
  setIndexAt(th, x, i, z, ipos);
}

function compileAugmented(c: Compiler, s: AssignStmt): StmtFn {
  const op = s.op.slice(0, -1) as BinaryOp;
  const lhs = unparen(s.lhs);
  switch (lhs.kind) {
    case "Ident": {
      const get = compileExpr(c, lhs);
      const set = compileSetter(c, lhs);
      const R = compileExpr(c, s.rhs);
      c.setPos({ line: s.opLine, col: s.opCol });
      const pos = c.pos;
      return (fr) => {
        storeAugmented(fr, set, op, get(fr), R(fr), pos);
        return NORMAL;
      };
    }
    case "IndexExpr": {
      const X = compileExpr(c, lhs.x), I = compileExpr(c, lhs.index);
      c.setPos({ line: lhs.lbrackLine, col: lhs.lbrackCol });
      const ipos = c.pos;
      const R = compileExpr(c, s.rhs);
      c.setPos({ line: s.opLine, col: s.opCol });
      const pos = c.pos;
      return (fr) => {
        const th = fr[F_THREAD] as Thread;
        const x = X(fr), i = I(fr);
        const q = quickIndex(x, i);
        const old = q !== undefined ? q : indexAt(th, x, i, ipos);
        storeIndexed(th, op, x, i, old, R(fr), ipos, pos);
        return NORMAL;
      };
    }
    case "DotExpr": {
      const X = compileExpr(c, lhs.x);
      c.setPos({ line: lhs.dotLine, col: lhs.dotCol });
      const dpos = c.pos, name = lhs.name;
      const R = compileExpr(c, s.rhs);
      c.setPos({ line: s.opLine, col: s.opCol });
      const pos = c.pos;
      return (fr) => {
        const th = fr[F_THREAD] as Thread;
        const x = X(fr);
        const old = attrAt(th, x, name, dpos);
        const z = augmentedValue(th, op, old, R(fr), pos);
        setFieldAt(x, name, z, dpos);
        return NORMAL;
      };
    }
    default:
      throw new Error(`invalid augmented assignment target ${lhs.kind}`);
  }
}

// ---------------------------------------------------------------------------
// load

function compileLoad(c: Compiler, s: LoadStmt): StmtFn {
  c.setPos(s);
  const pos = c.pos;
  const module = s.module;
  const from = s.from;
  const sets = s.to.map((id) => compileSetter(c, id));
  return (fr) => {
    const th = fr[F_THREAD] as Thread;
    if (th.load === undefined) throw errorAt("load not implemented by this application", pos);
    let members: ReadonlyMap<string, Value>;
    try {
      members = th.load(th, module);
    } catch (err) {
      if (err instanceof ResourceError) throw err;
      // Messages are byte strings, except a syntax error's, which quotes the (JS string) source text.
      const msg = err instanceof StarlarkSyntaxError
        ? fromJSString(err.message)
        : err instanceof Error
        ? err.message
        : String(err);
      const e = errorAt(`cannot load ${module}: ${msg}`, pos);
      e.cause = err;
      throw e;
    }
    const vals: Value[] = [];
    for (const name of from) {
      const v = members.get(name);
      if (v === undefined) {
        const hint = nearest(name, [...members.keys()].sort());
        throw errorAt(
          `load: name ${name} not found in module ${module}${hint === "" ? "" : ` (did you mean ${hint}?)`}`,
          pos,
        );
      }
      vals.push(v);
    }
    for (let i = 0; i < sets.length; i++) sets[i](fr, vals[i]);
    return NORMAL;
  };
}
