/**
 * The generator form of a function body, which deep calls run on the explicit stack of deep.ts.
 *
 * Only the parts of a body that can make a Starlark call need a generator: a statement or expression
 * without a call runs the very closure the ordinary compiler made for it (recorded, with recursion on,
 * in `Compiler.fastExprs`/`fastStmts`), so it behaves, charges and reports errors exactly as it does
 * in an ordinary call. A node with a call is rebuilt from its parts: its operands are evaluated in the
 * same order, and its own operation runs the same helper with the positions the ordinary compiler
 * records for it (the operator, `[`, `.` or `(`). A call of a Starlark function, or of a built-in
 * that calls back (`sorted`, `min`, `max`), is yielded to the trampoline; any other callee is called
 * directly. A construct not handled here (an expression nested more than 200 deep) runs its ordinary
 * closure, whose calls nest on the JS stack.
 *
 * Compiled with `sliced` (sliced.ts), loops and comprehensions count as calls: every body that loops
 * gets a generator form, whose loops yield {@link PAUSE} at a turn when the thread's pause is due.
 * Calls that cannot reach Starlark (universal built-ins without a generator form, and there methods of
 * values) need no generator, and a loop whose body cannot call runs its closures with no generator per
 * turn.
 *
 * @module
 */
import { chargeSteps } from "./calls.ts";
import type { Compiler } from "./compile.ts";
import {
  attrAt,
  compileSetter,
  indexAt,
  newList,
  newTuple,
  quickIndex,
  slicePositions,
} from "./compile_expr.ts";
import { augmentedValue, storeAugmented } from "./augmented.ts";
import { compileAssign, setFieldAt, setIndexAt, storeIndexed } from "./compile_stmt.ts";
import { binaryOp, isTrue, unaryOp } from "./arith.ts";
import { type DeepExpr, type DeepStmt, iterateDeep, PAUSE } from "./deep.ts";
import { unpack } from "./loops.ts";
import {
  deepCall,
  deepComprehension,
  deepDict,
  type DeepParts,
  type DeepSetter,
  type Part,
} from "./deep_compile_expr.ts";
import { BREAK, F_LOCALS, F_RESULT, F_THREAD, NORMAL, RETURN, type StmtFn } from "./function.ts";
import { type BinaryOp, elifOf, type Expr, type IfStmt, type Stmt } from "../syntax/ast.ts";
import { Builtin, slice, type Thread, type Value } from "../values/mod.ts";
import { atPos } from "./errors.ts";
import type { Setter } from "./compile_stmt.ts";

/** Expression nesting the deep compiler handles; deeper call-bearing expressions run their ordinary closure. */
const MAX_DEEP_NESTING = 200;

/** A statement: its ordinary closure, or its generator when it can call. */
interface SPart {
  readonly fast: StmtFn | null;
  readonly deep: DeepStmt | null;
}

/**
 * Builds the generator form of a function body; null when the body makes no call (its ordinary form
 * cannot nest) or was not recorded.
 */
export function compileDeepBody(c: Compiler, body: readonly Stmt[]): DeepStmt | null {
  const d = new DeepCompiler(c);
  if (!body.some((s) => d.stmtCalls(s))) return null;
  const parts = d.stmts(body);
  return parts === null ? null : sequence(parts);
}

function sequence(parts: readonly SPart[]): DeepStmt {
  const n = parts.length;
  return function* (fr) {
    for (let i = 0; i < n; i++) {
      const p = parts[i];
      const r = p.deep !== null ? yield* p.deep(fr) : p.fast!(fr);
      if (r !== NORMAL) return r;
    }
    return NORMAL;
  };
}

/** The statements as one ordinary closure when none of them can call; else null. */
function plainSequence(c: Compiler, parts: readonly SPart[]): StmtFn | null {
  return parts.some((p) => p.deep !== null) ? null : c.rules.sequence(parts.map((p) => p.fast!));
}

/** A block: charges a step per statement on entry, like compileBlock. */
function block(parts: readonly SPart[]): DeepStmt {
  const run = sequence(parts);
  const n = parts.length;
  return function* (fr) {
    if (n > 0) chargeSteps(fr[F_THREAD] as Thread, n);
    return yield* run(fr);
  };
}

