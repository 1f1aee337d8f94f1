/**
 * The generator forms of calls, dict displays and comprehensions for deep_compile.ts: each evaluates
 * its parts in the order, and with the charges and errors, of the ordinary closure (compile_call.ts,
 * compile_expr.ts, compile_comp.ts), yielding the Starlark calls among them to the trampoline.
 *
 * @module
 */
import { callValue } from "./calls.ts";
import { spreadArgs, spreadKwargs } from "./compile_call.ts";
import { attrAt, constantKeys, dictDisplayEntry, newDict } from "./compile_expr.ts";
import type { Setter } from "./compile_stmt.ts";
import { isTrue } from "./arith.ts";
import { calledDeep, type CallRequest, type DeepExpr, iterateDeep } from "./deep.ts";
import { atPos } from "./errors.ts";
import { F_THREAD, type Frame, NORMAL } from "./function.ts";
import type { Expr } from "../syntax/ast.ts";
import {
  chargeKeyHash,
  Dict,
  ENTRY_BYTES,
  type Kwargs,
  List,
  type Thread,
  type Value,
} from "../values/mod.ts";

/** One operand: its ordinary closure, or its generator when it can call. */
export interface Part {
  /** The ordinary closure (when it cannot call, or has no generator form). */
  readonly fast: ((fr: Frame) => Value) | null;
  /** The generator (when it can call). */
  readonly deep: DeepExpr | null;
}

/** What the forms here need of the deep compiler. */
export interface DeepParts {
  /** An operand in its best form; null when neither is known. */
  part(e: Expr, depth: number): Part | null;
  /** Operands in their best forms; null when one is not known. */
  parts(list: readonly Expr[], depth: number): Part[] | null;
  /** The setter of an assignment target made of names; null for others. */
  nameSetter(lhs: Expr, pos: { line: number; col: number }): Setter | null;
  /** The generator setter of a target whose operands call; null when it has none. */
  deepSetter(lhs: Expr, pos: { line: number; col: number }): DeepSetter | null;
}

/** Assigns a value to a target whose operands may call. */
export type DeepSetter = (fr: Frame, v: Value) => Generator<CallRequest, void, Value>;

/** A dict display, entry by entry like compile_expr.ts's (constant keys: the values, then the dict). */
export function deepDict(
  dc: DeepParts,
  e: Extract<Expr, { kind: "DictExpr" }>,
  depth: number,
): DeepExpr | null {
  const keys = dc.parts(e.list.map((en) => en.key), depth);
  const vals = dc.parts(e.list.map((en) => en.value), depth);
  if (keys === null || vals === null) return null;
  const pos = e.list.map((en) => ({ line: en.colonLine, col: en.colonCol }));
  const n = e.list.length;
  if (constantKeys(e.list) !== undefined) {
    return function* (fr) {
      const vs: Value[] = new Array(n);
      for (let i = 0; i < n; i++) {
        vs[i] = vals[i].deep !== null ? yield* vals[i].deep!(fr) : vals[i].fast!(fr);
      }
      const d = newDict(fr, n);
      for (let i = 0; i < n; i++) dictDisplayEntry(fr, d, keys[i].fast!(fr), vs[i], pos[i]);
      return d;
    };
  }
  return function* (fr) {
    const d = newDict(fr, n);
    for (let i = 0; i < n; i++) {
      const K = keys[i], V = vals[i];
      const k = K.deep !== null ? yield* K.deep(fr) : K.fast!(fr);
      dictDisplayEntry(fr, d, k, V.deep !== null ? yield* V.deep(fr) : V.fast!(fr), pos[i]);
    }
    return d;
  };
}

