/**
 * The Starlark universe: `None`, `True`, `False` and every built-in function of the reference
 * implementation, with its argument rules and error messages.
 *
 * `set` is always present here; the resolver hides it unless the `set` dialect option is on.
 *
 * @module
 */
import { Builtin, type BuiltinFn, type BuiltinGen, type Value } from "../values/mod.ts";
import {
  bytesBuiltin,
  dictBuiltin,
  enumerateBuiltin,
  listBuiltin,
  minmaxBuiltin,
  minmaxGen,
  rangeBuiltin,
  reversedBuiltin,
  setBuiltin,
  sortedBuiltin,
  sortedGen,
  tupleBuiltin,
  zipBuiltin,
} from "./collections.ts";
import {
  allBuiltin,
  anyBuiltin,
  boolBuiltin,
  chrBuiltin,
  dirBuiltin,
  failBuiltin,
  getattrBuiltin,
  hasattrBuiltin,
  hashBuiltin,
  lenBuiltin,
  ordBuiltin,
  printBuiltin,
  reprBuiltin,
  strBuiltin,
  typeBuiltin,
} from "./core.ts";
import { absBuiltin, floatBuiltin, intBuiltin } from "./numbers.ts";

const FUNCTIONS: [string, BuiltinFn][] = [
  ["abs", absBuiltin],
  ["all", allBuiltin],
  ["any", anyBuiltin],
  ["bool", boolBuiltin],
  ["bytes", bytesBuiltin],
  ["chr", chrBuiltin],
  ["dict", dictBuiltin],
  ["dir", dirBuiltin],
  ["enumerate", enumerateBuiltin],
  ["fail", failBuiltin],
  ["float", floatBuiltin],
  ["getattr", getattrBuiltin],
  ["hasattr", hasattrBuiltin],
  ["hash", hashBuiltin],
  ["int", intBuiltin],
  ["len", lenBuiltin],
  ["list", listBuiltin],
  ["max", minmaxBuiltin],
  ["min", minmaxBuiltin],
  ["ord", ordBuiltin],
  ["print", printBuiltin],
  ["range", rangeBuiltin],
  ["repr", reprBuiltin],
  ["reversed", reversedBuiltin],
  ["set", setBuiltin],
  ["sorted", sortedBuiltin],
  ["str", strBuiltin],
  ["tuple", tupleBuiltin],
  ["type", typeBuiltin],
  ["zip", zipBuiltin],
];

/** The built-ins that call back into Starlark, as generators (deep recursion through them costs no JS stack). */
const GENERATORS = new Map<string, BuiltinGen>([["max", minmaxGen], ["min", minmaxGen], [
  "sorted",
  sortedGen,
]]);

function buildUniverse(): Map<string, Value> {
  const m = new Map<string, Value>([["None", null], ["True", true], ["False", false]]);
  for (const [name, fn] of FUNCTIONS) m.set(name, new Builtin(name, fn, undefined, GENERATORS.get(name)));
  return m;
}

/** The predeclared names every Starlark program sees: constants and built-in functions. */
export const UNIVERSE: ReadonlyMap<string, Value> = buildUniverse();
