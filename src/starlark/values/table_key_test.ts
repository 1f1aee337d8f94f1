/**
 * Tests of the table keys of dicts and sets (table_key.ts): keys a program picks so that V8 would hash
 * them alike (big ints sharing their low digit, ints and floats inverted from V8's fixed hashes, index-like
 * strings, strings, bytes and tuples too long for V8 to hash) must cost what keys of the same kind that
 * spread cost, and the engine must keep polling while it works on them; table keys must be one to one.
 */
import assert from "node:assert/strict";
import { call } from "./call.ts";
import { execFile } from "../mod.ts";
import {
  collidingFractions,
  collidingSmallInts,
  keyFamilies,
  toBits,
  v8IntHash,
  v8LongHash,
} from "./colliding_families_test.ts";
import { DIGEST_KEY_LENGTH, stringTableKey, tableKey } from "./table_key.ts";
import { Bytes, Dict, Float, hashKey, List, StarObject, StarSet, Thread, Tuple } from "./value.ts";
import type { Value } from "./value.ts";
import { isTooDeepKey } from "./dict.ts";
import { seededRandom } from "../seeded_random_test.ts";

/** Inserts, copies (`dict`, `|`), compares, looks up and pops every key. */
const DICT_PROGRAM = `
def main(keys, rounds):
    d = {}
    for k in keys:
        d[k] = 1
    n = 0
    for r in range(rounds):
        e = dict(d)
        f = d | {}
        n += len(e) + len(f) + int(e == d) + int(f == e)
        for k in keys:
            n += d[k] + e.get(k, 0) + int(k in f)
    g = dict(d)
    for k in keys:
        n += g.pop(k)
    return n + len(g)
`;

/** The same with sets: add, copy, the operators and methods, membership, remove. */
const SET_PROGRAM = `
def main(keys, rounds):
    s = set()
    for k in keys:
        s.add(k)
    n = 0
    t = set()
    for r in range(rounds):
        t = set(s)
        u = s | t
        n += len(u) + len(s & t) + len(s - t) + len(s ^ t) + int(s == t) + int(t.issubset(s))
        n += len(s.union(keys)) + len(s.intersection(keys))
        for k in keys:
            n += int(k in t)
    for k in keys:
        t.remove(k)
    return n + len(t)
`;

/** What one run of a program on a family cost. */
interface Run {
  ms: number;
  /** Longest time between two polls of the engine (or the start or end of the run). */
  maxGapMs: number;
  result: Value;
}

/**
 * A copy of `k` made of new strings: V8 keeps what it learns about a string (its hash, a flat copy) in the
 * string, and a program's keys are its own, new strings, so every run starts from new ones.
 */
function fresh(k: Value): Value {
  if (typeof k === "string") return k.length < 2 ? k : k.slice(0, 1) + k.slice(1);
  if (k instanceof Bytes) return new Bytes(fresh(k.data) as string);
  if (k instanceof Tuple) return new Tuple(k.elems.map(fresh));
  return k;
}

function runOn(source: string, keys: Value[], rounds: number): Run {
  keys = keys.map(fresh);
  let last = performance.now(), maxGap = 0;
  const thread = new Thread({
    maxMemory: 1 << 30,
    dialect: { set: true },
    checkInterrupt: () => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      return undefined;
    },
  });
  const { globals } = execFile(source, { thread });
  const t0 = performance.now();
  last = t0;
  const result = call(thread, globals.get("main")!, [new List(keys), rounds], []);
  const end = performance.now();
  return { ms: end - t0, maxGapMs: Math.max(maxGap, end - last), result };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Runs `source` on the colliding keys and on the control keys, alternately, three times each, and
 * checks that the colliding ones cost about what the control ones do and that the engine kept polling.
 * Before table keys, the colliding runs took 20 to 1,000 times as long, in native calls of up to a second.
 */
function checkFamily(source: string, name: string, collide: Value[], control: Value[], rounds: number) {
  const hot: Run[] = [], cold: Run[] = [];
  for (let i = 0; i < 3; i++) {
    cold.push(runOn(source, control, rounds));
    hot.push(runOn(source, collide, rounds));
  }
  assert.equal(hot[0].result, cold[0].result, `${name}: the same work`);
  const ratio = median(hot.map((r) => r.ms)) / Math.max(1, median(cold.map((r) => r.ms)));
  // Generous: the families cost the same by construction, so only noise separates them.
  assert.ok(ratio < 3, `${name}: ${ratio.toFixed(1)}× the time of the control keys`);
  const gap = median(hot.map((r) => r.maxGapMs));
  assert.ok(gap < 150, `${name}: ${gap.toFixed(0)} ms between two polls`);
}

