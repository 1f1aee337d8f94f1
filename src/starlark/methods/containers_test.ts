import assert from "node:assert/strict";
import {
  Dict,
  Float,
  freeze,
  List,
  ResourceError,
  StarSet,
  Thread,
  Tuple,
  type Value,
} from "../values/mod.ts";
import { meth, registerCases, src } from "../builtins/harness_test.ts";
import type { Case } from "../builtins/harness_test.ts";
import { lookupMethod } from "./mod.ts";

const T = (...xs: Value[]): Tuple => new Tuple(xs);
const list = (source: string, ...xs: Value[]) => src(source, () => new List(xs.slice()));
const dict = (source: string, ...kvs: [Value, Value][]) =>
  src(source, () => {
    const d = new Dict();
    for (const [k, v] of kvs) d.setUnchecked(k, v);
    return d;
  });
const set = (source: string, ...xs: Value[]) =>
  src(source, () => {
    const s = new StarSet();
    for (const x of xs) s.addUnchecked(x);
    return s;
  });

/** A method call on a receiver that is being iterated (the reference check runs it inside a for loop). */
function duringIteration(
  recv: ReturnType<typeof src>,
  call: string,
  run: (r: Value, th: Thread) => Value,
  want: string,
): Case {
  return {
    setup: `x = ${recv.src}\ndef f():\n    for _ in x:\n        return x.${call}\n`,
    src: "f()",
    run: (th) => {
      const r = recv.make() as List | Dict | StarSet;
      r.itercount++;
      return run(r, th);
    },
    want,
    ref: true,
  };
}

function callOn(r: Value, name: string, args: Value[], th: Thread): Value {
  return lookupMethod(r, name)!(th, r, args, []);
}

/** A method call on a frozen receiver (not checkable in a single reference file). */
function frozen(recv: ReturnType<typeof src>, name: string, args: Value[], want: string): Case {
  return {
    setup: "",
    src: `frozen ${recv.src}.${name}`,
    run: (th) => {
      const r = recv.make();
      freeze(r);
      return callOn(r, name, args, th);
    },
    want,
    ref: false,
  };
}

const LIST: Case[] = [
  meth(list("[1]", 1), "append", [2], "(None, [1, 2])", { after: true }),
  meth(list("[1]", 1), "append", [], "ERR: append: got 0 arguments, want 1"),
  meth(list("[1]", 1), "append", [1, 2], "ERR: append: got 2 arguments, want 1"),
  meth(list("[1, 2]", 1, 2), "clear", [], "(None, [])", { after: true }),
  meth(list("[1, 2]", 1, 2), "clear", [1], "ERR: clear: got 1 arguments, want 0"),
  meth(list("[1]", 1), "extend", [T(2, 3)], "(None, [1, 2, 3])", { after: true }),
  meth(list("[1]", 1), "extend", [set("set([5])", 5)], "(None, [1, 5])", { after: true }),
  meth(list("[1]", 1), "extend", ["ab"], "ERR: extend: for parameter 1: got string, want iterable"),
  meth(list("[1, 2, 1]", 1, 2, 1), "index", [1], "0"),
  meth(list("[1, 2, 1]", 1, 2, 1), "index", [1, 1], "2"),
  meth(list("[1, 2, 1]", 1, 2, 1), "index", [1, -1], "2"),
  meth(list("[1, 2, 1]", 1, 2, 1), "index", [1, 1, 2], "ERR: index: value not in list"),
  meth(list("[1, 2, 1]", 1, 2, 1), "index", [3], "ERR: index: value not in list"),
  meth(
    list("[1, 2, 1]", 1, 2, 1),
    "index",
    [1, "a"],
    "ERR: index: invalid start index: got string, want int",
  ),
  meth(list("[1, 2]", 1, 2), "insert", [0, "a"], '(None, ["a", 1, 2])', { after: true }),
  meth(list("[1, 2]", 1, 2), "insert", [-1, "a"], '(None, [1, "a", 2])', { after: true }),
  meth(list("[1, 2]", 1, 2), "insert", [-10, "a"], '(None, ["a", 1, 2])', { after: true }),
  meth(list("[1, 2]", 1, 2), "insert", [10, "a"], '(None, [1, 2, "a"])', { after: true }),
  meth(list("[1, 2]", 1, 2), "insert", ["0", "a"], "ERR: insert: for parameter 1: got string, want int"),
  meth(list("[1, 2]", 1, 2), "insert", [0], "ERR: insert: got 1 arguments, want 2"),
  meth(list("[1, 2, 3]", 1, 2, 3), "pop", [], "(3, [1, 2])", { after: true }),
  meth(list("[1, 2, 3]", 1, 2, 3), "pop", [0], "(1, [2, 3])", { after: true }),
  meth(list("[1, 2, 3]", 1, 2, 3), "pop", [-3], "(1, [2, 3])", { after: true }),
  meth(list("[1, 2, 3]", 1, 2, 3), "pop", [3], "ERR: pop: list index 3 out of range [-3:2]"),
  meth(list("[1, 2, 3]", 1, 2, 3), "pop", [-4], "ERR: pop: list index -4 out of range [-3:2]"),
  meth(list("[]"), "pop", [], "ERR: pop: index -1 out of range: empty list"),
  meth(list("[1]", 1), "pop", [0, 1], "ERR: pop: got 2 arguments, want at most 1"),
  meth(list("[1, 2, 1]", 1, 2, 1), "remove", [1], "(None, [2, 1])", { after: true }),
  meth(list("[1, 2]", 1, 2), "remove", [3], "ERR: remove: element not found"),
  duringIteration(
    list("[1]", 1),
    "append(2)",
    (r, th) => callOn(r, "append", [2], th),
    "ERR: append: cannot append to list during iteration",
  ),
  duringIteration(
    list("[1]", 1),
    "clear()",
    (r, th) => callOn(r, "clear", [], th),
    "ERR: clear: cannot clear list during iteration",
  ),
  duringIteration(
    list("[1]", 1),
    "extend([])",
    (r, th) => callOn(r, "extend", [new List()], th),
    "ERR: extend: cannot extend list during iteration",
  ),
  duringIteration(
    list("[1]", 1),
    "insert(0, 0)",
    (r, th) => callOn(r, "insert", [0, 0], th),
    "ERR: insert: cannot insert into list during iteration",
  ),
  duringIteration(
    list("[1]", 1),
    "pop()",
    (r, th) => callOn(r, "pop", [], th),
    "ERR: pop: cannot pop from list during iteration",
  ),
  duringIteration(
    list("[1]", 1),
    "remove(1)",
    (r, th) => callOn(r, "remove", [1], th),
    "ERR: remove: cannot remove from list during iteration",
  ),
  frozen(list("[1]", 1), "append", [2], "ERR: append: cannot append to frozen list"),
  frozen(list("[1]", 1), "pop", [5], "ERR: pop: list index 5 out of range [-1:0]"),
];

