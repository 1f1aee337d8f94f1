/**
 * Attribute lookup: module members, built-in methods bound to their receiver, host values' fields and
 * the reference's spelling hints (messages checked with the reference `starlark` binary).
 *
 * @module
 */
import assert from "node:assert/strict";
import { Builtin, EvalError, List, Module, StarObject, Thread, type Value } from "../values/mod.ts";
import { attrNames, getAttr, withSpellingHint } from "./mod.ts";

const th = new Thread();

function evalError(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => e instanceof EvalError && e.message === message);
}

Deno.test("getAttr: module members, spelling hints, host attributes", () => {
  const m = new Module("json", new Map<string, Value>([["encode", 1], ["decode", 2]]));
  assert.equal(getAttr(th, m, "encode"), 1);
  evalError(() => getAttr(th, m, "encod"), "module has no .encod field or method (did you mean .encode?)");
  evalError(() => getAttr(th, m, "xyz"), "module has no .xyz field or method");
  evalError(() => getAttr(th, 1, "x"), "int has no .x field or method");
  assert.deepEqual(attrNames(m), ["decode", "encode"]);
  assert.deepEqual(attrNames(null), []);
  class Point extends StarObject {
    get typeName(): string {
      return "point";
    }
    starlarkAttr(name: string): Value | undefined {
      return name === "x_pos" ? 3 : undefined;
    }
    starlarkAttrNames(): string[] {
      return ["x_pos"];
    }
  }
  assert.equal(getAttr(th, new Point(), "x_pos"), 3);
  evalError(
    () => getAttr(th, new Point(), "XPos"),
    "point has no .XPos field or method (did you mean .x_pos?)",
  );
});

Deno.test("getAttr binds a built-in method to its receiver; dir lists the type's methods", () => {
  const list = new List([1]);
  const append = getAttr(th, list, "append");
  assert.ok(append instanceof Builtin);
  assert.equal(append.receiver, list);
  append.fn(th, [2], [], append);
  assert.deepEqual(list.elems, [1, 2]);
  evalError(() => getAttr(th, list, "apend"), "list has no .apend field or method (did you mean .append?)");
  assert.ok(attrNames(list).includes("append"));
  assert.equal(withSpellingHint("no", "extnd", list), "no (did you mean .extend?)");
  assert.equal(withSpellingHint("no", "zzzzzz", list), "no");
});
