/**
 * Assignments that unpack into local variables without the general machinery: `a, b = x, y` (no tuple
 * made, its memory charged all the same) and `a, b = v` / `for k, v in ...` (a tuple or list of the right
 * length read in place). Both behave and charge exactly as the general assignment does.
 *
 * @module
 */
import { List, Tuple } from "../values/mod.ts";
import type { Expr } from "../syntax/ast.ts";
import { chargeTupleDisplay, tupleDisplayParts } from "./compile_expr.ts";
import { type ExprFn, F_LOCALS, NORMAL, type Pos, type StmtFn } from "./function.ts";
import { unpack } from "./loops.ts";
import type { Setter } from "./augmented.ts";

function unparen(e: Expr): Expr {
  while (e.kind === "ParenExpr") e = e.x;
  return e;
}

/**
 * `a, b = x, y` into local variables, as the reference runs it (every value first, then each variable in
 * order) without making the tuple, which is charged all the same; undefined for any other assignment.
 */
export function parallelAssign(target: Expr, R: ExprFn): StmtFn | undefined {
  const parts = tupleDisplayParts(R);
  if (parts === undefined || (target.kind !== "TupleExpr" && target.kind !== "ListExpr")) return undefined;
  const n = parts.length;
  if (target.list.length !== n) return undefined;
  const slots = localSlots(target.list);
  if (slots === undefined) return undefined;
  if (n === 2) {
    const [A, B] = parts, [ka, kb] = slots;
    return (fr) => {
      const a = A(fr), b = B(fr);
      chargeTupleDisplay(fr, 2);
      fr[ka] = a;
      fr[kb] = b;
      return NORMAL;
    };
  }
  if (n === 3) {
    const [A, B, C] = parts, [ka, kb, kc] = slots;
    return (fr) => {
      const a = A(fr), b = B(fr), x = C(fr);
      chargeTupleDisplay(fr, 3);
      fr[ka] = a;
      fr[kb] = b;
      fr[kc] = x;
      return NORMAL;
    };
  }
  return undefined;
}

/** The frame slots of assignment targets that are all local variables; undefined otherwise. */
export function localSlots(targets: readonly Expr[]): number[] | undefined {
  const slots: number[] = [];
  for (const x of targets) {
    const t = unparen(x);
    if (t.kind !== "Ident" || t.binding?.scope !== "local") return undefined;
    slots.push(F_LOCALS + t.binding.index);
  }
  return slots;
}

/**
 * `a, b = v` (or three names) into local variables, as in `for k, v in d.items()`: a tuple or list of the
 * right length is read in place; anything else goes through {@link unpack} and its errors.
 */
export function unpackLocals(slots: number[], pos: Pos): Setter {
  if (slots.length === 2) {
    const [ka, kb] = slots;
    return (fr, v) => {
      const a = v instanceof Tuple || v instanceof List ? v.elems : unpack(v, 2, pos, false);
      if (a.length !== 2) unpack(v, 2, pos, false); // throws the reference's error
      fr[ka] = a[0];
      fr[kb] = a[1];
    };
  }
  const [ka, kb, kc] = slots;
  return (fr, v) => {
    const a = v instanceof Tuple || v instanceof List ? v.elems : unpack(v, 3, pos, false);
    if (a.length !== 3) unpack(v, 3, pos, false);
    fr[ka] = a[0];
    fr[kb] = a[1];
    fr[kc] = a[2];
  };
}