class DeepCompiler implements DeepParts {
  private readonly calls = new Map<object, boolean>();
  /** Sliced code (eval/sliced.ts): loops and comprehensions must be able to pause, like calls. */
  private readonly sliced: boolean;
  constructor(private readonly c: Compiler) {
    this.sliced = c.settings.sliced === true;
  }

  /** Whether evaluating `e` can make a call (lambda bodies excluded: they are not evaluated here). */
  exprCalls(root: Expr): boolean {
    const known = this.calls.get(root);
    if (known !== undefined) return known;
    // Post-order over the tree with an explicit stack: chains may be arbitrarily long.
    const stack: { e: Expr; kids: Expr[] | null }[] = [{ e: root, kids: null }];
    while (stack.length > 0) {
      this.c.meter.tick();
      const top = stack[stack.length - 1];
      if (top.kids === null) {
        top.kids = children(top.e).filter((k) => !this.calls.has(k));
        for (const k of top.kids) stack.push({ e: k, kids: null });
        continue;
      }
      stack.pop();
      const e = top.e;
      const pauses = e.kind === "CallExpr" ? !this.plainCallee(e) : this.sliced && e.kind === "Comprehension";
      this.calls.set(e, pauses || children(e).some((k) => this.calls.get(k) === true));
    }
    return this.calls.get(root)!;
  }

  /**
   * Whether a call's callee never calls back into Starlark, so the call needs no generator: a
   * universal built-in without a generator form, and in sliced code a method of a value (the
   * attributes of values are built-ins; members of predeclared modules are not plain: a host's
   * built-in there may wait for its host, or be a Starlark function).
   */
  private plainCallee(e: Extract<Expr, { kind: "CallExpr" }>): boolean {
    const fn = unparen(e.fn);
    if (fn.kind === "DotExpr") {
      if (!this.sliced) return false;
      // A member of a predeclared module may be a host's built-in that waits (see HOST_TURN).
      let root: Expr = fn;
      while (root.kind === "DotExpr" || root.kind === "ParenExpr") root = root.x;
      return !(root.kind === "Ident" && root.binding?.scope === "predeclared");
    }
    if (fn.kind !== "Ident" || fn.binding?.scope !== "universal") return false;
    const v = this.c.settings.universe.get(fn.name);
    return v instanceof Builtin && v.gen === undefined;
  }

  stmtCalls(s: Stmt): boolean {
    switch (s.kind) {
      case "ExprStmt":
        return this.exprCalls(s.x);
      case "AssignStmt":
        return this.exprCalls(s.lhs) || this.exprCalls(s.rhs);
      case "ReturnStmt":
        return s.result !== undefined && this.exprCalls(s.result);
      case "IfStmt": {
        // An elif chain down its links, not recursively: the parser accepts chains of any length.
        for (let st: IfStmt = s;;) {
          if (this.exprCalls(st.cond) || st.then.some((t) => this.stmtCalls(t))) return true;
          const next = elifOf(st);
          if (next === undefined) return st.else.some((t) => this.stmtCalls(t));
          st = next;
        }
      }
      case "WhileStmt":
        return this.sliced || this.exprCalls(s.cond) || s.body.some((t) => this.stmtCalls(t));
      case "ForStmt":
        return this.sliced || this.exprCalls(s.x) || this.exprCalls(s.vars) ||
          s.body.some((t) => this.stmtCalls(t));
      case "DefStmt":
        return s.params.some((p) => p.kind === "default" && this.exprCalls(p.default));
      default:
        return false;
    }
  }

  /** The statements of a block that do something, each in its best form; null if one was not recorded. */
  stmts(list: readonly Stmt[]): SPart[] | null {
    const fast = this.c.fastStmts!;
    const out: SPart[] = [];
    for (const s of list) {
      this.c.meter.tick();
      if (!fast.has(s)) return null;
      const f = fast.get(s);
      if (f === undefined) continue;
      const deep = this.stmtCalls(s) ? this.stmt(s) : null;
      out.push({ fast: f, deep });
    }
    return out;
  }

