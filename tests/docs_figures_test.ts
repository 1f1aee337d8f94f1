/**
 * The figures the documentation states, checked against the code they describe, so that a changed
 * constant fails here instead of leaving the text wrong: the README's counts of golden and seeded random
 * cases and its resource example, docs/cost_model.md's per-entry charges, int cap and the dict size the
 * default budget allows, and docs/gateway.md's sandbox heap cap.
 */
import assert from "node:assert/strict";
import { ENTRY_BYTES, SET_ENTRY_BYTES } from "../src/starlark/values/mod.ts";
import { DEFAULT_MAX_INT_BITS } from "../src/starlark/mod.ts";
import { ProcessPool } from "../src/executor/mod.ts";
import { allowAll, Builder, defaultLimits, isCodeModeError, t } from "../mod.ts";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFileSync(new URL(path, ROOT));
/** Markdown with its line breaks and table padding collapsed, so a figure may wrap. */
const prose = (path: string) => read(path).replace(/\s+/g, " ");

/** The number a doc states where `pattern`'s first group is (thousands separators allowed). */
function figure(text: string, pattern: RegExp): number {
  const m = pattern.exec(text);
  assert.ok(m !== null, `${pattern} is in the text`);
  return Number(m[1].replaceAll(",", ""));
}

const MIB = 1024 * 1024;

Deno.test("README: the golden and seeded random case counts are those the tests run", () => {
  const readme = prose("README.md");
  const golden = read("tests/starlark/golden/golden.txt").split("\n").filter((l) => l.trim() !== "").length;
  assert.equal(figure(readme, /([\d,]+) golden cases recorded from it/), golden);
  const differential = read("tests/starlark/random_differential_test.ts");
  const counts = [...differential.matchAll(/\bcount: ([\d_]+)/g)].map((m) =>
    Number(m[1].replaceAll("_", ""))
  );
  assert.ok(counts.length >= 2, "the differential test's runs are found");
  const seeded = counts.reduce((a, b) => a + b, 0);
  assert.equal(figure(readme, /compare whole outputs on ([\d,]+) seeded random/), seeded);
});

Deno.test("README: the resource example is valid Starlark that fails at once with a resource limit", async () => {
  const example = /\(`("x" \* [^`]+)`\s+fails at once\)/.exec(read("README.md"))?.[1];
  assert.ok(example, "the README's example is found");
  const builder = new Builder({ authorizer: allowAll(), executor: "inline" });
  builder.register({ name: "a.b", summary: "x", output: t.struct({}), handler: () => ({}) });
  const server = await builder.build();
  try {
    const started = performance.now();
    await assert.rejects(
      () => server.execute({ id: "u" }, `def main():\n    return len(${example})\n`),
      (e) => isCodeModeError(e, "resource_limit"),
    );
    // "At once": refused before the work, not after a long allocation (a generous bound for a busy machine).
    assert.ok(performance.now() - started < 2_000);
  } finally {
    await server.close();
  }
});

Deno.test("docs/cost_model.md: per-entry charges, the int cap and the largest dict are the code's", () => {
  const doc = prose("docs/cost_model.md");
  assert.equal(figure(doc, /\| (\d+) per dict entry, \d+ per set element/), ENTRY_BYTES);
  assert.equal(figure(doc, /\d+ per dict entry, (\d+) per set element/), SET_ENTRY_BYTES);

  const bits = DEFAULT_MAX_INT_BITS;
  const m = /defaults to 2\^(\d+) = ([\d,]+) bits: (\d+) KiB per int, ([\d,]+) decimal digits/.exec(doc);
  assert.ok(m !== null, "the int cap sentence is found");
  assert.equal(2 ** Number(m[1]), bits);
  assert.equal(Number(m[2].replaceAll(",", "")), bits);
  assert.equal(Number(m[3]) * 8 * 1024, bits);
  // The largest int within the cap is 2^bits − 1.
  assert.equal(Number(m[4].replaceAll(",", "")), (2n ** BigInt(bits) - 1n).toString().length);
  let factorial = 1n;
  for (let i = 2n; i <= 1000n; i++) factorial *= i;
  assert.equal(figure(doc, /1000! has ([\d,]+) digits/), factorial.toString().length);

  // The default budget bounds a dict below the 2^20-entry growth the text says it cannot reach.
  const budget = defaultLimits().maxMemoryBytes;
  assert.equal(figure(doc, /default (\d+) MiB budget a dict/), budget / MIB);
  const entries = Math.floor(budget / ENTRY_BYTES);
  assert.equal(figure(doc, /a dict holds at most ([\d,]+) entries \(\d+ bytes charged each\)/), entries);
  assert.equal(figure(doc, /holds at most [\d,]+ entries \((\d+) bytes charged each\)/), ENTRY_BYTES);
  assert.ok(entries < 2 ** 20 && entries > 2 ** 19, "between the 2^19 and 2^20 growths, as the text says");
  assert.equal(
    figure(doc, /`maxMemoryBytes` to (\d+) MiB or more lets a dict reach 2\^20/),
    2 ** 20 * ENTRY_BYTES / MIB,
  );
});

Deno.test("docs/gateway.md: max_memory_bytes and the sandbox heap cap are related as the pool sizes it", async () => {
  const doc = read("docs/gateway.md");
  const m =
    /max_memory_bytes: (\d+) # the engine's budget; a sandbox process's V8 heap cap is (\d+) × it \+ (\d+) MiB/
      .exec(doc);
  assert.ok(m !== null, "the max_memory_bytes line is found");
  const [factor, extra] = [Number(m[2]), Number(m[3])];
  for (const budget of [Number(m[1]), 16 * MIB, 100 * MIB, 256 * MIB]) {
    // A pool spawns nothing until used: constructing it only sizes it.
    const pool = new ProcessPool({ maxMemoryBytes: budget });
    try {
      assert.equal(pool.heapLimitMiB, Math.ceil((factor * budget) / MIB) + extra, `budget ${budget}`);
    } finally {
      await pool.close();
    }
  }
});
