/**
 * Methods of `dict`: clear, get, items, keys, pop, popitem, setdefault, update, values.
 *
 * @module
 */
import {
  anyArg,
  chargeInserts,
  chargeKeyHash,
  chargeSlots,
  chargeTuples,
  checkHashMutable,
  checkPositional,
  type Dict,
  dictGet,
  dictSet,
  ENTRY_BYTES,
  EvalError,
  HASH_POLL_MASK,
  hashing,
  type Kwargs,
  List,
  type Thread,
  Tuple,
  UnhashableError,
  unpackPositional,
  updateDict,
  type Value,
} from "../values/mod.ts";
import { named } from "./list.ts";
import type { MethodFn } from "./mod.ts";

type DictFn = (thread: Thread, d: Dict, args: Value[], kwargs: Kwargs, name: string) => Value;

/** Removes `k` with the reference's order of checks: mutability, then (for a non-empty dict) hashability. */
function dictDelete(d: Dict, k: Value): Value | undefined {
  checkHashMutable(d, "delete from");
  if (d.size === 0) return undefined;
  return hashing(() => d.deleteUnchecked(k));
}

const clear: DictFn = (_thread, d, args, kwargs, name) => {
  checkPositional(name, args, kwargs, 0, 0);
  // The reference reports this error without the method-name prefix.
  checkHashMutable(d, "clear");
  d.clearUnchecked();
  return null;
};

const get: DictFn = (thread, d, args, kwargs, name) => {
  checkPositional(name, args, kwargs, 1, 2);
  chargeKeyHash(thread, args[0]);
  let v: Value | undefined;
  try {
    v = d.get(args[0]);
  } catch (e) {
    if (e instanceof UnhashableError) throw new EvalError(`${name}: ${e.message}`);
    throw e;
  }
  if (v !== undefined) return v;
  return args.length > 1 ? args[1] : null;
};

const items: DictFn = (thread, d, args, kwargs, name) => {
  checkPositional(name, args, kwargs, 0, 0);
  chargeTuples(thread, d.size, 2);
  // By position, so a compact dict stays compact.
  const ks = d.keys(), vs = d.valueList();
  const out: Value[] = new Array(ks.length);
  for (let i = 0; i < ks.length; i++) {
    out[i] = new Tuple([ks[i], vs[i]]);
    if (((i + 1) & HASH_POLL_MASK) === 0) thread.poll();
  }
  return new List(out);
};

const keys: DictFn = (thread, d, args, kwargs, name) => {
  checkPositional(name, args, kwargs, 0, 0);
  chargeSlots(thread, d.size);
  return new List(d.keys());
};

const values: DictFn = (thread, d, args, kwargs, name) => {
  checkPositional(name, args, kwargs, 0, 0);
  chargeSlots(thread, d.size);
  return new List(d.valueList());
};

const pop: DictFn = (thread, d, args, kwargs, name) => {
  const [k, dflt] = keyAndDefault(name, args, kwargs);
  chargeKeyHash(thread, k);
  let v: Value | undefined;
  try {
    v = dictDelete(d, k);
  } catch (e) {
    if (e instanceof EvalError) throw new EvalError(`${name}: ${e.message}`);
    throw e;
  }
  if (v !== undefined) return v;
  if (dflt !== undefined) return dflt;
  throw new EvalError(`${name}: missing key`);
};

const popitem: DictFn = (_thread, d, args, kwargs, name) => {
  checkPositional(name, args, kwargs, 0, 0);
  if (d.size === 0) throw new EvalError(`${name}: empty dict`);
  named(name, () => checkHashMutable(d, "delete from"));
  const e = named(name, () => hashing(() => d.popFirst()))!;
  return new Tuple([e.key, e.value]);
};

const setdefault: DictFn = (thread, d, args, kwargs, name) => {
  const [k, dflt] = keyAndDefault(name, args, kwargs);
  chargeKeyHash(thread, k);
  const value = dflt ?? null;
  try {
    const v = dictGet(d, k);
    if (v !== undefined) return v;
    dictSet(d, k, value);
  } catch (e) {
    if (e instanceof EvalError) throw new EvalError(`${name}: ${e.message}`);
    throw e;
  }
  chargeInserts(thread, 1, d.size, ENTRY_BYTES);
  return value;
};

const update: DictFn = (thread, d, args, kwargs, name) => {
  if (args.length > 1) throw new EvalError(`${name}: got ${args.length} arguments, want at most 1`);
  named(name, () => updateDict(thread, d, args, kwargs));
  return null;
};

/** The `(key, default=?)` arguments of `pop` and `setdefault`; the usual positional call needs no unpacking. */
function keyAndDefault(name: string, args: Value[], kwargs: Kwargs): [Value, Value | undefined] {
  if (kwargs.length === 0 && (args.length === 1 || args.length === 2)) return [args[0], args[1]];
  return unpackPositional(name, args, kwargs, 1, anyArg, anyArg) as [Value, Value | undefined];
}

const DICT_FUNCS: [string, DictFn][] = [
  ["clear", clear],
  ["get", get],
  ["items", items],
  ["keys", keys],
  ["pop", pop],
  ["popitem", popitem],
  ["setdefault", setdefault],
  ["update", update],
  ["values", values],
];

/** The dict method table. */
export const DICT_METHODS: ReadonlyMap<string, MethodFn> = new Map(
  DICT_FUNCS.map((
    [name, f],
  ) => [name, (thread, recv, args, kwargs) => f(thread, recv as Dict, args, kwargs, name)]),
);
