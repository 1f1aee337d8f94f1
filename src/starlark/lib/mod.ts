/**
 * The library modules and built-ins that CodeMode adds to the Starlark universe: the reference
 * implementation's `json` and `math` modules (same functions, results and error messages) and the
 * Python-like `sum` built-in.
 *
 * @module
 */
export { json } from "./json.ts";
export { math } from "./math.ts";
export { sum } from "./sum.ts";
