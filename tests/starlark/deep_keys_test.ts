/**
 * Deep keys: set and dict operations, comparisons and `repr` on tuples nested 1 to 100,000 deep, built
 * in a loop. The reference compares values at most 10 levels deep (deeper, its comparison fails with
 * "comparison exceeded maximum recursion depth"), and some of its operations ignore that failure
 * (`==` of dicts and sets, `x in dict`, `dict | dict`, `|=`): each case's last output line is given
 * here for both sides of that threshold, and the sizes are drawn from a seeded generator. With
 * `STARLARK_REF=1` the reference's whole output (tracebacks included) must equal ours.
 */
import assert from "node:assert/strict";
import { runCliCapture, runReferenceFile } from "./cli_runs.ts";
import { seededRandom } from "../../src/starlark/seeded_random_test.ts";

const withReference = Deno.env.get("STARLARK_REF") === "1";
const FILE = "keys.star";
/** Depth from which the reference's comparison of two such equal tuples fails. */
const TOO_DEEP = 10;
const DEPTH_ERROR = "comparison exceeded maximum recursion depth";

/** `len(repr(t))` for `t = build(n, 0)`: each level adds "(", ", ", its index and ")". */
function reprLength(n: number): number {
  let len = 2;
  for (let i = 0; i < n; i++) len += 4 + String(i < n - 1 ? i : 0).length;
  return len;
}

interface Op {
  readonly name: string;
  /** Statements of `go()` (t and u equal, w differing at the innermost level), ending in a return. */
  readonly body: string;
  /** The last output line below {@link TOO_DEEP} and at or past it. */
  readonly shallow: string | ((n: number) => string);
  readonly deep: string | ((n: number) => string);
}

const err = (where: string) =>
  where === "" ? `Error: ${DEPTH_ERROR}` : `Error in ${where}: ${where}: ${DEPTH_ERROR}`;

