/**
 * Compilation of expressions to closures.
 *
 * @module
 */
import { getAttr } from "../methods/mod.ts";
import {
  Bytes,
  chargeKeyHash,
  Dict,
  EMPTY_TUPLE,
  Float,
  getIndex,
  List,
  LONG_KEY_LENGTH,
  reprBounded,
  slice,
  type Thread,
  Tuple,
  type Value,
} from "../values/mod.ts";
import type { Comprehension, DictEntry as DictEntryNode, Expr, Ident, Literal } from "../syntax/ast.ts";
import { isTrue, unaryOp } from "./arith.ts";
import { compileBinary } from "./compile_binary.ts";
import { chainOperand, compileLongChain, isLongChain } from "./compile_chain.ts";
import type { Compiler } from "./compile.ts";
import { atPos, errorAt } from "./errors.ts";
import {
  type Cell,
  type ExprFn,
  F_FREE,
  F_LOCALS,
  F_MODULE,
  F_THREAD,
  type Frame,
  type ModuleInstance,
  type Pos,
} from "./function.ts";

/** Compiles an expression. */
export function compileExpr(c: Compiler, e: Expr): ExprFn {
  if (c.holes.size !== 0) {
    const h = c.holes.get(e);
    if (h !== undefined) {
      c.pos = h.pos;
      return h.fn;
    }
  }
  c.enter(e);
  try {
    const f = chainOperand(e) !== undefined && isLongChain(c, e)
      ? compileLongChain(c, e)
      : compileExprInner(c, e);
    c.fastExprs?.set(e, f);
    return f;
  } finally {
    c.leave();
  }
}

/**
 * Where each slice compiled for a deep or sliced run reports its errors (the last position recorded
 * before it), for its generator form (deep_compile.ts).
 */
export const slicePositions: WeakMap<Expr, Pos> = new WeakMap();

/** The position before each compiled `not` sets its own: a condition's `not` runs no instruction there. */
const beforeNot = new WeakMap<Expr, Pos>();

/**
 * How the reference lays out the code of `x if cond else y` (its `ifelse`): which arm comes right after
 * the condition's fall-through code (`thenFirst`), and the last position recorded on that code (`pos`),
 * given `after`, the position after compiling `cond` as an expression. A condition's `not` swaps the arms
 * and records nothing; `a and b` falls through to the else arm after `a`; `a or b` goes on with `b`;
 * `a not in b` tests `in` and swaps the arms.
 */
function conditionLayout(cond: Expr, after: Pos): { pos: Pos; thenFirst: boolean } {
  if (cond.kind === "UnaryExpr" && cond.op === "not") {
    const inner = conditionLayout(cond.x, beforeNot.get(cond) ?? after);
    return { pos: inner.pos, thenFirst: !inner.thenFirst };
  }
  if (cond.kind === "BinaryExpr") {
    if (cond.op === "or") return conditionLayout(cond.y, after);
    if (cond.op === "not in") return { pos: after, thenFirst: true };
  }
  return { pos: after, thenFirst: false };
}

function compileExprInner(c: Compiler, e: Expr): ExprFn {
  switch (e.kind) {
    case "ParenExpr":
      return compileExpr(c, e.x);
    case "Ident":
      return compileLookup(c, e);
    case "Literal": {
      const v = literalValue(e);
      return () => v;
    }
    case "ListExpr":
      return compileList(c, e.list);
    case "TupleExpr":
      return compileTuple(c, e.list);
    case "DictExpr":
      return compileDict(c, e.list);
    case "CondExpr": {
      const C = compileExpr(c, e.cond);
      // Only the arm the reference lays out right after the condition precedes the code that follows.
      const { pos, thenFirst } = conditionLayout(e.cond, c.pos);
      c.pos = pos;
      const T = compileExpr(c, e.then), afterThen = c.pos;
      c.pos = pos;
      const F = compileExpr(c, e.else);
      if (thenFirst) c.pos = afterThen;
      return (fr) => isTrue(C(fr)) ? T(fr) : F(fr);
    }
    case "IndexExpr": {
      const X = compileExpr(c, e.x), I = compileExpr(c, e.index);
      c.setPos({ line: e.lbrackLine, col: e.lbrackCol });
      const pos = c.pos;
      return (fr) => {
        const x = X(fr), i = I(fr);
        const v = quickIndex(x, i);
        return v !== undefined ? v : indexAt(fr[F_THREAD] as Thread, x, i, pos);
      };
    }
    case "SliceExpr": {
      c.setPos({ line: e.lbrackLine, col: e.lbrackCol });
      const X = compileExpr(c, e.x);
      const none = () => null;
      const Lo = e.lo ? compileExpr(c, e.lo) : none;
      const Hi = e.hi ? compileExpr(c, e.hi) : none;
      const St = e.step ? compileExpr(c, e.step) : none;
      const pos = c.pos; // the reference reports slice errors at the last position it recorded
      if (c.fastExprs !== null) slicePositions.set(e, pos);
      return (fr) => {
        const x = X(fr), lo = Lo(fr), hi = Hi(fr), st = St(fr);
        try {
          return slice(fr[F_THREAD] as Thread, x, lo, hi, st);
        } catch (err) {
          throw atPos(err, pos);
        }
      };
    }
    case "Comprehension":
      return c.rules.comprehension(c, e as Comprehension);
    case "UnaryExpr": {
      const X = compileExpr(c, e.x);
      if (e.op === "not") beforeNot.set(e, c.pos);
      c.setPos(e);
      return unaryOp(e.op, X, c.pos);
    }
    case "BinaryExpr":
      return compileBinary(c, e);
    case "DotExpr": {
      const X = compileExpr(c, e.x);
      c.setPos({ line: e.dotLine, col: e.dotCol });
      const pos = c.pos, name = e.name;
      return (fr) => attrAt(fr[F_THREAD] as Thread, X(fr), name, pos);
    }
    case "CallExpr":
      return c.rules.call(c, e);
    case "LambdaExpr":
      return c.compileFunction(e, "lambda", [{
        kind: "ReturnStmt",
        line: e.body.line,
        col: e.body.col,
        result: e.body,
      }]);
  }
}

