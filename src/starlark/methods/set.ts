/**
 * Methods of `set`: add, clear, difference, discard, intersection, issubset, issuperset, pop, remove,
 * symmetric_difference, union, update.
 *
 * @module
 */
import {
  anyArg,
  chargeInserts,
  chargeKeyHash,
  checkHashMutable,
  checkPositional,
  copyMap,
  EvalError,
  forEach,
  hashing,
  hashKey,
  insertSteps,
  isIterable,
  iterableArg,
  type Kwargs,
  lookupSteps,
  SET_ENTRY_BYTES,
  setInsert,
  StarSet,
  tableKey,
  type Thread,
  typeName,
  unpackPositional,
  type Value,
} from "../values/mod.ts";
import { named } from "./list.ts";
import type { MethodFn } from "./mod.ts";

type SetFn = (thread: Thread, s: StarSet, args: Value[], kwargs: Kwargs, name: string) => Value;

function clone(thread: Thread, s: StarSet): StarSet {
  chargeInserts(thread, s.size, s.size, SET_ENTRY_BYTES);
  const out = new StarSet();
  copyMap(thread, out.map, s.map);
  return out;
}

/** Calls `f` on each element of `other` (one step each, plus `steps()`), prefixing errors with `name: `. */
function eachOf(
  thread: Thread,
  name: string,
  other: Value,
  steps: () => number,
  f: (x: Value) => boolean | void,
) {
  named(name, () =>
    hashing(() =>
      forEach(thread, other, (x) => {
        thread.charge(steps());
        chargeKeyHash(thread, x);
        return f(x);
      })
    ));
}

/** Removes `x`, checking mutability first and hashability only for a non-empty set, like the reference. */
function setDelete(s: StarSet, x: Value): boolean {
  checkHashMutable(s, "delete from");
  if (s.size === 0) return false;
  return hashing(() => s.deleteByHash(hashKey(x), x));
}

function has(s: StarSet, x: Value): boolean {
  return hashing(() => s.has(x));
}

/** The single, optional iterable argument of difference/intersection/...; the reference requires it. */
function otherArg(name: string, args: Value[], kwargs: Kwargs): Value {
  const [other] = unpackPositional(name, args, kwargs, 0, iterableArg);
  // The reference crashes when the argument is omitted; report it as a missing argument instead.
  if (other === undefined) throw new EvalError(`${name}: got 0 arguments, want 1`);
  return other;
}

const add: SetFn = (thread, s, args, kwargs, name) => {
  const [x] = unpackPositional(name, args, kwargs, 1, anyArg) as [Value];
  chargeKeyHash(thread, x);
  named(name, () => checkHashMutable(s, "insert into"));
  if (named(name, () => has(s, x))) return null;
  chargeInserts(thread, 1, s.size, SET_ENTRY_BYTES);
  named(name, () => setInsert(s, x));
  return null;
};

const clear: SetFn = (_thread, s, args, kwargs, name) => {
  checkPositional(name, args, kwargs, 0, 0);
  if (s.size > 0) {
    named(name, () => checkHashMutable(s, "clear"));
    s.map.clear();
  }
  return null;
};

const difference: SetFn = (thread, s, args, kwargs, name) => {
  const other = otherArg(name, args, kwargs);
  const diff = clone(thread, s);
  eachOf(thread, name, other, () => lookupSteps(diff.size), (x) => {
    setDelete(diff, x);
  });
  return diff;
};

const intersection: SetFn = (thread, s, args, kwargs, name) => {
  const other = otherArg(name, args, kwargs);
  const out = new StarSet();
  eachOf(thread, name, other, () => lookupSteps(s.size), (x) => {
    if (s.has(x)) {
      chargeInserts(thread, 1, out.size, SET_ENTRY_BYTES);
      out.addUnchecked(x);
    }
  });
  return out;
};

