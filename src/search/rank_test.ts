import assert from "node:assert/strict";
import { type IndexInput, SearchIndex } from "./index.ts";
import { rank, requiredMatches } from "./rank.ts";
import { tokenize } from "./tokenize.ts";

function doc(name: string, summary: string, extra: Partial<IndexInput> = {}): IndexInput {
  return { name, summary, description: summary, searchTerms: [], ...extra };
}

function run(docs: IndexInput[], query: string, limit = 20) {
  const index = new SearchIndex(docs);
  const r = rank(index, tokenize(query), query.trim().toLowerCase(), limit, true);
  return {
    names: r.top.map((d) => docs[d].name),
    scores: Object.fromEntries([...r.scores!].map(([d, s]) => [docs[d].name, s])),
    eligible: r.eligible,
  };
}

const catalog = [
  doc("records.lookup", "Look up one stored record", { searchTerms: ["fetch entry"] }),
  doc("records.list", "List stored records"),
  doc("users.lookup", "Look up a user"),
  doc("files.read", "Read a file", { description: "Reads file contents from disk" }),
];

Deno.test("rarity is 1 + floor((N − df) · 7 / N)", () => {
  const index = new SearchIndex(catalog);
  const rarity = (t: string) => index.rarity[index.tokenIds.get(t)!];
  assert.equal(rarity("lookup"), 1 + Math.floor((4 - 2) * 7 / 4)); // 4
  assert.equal(rarity("records"), 4);
  assert.equal(rarity("record"), 6);
  assert.equal(rarity("stored"), 4);
  const all = new SearchIndex([doc("a.x", "common"), doc("b.x", "common")]);
  assert.equal(all.rarity[all.tokenIds.get("common")!], 1);
  assert.equal(all.rarity[all.tokenIds.get("x")!], 1);
});

Deno.test("exact name matches weigh 12 × rarity × 100; ties order by name", () => {
  const r = run(catalog, "lookup");
  assert.deepEqual(r.names, ["records.lookup", "users.lookup"]);
  assert.deepEqual(r.scores, { "records.lookup": 4800, "users.lookup": 4800 });
});

Deno.test("prefix matches need 3 runes and weigh 72", () => {
  const r = run(catalog, "rec");
  // records (name, rarity 4) beats record (summary, rarity 6): 12·4·72 = 3456 > 5·6·72.
  assert.deepEqual(r.scores, { "records.list": 3456, "records.lookup": 3456 });
  assert.deepEqual(r.names, ["records.list", "records.lookup"]);
  assert.deepEqual(run(catalog, "re").names, [], "two runes never match as a prefix");
  assert.deepEqual(run(catalog, "ecords").names, [], "no infix matching");
  assert.deepEqual(run(catalog, "lookups").names, [], "no stemming");
});

Deno.test("search terms weigh 10, summary 5, description 2", () => {
  // fetch: only in doc 0's search terms, rarity 1 + floor(3·7/4) = 6.
  assert.deepEqual(run(catalog, "fetch").scores, { "records.lookup": 10 * 6 * 100 });
  // contents: only in the description of files.read.
  assert.deepEqual(run(catalog, "contents").scores, { "files.read": 2 * 6 * 100 });
  // disk: description; file: summary (exact, rarity 6) and description (file, files? no: files is in the name).
  assert.deepEqual(
    run(catalog, "file").scores,
    { "files.read": 12 * 6 * 72 },
    "prefix in the name beats exact in summary",
  );
});

Deno.test("within one field an exact match beats a prefix match even when the product is lower", () => {
  const docs = [doc("d0.op", "file filesystem")];
  for (let i = 1; i < 8; i++) docs.push(doc(`d${i}.op`, "file"));
  // file: df 8 → rarity 1; filesystem: df 1 → rarity 1 + floor(7·7/8) = 7.
  const r = run(docs, "file");
  assert.equal(r.scores["d0.op"], 5 * 1 * 100, "not 5·7·72 = 2520");
  assert.equal(r.eligible, 8);
});