/**
 * `x[i]` for the common cases that cannot fail (an in-range index of a list, tuple or string, a present
 * string or int key of a dict); `undefined` otherwise.
 */
export function quickIndex(x: Value, i: Value): Value | undefined {
  if (typeof i === "number") {
    if (x instanceof List || x instanceof Tuple) {
      const a = x.elems;
      const j = i < 0 ? i + a.length : i;
      if (j >= 0 && j < a.length) return a[j];
    } else if (x instanceof Dict) {
      return x.getByHash(i); // an int's hash key is the int itself
    } else if (typeof x === "string") {
      // A byte of a tokenizer's input (`src[i]`): strings hold one byte per character.
      const j = i < 0 ? i + x.length : i;
      if (j >= 0 && j < x.length) return x[j];
    }
  } else if (typeof i === "string" && x instanceof Dict && i.length <= LONG_KEY_LENGTH) {
    return x.getByHash(i); // so is a string's (a long one is charged for the comparison)
  }
  return undefined;
}

/** `x[i]` through ops, with errors at `pos`. */
export function indexAt(th: Thread, x: Value, i: Value, pos: Pos): Value {
  try {
    return getIndex(th, x, i);
  } catch (err) {
    throw atPos(err, pos);
  }
}

/** `x.name` through ops, with errors at `pos`. */
export function attrAt(th: Thread, x: Value, name: string, pos: Pos): Value {
  try {
    return getAttr(th, x, name);
  } catch (err) {
    throw atPos(err, pos);
  }
}

/** The runtime value of a literal (floats and bytes are allocated once, at compile time). */
export function literalValue(e: Literal): Value {
  switch (e.type) {
    case "float":
      return new Float(e.value as number);
    case "bytes":
      return new Bytes(e.value as string);
    default:
      return e.value;
  }
}

// ---------------------------------------------------------------------------
// Variables

function compileLookup(c: Compiler, id: Ident): ExprFn {
  const b = id.binding!;
  if (b.scope !== "universal") c.setPos(id);
  const pos = c.pos;
  const name = b.name;
  switch (b.scope) {
    case "local": {
      const k = F_LOCALS + b.index;
      // Parameters are bound on entry and can never become unbound.
      if (b.index < c.scope.numParams) return (fr) => fr[k] as Value;
      return (fr) => {
        const v = fr[k];
        if (v === undefined) throw errorAt(`local variable ${name} referenced before assignment`, pos);
        return v as Value;
      };
    }
    case "cell": {
      const k = F_LOCALS + b.index;
      return (fr) => {
        const v = (fr[k] as Cell).v;
        if (v === undefined) throw errorAt(`local variable ${name} referenced before assignment`, pos);
        return v;
      };
    }
    case "free": {
      const k = b.index;
      return (fr) => {
        const v = (fr[F_FREE] as Cell[])[k].v;
        if (v === undefined) throw errorAt(`local variable ${name} referenced before assignment`, pos);
        return v;
      };
    }
    case "global": {
      const k = b.index;
      return (fr) => {
        const v = (fr[F_MODULE] as ModuleInstance).globals[k];
        if (v === undefined) throw errorAt(`global variable ${name} referenced before assignment`, pos);
        return v;
      };
    }
    case "predeclared": {
      const k = c.predeclaredSlot(name);
      return (fr) => {
        const v = (fr[F_MODULE] as ModuleInstance).predeclared[k];
        if (v === undefined) {
          throw errorAt(`internal error: predeclared variable ${name} is uninitialized`, pos);
        }
        return v;
      };
    }
    case "universal": {
      const v = c.settings.universe.get(name);
      if (v === undefined) throw new Error(`universal ${name} has no value`);
      return () => v;
    }
    default:
      throw new Error(`unresolved identifier ${name}`);
  }
}

