/**
 * Budget tests of string methods: each charges steps in proportion to its work (matches, parts, runes,
 * bytes compared), before or while it does it, so that a step budget bounds its time.
 */
import assert from "node:assert/strict";
import { binary, call, type List, ResourceError, Thread, type Value } from "../values/mod.ts";
import { execFile } from "../mod.ts";

/** Steps charged by evaluating `expr` (after `setup`), and its value. */
function cost(setup: string, expr: string, thread = new Thread()): [number, Value] {
  const { globals } = execFile(`${setup}\ndef f():\n    return ${expr}\n`, { thread });
  const before = thread.steps;
  const v = call(thread, globals.get("f")!, [], []);
  return [thread.steps - before, v];
}

Deno.test("string budget: replace is charged per occurrence, not only per byte", () => {
  const [steps, v] = cost('s = "a" * 100000', 's.replace("a", "bb")');
  assert.equal((v as string).length, 200000);
  // Counting, finding and copying each occurrence: a few steps each (it used to be ~5k steps in all).
  assert.ok(steps >= 300_000, `${steps} steps`);
  const [few] = cost('s = "a" * 100000', 's.replace("x", "bb")');
  assert.ok(few < 5000, `${few} steps for no occurrence`);
  assert.equal(cost("", '"aaaa".replace("a", "b", 2)')[1], "bbaa");
  assert.equal(cost("", '"abc".replace("", "-")')[1], "-a-b-c-");
  assert.equal(cost("", '"abc".replace("", "-", 2)')[1], "-a-bc");
});

Deno.test("string budget: a replace explosion stops on the step budget", () => {
  const thread = new Thread({ maxSteps: 2_000_000, maxMemory: 1 << 30 });
  const { globals } = execFile(
    'def f():\n    s = "a" * 1000\n    for i in range(30):\n        s = s.replace("a", "aa")\n    return s\n',
    { thread },
  );
  const start = performance.now();
  assert.throws(
    () => call(thread, globals.get("f")!, [], []),
    (e: unknown) => e instanceof ResourceError && e.resource === "steps",
  );
  // 2M steps of a plain loop take 20-50 ms; the explosion must take the same order of time, not seconds.
  const elapsed = performance.now() - start;
  assert.ok(elapsed < 1000, `${elapsed.toFixed(0)} ms`);
});

Deno.test("string budget: split, splitlines and join are charged per part", () => {
  const [split, parts] = cost('s = "a," * 50000', "s.split(',')");
  assert.equal((parts as List).elems.length, 50001);
  assert.ok(split >= 100_000, `${split} steps`);
  const [lines] = cost('s = "ab\\n" * 50000', "s.splitlines()");
  assert.ok(lines >= 100_000, `${lines} steps`);
  const [join] = cost('a = ["x"] * 50000', '",".join(a)');
  assert.ok(join >= 50_000, `${join} steps`);
  assert.deepEqual((cost("", '"a,b,c".rsplit(",", 1)')[1] as List).elems, ["a,b", "c"]);
});

Deno.test("string budget: format and % are charged per field", () => {
  const [format] = cost('s = "{}" * 10000\na = ["x"] * 10000', "s.format(*a)");
  assert.ok(format >= 40_000, `${format} steps`);
  const [percent] = cost('s = "%s" * 10000\na = tuple(["x"] * 10000)', "s % a");
  assert.ok(percent >= 40_000, `${percent} steps`);
});

Deno.test("string budget: rune loops are charged per rune, comparisons per byte", () => {
  const [upper] = cost('s = "é" * 20000', "s.upper()");
  assert.ok(upper >= 40_000, `${upper} steps`);
  const [strip] = cost('s = " " * 40000 + "x"', "s.strip()");
  assert.ok(strip >= 40_000, `${strip} steps`);
  const [title] = cost('s = "ab " * 20000', "s.title()");
  assert.ok(title >= 10_000, `${title} steps`);
  const [starts] = cost('s = "a" * 100000\np = "a" * 99999 + "b"', "s.startswith(p)");
  assert.ok(starts >= 3000, `${starts} steps`);
  const [rfind] = cost('s = "a" * 100000\nn = "b" + "a" * 20', "s.rfind(n)");
  assert.ok(rfind >= 20_000, `${rfind} steps`);
});

Deno.test("string budget: a long search polls the interrupt hook", () => {
  let polls = 0;
  const thread = new Thread({ checkInterrupt: () => void polls++ });
  const [, v] = cost('s = "a" * 4000000\nn = "a" * 300 + "b"', "s.find(n)", thread);
  assert.equal(v, -1);
  assert.ok(polls >= 50, `${polls} polls`);
});

Deno.test("string budget: comparing long strings is charged per byte compared", () => {
  const th = new Thread();
  const s = "a".repeat(1 << 20), t = "a".repeat((1 << 20) - 1) + "b";
  assert.equal(binary(th, "==", s, t), false);
  assert.equal(binary(th, "<", s, t), true);
  assert.ok(th.steps >= 2 * ((1 << 20) >>> 6), `${th.steps} steps`);
  // Strings of different lengths are unequal at once.
  const before = th.steps;
  binary(th, "==", s, t + "c");
  assert.equal(th.steps, before);
});