const DICT: Case[] = [
  meth(dict('{"a": 1}', ["a", 1]), "get", ["a"], "1"),
  meth(dict('{"a": 1}', ["a", 1]), "get", ["b"], "None"),
  meth(dict('{"a": 1}', ["a", 1]), "get", ["b", 0], "0"),
  meth(dict('{"a": 1}', ["a", 1]), "get", [list("[]")], "ERR: get: unhashable type: list"),
  meth(dict("{}"), "get", [list("[]")], "ERR: get: unhashable type: list"),
  meth(dict('{"a": 1}', ["a", 1]), "get", [], "ERR: get: got 0 arguments, want at least 1"),
  meth(dict('{"a": 1, "b": 2}', ["a", 1], ["b", 2]), "items", [], '[("a", 1), ("b", 2)]'),
  meth(dict('{"a": 1, "b": 2}', ["a", 1], ["b", 2]), "keys", [], '["a", "b"]'),
  meth(dict('{"a": 1, "b": 2}', ["a", 1], ["b", 2]), "values", [], "[1, 2]"),
  meth(dict("{}"), "items", [1], "ERR: items: got 1 arguments, want 0"),
  meth(dict('{"a": 1, "b": 2}', ["a", 1], ["b", 2]), "clear", [], "(None, {})", { after: true }),
  meth(dict('{"a": 1, "b": 2}', ["a", 1], ["b", 2]), "pop", ["a"], '(1, {"b": 2})', { after: true }),
  meth(dict('{"a": 1}', ["a", 1]), "pop", ["z", 9], '(9, {"a": 1})', { after: true }),
  meth(dict('{"a": 1}', ["a", 1]), "pop", ["z"], "ERR: pop: missing key"),
  meth(dict('{"a": 1}', ["a", 1]), "pop", [list("[]")], "ERR: pop: unhashable type: list"),
  meth(dict("{}"), "pop", [list("[]")], "ERR: pop: missing key"),
  meth(dict('{"a": 1, "b": 2}', ["a", 1], ["b", 2]), "popitem", [], '(("a", 1), {"b": 2})', { after: true }),
  meth(dict("{}"), "popitem", [], "ERR: popitem: empty dict"),
  meth(dict('{"a": 1}', ["a", 1]), "setdefault", ["a", 5], '(1, {"a": 1})', { after: true }),
  meth(dict('{"a": 1}', ["a", 1]), "setdefault", ["b"], '(None, {"a": 1, "b": None})', { after: true }),
  meth(dict('{"a": 1}', ["a", 1]), "setdefault", ["b", 2], '(2, {"a": 1, "b": 2})', { after: true }),
  meth(dict('{"a": 1}', ["a", 1]), "setdefault", [list("[]")], "ERR: setdefault: unhashable type: list"),
  meth(
    dict('{"a": 1}', ["a", 1]),
    "update",
    [list('[("b", 2)]', T("b", 2))],
    '(None, {"a": 1, "b": 2, "c": 3})',
    {
      after: true,
      kwargs: { c: 3 },
    },
  ),
  meth(dict('{"a": 1}', ["a", 1]), "update", [dict('{"a": 5}', ["a", 5])], '(None, {"a": 5})', {
    after: true,
  }),
  meth(dict("{}"), "update", [1, 2], "ERR: update: got 2 arguments, want at most 1"),
  meth(dict("{}"), "update", [1], "ERR: update: got int, want iterable"),
  meth(
    dict("{}"),
    "update",
    [list("[1]", 1)],
    "ERR: update: dictionary update sequence element #0 is not iterable (int)",
  ),
  meth(
    dict("{}"),
    "update",
    [list('["abc"]', "abc")],
    "ERR: update: dictionary update sequence element #0 is not iterable (string)",
  ),
  duringIteration(
    dict("{1: 2}", [1, 2]),
    "pop(1)",
    (r, th) => callOn(r, "pop", [1], th),
    "ERR: pop: cannot delete from hash table during iteration",
  ),
  duringIteration(
    dict("{1: 2}", [1, 2]),
    "clear()",
    (r, th) => callOn(r, "clear", [], th),
    "ERR: cannot clear hash table during iteration",
  ),
  duringIteration(
    dict("{1: 2}", [1, 2]),
    "setdefault(3)",
    (r, th) => callOn(r, "setdefault", [3], th),
    "ERR: setdefault: cannot insert into hash table during iteration",
  ),
  duringIteration(dict("{1: 2}", [1, 2]), "setdefault(1)", (r, th) => callOn(r, "setdefault", [1], th), "2"),
  duringIteration(
    dict("{1: 2}", [1, 2]),
    "update(a=1)",
    (r, th) => lookupMethod(r, "update")!(th, r, [], [["a", 1]]),
    "ERR: update: cannot insert into hash table during iteration",
  ),
  duringIteration(
    dict("{1: 2}", [1, 2]),
    "popitem()",
    (r, th) => callOn(r, "popitem", [], th),
    "ERR: popitem: cannot delete from hash table during iteration",
  ),
  frozen(dict("{1: 2}", [1, 2]), "clear", [], "ERR: cannot clear frozen hash table"),
  frozen(dict("{}"), "update", [], "None"),
  frozen(dict("{}"), "popitem", [], "ERR: popitem: empty dict"),
];