/** A setter for an identifier target. */
export function compileSetter(_c: Compiler, id: Ident): (fr: Frame, v: Value) => void {
  const b = id.binding!;
  switch (b.scope) {
    case "local": {
      const k = F_LOCALS + b.index;
      return (fr, v) => {
        fr[k] = v;
      };
    }
    case "cell": {
      const k = F_LOCALS + b.index;
      return (fr, v) => {
        (fr[k] as Cell).v = v;
      };
    }
    case "global": {
      const k = b.index;
      return (fr, v) => {
        (fr[F_MODULE] as ModuleInstance).globals[k] = v;
      };
    }
    default:
      throw new Error(`cannot assign to ${b.scope} ${b.name}`);
  }
}

// ---------------------------------------------------------------------------
// Displays

/**
 * Bytes charged for a list or tuple display (the object and its array, beside the element slots): a
 * loop that keeps one small container per step would otherwise grow the heap by ~60 bytes a step with
 * nothing charged.
 */
const LIST_BYTES = 48, TUPLE_BYTES = 40;
/** Bytes charged per element of a display. */
const SLOT_BYTES = 8;
/** Bytes charged for a dict display, and per entry. */
const DICT_BYTES = 64, DICT_ENTRY_BYTES = 48;

function charge(fr: Frame, bytes: number): void {
  (fr[F_THREAD] as Thread).allocate(bytes);
}

/** A list of a display, charged like one. */
export function newList(fr: Frame, elems: Value[]): List {
  charge(fr, LIST_BYTES + SLOT_BYTES * elems.length);
  return new List(elems);
}

/** A tuple of a display, charged like one. */
export function newTuple(fr: Frame, elems: Value[]): Tuple {
  charge(fr, TUPLE_BYTES + SLOT_BYTES * elems.length);
  return new Tuple(elems);
}

/** Charges what {@link newTuple} charges for a display of `n` elements, without making the tuple. */
export function chargeTupleDisplay(fr: Frame, n: number): void {
  charge(fr, TUPLE_BYTES + SLOT_BYTES * n);
}

/** The element closures of each compiled tuple display of two or more elements. */
const tupleDisplays = new WeakMap<ExprFn, readonly ExprFn[]>();

/**
 * The element closures of `f` when it is a compiled tuple display of two or more elements (as in
 * `a, b = b, a + b`), so that an assignment unpacking it can skip making the tuple; else undefined.
 */
export function tupleDisplayParts(f: ExprFn): readonly ExprFn[] | undefined {
  return tupleDisplays.get(f);
}

function compileList(c: Compiler, list: Expr[]): ExprFn {
  const fs = list.map((x) => compileExpr(c, x));
  switch (fs.length) {
    case 0:
      return (fr) => newList(fr, []);
    case 1: {
      const [A] = fs;
      return (fr) => newList(fr, [A(fr)]);
    }
    case 2: {
      const [A, B] = fs;
      return (fr) => newList(fr, [A(fr), B(fr)]);
    }
    case 3: {
      const [A, B, C] = fs;
      return (fr) => newList(fr, [A(fr), B(fr), C(fr)]);
    }
    default:
      return (fr) => newList(fr, evalAll(fs, fr));
  }
}

function compileTuple(c: Compiler, list: Expr[]): ExprFn {
  const fs = list.map((x) => compileExpr(c, x));
  const f = tupleDisplay(fs);
  if (fs.length >= 2) tupleDisplays.set(f, fs);
  return f;
}

function tupleDisplay(fs: ExprFn[]): ExprFn {
  switch (fs.length) {
    case 0:
      return () => EMPTY_TUPLE;
    case 1: {
      const [A] = fs;
      return (fr) => newTuple(fr, [A(fr)]);
    }
    case 2: {
      const [A, B] = fs;
      return (fr) => newTuple(fr, [A(fr), B(fr)]);
    }
    case 3: {
      const [A, B, C] = fs;
      return (fr) => newTuple(fr, [A(fr), B(fr), C(fr)]);
    }
    default:
      return (fr) => newTuple(fr, evalAll(fs, fr));
  }
}