Deno.test("each query token counts once; score = Σ × matched ÷ q", () => {
  const docs = [doc("alpha.op", "red green"), doc("beta.op", "red blue"), doc("gamma.op", "blue")];
  // red: df 2 → rarity 1 + floor(7/3) = 3; green: df 1 → 5; blue: df 2 → 3.
  const r = run(docs, "red green blue");
  // q = 3 needs 2 matches. alpha: red 5·3·100 + green 5·5·100 = 4000, ×2÷3 = 2666. beta: red + blue = 3000, ×2÷3 = 2000.
  assert.deepEqual(r.scores, { "alpha.op": 2666, "beta.op": 2000 });
  assert.deepEqual(r.names, ["alpha.op", "beta.op"]);
  assert.equal(r.eligible, 2, "gamma matches only one of three");
  assert.deepEqual(
    run(docs, "red red RED").scores,
    { "alpha.op": 1500, "beta.op": 1500 },
    "duplicates count once",
  );
});

Deno.test("eligibility: q = 1 → 1, q = 2 → 2, q ≥ 3 → ceil(2q/3)", () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 16].map(requiredMatches), [1, 2, 2, 3, 4, 4, 5, 11]);
  const docs = [doc("x.op", "one two three"), doc("y.op", "one")];
  assert.deepEqual(run(docs, "one two").names, ["x.op"]);
  assert.deepEqual(run(docs, "one nine").names, []);
  assert.deepEqual(run(docs, "one two nine").names, ["x.op"]);
  assert.deepEqual(run(docs, "one two nine ten").names, []);
  assert.deepEqual(run(docs, "one two three ten").names, ["x.op"]);
});

Deno.test("an exact dotted-name query ranks first, case-insensitively after trimming", () => {
  const docs = [doc("records.lookup", "x"), doc("lookup.records", "x")];
  assert.deepEqual(run(docs, "lookup records").names, ["lookup.records", "records.lookup"]);
  assert.deepEqual(run(docs, "records.lookup").names, ["records.lookup", "lookup.records"]);
  assert.deepEqual(run(docs, "  RECORDS.Lookup\t").names, ["records.lookup", "lookup.records"]);
  // Every case-insensitive match comes first (names are case-sensitive, so several can).
  const cased = [doc("Rec.get", "x"), doc("rec.get", "x"), doc("get.rec", "x")];
  assert.deepEqual(run(cased, "REC.GET").names, ["Rec.get", "rec.get", "get.rec"]);
});

Deno.test("score descending, then name ascending by code point", () => {
  const docs = [
    doc("z.op", "apple"),
    doc("a.op", "apple"),
    doc("m.op", "apple apple", { searchTerms: ["apple"] }),
  ];
  assert.deepEqual(run(docs, "apple").names, ["m.op", "a.op", "z.op"]);
  const unicode = [doc("b\uffff.op", "tok"), doc("b\u{10000}.op", "tok"), doc("bz.op", "tok")];
  assert.deepEqual(run(unicode, "tok").names, ["bz.op", "b\uffff.op", "b\u{10000}.op"]);
});

Deno.test("top-k selection equals a full sort", () => {
  const docs = Array.from(
    { length: 300 },
    (_, i) =>
      doc(
        `n${(i * 7919) % 300}.op`,
        i % 3 === 0 ? "widget widget tool" : i % 3 === 1 ? "widget" : "tool widget",
        {
          searchTerms: i % 5 === 0 ? ["widget"] : [],
        },
      ),
  );
  const full = run(docs, "widget tool", 1000).names;
  for (const k of [1, 5, 20, 64, 65, 299]) {
    assert.deepEqual(run(docs, "widget tool", k).names, full.slice(0, k), `k=${k}`);
  }
});

Deno.test("empty index or empty query", () => {
  assert.deepEqual(run([], "x").names, []);
  assert.deepEqual(run(catalog, "").names, []);
});
