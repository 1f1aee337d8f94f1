/**
 * Test support: a tiny expression evaluator over the operations of ops.ts, so that the value tests can
 * be written as Starlark expressions whose expected results come from the reference implementation.
 * It covers literals, displays, operators, indexing, slicing and a few constructors — just enough to
 * build values; it is not the interpreter.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseExpr } from "../syntax/mod.ts";
import type { Expr } from "../syntax/mod.ts";
import { binary, getIndex, iterate, len, repr, slice, str, truth, unary } from "./ops.ts";
import { floatToInt } from "./int.ts";
import {
  bytesElems,
  stringCodepointOrds,
  stringCodepoints,
  stringElemOrds,
  stringElems,
} from "./string_views.ts";
import {
  Builtin,
  Bytes,
  Dict,
  EvalError,
  Float,
  List,
  normInt,
  Range,
  ResourceError,
  StarSet,
  Thread,
  toJSString,
  Tuple,
  typeName,
  UnhashableError,
} from "./value.ts";
import type { Value } from "./value.ts";

function toList(v: Value): Value[] {
  const it = iterate(v);
  const out: Value[] = [];
  try {
    for (let x = it.next(); x !== undefined; x = it.next()) out.push(x);
  } finally {
    it.done();
  }
  return out;
}

type Fn = (args: Value[]) => Value;

const FUNCS: Record<string, Fn> = {
  float: ([x]) => {
    if (typeof x === "string") {
      const t = x.toLowerCase();
      if (t === "nan") return new Float(NaN);
      if (t === "inf" || t === "+inf" || t === "infinity") return new Float(Infinity);
      if (t === "-inf" || t === "-infinity") return new Float(-Infinity);
      return new Float(Number(x));
    }
    if (x instanceof Float) return x;
    if (typeof x === "bigint") return new Float(Number(x));
    return new Float(x as number);
  },
  int: ([x]) => {
    if (typeof x === "string") return normInt(BigInt(x));
    if (x instanceof Float) return floatToInt(x.value);
    return x;
  },
  set: ([x]) => {
    const s = new StarSet();
    if (x !== undefined) { for (const e of toList(x)) s.addUnchecked(e); }
    return s;
  },
  range: (a) => {
    const n = a as number[];
    if (n.length === 1) return new Range(0, n[0], 1);
    return new Range(n[0], n[1], n.length > 2 ? n[2] : 1);
  },
  list: ([x]) => new List(x === undefined ? [] : toList(x)),
  tuple: ([x]) => new Tuple(x === undefined ? [] : toList(x)),
  str: ([x]) => str(x),
  repr: ([x]) => repr(x),
  len: ([x]) => {
    const n = len(x);
    if (n < 0) throw new EvalError(`len: value of type ${typeName(x)} has no len`);
    return n;
  },
  type: ([x]) => typeName(x),
  bool: ([x]) => truth(x),
};

const METHODS: Record<string, (recv: Value) => Value> = {
  elems: (r) => (r instanceof Bytes ? bytesElems(r.data) : stringElems(r as string)),
  elem_ords: (r) => stringElemOrds(r as string),
  codepoints: (r) => stringCodepoints(r as string),
  codepoint_ords: (r) => stringCodepointOrds(r as string),
};

const builtins = new Map<string, Builtin>();
function builtin(name: string): Builtin {
  let b = builtins.get(name);
  if (b === undefined) {
    b = new Builtin(name, (_t, args) => FUNCS[name](args));
    builtins.set(name, b);
  }
  return b;
}

/** Evaluates a Starlark expression made of literals, displays, operators and a few constructors. */
export function evalExpr(thread: Thread, src: string): Value {
  return ev(thread, parseExpr("test.star", src));
}

function ev(th: Thread, e: Expr): Value {
  switch (e.kind) {
    case "Literal":
      if (e.type === "float") return new Float(e.value as number);
      if (e.type === "bytes") return new Bytes(e.value as string);
      return e.value;
    case "Ident":
      if (e.name === "True") return true;
      if (e.name === "False") return false;
      if (e.name === "None") return null;
      if (FUNCS[e.name]) return builtin(e.name);
      throw new Error(`unknown name ${e.name}`);
    case "ParenExpr":
      return ev(th, e.x);
    case "ListExpr":
      return new List(e.list.map((x) => ev(th, x)));
    case "TupleExpr":
      return new Tuple(e.list.map((x) => ev(th, x)));
    case "DictExpr": {
      const d = new Dict();
      for (const en of e.list) d.setUnchecked(ev(th, en.key), ev(th, en.value));
      return d;
    }
    case "UnaryExpr":
      return unary(th, e.op, ev(th, e.x));
    case "BinaryExpr": {
      const x = ev(th, e.x);
      if (e.op === "and") return truth(x) ? ev(th, e.y) : x;
      if (e.op === "or") return truth(x) ? x : ev(th, e.y);
      return binary(th, e.op, x, ev(th, e.y));
    }
    case "CondExpr":
      return truth(ev(th, e.cond)) ? ev(th, e.then) : ev(th, e.else);
    case "IndexExpr":
      return getIndex(th, ev(th, e.x), ev(th, e.index));
    case "SliceExpr":
      return slice(
        th,
        ev(th, e.x),
        e.lo ? ev(th, e.lo) : null,
        e.hi ? ev(th, e.hi) : null,
        e.step ? ev(th, e.step) : null,
      );
    case "CallExpr": {
      const args = e.args.map((a) => ev(th, a.value));
      if (e.fn.kind === "Ident" && FUNCS[e.fn.name]) return FUNCS[e.fn.name](args);
      if (e.fn.kind === "DotExpr" && METHODS[e.fn.name]) return METHODS[e.fn.name](ev(th, e.fn.x));
      throw new Error("unsupported call");
    }
    case "DotExpr":
      // Bound methods, just for their repr and identity.
      return new Builtin(e.name, () => null, ev(th, e.x));
    default:
      throw new Error(`unsupported expression ${e.kind}`);
  }
}

/** `repr(eval(src))`, or `error: <message>` when evaluation fails with a Starlark error. */
export function evalRepr(src: string, thread: Thread = new Thread()): string {
  try {
    return repr(evalExpr(thread, src));
  } catch (e) {
    if (e instanceof EvalError || e instanceof ResourceError || e instanceof UnhashableError) {
      return "error: " + e.message;
    }
    throw e;
  }
}

/**
 * Asserts that every `[expression, expected repr or "error: message"]` case evaluates as recorded from the
 * reference binary, listing every difference at once.
 */
export function assertMatchesReference(cases: readonly (readonly [string, string])[]): void {
  const failures: string[] = [];
  for (const [src, want] of cases) {
    const got = toJSString(evalRepr(src));
    if (got !== want) failures.push(`${src}\n    got:  ${got}\n    want: ${want}`);
  }
  assert.equal(
    failures.length,
    0,
    `${failures.length} of ${cases.length} cases differ:\n` + failures.join("\n"),
  );
}
