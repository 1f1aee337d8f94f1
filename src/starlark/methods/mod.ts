/**
 * Methods of the built-in types (string, bytes, list, dict, set), looked up by receiver and name, and
 * attribute lookup (`x.name`, `dir`, `getattr`): module members, those methods bound to their receiver,
 * and host values' fields, with the reference's "did you mean" hints. Attribute lookup lives here
 * because it consults the method tables; the value layer below knows nothing of methods.
 *
 * @module
 */
import {
  Builtin,
  Bytes,
  Dict,
  EvalError,
  type Kwargs,
  List,
  Module,
  nearest,
  NoSuchAttrError,
  StarSet,
  textBounded,
  type Thread,
  typeName,
  type Value,
} from "../values/mod.ts";
import { DICT_METHODS } from "./dict.ts";
import { LIST_METHODS } from "./list.ts";
import { SET_METHODS } from "./set.ts";
import { stringMethods } from "./string.ts";
import { BYTES_METHODS, STRING_VIEW_METHODS } from "./views.ts";

/** Implementation of a built-in method; `recv` is the bound receiver. */
export type MethodFn = (thread: Thread, recv: Value, args: Value[], kwargs: Kwargs) => Value;

/** A table of methods for one receiver type. */
export type MethodTable = ReadonlyMap<string, MethodFn>;

const EMPTY: MethodTable = new Map();
const STRING_METHODS: MethodTable = stringMethods(STRING_VIEW_METHODS);

function tableFor(recv: Value): MethodTable {
  if (typeof recv === "string") return STRING_METHODS;
  if (recv instanceof List) return LIST_METHODS;
  if (recv instanceof Dict) return DICT_METHODS;
  if (recv instanceof StarSet) return SET_METHODS;
  if (recv instanceof Bytes) return BYTES_METHODS;
  return EMPTY;
}

const sortedNames = new WeakMap<MethodTable, string[]>();

/** The method `name` of `recv`'s type, or `undefined` when the type has no such method. */
export function lookupMethod(recv: Value, name: string): MethodFn | undefined {
  return tableFor(recv).get(name);
}

/** The method names of `recv`'s type, sorted as `dir()` shows them (a fresh array). */
export function methodNames(recv: Value): string[] {
  const table = tableFor(recv);
  let names = sortedNames.get(table);
  if (names === undefined) {
    names = [...table.keys()].sort();
    sortedNames.set(table, names);
  }
  return names.slice();
}

/**
 * `hasattr(x, name)` without building an error, for values whose only attributes are their type's
 * methods (not modules, not host values with fields): whether `name` is one. Undefined for the others,
 * which need the full lookup.
 */
export function hasMethodAttr(x: Value, name: string): boolean | undefined {
  if (x instanceof Module) return undefined;
  if (x !== null && typeof x === "object") {
    const h = x as Partial<StarlarkHasAttrs>;
    if (typeof h.starlarkAttr === "function" || typeof h.starlarkAttrNames === "function") return undefined;
  }
  return lookupMethod(x, name) !== undefined;
}

/** A host value with fields (`x.name`). */
export interface StarlarkHasAttrs {
  /** The attribute's value, or `undefined` when there is none. */
  starlarkAttr(name: string): Value | undefined;
  /** All attribute names. */
  starlarkAttrNames(): string[];
}

/** `x.name`: fields, module members and bound methods. */
export function getAttr(_thread: Thread, x: Value, name: string): Value {
  if (x instanceof Module) {
    const v = x.members.get(name);
    if (v !== undefined) return v;
  } else {
    const fn = lookupMethod(x, name);
    if (fn !== undefined) return new Builtin(name, (t, a, k) => fn(t, x, a, k), x);
    const attr = (x as Partial<StarlarkHasAttrs> | null)?.starlarkAttr;
    if (typeof attr === "function") {
      let v: Value | undefined;
      try {
        v = attr.call(x, name);
      } catch (e) {
        // A host value's own "no such field" message still gets the spelling hint, like the reference.
        if (!(e instanceof NoSuchAttrError)) throw e;
        throw new EvalError(withSpellingHint(e.message, name, x));
      }
      if (v !== undefined) return v;
    }
  }
  throw new EvalError(
    withSpellingHint(`${typeName(x)} has no .${textBounded(name)} field or method`, name, x),
  );
}

/** Appends the reference's `(did you mean .x?)` hint for a missing attribute `name` of `x`. */
export function withSpellingHint(msg: string, name: string, x: Value): string {
  const near = nearest(name, attrNames(x));
  return near === "" ? msg : `${msg} (did you mean .${near}?)`;
}

/** Names of `x`'s attributes, sorted (`dir(x)`). */
export function attrNames(x: Value): string[] {
  if (x instanceof Module) return [...x.members.keys()].sort();
  const names = methodNames(x);
  const own = (x as Partial<StarlarkHasAttrs> | null)?.starlarkAttrNames;
  if (typeof own === "function") {
    const all = new Set([...names, ...own.call(x)]);
    return [...all].sort();
  }
  return names;
}
