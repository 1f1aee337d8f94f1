/**
 * Operations on Starlark values: truth, equality, ordering, arithmetic, indexing, attributes,
 * iteration, repr/str and freezing. The interpreter and the built-ins share these.
 *
 * The semantics and error messages are those of the reference implementation (starlark-go). The
 * implementation is split over `ops_*.ts`; this module is the stable entry point.
 *
 * Host-defined values (subclasses of `StarObject` outside this module, e.g. the interpreter's
 * functions) can take part through optional methods, all documented interfaces exported here:
 * `starlarkRepr()` ({@link StarlarkReprable}), `starlarkEquals(y)` ({@link StarlarkEquatable}),
 * `starlarkTruth()`, `starlarkCompare(y)`, `starlarkIterate()` ({@link StarlarkIterable}),
 * `starlarkLen()` ({@link StarlarkSized}), `starlarkIndex(i)` ({@link StarlarkIndexable}),
 * `starlarkSetIndex(i, v)`, `starlarkBinary(op, y, side)` ({@link StarlarkHasBinary}),
 * `starlarkUnary(op)` ({@link StarlarkHasUnary}) and `freeze()` ({@link Freezable}). Attributes
 * (`starlarkAttr(name)`/`starlarkAttrNames()`) are looked up with the built-in types' methods, in
 * `methods/mod.ts`.
 *
 * @module
 */
import { nearest as nearestName } from "./spell.ts";
import { Builtin, Dict, List, StarSet, Tuple } from "./value.ts";
import type { Value } from "./value.ts";

export { binary, concatStrings, repeatElems, repeatString } from "./ops_binary.ts";
export type { StarlarkHasBinary } from "./ops_binary.ts";
export { compare, COMPARE_LIMIT, compareValues, equals, truth } from "./ops_compare.ts";
export type { CompareOp, StarlarkEquatable } from "./ops_compare.ts";
export { getIndex, isHashable, iterate, len, setIndex, slice, tryIterate } from "./ops_index.ts";
export type { StarlarkIndexable, StarlarkIterable, StarlarkSized, ValueIterator } from "./ops_index.ts";
export { quote, repr, STEPS_PER_ESCAPE, str } from "./ops_repr.ts";
export type { StarlarkReprable } from "./ops_repr.ts";
export { unary } from "./ops_unary.ts";
export type { StarlarkHasUnary } from "./ops_unary.ts";

/** A host value that has mutable state to freeze. */
export interface Freezable {
  /** Freezes the value and what it references. */
  freeze(): void;
}

/** Freezes `x` and everything reachable from it. */
export function freeze(x: Value): void {
  // Iterative, so that deeply nested values cannot exhaust the JS stack.
  const stack: Value[] = [x];
  // Tuples have no frozen flag: each is walked once per call, or 30 tuples sharing their halves would be
  // walked 2^30 times (a 20 s freeze of one global).
  let walked: Set<Tuple> | undefined;
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (v instanceof List) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const e of v.elems) if (typeof e === "object" && e !== null) stack.push(e);
    } else if (v instanceof Tuple) {
      walked ??= new Set();
      if (walked.has(v)) continue;
      walked.add(v);
      for (const e of v.elems) if (typeof e === "object" && e !== null) stack.push(e);
    } else if (v instanceof Dict) {
      if (v.frozen) continue;
      v.frozen = true;
      // Without reading `map`, which would convert a compact dict; forEach copies nothing.
      v.forEach((k, e) => stack.push(k, e));
    } else if (v instanceof StarSet) {
      if (v.frozen) continue;
      v.frozen = true;
      for (const e of v.map.values()) if (typeof e === "object" && e !== null) stack.push(e);
    } else if (v instanceof Builtin) {
      if (v.receiver !== undefined) stack.push(v.receiver);
    } else {
      const f = (v as Partial<Freezable>).freeze;
      if (typeof f === "function") f.call(v);
    }
  }
}

/**
 * The candidate closest to `x` for a "did you mean" hint, like the reference: case and underscores are
 * ignored, and at most half of the name may differ. `undefined` when none is close enough.
 */
export function nearest(x: string, candidates: readonly string[]): string | undefined {
  return nearestName(x, candidates) || undefined;
}
