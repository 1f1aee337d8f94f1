import assert from "node:assert/strict";
import { globCovers, globMatches, toolGlobProblem } from "./pattern.ts";

/** A deterministic generator, so a failure names a case that can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function pick(next: () => number, alphabet: string, max: number): string {
  let out = "";
  const len = Math.floor(next() * (max + 1));
  for (let i = 0; i < len; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

/**
 * The reference model, written independently of the matcher: a pattern is the regular expression whose
 * literal parts are escaped and whose `*` is `.*` (any run, empty or not, `__` included), anchored at
 * both ends.
 */
function reference(pattern: string, name: string): boolean {
  const body = pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${body}$`, "s").test(name);
}

Deno.test("tool pattern: matches like the reference model over generated patterns and names", () => {
  const next = rng(25);
  // A small alphabet with the separator's character makes `__` and near-misses (`_`, `___`) frequent.
  for (let i = 0; i < 20_000; i++) {
    const pattern = pick(next, "ab_*", 8);
    const name = pick(next, "ab_.", 9);
    assert.equal(globMatches(pattern, name), reference(pattern, name), `${pattern} vs ${name}`);
  }
});

Deno.test("tool pattern: the documented examples", () => {
  const cases: [string, string, boolean][] = [
    ["memory__read_*", "memory__read_graph", true],
    ["memory__read_*", "memory__read_", true], // `*` may match nothing
    ["memory__read_*", "memory__read", false],
    ["memory__read_*", "memory2__read_graph", false], // matched against the whole name
    ["memory__read_*", "xmemory__read_graph", false],
    ["*__search_*", "github__search_issues", true],
    ["*__search_*", "memory__search_nodes", true],
    ["*__search_*", "memory__find_search_x", false],
    ["*__search_*", "gw__inner__search_x", true], // `*` crosses `__`
    ["memory__*", "memory__a__b", true],
    ["mem*__*", "memory__x", true],
    ["memory__*_graph", "memory__read_graph", true],
    ["memory__*_graph", "memory__read_graph2", false],
    ["Memory__*", "memory__x", false], // case-sensitive
  ];
  for (const [p, n, want] of cases) assert.equal(globMatches(p, n), want, `${p} vs ${n}`);
});

Deno.test("tool pattern: shape — a separator with something on each side", () => {
  for (const good of ["memory__*", "*__*", "*__search", "a___*", "memory__read_*", "m*y__x"]) {
    assert.equal(toolGlobProblem(good), undefined, good);
  }
  for (const bad of ["*", "mem*", "memory", "__*", "memory__", "*__", "a____b", "x".repeat(257) + "__*"]) {
    assert.notEqual(toolGlobProblem(bad), undefined, bad);
  }
});

/** Every string over `alphabet` up to `max` characters long. */
function allStrings(alphabet: string, max: number): string[] {
  const out = [""];
  for (let start = 0; start < out.length; start++) {
    if (out[start].length === max) continue;
    for (const c of alphabet) out.push(out[start] + c);
  }
  return out;
}

Deno.test("tool pattern: coverage agrees with brute force over every short name", () => {
  const next = rng(7);
  // Names over the patterns' letters plus one they never use: a `*` can stand for a character no
  // literal matches, which is what makes `a*` not covered by `ab*`.
  const names = allStrings("abz", 6);
  for (let i = 0; i < 1_500; i++) {
    const outer = pick(next, "ab*", 4);
    const inner = pick(next, "ab*", 4);
    const brute = names.every((n) => !globMatches(inner, n) || globMatches(outer, n));
    assert.equal(globCovers(outer, inner), brute, `${outer} covers ${inner}`);
  }
  assert.equal(globCovers("memory__*", "memory__read_*"), true);
  assert.equal(globCovers("memory__read_*", "memory__*"), false);
  assert.equal(globCovers("*__search*", "github__search_issues"), true);
  assert.equal(globCovers("memory__delete_*", "memory__delete_entities"), true);
  assert.equal(globCovers("memory__delete", "memory__delete_*"), false);
});