Deno.test("colliding keys: the generated families do collide in V8's own hashes", () => {
  for (const k of collidingSmallInts(500)) assert.equal(v8IntHash(k) & 0x3fff, 0);
  for (const f of collidingFractions(500)) assert.equal(Number(v8LongHash(toBits(f)) & 0x3fffn), 0);
  for (const f of keyFamilies(400)) {
    const keys = new Set(f.collide.map((k) => tableKey(hashKey(k))));
    assert.equal(keys.size, f.collide.length, `${f.name}: distinct keys`);
  }
});

for (const family of keyFamilies(4000)) {
  Deno.test(`colliding keys, dict: ${family.name} cost what spread keys cost`, () => {
    checkFamily(DICT_PROGRAM, family.name, family.collide, family.control, 3);
  });
  Deno.test(`colliding keys, set: ${family.name} cost what spread keys cost`, () => {
    checkFamily(SET_PROGRAM, family.name, family.collide, family.control, 2);
  });
}

/** A host value with its own hash key (which may look like a table key). */
class HostKey extends StarObject {
  constructor(readonly key: string) {
    super();
  }
  get typeName(): string {
    return "hostkey";
  }
  hashKey(): string {
    return this.key;
  }
}

/** Random equality keys of every kind, with the edge cases of table keys. */
function randomKeys(seed: number, n: number): Value[] {
  const r = seededRandom(seed);
  const out: Value[] = [];
  for (let i = 0; i < n; i++) {
    const p = r();
    const int = Math.floor(r() * 2 ** 40) * (r() < 0.5 ? -1 : 1);
    if (p < 0.1) out.push(Math.floor(r() * 2 ** 31) - 2 ** 30); // 31-bit ints, both signs
    else if (p < 0.2) out.push(int);
    else if (p < 0.3) out.push(BigInt(int) << BigInt(Math.floor(r() * 200)));
    else if (p < 0.4) out.push(new Float(r() < 0.5 ? int / 7 : int));
    else if (p < 0.5) out.push(String(Math.floor(r() * 1e10)));
    else if (p < 0.6) out.push(i % 2 ? "\u00ff" + String(int) : new HostKey("\u0105" + "snbh"[i % 4] + int));
    else if (p < 0.65) out.push("x".repeat(DIGEST_KEY_LENGTH - 2 + (i % 4)) + (i % 3));
    else if (p < 0.7) out.push(new Bytes(String(int)));
    else if (p < 0.8) out.push(new Tuple([int, String(int), new Tuple([BigInt(int) << 70n])]));
    else if (p < 0.85) out.push([null, true, false, "", new Float(NaN), new Float(-0)][i % 6]);
    else out.push("k" + Math.floor(r() * 1000));
  }
  return out;
}

Deno.test("table keys are one to one: equal for equal values, distinct for distinct ones", () => {
  for (let seed = 1; seed <= 4; seed++) {
    const keys = randomKeys(seed, 3000);
    const byTable = new Map<unknown, unknown>();
    for (const k of keys) {
      const hk = hashKey(k);
      const tk = tableKey(hk);
      assert.equal(tableKey(hk), tk, "the same each time");
      const seen = byTable.get(tk);
      if (seen !== undefined) assert.equal(seen, hk, `table key ${String(tk).slice(0, 40)} of two keys`);
      byTable.set(tk, hk);
      if (typeof tk === "string") assert.ok(tk.length < 16_384, "V8 hashes the table key by content");
    }
    assert.equal(byTable.size, new Set(keys.map(hashKey)).size);
  }
  // Ints that are equal values in other forms share a key; a string never takes another kind's key.
  assert.equal(tableKey(hashKey(new Float(3))), tableKey(3));
  assert.equal(tableKey(hashKey(new Float(-0))), tableKey(0));
  assert.equal(tableKey(hashKey(new Float(2 ** 70))), tableKey(hashKey(2n ** 70n)));
  assert.notEqual(tableKey(hashKey(new HostKey("\u0105n" + 2 ** 40))), tableKey(2 ** 40));
  assert.equal(stringTableKey("abc"), "abc", "ordinary strings are their own table keys");
});