const OPS: readonly Op[] = [
  { name: "in set", body: "return u in set([t])", shallow: "True", deep: err("") },
  { name: "in set, differing", body: "return w in set([t])", shallow: "False", deep: "False" },
  { name: "in dict", body: "return u in {t: 1}", shallow: "True", deep: "False" },
  { name: "d[k]", body: "return {t: 1}[u]", shallow: "1", deep: err("") },
  { name: "d.get", body: "return {t: 1}.get(u)", shallow: "1", deep: err("get") },
  { name: "d[k] = v", body: "d = {t: 1}\n    d[u] = 2\n    return len(d)", shallow: "1", deep: err("") },
  { name: "d.pop", body: "return {t: 1}.pop(u)", shallow: "1", deep: err("pop") },
  { name: "d.setdefault", body: "return {t: 1}.setdefault(u, 3)", shallow: "1", deep: err("setdefault") },
  { name: "set ==", body: "return set([t]) == set([u])", shallow: "True", deep: "False" },
  { name: "set == itself", body: "s = set([t])\n    return s == s", shallow: "True", deep: "False" },
  { name: "dict ==", body: "return {t: 1} == {u: 1}", shallow: "True", deep: "False" },
  { name: "dict == itself", body: "d = {t: 1}\n    return d == d", shallow: "True", deep: "False" },
  { name: "set |", body: "return len(set([t]) | set([u]))", shallow: "1", deep: err("") },
  { name: "set &", body: "return len(set([t]) & set([u]))", shallow: "1", deep: err("") },
  { name: "set -", body: "return len(set([t]) - set([u]))", shallow: "0", deep: err("") },
  { name: "set ^", body: "return len(set([t]) ^ set([u]))", shallow: "0", deep: err("") },
  { name: "set <=", body: "return set([t]) <= set([u])", shallow: "True", deep: err("") },
  { name: "set <", body: "return set([t]) < set([u])", shallow: "False", deep: "False" },
  { name: "set.add", body: "s = set([t])\n    s.add(u)\n    return len(s)", shallow: "1", deep: err("add") },
  {
    name: "set.discard",
    body: "s = set([t])\n    s.discard(u)\n    return len(s)",
    shallow: "0",
    deep: err("discard"),
  },
  { name: "set.union", body: "return len(set([t]).union([u]))", shallow: "1", deep: err("union") },
  {
    name: "set.intersection",
    body: "return len(set([t]).intersection([u]))",
    shallow: "1",
    deep: err("intersection"),
  },
  {
    name: "set.difference",
    body: "return len(set([t]).difference([u]))",
    shallow: "0",
    deep: err("difference"),
  },
  {
    name: "set.symmetric_difference",
    body: "return len(set([t]).symmetric_difference([u]))",
    shallow: "0",
    deep: err("symmetric_difference"),
  },
  { name: "set.issubset", body: "return set([t]).issubset([u])", shallow: "True", deep: err("issubset") },
  { name: "set.issuperset", body: "return set([t, 1]).issuperset([w])", shallow: "False", deep: "False" },
  {
    name: "set.remove",
    body: "s = set([t])\n    s.remove(u)\n    return len(s)",
    shallow: "0",
    deep: err("remove"),
  },
  // The reference deletes the first element by comparing keys, so this fails even without a second tuple.
  { name: "set.pop", body: "return len(set([t]).pop())", shallow: "2", deep: err("pop") },
  { name: "dict |", body: "return len({t: 1} | {u: 2})", shallow: "1", deep: "1" },
  { name: "dict |=", body: "d = {t: 1}\n    d |= {u: 2}\n    return len(d)", shallow: "1", deep: "1" },
  {
    name: "d.update(dict)",
    body: "d = {t: 1}\n    d.update({u: 2})\n    return d[t]",
    shallow: "2",
    deep: err("update"),
  },
  {
    name: "d.update(pairs)",
    body: "d = {t: 1}\n    d.update([(u, 2)])\n    return d[t]",
    shallow: "2",
    deep: err("update"),
  },
  { name: "dict(pairs)", body: "return len(dict([(t, 1), (u, 2)]))", shallow: "1", deep: err("dict") },
  { name: "set(list)", body: "return len(set([t, u]))", shallow: "1", deep: err("set") },
  { name: "list.index", body: "return [1, t].index(u)", shallow: "1", deep: err("index") },
  {
    name: "list.remove",
    body: "l = [t]\n    l.remove(u)\n    return len(l)",
    shallow: "0",
    deep: err("remove"),
  },
  { name: "in list", body: "return u in [1, t]", shallow: "True", deep: err("") },
  { name: "list ==", body: "return [t] == [u]", shallow: "True", deep: err("") },
  {
    name: "sorted",
    body: "return len(sorted([t, u, t]))",
    shallow: "3",
    deep: `Error in sorted: ${DEPTH_ERROR}`,
  },
  {
    name: "sorted, differing",
    body: "return len(sorted([t, w]))",
    shallow: "2",
    deep: `Error in sorted: ${DEPTH_ERROR}`,
  },
  { name: "max", body: "return len(max([t, u]))", shallow: "2", deep: err("max") },
  { name: "<", body: "return t < u", shallow: "False", deep: err("") },
  { name: "<, differing", body: "return t < w", shallow: "True", deep: err("") },
  { name: "<=", body: "return t <= u", shallow: "True", deep: err("") },
  { name: "==", body: "return t == u", shallow: "True", deep: err("") },
  { name: "== itself", body: "return t == t", shallow: "True", deep: err("") },
  { name: "!=", body: "return t != u", shallow: "False", deep: err("") },
  { name: "< decided at the top", body: "return (1, t) < (2, u)", shallow: "True", deep: "True" },
  {
    name: "repr",
    body: "return len(repr(t))",
    shallow: (n) => `${reprLength(n)}`,
    deep: (n) => `${reprLength(n)}`,
  },
  {
    name: "str",
    body: "return len(str(t))",
    shallow: (n) => `${reprLength(n)}`,
    deep: (n) => `${reprLength(n)}`,
  },
  { name: "hash of repr", body: "return hash(str(t)) == hash(repr(u))", shallow: "True", deep: "True" },
];

function source(op: Op, n: number): string {
  return "def build(n, last):\n    x = ()\n    for i in range(n):\n" +
    "        x = (x, i if i < n - 1 else last)\n    return x\n" +
    `def go():\n    t = build(${n}, 0)\n    u = build(${n}, 0)\n    w = build(${n}, 1)\n    ${op.body}\n` +
    "print(go())\n";
}

const runOurs = (src: string) => runCliCapture(["--recursion", "--set", "--no-steps"], FILE, src);
const runReference = (src: string) => runReferenceFile(["-recursion", "-set"], FILE, src);

const rnd = seededRandom(7_121_202);
for (const op of OPS) {
  // One depth either side of the threshold, and one from the deep sizes.
  const sizes = [
    1 + Math.floor(rnd() * (TOO_DEEP - 1)),
    TOO_DEEP + Math.floor(rnd() * 4),
    [1_000, 10_000, 100_000][Math.floor(rnd() * 3)],
  ];
  Deno.test(`deep keys: ${op.name} at depths ${sizes.join(", ")}`, async () => {
    for (const n of sizes) {
      const src = source(op, n);
      const got = runOurs(src);
      const want = n < TOO_DEEP ? op.shallow : op.deep;
      const lines = got.trimEnd().split("\n");
      assert.equal(lines[lines.length - 1], typeof want === "string" ? want : want(n), `depth ${n}`);
      if (withReference) assert.equal(got, await runReference(src), `depth ${n}: the reference differs`);
    }
  });
}
