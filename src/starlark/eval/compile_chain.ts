/**
 * Long operator chains without JS recursion.
 *
 * The parser accepts left-nested chains of any length: binary operators (`a + b - c ...`, `x or y or
 * ...`) and postfix operators (`x.f().g()...`, `x[0][0]...`). A closure per link, each calling the one
 * below, would make evaluation (and compilation) recurse once per link. Instead, a chain longer than
 * {@link CHAIN_CHUNK} links is cut into groups of at most that many links. Each group is compiled by the
 * ordinary compiler, with its innermost operand (the top of the group below) replaced by a *hole*: a
 * closure that reads the value the group below produced. At run time a loop evaluates the groups from
 * the innermost up, so the JS stack never holds more than one group. Short chains, nearly all of them,
 * compile exactly as before.
 *
 * @module
 */
import { type Expr, leftOperand } from "../syntax/ast.ts";
import type { Value } from "../values/mod.ts";
import type { Compiler } from "./compile.ts";
import type { ExprFn, Frame } from "./function.ts";

/** Links per group: chains up to this length compile to plain nested closures. */
export const CHAIN_CHUNK = 32;

/**
 * The operand a chain link is compiled from first: the left operand of a binary operator, the operand
 * of `.name`, `[i]` and `[a:b]`, the callee of a call (the receiver of a method call `x.m(...)`, which
 * compiles `x.m` as part of the call). Undefined for nodes that are not links.
 */
export function chainOperand(e: Expr): Expr | undefined {
  return e.kind === "CallExpr" && e.fn.kind === "DotExpr" ? e.fn.x : leftOperand(e);
}

/** Whether `e` heads a chain of more than {@link CHAIN_CHUNK} links (down to a leaf or a hole). */
export function isLongChain(c: Compiler, e: Expr): boolean {
  let n = 1;
  for (let x = chainOperand(e); x !== undefined && !c.holes.has(x); x = chainOperand(x)) {
    if (chainOperand(x) !== undefined && ++n > CHAIN_CHUNK) return true;
  }
  return false;
}

/**
 * Compiles a long chain headed by `e` as groups evaluated in a loop. The compiler sees the same events
 * in the same order as when compiling the chain recursively, except that a group's own positions are
 * recorded before the group below is compiled rather than after; every link records a position after
 * its operand, so restoring, at the hole, the position the group below ended with gives each link the
 * position the recursion would.
 */
export function compileLongChain(c: Compiler, e: Expr): ExprFn {
  const links: Expr[] = []; // outermost first
  let x: Expr | undefined = e;
  while (x !== undefined && chainOperand(x) !== undefined && !c.holes.has(x)) {
    links.push(x);
    x = chainOperand(x);
  }
  const tops: Expr[] = [];
  const topAt: number[] = []; // each top's index in links (a search per group would be quadratic)
  for (let i = links.length - CHAIN_CHUNK; i > 0; i -= CHAIN_CHUNK) {
    tops.push(links[i]);
    topAt.push(i);
  }
  tops.push(links[0]);
  topAt.push(0);
  const first = c.rules.expr(c, tops[0]);
  const box: { v: Value } = { v: null };
  const read: ExprFn = () => box.v;
  const stages: ExprFn[] = [];
  for (let i = 1; i < tops.length; i++) {
    const below = tops[i - 1];
    c.holes.set(below, { fn: read, pos: c.pos });
    try {
      stages.push(c.rules.expr(c, tops[i]));
    } finally {
      c.holes.delete(below);
    }
    // The links of this group read the hole: their closures are not theirs alone, so the generator
    // compiler (deep_compile.ts) must not take them for their nodes (the chain's head is recorded
    // again, with the whole loop, by whoever compiles it).
    if (c.fastExprs !== null) {
      for (let k = topAt[i]; links[k] !== below; k++) c.fastExprs.delete(links[k]);
    }
  }
  return runGroups(first, stages, box);
}

/**
 * The loop over a chain's groups: each group reads the value of the one below from `box` before it
 * evaluates anything else (its hole is its innermost operand). A group may call a function that
 * evaluates this same chain, so the box is restored after each group.
 */
export function runGroups(first: ExprFn, stages: readonly ExprFn[], box: { v: Value }): ExprFn {
  const n = stages.length;
  return (fr: Frame) => {
    let acc = first(fr);
    for (let i = 0; i < n; i++) {
      const saved = box.v;
      box.v = acc;
      acc = stages[i](fr);
      box.v = saved;
    }
    return acc;
  };
}