/** Evaluates closures in order. */
export function evalAll(fs: readonly ExprFn[], fr: Frame): Value[] {
  const out: Value[] = new Array(fs.length);
  for (let i = 0; i < fs.length; i++) out[i] = fs[i](fr);
  return out;
}

function compileDict(c: Compiler, entries: DictEntryNode[]): ExprFn {
  const parts = entries.map((en) => {
    const K = compileExpr(c, en.key), V = compileExpr(c, en.value);
    c.setPos({ line: en.colonLine, col: en.colonCol });
    return { K, V, pos: c.pos };
  });
  // Distinct string or int literal keys (the usual record literal): each is its own hash key, no key
  // can clash or fail, so the entries go straight into the map.
  const consts = constantKeys(entries);
  if (consts !== undefined) return constantKeyDict(consts, parts.map((p) => p.V));
  return (fr) => {
    const d = newDict(fr, parts.length);
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      dictDisplayEntry(fr, d, p.K(fr), p.V(fr), p.pos);
    }
    return d;
  };
}

/** The empty dict of a display of `n` entries, charged like one. */
export function newDict(fr: Frame, n: number): Dict {
  charge(fr, DICT_BYTES + n * DICT_ENTRY_BYTES);
  return new Dict();
}

/**
 * Sets `k: v` in a dict being built by a display or a comprehension, charging a tuple key's hashing and
 * reporting a failure (an unhashable key) at `pos`; returns whether the key was new.
 */
export function setBuilt(fr: Frame, d: Dict, k: Value, v: Value, pos: Pos): boolean {
  const before = d.size;
  try {
    if (typeof k !== "number") chargeKeyHash(fr[F_THREAD] as Thread, k); // tuples, long strings, big ints
    d.setUnchecked(k, v);
  } catch (err) {
    throw atPos(err, pos);
  }
  return d.size !== before;
}

/** Adds an entry of a dict display (`pos` is its colon), failing on a duplicate key. */
export function dictDisplayEntry(fr: Frame, d: Dict, k: Value, v: Value, pos: Pos): void {
  if (!setBuilt(fr, d, k, v, pos)) {
    throw errorAt(`duplicate key: ${reprBounded(k, fr[F_THREAD] as Thread)}`, pos);
  }
}

/**
 * A dict display with distinct constant keys: its entries are built as one array of exactly the right
 * size (array literals for the usual small records) and handed to the dict.
 */
function constantKeyDict(keys: (string | number)[], vals: ExprFn[]): ExprFn {
  const make = (fr: Frame, triples: Value[]): Dict => {
    charge(fr, DICT_BYTES + (triples.length / 3) * DICT_ENTRY_BYTES);
    const d = new Dict();
    d.initEntries(triples);
    return d;
  };
  switch (keys.length) {
    case 1: {
      const [k0] = keys, [V0] = vals;
      return (fr) => make(fr, [k0, k0, V0(fr)]);
    }
    case 2: {
      const [k0, k1] = keys, [V0, V1] = vals;
      return (fr) => {
        const v0 = V0(fr);
        return make(fr, [k0, k0, v0, k1, k1, V1(fr)]);
      };
    }
    case 3: {
      const [k0, k1, k2] = keys, [V0, V1, V2] = vals;
      return (fr) => {
        const v0 = V0(fr), v1 = V1(fr);
        return make(fr, [k0, k0, v0, k1, k1, v1, k2, k2, V2(fr)]);
      };
    }
    case 4: {
      const [k0, k1, k2, k3] = keys, [V0, V1, V2, V3] = vals;
      return (fr) => {
        const v0 = V0(fr), v1 = V1(fr), v2 = V2(fr);
        return make(fr, [k0, k0, v0, k1, k1, v1, k2, k2, v2, k3, k3, V3(fr)]);
      };
    }
  }
  const n = keys.length;
  return (fr) => {
    const triples: Value[] = [];
    for (let i = 0; i < n; i++) {
      const k = keys[i];
      triples.push(k, k, vals[i](fr));
    }
    return make(fr, triples);
  };
}

/** The keys of a dict display when all are distinct string or int literals, else undefined. */
export function constantKeys(entries: DictEntryNode[]): (string | number)[] | undefined {
  const keys: (string | number)[] = [];
  // A set, not a search of `keys`: a display of n keys must compile in time linear in n.
  const seen = new Set<string | number>();
  for (const en of entries) {
    let k = en.key;
    while (k.kind === "ParenExpr") k = k.x;
    if (k.kind !== "Literal" || (k.type !== "string" && k.type !== "int")) return undefined;
    const v = k.value;
    if (typeof v !== "string" && typeof v !== "number") return undefined; // big ints
    if (seen.has(v)) return undefined; // the general path reports the duplicate
    seen.add(v);
    keys.push(v);
  }
  return keys;
}