  private stmt(s: Stmt): DeepStmt | null {
    switch (s.kind) {
      case "ExprStmt": {
        const X = this.expr(s.x, 0);
        if (X === null) return null;
        return function* (fr) {
          yield* X(fr);
          return NORMAL;
        };
      }
      case "ReturnStmt": {
        const X = this.expr(s.result!, 0);
        if (X === null) return null;
        return function* (fr) {
          fr[F_RESULT] = yield* X(fr);
          return RETURN;
        };
      }
      case "AssignStmt":
        return s.op === "=" ? this.assign(s.lhs, s.rhs, { line: s.opLine, col: s.opCol }) : this.augmented(s);
      case "IfStmt":
        return this.ifChain(s);
      case "ForStmt":
        return this.forLoop(s);
      case "WhileStmt": {
        const C = this.part(s.cond, 0);
        const body = this.stmts(s.body);
        if (C === null || body === null) return null;
        const B = sequence(body), F = plainSequence(this.c, body);
        const weight = 1 + body.length;
        return function* (fr) {
          const th = fr[F_THREAD] as Thread;
          while (isTrue(C.deep !== null ? yield* C.deep(fr) : C.fast!(fr))) {
            chargeSteps(th, weight);
            if (th.pauseDue) yield PAUSE;
            const r = F !== null ? F(fr) : yield* B(fr);
            if (r !== NORMAL) {
              if (r === BREAK) break;
              if (r === RETURN) return RETURN;
            }
          }
          return NORMAL;
        };
      }
      default:
        return null;
    }
  }

  /** `lhs = rhs` for a target of names (the targets whose setters evaluate nothing). */
  /** `lhs = rhs`: as compileAssign's setters, the right side first, then the targets in order. */
  private assign(lhs: Expr, rhs: Expr, pos: { line: number; col: number }): DeepStmt | null {
    const R = this.part(rhs, 0);
    if (R === null) return null;
    const plain = this.nameSetter(lhs, pos);
    if (plain !== null) {
      return function* (fr) {
        plain(fr, R.deep !== null ? yield* R.deep(fr) : R.fast!(fr));
        return NORMAL;
      };
    }
    const set = this.deepSetter(lhs, pos);
    if (set === null) return null;
    return function* (fr) {
      yield* set(fr, R.deep !== null ? yield* R.deep(fr) : R.fast!(fr));
      return NORMAL;
    };
  }

