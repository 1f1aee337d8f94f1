/**
 * Compilation of binary operators: `and`/`or`, `"literal format" % args` parsed once, and `+` chains
 * flattened with adjacent displays merged.
 *
 * @module
 */
import type { BinaryExpr, Expr, ListExpr, Literal, TupleExpr } from "../syntax/ast.ts";
import { Dict, findIndex, LONG_KEY_LENGTH, type Thread, Tuple, type Value } from "../values/mod.ts";
import { binaryOp, isTrue, slowBinary } from "./arith.ts";
import { CHAIN_CHUNK, runGroups } from "./compile_chain.ts";
import type { Compiler } from "./compile.ts";
import { type ExprFn, F_THREAD, type Pos } from "./function.ts";

/** Compiles a binary operator. */
export function compileBinary(c: Compiler, e: BinaryExpr): ExprFn {
  switch (e.op) {
    case "or": {
      const X = c.rules.expr(c, e.x), Y = c.rules.expr(c, e.y);
      return (fr) => {
        const x = X(fr);
        return isTrue(x) ? x : Y(fr);
      };
    }
    case "and": {
      const X = c.rules.expr(c, e.x);
      // The reference lays the second arm out after the code that follows `x and y`, so the positions it
      // records are not the last ones before that code (a slice error there reports x's position).
      const after = c.pos;
      const Y = c.rules.expr(c, e.y);
      c.pos = after;
      return (fr) => {
        const x = X(fr);
        return isTrue(x) ? Y(fr) : x;
      };
    }
    case "+":
      return compilePlus(c, e);
    case "%": {
      const X = c.rules.expr(c, e.x), Y = c.rules.expr(c, e.y);
      c.setPos({ line: e.opLine, col: e.opCol });
      const f = unparen(e.x);
      if (f.kind === "Literal" && f.type === "string" && (f.value as string).length < 64) {
        return compileFormat(f.value as string, Y, c.pos) ?? binaryOp("%", X, Y, c.pos);
      }
      return binaryOp("%", X, Y, c.pos);
    }
    case "in":
    case "not in": {
      const X = c.rules.expr(c, e.x), Y = c.rules.expr(c, e.y);
      c.setPos({ line: e.opLine, col: e.opCol });
      return membership(e.op === "in", X, Y, c.pos);
    }
    default: {
      const X = c.rules.expr(c, e.x), Y = c.rules.expr(c, e.y);
      c.setPos({ line: e.opLine, col: e.opCol });
      return binaryOp(e.op, X, Y, c.pos);
    }
  }
}

/**
 * `x in y` (`want`) or `x not in y`: a dict probed with an int or string key, or a string searched for a
 * string (`c in "0123456789"` in a tokenizer), here; anything else through ops.binary. Charged as
 * ops.binary charges them.
 */
function membership(want: boolean, X: ExprFn, Y: ExprFn, pos: Pos): ExprFn {
  return (fr) => {
    const x = X(fr), y = Y(fr);
    if (typeof x === "string") {
      // Strings and ints are their own dict hash keys (a long string is charged for the comparison).
      if (y instanceof Dict && x.length <= LONG_KEY_LENGTH) return (y.getByHash(x) !== undefined) === want;
      if (typeof y === "string") return (findIndex(fr[F_THREAD] as Thread, y, x) >= 0) === want;
    } else if (typeof x === "number" && y instanceof Dict) {
      return (y.getByHash(x) !== undefined) === want;
    }
    return slowBinary(fr[F_THREAD] as Thread, want ? "in" : "not in", x, y, pos);
  };
}

/** Steps ops.binary charges for `format % args` with a format shorter than 64 bytes. */
const FORMAT_STEPS = 6;

/**
 * `"literal format" % args` with the format parsed once: when every conversion is `%s`, `%d`, `%i` or
 * `%r` of a string or int that renders as itself (and the argument count is right), the result is built
 * directly, charged like ops.binary charges it; anything else (including every error) goes to ops.binary.
 * Returns undefined when the format has other conversions.
 */