const issubset: SetFn = (thread, s, args, kwargs, name) => {
  const other = otherArg(name, args, kwargs);
  // Counts the distinct elements of `other` that are in `s`, stopping once all are found. `found` is
  // keyed like the set's own table, by table keys a program cannot make collide.
  const found = new Set<unknown>();
  if (s.size > 0) {
    forEach(thread, other, (x) => {
      chargeKeyHash(thread, x);
      const k = tableKey(named(name, () => hashing(() => hashKey(x))));
      // Found by comparing keys, which fails for a key too deep to compare, as in the reference.
      if (named(name, () => hashing(() => s.map.has(k) && s.has(x)))) found.add(k);
      return found.size === s.size;
    });
  }
  return found.size === s.size;
};

const issuperset: SetFn = (thread, s, args, kwargs, name) => {
  const other = otherArg(name, args, kwargs);
  let result = true;
  forEach(thread, other, (x) => {
    chargeKeyHash(thread, x);
    if (!named(name, () => has(s, x))) {
      result = false;
      return true;
    }
  });
  return result;
};

const discard: SetFn = (thread, s, args, kwargs, name) => {
  const [x] = unpackPositional(name, args, kwargs, 1, anyArg) as [Value];
  chargeKeyHash(thread, x);
  named(name, () => checkHashMutable(s, "delete from"));
  if (!named(name, () => has(s, x))) return null;
  named(name, () => setDelete(s, x));
  return null;
};

const pop: SetFn = (_thread, s, args, kwargs, name) => {
  checkPositional(name, args, kwargs, 0, 0);
  if (s.size === 0) throw new EvalError(`${name}: empty set`);
  named(name, () => checkHashMutable(s, "delete from"));
  return named(name, () => hashing(() => s.popFirst()))!;
};

const remove: SetFn = (thread, s, args, kwargs, name) => {
  const [x] = unpackPositional(name, args, kwargs, 1, anyArg) as [Value];
  chargeKeyHash(thread, x);
  if (named(name, () => setDelete(s, x))) return null;
  throw new EvalError(`${name}: missing key`);
};

const symmetricDifference: SetFn = (thread, s, args, kwargs, name) => {
  const other = otherArg(name, args, kwargs);
  const diff = clone(thread, s);
  eachOf(thread, name, other, () => insertSteps(diff.size), (x) => {
    if (!setDelete(diff, x)) {
      thread.allocate(SET_ENTRY_BYTES);
      diff.addUnchecked(x);
    }
  });
  return diff;
};

/** Inserts every element of every argument (the reference's `setUpdate`). */
function setUpdate(thread: Thread, s: StarSet, name: string, args: Value[], kwargs: Kwargs): void {
  if (kwargs.length > 0) throw new EvalError(`${name}: does not accept keyword arguments`);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!isIterable(arg)) {
      throw new EvalError(`${name}: argument #${i + 1} is not iterable: ${typeName(arg)}`);
    }
    eachOf(thread, name, arg, () => insertSteps(s.size), (x) => {
      thread.allocate(SET_ENTRY_BYTES);
      setInsert(s, x);
    });
  }
}

const union: SetFn = (thread, s, args, kwargs, name) => {
  const out = clone(thread, s);
  setUpdate(thread, out, name, args, kwargs);
  return out;
};

const update: SetFn = (thread, s, args, kwargs, name) => {
  setUpdate(thread, s, name, args, kwargs);
  return null;
};

const SET_FUNCS: [string, SetFn][] = [
  ["add", add],
  ["clear", clear],
  ["difference", difference],
  ["discard", discard],
  ["intersection", intersection],
  ["issubset", issubset],
  ["issuperset", issuperset],
  ["pop", pop],
  ["remove", remove],
  ["symmetric_difference", symmetricDifference],
  ["union", union],
  ["update", update],
];

/** The set method table. */
export const SET_METHODS: ReadonlyMap<string, MethodFn> = new Map(
  SET_FUNCS.map((
    [name, f],
  ) => [name, (thread, recv, args, kwargs) => f(thread, recv as StarSet, args, kwargs, name)]),
);
