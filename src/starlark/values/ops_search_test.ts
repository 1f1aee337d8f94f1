/** Tests of the budgeted substring search: results equal a naive search's, work is charged and polled. */
import assert from "node:assert/strict";
import { countMatches, findIndex, findLastIndex, forEachMatch, SEARCH_WINDOW } from "./ops_search.ts";
import { Thread } from "./value.ts";

const th = new Thread();

function naiveFind(s: string, sub: string, from: number, end: number): number {
  for (let i = from; i + sub.length <= end; i++) if (s.startsWith(sub, i)) return i;
  return -1;
}

function naiveRfind(s: string, sub: string, from: number, end: number): number {
  for (let i = end - sub.length; i >= from; i--) if (s.startsWith(sub, i)) return i;
  return -1;
}

function naiveCount(s: string, sub: string, from: number, end: number): number {
  let n = 0;
  for (let i = from; i + sub.length <= end;) {
    if (s.startsWith(sub, i)) {
      n++;
      i += sub.length;
    } else i++;
  }
  return n;
}

/** A deterministic pseudo-random generator (tests must not depend on Math.random). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

Deno.test("search: agrees with a naive search on small alphabets, all needle classes", () => {
  const rnd = lcg(7);
  const word = (n: number) => Array.from({ length: n }, () => "ab"[Math.floor(rnd() * 2)]).join("");
  for (let t = 0; t < 300; t++) {
    const s = word(1 + Math.floor(rnd() * 60));
    // Short needles use the native search, long ones (over 8 backward) the linear search.
    const sub = word(1 + Math.floor(rnd() * 12));
    const from = Math.floor(rnd() * s.length), end = from + Math.floor(rnd() * (s.length - from + 1));
    assert.equal(
      findIndex(th, s, sub, from, end),
      naiveFind(s, sub, from, end),
      `${s} ${sub} ${from} ${end}`,
    );
    assert.equal(findLastIndex(th, s, sub, from, end), naiveRfind(s, sub, from, end), `${s} ${sub}`);
    assert.equal(countMatches(th, s, sub, from, end), naiveCount(s, sub, from, end), `${s} ${sub}`);
  }
});

Deno.test("search: needles longer than 250 bytes and matches across window boundaries", () => {
  const needle = "a".repeat(300) + "b";
  for (const at of [0, SEARCH_WINDOW - 150, SEARCH_WINDOW - 1, 3 * SEARCH_WINDOW + 17]) {
    const s = "a".repeat(at) + needle + "a".repeat(1000) + needle + "a".repeat(20);
    assert.equal(findIndex(th, s, needle), at);
    assert.equal(findLastIndex(th, s, needle), at + needle.length + 1000);
    assert.equal(countMatches(th, s, needle), 2);
    assert.equal(findIndex(th, s, "ab"), at + 299);
    assert.equal(findLastIndex(th, s, "ba"), at + 2 * needle.length + 1000 - 1);
    assert.equal(countMatches(th, s, "aab"), 2);
    assert.equal(countMatches(th, s, "a", 0, s.length, 5), 5);
  }
  // Overlapping candidates: occurrences do not overlap, left to right.
  assert.equal(countMatches(th, "a".repeat(2 * SEARCH_WINDOW + 1), "aa"), SEARCH_WINDOW);
});

Deno.test("search: a long periodic needle is found in linear time", () => {
  // V8's own indexOf takes O(text × needle) here (seconds); the search must stay far below that.
  const needle = "a".repeat(1000) + "b" + "a".repeat(1000);
  const s = "a".repeat(2_000_000);
  const start = performance.now();
  assert.equal(findIndex(th, s, needle), -1);
  assert.equal(findLastIndex(th, s, needle), -1);
  assert.equal(countMatches(th, s, needle), 0);
  const elapsed = performance.now() - start;
  assert.ok(elapsed < 1000, `took ${elapsed.toFixed(0)} ms`);
});

Deno.test("search: the scan is charged before it runs and polls the interrupt hook", () => {
  let polls = 0;
  const t = new Thread({ checkInterrupt: () => void polls++ });
  const s = "a".repeat(1 << 22);
  countMatches(t, s, "ab");
  // One step per 8 bytes for a native multi-byte search, charged window by window: a poll per window.
  assert.ok(t.steps >= s.length / 8, `${t.steps} steps`);
  assert.ok(polls >= s.length / SEARCH_WINDOW, `${polls} polls`);
  // Dense matches cost a step each.
  const before = t.steps;
  assert.equal(countMatches(t, s, "a"), s.length);
  assert.ok(t.steps - before >= s.length, `${t.steps - before} steps`);
  // A budget stops a long search.
  const small = new Thread({ maxSteps: 1000 });
  assert.throws(() => findIndex(small, s, "xy"), /too many steps/);
});

Deno.test("search: findIndex charges what a one-match forEachMatch charges, across window sizes", () => {
  const rnd = lcg(11);
  const pick = (n: number) => Math.floor(rnd() * n);
  for (let t = 0; t < 400; t++) {
    // Texts around the one-window limit as well as short ones, needles from 1 byte to past the native limit.
    const big = pick(4) === 0;
    const n = big ? SEARCH_WINDOW - 300 + pick(600) : pick(80);
    const s = "ab".repeat(Math.ceil(n / 2)).slice(0, n) + (pick(2) ? "xyz" : "");
    const m = [1, 2, 3, 9, 260][pick(5)];
    const tail = s.slice(Math.max(0, s.length - m));
    const sub = pick(2) === 0 && tail !== "" ? tail : "ab".repeat(m).slice(0, m);
    const from = pick(Math.min(s.length + 2, 40));
    const end = Math.max(0, s.length - pick(Math.min(s.length + 1, 40)));
    const a = new Thread(), b = new Thread();
    let viaLoop = -1;
    forEachMatch(b, s, sub, from, end, 1, (i) => {
      viaLoop = i;
      return true;
    });
    const what = `|s|=${s.length} |sub|=${sub.length} from=${from} end=${end}`;
    assert.equal(findIndex(a, s, sub, from, end), viaLoop, what);
    assert.equal(a.steps, b.steps, what);
  }
});
