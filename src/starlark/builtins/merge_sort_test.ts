import assert from "node:assert/strict";
import { seededRandom } from "../seeded_random_test.ts";
import { sortIndicesByNumber, sortStrings } from "./merge_sort.ts";

/** Value pools with many ties, with -0 and 0, with infinities, and with no ties at all. */
function numbers(rand: () => number, n: number, kind: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const r = rand();
    out[i] = kind === 0
      ? Math.floor(r * 10)
      : kind === 1
      ? [0, -0, Infinity, -Infinity, 1.5, -1.5][Math.floor(r * 6)]
      : kind === 2
      ? (r - 0.5) * 1e300
      : n - i; // descending: the worst case of the insertion runs
  }
  return out;
}

Deno.test("sortIndicesByNumber: the order of a stable comparison sort, on generated values of every shape", () => {
  const rand = seededRandom(9100);
  for (const n of [0, 1, 2, 15, 16, 17, 100, 1000, 70_000, 200_003]) {
    for (let kind = 0; kind < 4; kind++) {
      const vals = numbers(rand, n, kind);
      const expected = Array.from({ length: n }, (_, i) => i).sort((a, b) => vals[a] - vals[b] || a - b);
      let polls = 0;
      const got = sortIndicesByNumber(vals, Int32Array.from({ length: n }, (_, i) => i), () => void polls++);
      // -0 and 0 compare equal, so ties between them keep their original order too.
      assert.deepEqual(Array.from(got), expected, `n=${n} kind=${kind}`);
      // A poll per 65,536 comparisons; a merge compares at least half of what it moves.
      const merged = n * Math.ceil(Math.log2(Math.max(n, 16) / 16));
      assert.ok(polls >= Math.floor(merged / 2 / 65536), `n=${n}: ${polls} polls`);
    }
  }
});

Deno.test("sortIndicesByNumber: sorts a subset of indices (absent positions left out)", () => {
  const vals = Float64Array.from([5, 3, 9, 3, 1]);
  const got = sortIndicesByNumber(vals, Int32Array.from([0, 1, 3, 4]), () => {});
  assert.deepEqual(Array.from(got), [4, 1, 3, 0]);
});

Deno.test("sortStrings: the native order, polled, on generated strings around the run size", () => {
  const rand = seededRandom(9101);
  const alphabet = ["a", "b", "é", "\x00", "z", "ab", "\xff"];
  for (const n of [0, 1, 5000, 16_384, 16_385, 50_000, 140_000]) {
    const values: string[] = [];
    for (let i = 0; i < n; i++) {
      let s = "";
      const len = Math.floor(rand() * 6);
      for (let j = 0; j < len; j++) s += alphabet[Math.floor(rand() * alphabet.length)];
      values.push(s);
    }
    let polls = 0;
    const got = sortStrings(values, () => void polls++);
    assert.deepEqual(got, values.slice().sort(), `n=${n}`);
    // One poll per native run at least, when there is more than one run.
    assert.ok(polls >= (n > 16_384 ? Math.ceil(n / 16_384) : 0), `n=${n}: ${polls} polls`);
  }
});