/** A list or dict comprehension, clause by clause like compile_comp.ts. */
export function deepComprehension(
  dc: DeepParts,
  e: Extract<Expr, { kind: "Comprehension" }>,
  depth: number,
): DeepExpr | null {
  type Clause =
    | { X: Part; pos: { line: number; col: number }; set: Setter | null; dset: DeepSetter | null }
    | {
      C: Part;
    };
  const clauses: Clause[] = [];
  for (const cl of e.clauses) {
    if (cl.kind === "IfClause") {
      const C = dc.part(cl.cond, depth);
      if (C === null) return null;
      clauses.push({ C });
      continue;
    }
    const pos = { line: cl.line, col: cl.col };
    const X = dc.part(cl.x, depth), set = dc.nameSetter(cl.vars, pos);
    const dset = set === null ? dc.deepSetter(cl.vars, pos) : null;
    if (X === null || (set === null && dset === null)) return null;
    clauses.push({ X, pos, set, dset });
  }
  const body = comprehensionBody(dc, e, depth);
  if (body === null) return null;
  const { add, plainAdd } = body;
  const n = clauses.length;
  // The clauses from `tail` on are conditions that cannot call, and the body cannot either: the last
  // loop's turns then run plainly (see iterateDeep).
  let tail = n;
  while (tail > 0 && "C" in clauses[tail - 1] && (clauses[tail - 1] as { C: Part }).C.deep === null) tail--;
  const plainTail = plainAdd === null ? null : (fr: Frame, acc: Value[] | Dict): void => {
    for (let i = tail; i < n; i++) if (!isTrue((clauses[i] as { C: Part }).C.fast!(fr))) return;
    plainAdd(fr, acc);
  };
  const run = function* (fr: Frame, i: number, acc: Value[] | Dict): Generator<CallRequest, void, Value> {
    if (i === n) return yield* add(fr, acc);
    const cl = clauses[i];
    if ("C" in cl) {
      if (isTrue(cl.C.deep !== null ? yield* cl.C.deep(fr) : cl.C.fast!(fr))) yield* run(fr, i + 1, acc);
      return;
    }
    const x = cl.X.deep !== null ? yield* cl.X.deep(fr) : cl.X.fast!(fr);
    // Like a for statement: one step for the iteration, one for evaluating what it leads to.
    const set = cl.set;
    if (plainTail !== null && i + 1 === tail && set !== null) {
      yield* iterateDeep(fr, x, cl.pos, 2, null, (v) => {
        set(fr, v);
        plainTail(fr, acc);
        return NORMAL;
      });
      return;
    }
    yield* iterateDeep(fr, x, cl.pos, 2, function* (v) {
      if (set !== null) set(fr, v);
      else yield* cl.dset!(fr, v);
      yield* run(fr, i + 1, acc);
      return NORMAL;
    });
  };
  if (e.curly) {
    return function* (fr) {
      const d = new Dict();
      yield* run(fr, 0, d);
      return d;
    };
  }
  return function* (fr) {
    const acc: Value[] = [];
    yield* run(fr, 0, acc);
    return new List(acc);
  };
}

/** What a comprehension does with each element: a generator, and a plain form when it cannot call. */
interface ComprehensionBody {
  readonly add: (fr: Frame, acc: Value[] | Dict) => Generator<CallRequest, void, Value>;
  readonly plainAdd: ((fr: Frame, acc: Value[] | Dict) => void) | null;
}

/** What a comprehension does with each element (compile_comp.ts's innermost clause). */
function comprehensionBody(
  dc: DeepParts,
  e: Extract<Expr, { kind: "Comprehension" }>,
  depth: number,
): ComprehensionBody | null {
  const body = e.body;
  if (body.kind !== "DictEntry") {
    const B = dc.part(body, depth);
    if (B === null) return null;
    const push = (fr: Frame, a: Value[], v: Value) => {
      if (a.length > 0 && (a.length & 1023) === 0) (fr[F_THREAD] as Thread).allocate(8 * 1024);
      a.push(v);
    };
    const plain = B.fast;
    return {
      add: function* (fr, acc) {
        const a = acc as Value[];
        push(fr, a, B.deep !== null ? yield* B.deep(fr) : B.fast!(fr));
      },
      plainAdd: plain === null ? null : (fr, acc) => push(fr, acc as Value[], plain(fr)),
    };
  }
  const K = dc.part(body.key, depth), V = dc.part(body.value, depth);
  if (K === null || V === null) return null;
  const pos = { line: body.colonLine, col: body.colonCol };
  const put = (fr: Frame, d: Dict, k: Value, v: Value) => {
    const before = d.size, th = fr[F_THREAD] as Thread;
    try {
      if (typeof k !== "number") chargeKeyHash(th, k); // tuples, long strings, big ints
      d.setUnchecked(k, v);
    } catch (err) {
      throw atPos(err, pos);
    }
    if (d.size !== before && (d.size & 1023) === 0) th.allocate(ENTRY_BYTES * 1024);
  };
  const KF = K.fast, VF = V.fast;
  return {
    add: function* (fr, acc) {
      const k = K.deep !== null ? yield* K.deep(fr) : K.fast!(fr);
      const v = V.deep !== null ? yield* V.deep(fr) : V.fast!(fr);
      put(fr, acc as Dict, k, v);
    },
    plainAdd: KF === null || VF === null ? null : (fr, acc) => {
      const k = KF(fr);
      put(fr, acc as Dict, k, VF(fr));
    },
  };
}

