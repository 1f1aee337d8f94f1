import assert from "node:assert/strict";
import { Dict, Float, hashKey, Tuple, UnhashableError } from "./value.ts";
import type { Value } from "./value.ts";
import { List } from "./value.ts";
import { seededRandom } from "../seeded_random_test.ts";

function entries(d: Dict): [Value, Value][] {
  const out: [Value, Value][] = [];
  d.forEach((k, v) => out.push([k, v]));
  return out;
}

/** The same operations on a Dict and on a model (an array of pairs compared by hash key). */
type Op = ["set", Value, Value] | ["del", Value] | ["map"] | ["popFirst"] | ["clear"];

function check(ops: Op[]): void {
  const d = new Dict();
  const model: [Value, Value][] = [];
  const find = (k: Value) => model.findIndex(([mk]) => hashKey(mk) === hashKey(k));
  for (const op of ops) {
    if (op[0] === "set") {
      const i = find(op[1]);
      if (i >= 0) model[i][1] = op[2];
      else model.push([op[1], op[2]]);
      d.setUnchecked(op[1], op[2]);
    } else if (op[0] === "del") {
      const i = find(op[1]);
      const want = i >= 0 ? model.splice(i, 1)[0][1] : undefined;
      assert.equal(d.deleteUnchecked(op[1]), want);
    } else if (op[0] === "popFirst") {
      const want = model.shift();
      const got = d.popFirst();
      assert.deepEqual(got === undefined ? undefined : [got.key, got.value], want);
    } else if (op[0] === "clear") {
      model.length = 0;
      d.clearUnchecked();
    } else {
      // Reading the map converts a compact dict; its contents and order must not change.
      assert.deepEqual([...d.map.values()].map((e) => [e.key, e.value]), model);
    }
    assert.equal(d.size, model.length);
    assert.deepEqual(entries(d), model);
    assert.deepEqual(d.keys(), model.map(([k]) => k));
    for (const [k, v] of model) assert.equal(d.get(k), v);
  }
}

Deno.test("Dict: compact dicts keep insertion order through updates and deletions", () => {
  check([["set", "a", 1], ["set", "b", 2], ["set", "a", 3], ["del", "a"], ["set", "a", 4], ["del", "zz"]]);
});

Deno.test("Dict: popping the first entry, between insertions, deletions and re-insertions, follows the order", () => {
  // popFirst parks an iterator at the table's front: what is added, deleted or re-added behind it, or
  // cleared, must still come out in insertion order.
  const rnd = seededRandom(3);
  for (let round = 0; round < 20; round++) {
    const ops: Op[] = [];
    for (let i = 0; i < 400; i++) {
      const r = rnd(), k = Math.floor(rnd() * 30);
      if (r < 0.4) ops.push(["set", k, i]);
      else if (r < 0.65) ops.push(["popFirst"]);
      else if (r < 0.85) ops.push(["del", k]);
      else if (r < 0.87) ops.push(["clear"]);
      else ops.push(["map"]);
    }
    check(ops);
  }
});

Deno.test("Dict: growing past the compact size keeps order and values", () => {
  const ops: (["set", Value, Value] | ["del", Value])[] = [];
  for (let i = 0; i < 20; i++) ops.push(["set", `k${i}`, i]);
  for (let i = 0; i < 20; i += 3) ops.push(["del", `k${i}`]);
  ops.push(["set", "k0", 100]);
  check(ops);
});

Deno.test("Dict: reading map converts once, then the map is the dict", () => {
  const ops: Op[] = [
    ["set", 1, "x"],
    ["set", "1", "y"],
    ["map"],
    ["set", 2, "z"],
    ["del", 1],
    ["map"],
  ];
  check(ops);
  const d = new Dict();
  d.setUnchecked("a", 1);
  const m = d.map;
  assert.equal(d.map, m);
  d.setUnchecked("b", 2);
  assert.equal(m.get("b")?.value, 2);
  m.get("a")!.value = 5;
  assert.equal(d.get("a"), 5);
});

Deno.test("Dict: equal keys of different types share an entry and keep the first key", () => {
  const d = new Dict();
  d.setUnchecked(new Float(1), "float");
  d.setUnchecked(1, "int");
  d.setUnchecked(new Tuple([1, "a"]), "t1");
  d.setUnchecked(new Tuple([new Float(1), "a"]), "t2");
  assert.equal(d.size, 2);
  assert.ok(d.keys()[0] instanceof Float);
  assert.equal(d.get(1), "int");
  assert.equal(d.get(new Tuple([1, "a"])), "t2");
  assert.equal(d.get(new Float(-0)), undefined);
  d.setUnchecked(0, "zero");
  assert.equal(d.get(new Float(-0)), "zero");
  assert.throws(() => d.get(new List([])), UnhashableError);
  assert.throws(() => d.setUnchecked(new List([]), 1), UnhashableError);
});

Deno.test("Dict: setByHash reports new entries; getByHash finds them", () => {
  const d = new Dict();
  assert.equal(d.setByHash("k", "k", 1), true);
  assert.equal(d.setByHash("k", "k", 2), false);
  assert.equal(d.getByHash("k"), 2);
  for (let i = 0; i < 10; i++) assert.equal(d.setByHash(i, i, i), true);
  assert.equal(d.setByHash(3, 3, 30), false);
  assert.equal(d.getByHash(3), 30);
  assert.equal(d.getByHash("missing"), undefined);
});

Deno.test("Dict: initEntries takes compact and large literal entries", () => {
  const small = new Dict();
  small.initEntries(["a", "a", 1, 2, 2, "b"]);
  assert.deepEqual(entries(small), [["a", 1], [2, "b"]]);
  small.setUnchecked("c", 3);
  assert.deepEqual(small.keys(), ["a", 2, "c"]);
  const triples: Value[] = [];
  for (let i = 0; i < 12; i++) triples.push(`k${i}`, `k${i}`, i);
  const big = new Dict();
  big.initEntries(triples);
  assert.equal(big.size, 12);
  assert.equal(big.get("k11"), 11);
  assert.deepEqual(big.keys(), Array.from({ length: 12 }, (_, i) => `k${i}`));
});

Deno.test("Dict: empty dicts do not share entries", () => {
  const a = new Dict(), b = new Dict();
  a.setUnchecked("x", 1);
  assert.equal(b.size, 0);
  assert.equal(b.get("x"), undefined);
  b.setUnchecked("y", 2);
  assert.deepEqual(a.keys(), ["x"]);
});
