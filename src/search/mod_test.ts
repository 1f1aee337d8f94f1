import assert from "node:assert/strict";
import { isCodeModeError } from "../errors.ts";
import { MAX_QUERY_TOKENS, type SearchDocument, Searcher } from "./mod.ts";

const docs: SearchDocument[] = [
  {
    name: "records.lookup",
    signature: "records.lookup(*, key: str)",
    summary: "Look up one stored record",
    description: "Look up one stored record",
    searchTerms: ["fetch entry"],
  },
  {
    name: "records.list",
    signature: "records.list()",
    summary: "List stored records",
    description: "List stored records",
    searchTerms: [],
  },
];
const bounds = { maxSearchQueryBytes: 256, maxSearchResults: 20 };

Deno.test("results carry name, signature and summary only", () => {
  const s = new Searcher(docs);
  assert.deepEqual(s.search("fetch", bounds), {
    results: [{
      name: "records.lookup",
      signature: "records.lookup(*, key: str)",
      summary: "Look up one stored record",
    }],
    truncated: false,
  });
});

Deno.test("blank and connector-only queries return no results, not an error", () => {
  const s = new Searcher(docs);
  for (const q of ["", "   ", "the of and", "-- ..", "a an"]) {
    assert.deepEqual(s.search(q, bounds), { results: [], truncated: false });
  }
});

Deno.test("raw query bytes are checked first, padding counts", () => {
  const s = new Searcher(docs);
  const exact = "records" + " ".repeat(256 - 7);
  assert.equal(s.search(exact, bounds).results.length, 2);
  assert.throws(
    () => s.search(exact + " ", bounds),
    (e) => isCodeModeError(e, "resource_limit") && /257 bytes/.test(e.message),
  );
  assert.throws(() => s.search("é".repeat(129), bounds), (e) => isCodeModeError(e, "resource_limit"));
  assert.throws(
    () => s.search(" ".repeat(300), bounds),
    (e) => isCodeModeError(e, "resource_limit"),
    "even when blank",
  );
});

Deno.test("more than 16 distinct tokens is a resource error; duplicates and connectors do not count", () => {
  const s = new Searcher(docs);
  const words = Array.from({ length: MAX_QUERY_TOKENS }, (_, i) => `w${String.fromCharCode(97 + i)}x`);
  assert.deepEqual(s.search(words.join(" "), bounds).results, []);
  assert.deepEqual(s.search([...words, ...words, "the", "of"].join(" "), bounds).results, []);
  assert.throws(
    () => s.search([...words, "extra"].join(" "), bounds),
    (e) => isCodeModeError(e, "resource_limit") && /17 distinct tokens/.test(e.message),
  );
});

Deno.test("maxSearchResults truncates", () => {
  const s = new Searcher(docs);
  assert.deepEqual(s.search("records", { ...bounds, maxSearchResults: 1 }), {
    results: [{ name: "records.list", signature: "records.list()", summary: "List stored records" }],
    truncated: true,
  });
  assert.equal(s.search("records", bounds).truncated, false);
});

Deno.test("responses are fresh arrays", () => {
  const s = new Searcher(docs);
  const a = s.search("records", bounds);
  a.results.pop();
  assert.equal(s.search("records", bounds).results.length, 2);
  assert.ok(Object.isFrozen(s.search("records", bounds).results[0]));
});