  /** A target whose operands call, as a generator: an element, a field, or a tuple of targets. */
  deepSetter(lhs: Expr, pos: { line: number; col: number }): DeepSetter | null {
    const t = unparen(lhs);
    switch (t.kind) {
      case "IndexExpr": {
        const X = this.part(t.x, 0), I = this.part(t.index, 0);
        if (X === null || I === null) return null;
        const ipos = { line: t.lbrackLine, col: t.lbrackCol };
        return function* (fr, v) {
          const x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr);
          const i = I.deep !== null ? yield* I.deep(fr) : I.fast!(fr);
          setIndexAt(fr[F_THREAD] as Thread, x, i, v, ipos);
        };
      }
      case "DotExpr": {
        const X = this.part(t.x, 0);
        if (X === null) return null;
        const dpos = { line: t.dotLine, col: t.dotCol }, name = t.name;
        return function* (fr, v) {
          setFieldAt(X.deep !== null ? yield* X.deep(fr) : X.fast!(fr), name, v, dpos);
        };
      }
      case "TupleExpr":
      case "ListExpr": {
        // Each target plainly when it can be, else as a generator.
        const sets: { plain: Setter | null; deep: DeepSetter | null }[] = [];
        for (const x of t.list) {
          const plain = this.nameSetter(x, pos);
          const deep = plain === null ? this.deepSetter(x, pos) : null;
          if (plain === null && deep === null) return null;
          sets.push({ plain, deep });
        }
        const n = sets.length, upos = { line: pos.line, col: pos.col };
        // As compileAssign: only element or field targets can observe the list being unpacked.
        const copy = t.list.some((x) => unparen(x).kind !== "Ident");
        return function* (fr, v) {
          const vals = unpack(v, n, upos, copy);
          for (let i = 0; i < n; i++) {
            const set = sets[i];
            if (set.plain !== null) set.plain(fr, vals[i]);
            else yield* set.deep!(fr, vals[i]);
          }
        };
      }
      default:
        return null;
    }
  }

  nameSetter(lhs: Expr, pos: { line: number; col: number }): Setter | null {
    if (!namesOnly(lhs)) return this.elementSetter(unparen(lhs));
    const t = unparen(lhs);
    if (t.kind === "Ident") {
      const b = t.binding!;
      if (b.scope === "local") {
        const k = F_LOCALS + b.index;
        return (fr, v) => void (fr[k] = v);
      }
      return compileSetter(this.c, t);
    }
    return compileAssign(this.c, pos, lhs);
  }

  /**
   * `x[i] = v` or `x.f = v` whose operands cannot call: compileAssign's setter, from the operands'
   * recorded closures (compiling them again here, at run time, would see the wrong scope).
   */
  private elementSetter(t: Expr): Setter | null {
    const fast = this.c.fastExprs!;
    if (t.kind === "IndexExpr") {
      const X = fast.get(t.x), I = fast.get(t.index);
      if (X === undefined || I === undefined || this.exprCalls(t.x) || this.exprCalls(t.index)) return null;
      const pos = { line: t.lbrackLine, col: t.lbrackCol };
      return (fr, v) => {
        const x = X(fr), i = I(fr);
        setIndexAt(fr[F_THREAD] as Thread, x, i, v, pos);
      };
    }
    if (t.kind === "DotExpr") {
      const X = fast.get(t.x);
      if (X === undefined || this.exprCalls(t.x)) return null;
      const pos = { line: t.dotLine, col: t.dotCol }, name = t.name;
      return (fr, v) => setFieldAt(X(fr), name, v, pos);
    }
    return null;
  }

  private augmented(s: Extract<Stmt, { kind: "AssignStmt" }>): DeepStmt | null {
    const lhs = unparen(s.lhs);
    const op = s.op.slice(0, -1) as BinaryOp;
    const pos = { line: s.opLine, col: s.opCol };
    const R = this.part(s.rhs, 0);
    if (R === null) return null;
    // As compileAugmented: the target's operands, its old value, then the right side.
    switch (lhs.kind) {
      case "Ident": {
        const get = this.c.fastExprs!.get(lhs);
        if (get === undefined) return null;
        const set = compileSetter(this.c, lhs);
        return function* (fr) {
          const x = get(fr);
          storeAugmented(fr, set, op, x, R.deep !== null ? yield* R.deep(fr) : R.fast!(fr), pos);
          return NORMAL;
        };
      }
      case "IndexExpr": {
        const X = this.part(lhs.x, 0), I = this.part(lhs.index, 0);
        if (X === null || I === null) return null;
        const ipos = { line: lhs.lbrackLine, col: lhs.lbrackCol };
        return function* (fr) {
          const th = fr[F_THREAD] as Thread;
          const x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr);
          const i = I.deep !== null ? yield* I.deep(fr) : I.fast!(fr);
          const q = quickIndex(x, i);
          const old = q !== undefined ? q : indexAt(th, x, i, ipos);
          storeIndexed(th, op, x, i, old, R.deep !== null ? yield* R.deep(fr) : R.fast!(fr), ipos, pos);
          return NORMAL;
        };
      }
      case "DotExpr": {
        const X = this.part(lhs.x, 0);
        if (X === null) return null;
        const dpos = { line: lhs.dotLine, col: lhs.dotCol }, name = lhs.name;
        return function* (fr) {
          const th = fr[F_THREAD] as Thread;
          const x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr);
          const old = attrAt(th, x, name, dpos);
          const y = R.deep !== null ? yield* R.deep(fr) : R.fast!(fr);
          setFieldAt(x, name, augmentedValue(th, op, old, y, pos), dpos);
          return NORMAL;
        };
      }
      default:
        return null;
    }
  }

  /** An if statement and its elifs as one loop: a step for each elif reached, like the nested blocks. */
  private ifChain(s: IfStmt): DeepStmt | null {
    const conds: Part[] = [], bodies: DeepStmt[] = [];
    let st: IfStmt = s;
    for (;;) {
      const C = this.part(st.cond, 0), T = this.stmts(st.then);
      if (C === null || T === null) return null;
      conds.push(C);
      bodies.push(block(T));
      const next = elifOf(st);
      if (next === undefined) break;
      st = next;
    }
    const E = this.stmts(st.else);
    if (E === null) return null;
    const els = block(E);
    const n = conds.length;
    return function* (fr) {
      for (let i = 0; i < n; i++) {
        if (i > 0) chargeSteps(fr[F_THREAD] as Thread, 1);
        const c = conds[i];
        if (isTrue(c.deep !== null ? yield* c.deep(fr) : c.fast!(fr))) return yield* bodies[i](fr);
      }
      return yield* els(fr);
    };
  }

  private forLoop(s: Extract<Stmt, { kind: "ForStmt" }>): DeepStmt | null {
    const X = this.part(s.x, 0);
    const pos = { line: s.line, col: s.col };
    const set = this.nameSetter(s.vars, pos);
    const body = this.stmts(s.body);
    if (X === null || body === null) return null;
    const weight = 1 + body.length;
    const n = body.length;
    if (set === null) {
      // A target whose operands call: assigned by its generator at each turn.
      const dset = this.deepSetter(s.vars, pos);
      if (dset === null) return null;
      return function* (fr) {
        const x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr);
        return yield* iterateDeep(fr, x, pos, weight, function* (v) {
          yield* dset(fr, v);
          for (let i = 0; i < n; i++) {
            const p = body[i];
            const r = p.deep !== null ? yield* p.deep(fr) : p.fast!(fr);
            if (r !== NORMAL) return r;
          }
          return NORMAL;
        });
      };
    }
    const F = plainSequence(this.c, body);
    if (F !== null) {
      // A body that cannot call: its closures run directly, with no generator per turn.
      return function* (fr) {
        const x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr);
        return yield* iterateDeep(fr, x, pos, weight, null, (v) => {
          set(fr, v);
          return F(fr);
        });
      };
    }
    return function* (fr) {
      const x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr);
      return yield* iterateDeep(fr, x, pos, weight, function* (v) {
        set(fr, v);
        for (let i = 0; i < n; i++) {
          const p = body[i];
          const r = p.deep !== null ? yield* p.deep(fr) : p.fast!(fr);
          if (r !== NORMAL) return r;
        }
        return NORMAL;
      });
    };
  }

  /** An operand: its ordinary closure when it cannot call, else its generator; null if neither is known. */
  part(e: Expr, depth: number): Part | null {
    this.c.meter.tick();
    if (!this.exprCalls(e)) {
      const f = this.c.fastExprs!.get(e);
      return f === undefined ? null : { fast: f, deep: null };
    }
    const d = this.expr(e, depth);
    if (d !== null) return { fast: null, deep: d };
    const f = this.c.fastExprs!.get(e);
    return f === undefined ? null : { fast: f, deep: null };
  }

  /** The generator of an expression that can call; null when it must run its ordinary closure. */
  private expr(e: Expr, depth: number): DeepExpr | null {
    if (depth > MAX_DEEP_NESTING) return null;
    const d = depth + 1;
    switch (e.kind) {
      case "ParenExpr":
        return this.expr(e.x, d);
      case "CallExpr":
        return deepCall(this, e, d);
      case "BinaryExpr": {
        const X = this.part(e.x, d), Y = this.part(e.y, d);
        if (X === null || Y === null) return null;
        if (e.op === "and" || e.op === "or") {
          const and = e.op === "and";
          return function* (fr) {
            const x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr);
            return isTrue(x) === and ? (Y.deep !== null ? yield* Y.deep(fr) : Y.fast!(fr)) : x;
          };
        }
        // The ordinary operator closure, its operands read from a box filled just before it runs.
        const box = { x: null as Value, y: null as Value };
        const OP = binaryOp(e.op, () => box.x, () => box.y, { line: e.opLine, col: e.opCol });
        return function* (fr) {
          const x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr);
          const y = Y.deep !== null ? yield* Y.deep(fr) : Y.fast!(fr);
          box.x = x;
          box.y = y;
          return OP(fr);
        };
      }
      case "UnaryExpr": {
        const X = this.part(e.x, d);
        if (X === null) return null;
        const box = { x: null as Value };
        const OP = unaryOp(e.op, () => box.x, { line: e.line, col: e.col });
        return function* (fr) {
          box.x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr);
          return OP(fr);
        };
      }
      case "CondExpr": {
        const C = this.part(e.cond, d), T = this.part(e.then, d), F = this.part(e.else, d);
        if (C === null || T === null || F === null) return null;
        return function* (fr) {
          return isTrue(C.deep !== null ? yield* C.deep(fr) : C.fast!(fr))
            ? (T.deep !== null ? yield* T.deep(fr) : T.fast!(fr))
            : (F.deep !== null ? yield* F.deep(fr) : F.fast!(fr));
        };
      }
      case "IndexExpr": {
        const X = this.part(e.x, d), I = this.part(e.index, d);
        if (X === null || I === null) return null;
        const pos = { line: e.lbrackLine, col: e.lbrackCol };
        return function* (fr) {
          const x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr),
            i = I.deep !== null ? yield* I.deep(fr) : I.fast!(fr);
          const v = quickIndex(x, i);
          return v !== undefined ? v : indexAt(fr[F_THREAD] as Thread, x, i, pos);
        };
      }
      case "DotExpr": {
        const X = this.part(e.x, d);
        if (X === null) return null;
        const pos = { line: e.dotLine, col: e.dotCol }, name = e.name;
        return function* (fr) {
          return attrAt(fr[F_THREAD] as Thread, X.deep !== null ? yield* X.deep(fr) : X.fast!(fr), name, pos);
        };
      }
      case "ListExpr":
      case "TupleExpr": {
        const parts = this.parts(e.list, d);
        if (parts === null) return null;
        const list = e.kind === "ListExpr";
        return function* (fr) {
          const out: Value[] = new Array(parts.length);
          for (let i = 0; i < parts.length; i++) {
            const p = parts[i];
            out[i] = p.deep !== null ? yield* p.deep(fr) : p.fast!(fr);
          }
          return list ? newList(fr, out) : newTuple(fr, out);
        };
      }
      case "Comprehension":
        return deepComprehension(this, e, d);
      case "DictExpr":
        return deepDict(this, e, d);
      case "SliceExpr": {
        const none = { fast: () => null, deep: null };
        const X = this.part(e.x, d), Lo = e.lo ? this.part(e.lo, d) : none;
        const Hi = e.hi ? this.part(e.hi, d) : none, St = e.step ? this.part(e.step, d) : none;
        if (X === null || Lo === null || Hi === null || St === null) return null;
        const pos = slicePositions.get(e) ?? { line: e.lbrackLine, col: e.lbrackCol };
        return function* (fr) {
          const x = X.deep !== null ? yield* X.deep(fr) : X.fast!(fr);
          const lo = Lo.deep !== null ? yield* Lo.deep(fr) : Lo.fast!(fr);
          const hi = Hi.deep !== null ? yield* Hi.deep(fr) : Hi.fast!(fr);
          const st = St.deep !== null ? yield* St.deep(fr) : St.fast!(fr);
          try {
            return slice(fr[F_THREAD] as Thread, x, lo, hi, st);
          } catch (err) {
            throw atPos(err, pos);
          }
        };
      }
      default:
        return null;
    }
  }

  parts(list: readonly Expr[], depth: number): Part[] | null {
    const out: Part[] = [];
    for (const x of list) {
      const p = this.part(x, depth);
      if (p === null) return null;
      out.push(p);
    }
    return out;
  }
}

