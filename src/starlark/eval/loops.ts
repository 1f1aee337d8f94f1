/**
 * The loop driver shared by `for` statements and comprehensions, with allocation-free paths for lists,
 * tuples and ranges, and sequence unpacking for assignments.
 *
 * Lists are iterated by index while their `itercount` is raised, so that any attempt to mutate them
 * during the loop fails like in the reference.
 *
 * @module
 */
import {
  iterate,
  len,
  List,
  Range,
  type Thread,
  Tuple,
  typeName,
  type Value,
  type ValueIterator,
} from "../values/mod.ts";
import { chargeSteps } from "./calls.ts";
import { errorAt } from "./errors.ts";
import { BREAK, type Frame, NORMAL, type Pos, RETURN } from "./function.ts";

/** One loop iteration: binds `v` and runs the body; returns a completion code. */
export type Step = (fr: Frame, v: Value, acc: unknown) => number;

function startIteration(x: Value, pos: Pos): ValueIterator {
  try {
    return iterate(x);
  } catch {
    throw errorAt(`${typeName(x)} value is not iterable`, pos);
  }
}

/**
 * Runs `step` for each element of `x`, charging `weight` steps per iteration. `BREAK` ends the loop,
 * `RETURN` ends it and is returned; anything else continues. Returns NORMAL or RETURN.
 */
export function runLoop(
  th: Thread,
  x: Value,
  pos: Pos,
  fr: Frame,
  step: Step,
  acc: unknown,
  weight: number,
): number {
  if (x instanceof List) {
    x.itercount++;
    try {
      for (let i = 0; i < x.elems.length; i++) {
        chargeSteps(th, weight);
        const r = step(fr, x.elems[i], acc);
        if (r !== NORMAL) {
          if (r === BREAK) break;
          if (r === RETURN) return RETURN;
        }
      }
    } finally {
      x.itercount--;
    }
    return NORMAL;
  }
  // Ranges with bounds beyond 2^53 keep exact bigint bounds; they take the generic iterator below.
  if (x instanceof Range && x.big === undefined) {
    const n = x.length, start = x.start, st = x.step;
    for (let i = 0; i < n; i++) {
      chargeSteps(th, weight);
      const r = step(fr, start + i * st, acc);
      if (r !== NORMAL) {
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
    }
    return NORMAL;
  }
  if (x instanceof Tuple) {
    const a = x.elems;
    for (let i = 0; i < a.length; i++) {
      chargeSteps(th, weight);
      const r = step(fr, a[i], acc);
      if (r !== NORMAL) {
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
    }
    return NORMAL;
  }
  const it = startIteration(x, pos);
  try {
    for (let v = it.next(); v !== undefined; v = it.next()) {
      chargeSteps(th, weight);
      const r = step(fr, v, acc);
      if (r !== NORMAL) {
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
    }
  } finally {
    it.done();
  }
  return NORMAL;
}

/**
 * Unpacks `v` into exactly `n` values for `a, b = v`; errors are located at `pos`. The result may be
 * the elements of `v` itself, unless `copyList` asks for a copy of a list's elements (needed when
 * assigning them can modify the list, as in `x[1], x[0] = x`).
 */
export function unpack(v: Value, n: number, pos: Pos, copyList = true): Value[] {
  if (v instanceof Tuple || v instanceof List) {
    const a = v.elems;
    if (a.length === n) return copyList && v instanceof List ? a.slice() : a;
    if (a.length > n) throw errorAt(`too many values to unpack (got ${a.length}, want ${n})`, pos);
    throw errorAt(`too few values to unpack (got ${a.length}, want ${n})`, pos);
  }
  let it: ValueIterator;
  try {
    it = iterate(v);
  } catch {
    throw errorAt(`got ${typeName(v)} in sequence assignment`, pos);
  }
  const out: Value[] = [];
  try {
    for (let x = it.next(); x !== undefined; x = it.next()) {
      if (out.length === n) throw errorAt(`too many values to unpack (got ${len(v)}, want ${n})`, pos);
      out.push(x);
    }
  } finally {
    it.done();
  }
  if (out.length < n) throw errorAt(`too few values to unpack (got ${out.length}, want ${n})`, pos);
  return out;
}

/** The pairs of a `for a, b in enumerate(...)`/`zip(...)` loop (pairs.ts): the i-th is `(left === null ? i : left[i], right[i])`, for i < n. */
export class Pairs {
  /** First components (null: the indices 0, 1, ...). */
  readonly left: readonly Value[] | null;
  /** Second components. */
  readonly right: readonly Value[];
  /** Number of pairs. */
  readonly n: number;
  /** Creates the pairs. */
  constructor(left: readonly Value[] | null, right: readonly Value[], n: number) {
    this.left = left;
    this.right = right;
    this.n = n;
  }
}