const SET: Case[] = [
  meth(set("set([1])", 1), "add", [2], "(None, set([1, 2]))", { after: true }),
  meth(set("set([1])", 1), "add", [1], "(None, set([1]))", { after: true }),
  meth(set("set([1])", 1), "add", [list("[]")], "ERR: add: unhashable type: list"),
  meth(set("set([1, 2])", 1, 2), "clear", [], "(None, set([]))", { after: true }),
  meth(set("set([1, 2, 3])", 1, 2, 3), "difference", [list("[2, 4]", 2, 4)], "set([1, 3])"),
  meth(
    set("set([1, 2, 3])", 1, 2, 3),
    "difference",
    [list("[[]]", new List())],
    "ERR: difference: unhashable type: list",
  ),
  meth(
    set("set([1, 2])", 1, 2),
    "difference",
    [1],
    "ERR: difference: for parameter 1: got int, want iterable",
  ),
  meth(
    set("set([1, 2])", 1, 2),
    "difference",
    [list("[]"), list("[]")],
    "ERR: difference: got 2 arguments, want at most 1",
  ),
  meth(set("set([1, 2])", 1, 2), "difference", [], "ERR: difference: got 0 arguments, want 1", {
    ref: false,
  }),
  meth(set("set([1, 2, 3])", 1, 2, 3), "discard", [2], "(None, set([1, 3]))", { after: true }),
  meth(set("set([1, 2, 3])", 1, 2, 3), "discard", [9], "(None, set([1, 2, 3]))", { after: true }),
  meth(set("set([1])", 1), "discard", [list("[]")], "ERR: discard: unhashable type: list"),
  meth(set("set([1, 2, 3])", 1, 2, 3), "intersection", [list("[3, 2, 9]", 3, 2, 9)], "set([3, 2])"),
  meth(set("set([1])", 1), "intersection", [list("[1.0]", new Float(1))], "set([1.0])"),
  meth(set("set([1, 2])", 1, 2), "union", [list("[1.0]", new Float(1))], "set([1, 2])"),
  meth(set("set([1, 2])", 1, 2), "issubset", [list("[1, 2, 3]", 1, 2, 3)], "True"),
  meth(set("set([1, 2])", 1, 2), "issubset", [list("[1, 3]", 1, 3)], "False"),
  meth(set("set([])"), "issubset", [list("[[]]", new List())], "True"),
  meth(set("set([1])", 1), "issubset", [list("[1, []]", 1, new List())], "True"),
  meth(set("set([1, 2])", 1, 2), "issuperset", [list("[1]", 1)], "True"),
  meth(set("set([1, 2])", 1, 2), "issuperset", [list("[1, 3]", 1, 3)], "False"),
  meth(set("set([1, 2])", 1, 2), "pop", [], "(1, set([2]))", { after: true }),
  meth(set("set([])"), "pop", [], "ERR: pop: empty set"),
  meth(set("set([1, 2])", 1, 2), "remove", [1], "(None, set([2]))", { after: true }),
  meth(set("set([1, 2])", 1, 2), "remove", [3], "ERR: remove: missing key"),
  meth(set("set([1, 2])", 1, 2), "remove", [list("[]")], "ERR: remove: unhashable type: list"),
  meth(set("set([])"), "remove", [list("[]")], "ERR: remove: missing key"),
  meth(set("set([1, 2])", 1, 2), "symmetric_difference", [list("[2, 3]", 2, 3)], "set([1, 3])"),
  meth(set("set([1, 2])", 1, 2), "union", [list("[2, 3]", 2, 3), T(4)], "set([1, 2, 3, 4])"),
  meth(set("set([1, 2])", 1, 2), "union", [], "set([1, 2])"),
  meth(set("set([1, 2])", 1, 2), "union", [1], "ERR: union: argument #1 is not iterable: int"),
  meth(set("set([1, 2])", 1, 2), "union", [], "ERR: union: does not accept keyword arguments", {
    kwargs: { x: 1 },
  }),
  meth(set("set([1])", 1), "update", [list("[2]", 2), list("[3]", 3)], "(None, set([1, 2, 3]))", {
    after: true,
  }),
  meth(set("set([1])", 1), "update", [list("[[]]", new List())], "ERR: update: unhashable type: list"),
  duringIteration(
    set("set([1])", 1),
    "add(2)",
    (r, th) => callOn(r, "add", [2], th),
    "ERR: add: cannot insert into hash table during iteration",
  ),
  duringIteration(
    set("set([1])", 1),
    "add(1)",
    (r, th) => callOn(r, "add", [1], th),
    "ERR: add: cannot insert into hash table during iteration",
  ),
  duringIteration(
    set("set([1])", 1),
    "discard(5)",
    (r, th) => callOn(r, "discard", [5], th),
    "ERR: discard: cannot delete from hash table during iteration",
  ),
  duringIteration(
    set("set([1])", 1),
    "pop()",
    (r, th) => callOn(r, "pop", [], th),
    "ERR: pop: cannot delete from hash table during iteration",
  ),
  duringIteration(
    set("set([1])", 1),
    "clear()",
    (r, th) => callOn(r, "clear", [], th),
    "ERR: clear: cannot clear hash table during iteration",
  ),
  duringIteration(set("set([1])", 1), "update([])", (r, th) => callOn(r, "update", [new List()], th), "None"),
  frozen(set("set([])"), "clear", [], "None"),
  frozen(set("set([1])", 1), "remove", [1], "ERR: remove: cannot delete from frozen hash table"),
];

registerCases("list methods", LIST);
registerCases("dict methods", DICT);
registerCases("set methods", SET);

Deno.test("extend charges the memory budget", () => {
  const th = new Thread({ maxMemory: 100 });
  const l = new List();
  assert.throws(
    () => callOn(l, "extend", [new List(Array.from({ length: 100 }, (_, i) => i))], th),
    ResourceError,
  );
});

Deno.test("a list can extend itself", () => {
  const l = new List([1, 2]);
  callOn(l, "extend", [l], new Thread());
  assert.deepEqual(l.elems, [1, 2, 1, 2]);
});