function unparen(e: Expr): Expr {
  while (e.kind === "ParenExpr") e = e.x;
  return e;
}

/** Whether an assignment target is made of names only (its setter evaluates nothing). */
function namesOnly(e: Expr): boolean {
  const t = unparen(e);
  if (t.kind === "Ident") return true;
  return (t.kind === "TupleExpr" || t.kind === "ListExpr") && t.list.every(namesOnly);
}

/** The expressions a node evaluates itself (a lambda's defaults, not its body). */
function children(e: Expr): Expr[] {
  switch (e.kind) {
    case "Ident":
    case "Literal":
      return [];
    case "ParenExpr":
    case "UnaryExpr":
    case "DotExpr":
      return [e.x];
    case "ListExpr":
    case "TupleExpr":
      return e.list;
    case "DictExpr":
      return e.list.flatMap((en) => [en.key, en.value]);
    case "BinaryExpr":
      return [e.x, e.y];
    case "CondExpr":
      return [e.cond, e.then, e.else];
    case "IndexExpr":
      return [e.x, e.index];
    case "SliceExpr":
      return [e.x, ...(e.lo ? [e.lo] : []), ...(e.hi ? [e.hi] : []), ...(e.step ? [e.step] : [])];
    case "CallExpr":
      return [e.fn, ...e.args.map((a) => a.value)];
    case "LambdaExpr":
      return e.params.flatMap((p) => p.kind === "default" ? [p.default] : []);
    case "Comprehension": {
      const out: Expr[] = [];
      // A loop variable is a target, whose operands (`for d[f(x)] in ...`) are evaluated too.
      for (const cl of e.clauses) out.push(...(cl.kind === "ForClause" ? [cl.vars, cl.x] : [cl.cond]));
      if (e.body.kind === "DictEntry") out.push(e.body.key, e.body.value);
      else out.push(e.body);
      return out;
    }
  }
}
