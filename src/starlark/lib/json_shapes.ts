/**
 * The dict shapes of `json.encode`: a dict's keys in insertion order with the sorted order of their
 * positions, cached so that records (dicts with the same keys in the same order) are not sorted again.
 *
 * @module
 */

/** How many recent dict shapes keep their sorted key order. */
const SHAPE_CACHE = 4;

/** A dict's keys in insertion order and the sorted order of their positions. */
export interface Shape {
  /** The keys, in insertion order. */
  keys: string[];
  /** The positions of the keys in sorted key order. */
  order: number[];
  /**
   * What precedes each value, in sorted order: `{"k":` for the first, `,"k":` for the others (made on
   * first use). Each text is two of the cost model's pieces, and is charged as two.
   */
  texts?: string[];
}

/** Recently sorted shapes shared by all calls (the per-call list decides what is charged). */
export const sharedShapes: Shape[] = [];

/** A cached shape with exactly these keys in this order, if any. */
export function findShape(shapes: readonly Shape[], ks: readonly string[]): Shape | undefined {
  const n = ks.length;
  for (const shape of shapes) {
    const sk = shape.keys;
    if (sk.length !== n) continue;
    let i = 0;
    while (i < n && sk[i] === ks[i]) i++;
    if (i === n) return shape;
  }
  return undefined;
}

/** {@link findShape} for the keys of a compact dict's `[hashKey, key, value]` triples. */
export function findTripleShape(
  shapes: readonly Shape[],
  s: readonly unknown[],
  n: number,
): Shape | undefined {
  for (const shape of shapes) {
    const sk = shape.keys;
    if (sk.length !== n) continue;
    let i = 0;
    while (i < n && sk[i] === s[3 * i + 1]) i++;
    if (i === n) return shape;
  }
  return undefined;
}

/** The shape of `ks` (keys in insertion order), sorted now and remembered for all calls. */
export function sortedShape(ks: readonly string[]): Shape {
  const n = ks.length;
  const o: number[] = [];
  for (let j = 0; j < n; j++) o.push(j);
  o.sort((a, b) => (ks[a] < ks[b] ? -1 : ks[a] > ks[b] ? 1 : 0));
  const shape = { keys: ks.slice(), order: o };
  remember(sharedShapes, shape);
  return shape;
}

/** Adds a shape to a bounded cache, dropping the oldest. */
export function remember(shapes: Shape[], shape: Shape): void {
  if (shapes.length >= SHAPE_CACHE) shapes.shift();
  shapes.push(shape);
}
