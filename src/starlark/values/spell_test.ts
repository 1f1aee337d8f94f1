/**
 * Tests of the spelling hint (spell.ts) against a plain model of its rule: names folded (underscores
 * dropped, ASCII lowered), a candidate suggested when its edit distance is under half the folded name's
 * length, the first one at the smallest distance winning. Long names are turned down without folding
 * them; the model checks that this shortcut never changes an answer, right at its threshold.
 */
import assert from "node:assert/strict";
import { seededRandom } from "../seeded_random_test.ts";
import { nearest } from "./spell.ts";

function fold(s: string): string {
  let out = "";
  for (const ch of s) if (ch !== "_") out += ch >= "A" && ch <= "Z" ? ch.toLowerCase() : ch;
  return out;
}

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = row;
  }
  return prev[b.length];
}

function model(name: string, candidates: readonly string[]): string {
  const x = fold(name);
  let best = "";
  let bestD = Math.floor((x.length + 1) / 2);
  for (const c of candidates) {
    const d = levenshtein(x, fold(c));
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best;
}

const CANDIDATES = ["append", "clear", "extend", "index", "insert", "pop", "remove", "split_lines", "x"];

Deno.test("nearest: equals the model for generated names, long ones at the shortcut's threshold", () => {
  const rnd = seededRandom(22_002);
  const letters = "abcdeilnoprstxAEIPX__";
  const longest = Math.max(...CANDIDATES.map((c) => c.length));
  for (let n = 0; n < 3_000; n++) {
    // Lengths around 2·longest + 1, where long names stop being folded, and some far beyond.
    const len = n % 3 === 0 ? Math.floor(rnd() * 60) : 2 * longest - 3 + Math.floor(rnd() * 8);
    let name = "";
    for (let i = 0; i < len; i++) name += letters[Math.floor(rnd() * letters.length)];
    // Mutations of a candidate, padded with underscores (folded away) to cross the threshold.
    if (n % 5 === 0) {
      const c = CANDIDATES[Math.floor(rnd() * CANDIDATES.length)];
      name = "_".repeat(Math.floor(rnd() * 40)) + c.toUpperCase().slice(1) +
        "_".repeat(Math.floor(rnd() * 40));
    }
    assert.equal(nearest(name, CANDIDATES), model(name, CANDIDATES), JSON.stringify(name));
  }
});

Deno.test("nearest: a name of megabytes gets no hint, underscores or capitals alike", () => {
  assert.equal(nearest("X".repeat(5_000_000), CANDIDATES), "");
  assert.equal(nearest("_".repeat(5_000_000) + "APPEN", CANDIDATES), "append");
  assert.equal(nearest("_".repeat(5_000_000), CANDIDATES), "");
});