function compileFormat(format: string, Y: ExprFn, pos: Pos): ExprFn | undefined {
  const lits: string[] = [];
  const convs: string[] = [];
  let lit = "";
  for (let i = 0; i < format.length; i++) {
    const ch = format[i];
    if (ch !== "%") {
      lit += ch;
      continue;
    }
    const conv = format[++i];
    if (conv === "%") {
      lit += "%";
    } else if (conv === "s" || conv === "d" || conv === "i" || conv === "r") {
      lits.push(lit);
      convs.push(conv);
      lit = "";
    } else {
      return undefined; // other conversions, %(key)s, or an incomplete format
    }
  }
  lits.push(lit);
  const n = convs.length;
  if (n === 0) return undefined;
  return (fr) => {
    const y = Y(fr);
    let args: readonly Value[] | undefined;
    if (y instanceof Tuple) {
      if (y.elems.length === n) args = y.elems;
    } else if (n === 1) {
      args = [y];
    }
    if (args !== undefined) {
      let out = lits[0];
      for (let i = 0; i < n; i++) {
        const a = args[i];
        if (typeof a === "number") out += String(a);
        else if (typeof a === "string" && convs[i] === "s") out += a;
        else return slowBinary(fr[F_THREAD] as Thread, "%", format, y, pos);
        out += lits[i + 1];
      }
      const th = fr[F_THREAD] as Thread;
      th.charge(FORMAT_STEPS);
      th.allocate(out.length);
      return out;
    }
    return slowBinary(fr[F_THREAD] as Thread, "%", format, y, pos);
  };
}

interface Summand {
  x: Expr;
  plus: Pos | null;
}

/**
 * `a + b + c ...`: flattened iteratively (long chains do not recurse), with adjacent string, bytes, list
 * or tuple displays merged as the reference does.
 */
function compilePlus(c: Compiler, e: BinaryExpr): ExprFn {
  const args: Summand[] = [];
  let cur: BinaryExpr = e;
  for (;;) {
    // The flattening walks the chain without entering its nodes (merged literals never are): count them.
    c.meter.tick();
    args.push({ x: unparen(cur.y), plus: { line: cur.opLine, col: cur.opCol } });
    const left = unparen(cur.x);
    if (left.kind !== "BinaryExpr" || left.op !== "+" || c.holes.has(left)) {
      args.push({ x: left, plus: null });
      break;
    }
    cur = left;
  }
  args.reverse();
  const merged: Summand[] = [];
  for (let i = 0; i < args.length;) {
    let j = i + 1;
    const code = addable(args[i].x);
    if (code !== "") {
      while (j < args.length && addable(args[j].x) === code) j++;
      if (j > i + 1) args[i] = { x: mergeDisplays(code, args.slice(i, j)), plus: args[i].plus };
    }
    merged.push(args[i]);
    i = j;
  }
  // Parentheses do not stop the flattening, so the list may be long: its additions are then evaluated
  // in groups, like any long chain.
  const box: { v: Value } = { v: null };
  const read: ExprFn = () => box.v;
  const stages: ExprFn[] = [];
  let acc = c.rules.expr(c, merged[0].x);
  for (let i = 1; i < merged.length; i++) {
    if (i % CHAIN_CHUNK === 0) {
      stages.push(acc);
      acc = read;
    }
    const Y = c.rules.expr(c, merged[i].x);
    c.setPos(merged[i].plus!);
    acc = binaryOp("+", acc, Y, c.pos);
  }
  if (stages.length === 0) return acc;
  stages.push(acc);
  return runGroups(stages[0], stages.slice(1), box);
}

function unparen(e: Expr): Expr {
  while (e.kind === "ParenExpr") e = e.x;
  return e;
}

function addable(e: Expr): string {
  if (e.kind === "Literal") return e.type === "string" ? "s" : e.type === "bytes" ? "b" : "";
  if (e.kind === "ListExpr") return "l";
  if (e.kind === "TupleExpr") return "t";
  return "";
}

function mergeDisplays(code: string, parts: Summand[]): Expr {
  const first = parts[0].x;
  if (code === "s" || code === "b") {
    const value = parts.map((p) => (p.x as Literal).value as string).join("");
    return {
      kind: "Literal",
      line: first.line,
      col: first.col,
      type: code === "s" ? "string" : "bytes",
      value,
      raw: "",
    };
  }
  const list = parts.flatMap((p) => (p.x as ListExpr | TupleExpr).list);
  return code === "l"
    ? { kind: "ListExpr", line: first.line, col: first.col, list }
    : { kind: "TupleExpr", line: first.line, col: first.col, list };
}
