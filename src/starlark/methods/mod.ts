/**
 * Methods of the built-in types (string, bytes, list, dict, set), looked up by receiver and name.
 * `getAttr` in ops.ts binds the returned functions to their receivers.
 *
 * @module
 */
import { Bytes, Dict, List, StarSet } from "../values/value.ts";
import type { Kwargs, Thread, Value } from "../values/value.ts";
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