Deno.test("table keys: a tuple too deep to compare stays recognisable when its key is digested", () => {
  let t: Value = new Tuple(["y".repeat(DIGEST_KEY_LENGTH)]);
  for (let i = 0; i < 12; i++) t = new Tuple([t]);
  const hk = hashKey(t);
  assert.ok(isTooDeepKey(hk));
  assert.ok(isTooDeepKey(tableKey(hk)));
  assert.ok(!isTooDeepKey(tableKey(hashKey(new Tuple(["y".repeat(DIGEST_KEY_LENGTH)])))));
});

Deno.test("table keys: a digested key is charged on every path that hashes it, so polls stay frequent", () => {
  // Each statement hashes a 400,000-char key (its digest, ~0.5 ms): 4,096 of them between two polls
  // would hold the thread for seconds if the statement were charged one step.
  const programs = [
    "d = {}\n    for i in range(n):\n        d[s] = i",
    "d = {}\n    for i in range(n):\n        d[s + t[i % 2]] = i",
    "d = {s + t[i % 2]: i for i in range(n)}",
    "x = {s: 1}\n    for i in range(n):\n        x.get(s)\n        x.get(s + t[i % 2])",
    "x = set([s, s + t[0], s + t[1]])\n    for i in range(n):\n        set([s]).issubset(x)\n" +
    "        x.issuperset([s])",
  ];
  for (const body of programs) {
    const source = 'def main(n):\n    s = "y" * 400000\n    t = ["a", "b"]\n' + `    ${body}\n    return n\n`;
    const stamps: number[] = [];
    const thread = new Thread({
      maxMemory: 1 << 30,
      dialect: { set: true },
      checkInterrupt: () => void stamps.push(performance.now()),
    });
    const { globals } = execFile(source, { thread });
    const t0 = performance.now();
    call(thread, globals.get("main")!, [100], []);
    const gaps = [...stamps, performance.now()].map((t, i, a) => t - (i === 0 ? t0 : a[i - 1]));
    // A digest is charged a step per 8 characters: 50,000 steps a lookup at least.
    assert.ok(thread.steps >= 100 * 50_000, `${thread.steps} steps for\n${body}`);
    assert.ok(median(gaps) < 20, `a median of ${median(gaps).toFixed(0)} ms between polls for\n${body}`);
  }
});

Deno.test("colliding keys keep the dict and set semantics: order, 1 == 1.0, -0.0, NaN", () => {
  const ints = collidingSmallInts(50);
  const d = new Dict(), s = new StarSet();
  const keys: Value[] = [...ints, 2n ** 64n, new Float(2 ** 65), "123", "x".repeat(20_000), new Float(NaN)];
  keys.forEach((k, i) => {
    d.setUnchecked(k, i);
    s.addUnchecked(k);
  });
  d.setUnchecked(new Float(ints[3]), "float"); // the same key as the int: replaces, keeps the position
  d.setUnchecked(new Float(2 ** 64), "f64");
  d.setUnchecked(2n ** 65n, "i65");
  d.setUnchecked(new Float(NaN), "nan"); // all NaNs are one key, as in the reference
  assert.equal(d.size, keys.length);
  assert.deepEqual(d.keys(), keys);
  assert.equal(d.get(ints[3]), "float");
  assert.equal(d.get(new Float(2 ** 64)), "f64");
  assert.equal(d.get(2n ** 64n), "f64");
  assert.equal(d.get(new Float(2 ** 65)), "i65");
  assert.equal(d.get("x".repeat(20_000)), keys.length - 2);
  assert.equal(d.get("x".repeat(19_999) + "y"), undefined);
  assert.equal(d.get(new Float(NaN)), "nan");
  assert.equal(d.get(123), undefined, "the string is not the int");
  d.setUnchecked(-0, "zero");
  assert.equal(d.get(new Float(0)), "zero");
  assert.equal(d.deleteUnchecked(new Float(ints[0])), 0);
  assert.equal(d.popFirst()!.key, ints[1]);
  assert.ok(s.has(new Float(ints[7])) && s.has(2n ** 64n) && s.has(new Float(2 ** 64)));
  assert.ok(s.deleteByHash(hashKey(new Float(2 ** 65))));
  assert.equal(s.size, keys.length - 1);
  assert.deepEqual(s.elems(), keys.filter((_, i) => i !== ints.length + 1));
});