/** A call with positional and named arguments; a Starlark callee is yielded to the trampoline. */
export function deepCall(
  dc: DeepParts,
  e: Extract<Expr, { kind: "CallExpr" }>,
  depth: number,
): DeepExpr | null {
  const pos = dc.parts(e.args.filter((a) => a.kind === "positional").map((a) => a.value), depth);
  const named = e.args.flatMap((a) => a.kind === "named" ? [a] : []);
  const vals = dc.parts(named.map((a) => a.value), depth);
  if (pos === null || vals === null) return null;
  const star = e.args.find((a) => a.kind === "star"), starstar = e.args.find((a) => a.kind === "starstar");
  const S = star === undefined ? undefined : dc.part(star.value, depth);
  const SS = starstar === undefined ? undefined : dc.part(starstar.value, depth);
  if (S === null || SS === null) return null;
  const names = named.map((a) => a.name);
  const site = { line: e.lparenLine, col: e.lparenCol };
  const args = function* (fr: Frame): Generator<CallRequest, [Value[], Kwargs | null], Value> {
    const a: Value[] = new Array(pos.length);
    for (let i = 0; i < pos.length; i++) {
      const p = pos[i];
      a[i] = p.deep !== null ? yield* p.deep(fr) : p.fast!(fr);
    }
    let kw: Kwargs | null = null;
    if (vals.length > 0) {
      kw = [];
      for (let i = 0; i < vals.length; i++) {
        const p = vals[i];
        kw.push([names[i], p.deep !== null ? yield* p.deep(fr) : p.fast!(fr)]);
      }
    }
    if (S === undefined && SS === undefined) return [a, kw];
    // As compile_call.ts's generalArgs: evaluated in order, `**` unpacked before `*`.
    const sv = S === undefined ? undefined : S.deep !== null ? yield* S.deep(fr) : S.fast!(fr);
    const ssv = SS === undefined ? undefined : SS.deep !== null ? yield* SS.deep(fr) : SS.fast!(fr);
    const th = fr[F_THREAD] as Thread;
    if (ssv !== undefined) kw = spreadKwargs(th, ssv, kw ?? [], site);
    if (sv !== undefined) spreadArgs(th, sv, a, site);
    return [a, kw];
  };
  // When no argument can call, they are read plainly: no generator for them at each call.
  const plain = S === undefined && SS === undefined && pos.every((p) => p.deep === null) &&
      vals.every((p) => p.deep === null)
    ? plainArgs(pos, vals, names)
    : null;
  const fn = e.fn;
  if (fn.kind === "DotExpr") {
    // A method call: the receiver, then the attribute (whose absence fails before the arguments run).
    const R = dc.part(fn.x, depth);
    if (R === null) return null;
    const dot = { line: fn.dotLine, col: fn.dotCol }, name = fn.name;
    return function* (fr) {
      const th = fr[F_THREAD] as Thread;
      const f = attrAt(th, R.deep !== null ? yield* R.deep(fr) : R.fast!(fr), name, dot);
      const [a, kw] = plain !== null ? plain(fr) : yield* args(fr);
      if (calledDeep(f)) return yield { fn: f, args: a, kwargs: kw, site };
      return callValue(th, f, a, kw, site);
    };
  }
  const F = dc.part(fn, depth);
  if (F === null) return null;
  return function* (fr) {
    const f = F.deep !== null ? yield* F.deep(fr) : F.fast!(fr);
    const [a, kw] = plain !== null ? plain(fr) : yield* args(fr);
    if (calledDeep(f)) return yield { fn: f, args: a, kwargs: kw, site };
    return callValue(fr[F_THREAD] as Thread, f, a, kw, site);
  };
}

/** The arguments of a call none of which can call, read by their ordinary closures. */
function plainArgs(
  pos: readonly Part[],
  vals: readonly Part[],
  names: readonly string[],
): (fr: Frame) => [Value[], Kwargs | null] {
  const np = pos.length, nv = vals.length;
  return (fr) => {
    const a: Value[] = new Array(np);
    for (let i = 0; i < np; i++) a[i] = pos[i].fast!(fr);
    if (nv === 0) return [a, null];
    const kw: Kwargs = [];
    for (let i = 0; i < nv; i++) kw.push([names[i], vals[i].fast!(fr)]);
    return [a, kw];
  };
}
