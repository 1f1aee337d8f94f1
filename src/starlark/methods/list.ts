/**
 * Methods of `list`: append, clear, extend, index, insert, pop, remove.
 *
 * @module
 */
import {
  anyArg,
  checkMutable,
  checkPositional,
  collect,
  equals,
  EvalError,
  extendList,
  intArg,
  iterableArg,
  type Kwargs,
  List,
  sliceIndices,
  SLOT_BYTES,
  type Thread,
  Tuple,
  unpackPositional,
  type Value,
} from "../values/mod.ts";
import type { MethodFn } from "./mod.ts";

type ListFn = (thread: Thread, l: List, args: Value[], kwargs: Kwargs, name: string) => Value;

/** Runs `f`, prefixing any EvalError it throws with `name: ` (the reference's `nameErr`). */
export function named<T>(name: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof EvalError) throw new EvalError(`${name}: ${e.message}`);
    throw e;
  }
}

function outOfRange(i: number, n: number): string {
  return n === 0 ? `index ${i} out of range: empty list` : `list index ${i} out of range [${-n}:${n - 1}]`;
}

const append: ListFn = (thread, l, args, kwargs, name) => {
  checkPositional(name, args, kwargs, 1, 1);
  if (l.frozen || l.itercount > 0) named(name, () => checkMutable(l, "append to"));
  thread.allocate(SLOT_BYTES);
  l.elems.push(args[0]);
  return null;
};

const clear: ListFn = (_thread, l, args, kwargs, name) => {
  checkPositional(name, args, kwargs, 0, 0);
  named(name, () => checkMutable(l, "clear"));
  l.elems = [];
  return null;
};

const extend: ListFn = (thread, l, args, kwargs, name) => {
  const [x] = unpackPositional(name, args, kwargs, 1, iterableArg) as [Value];
  if (l.frozen || l.itercount > 0) named(name, () => checkMutable(l, "extend"));
  // `x` may be `l` itself: extendList appends the elements present before the call.
  extendList(thread, l, x instanceof List || x instanceof Tuple ? x.elems : collect(thread, x));
  return null;
};

/**
 * The first position in `elems[lo:hi]` holding a value equal to `x`, or -1; one step per element
 * compared. A comparison error is prefixed with `name`.
 */
function findElem(thread: Thread, name: string, elems: Value[], x: Value, lo: number, hi: number): number {
  try {
    for (let i = lo; i < hi; i++) {
      thread.charge(1);
      if (equals(elems[i], x, thread)) return i;
    }
  } catch (e) {
    if (e instanceof EvalError) throw new EvalError(`${name}: ${e.message}`);
    throw e;
  }
  return -1;
}

const index: ListFn = (thread, l, args, kwargs, name) => {
  const [x, start, end] = unpackPositional(name, args, kwargs, 1, anyArg, anyArg, anyArg) as [
    Value,
    Value | undefined,
    Value | undefined,
  ];
  const [lo, hi] = start === undefined && end === undefined
    ? [0, l.elems.length]
    : named(name, () => sliceIndices(start, end, l.elems.length));
  const i = findElem(thread, name, l.elems, x, lo, hi);
  if (i >= 0) return i;
  throw new EvalError(`${name}: value not in list`);
};

const insert: ListFn = (thread, l, args, kwargs, name) => {
  const [iArg, x] = unpackPositional(name, args, kwargs, 2, intArg, anyArg) as [number, Value];
  if (l.frozen || l.itercount > 0) named(name, () => checkMutable(l, "insert into"));
  const n = l.elems.length;
  let i = iArg < 0 ? iArg + n : iArg;
  thread.allocate(SLOT_BYTES);
  thread.charge(1 + ((n - Math.max(0, Math.min(i, n))) >>> 6));
  if (i >= n) l.elems.push(x);
  else {
    if (i < 0) i = 0;
    l.elems.splice(i, 0, x);
  }
  return null;
};

const pop: ListFn = (thread, l, args, kwargs, name) => {
  const n = l.elems.length;
  // `pop()` is the usual call (a stack): nothing to unpack.
  const iArg = args.length === 0 && kwargs.length === 0
    ? undefined
    : unpackPositional(name, args, kwargs, 0, intArg)[0];
  const orig = iArg ?? n - 1;
  const i = orig < 0 ? orig + n : orig;
  if (i < 0 || i >= n) throw new EvalError(`${name}: ${outOfRange(orig, n)}`);
  if (l.frozen || l.itercount > 0) named(name, () => checkMutable(l, "pop from"));
  thread.charge(1 + ((n - i) >>> 6));
  return i === n - 1 ? l.elems.pop()! : l.elems.splice(i, 1)[0];
};

const remove: ListFn = (thread, l, args, kwargs, name) => {
  const [x] = unpackPositional(name, args, kwargs, 1, anyArg) as [Value];
  if (l.frozen || l.itercount > 0) named(name, () => checkMutable(l, "remove from"));
  const i = findElem(thread, "remove", l.elems, x, 0, l.elems.length);
  if (i < 0) throw new EvalError("remove: element not found");
  thread.charge((l.elems.length - i) >>> 6);
  l.elems.splice(i, 1);
  return null;
};

const LIST_FUNCS: [string, ListFn][] = [
  ["append", append],
  ["clear", clear],
  ["extend", extend],
  ["index", index],
  ["insert", insert],
  ["pop", pop],
  ["remove", remove],
];

/** The list method table. */
export const LIST_METHODS: ReadonlyMap<string, MethodFn> = new Map(
  LIST_FUNCS.map((
    [name, f],
  ) => [name, (thread, recv, args, kwargs) => f(thread, recv as List, args, kwargs, name)]),
);
