import assert from "node:assert/strict";
import { isCodeModeError } from "../errors.ts";
import { MAX_HINT_BYTES, MAX_QUERY_TOKENS, namespaceHint, type SearchDocument, Searcher } from "./mod.ts";

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

Deno.test("an answer with nothing in it names the catalog's namespaces; the ranking is unchanged", () => {
  const s = new Searcher([
    ...docs,
    {
      name: "weather.forecast",
      signature: "weather.forecast()",
      summary: "Forecast",
      description: "",
      searchTerms: [],
    },
    { name: "ping", signature: "ping()", summary: "Ping", description: "", searchTerms: [] },
  ]);
  const empty = s.search("currency exchange", bounds);
  assert.deepEqual(empty.results, []);
  assert.equal(empty.truncated, false);
  assert.match(empty.hint ?? "", /^nothing matched; the catalog's namespaces are: ping, records, weather \(/);
  // A match carries no hint, and the blank query keeps its plain empty answer.
  assert.equal(s.search("forecast", bounds).hint, undefined);
  assert.equal(s.search("forecast", bounds).results[0].name, "weather.forecast");
  assert.deepEqual(s.search("  ", bounds), { results: [], truncated: false });
  // An empty catalog has nothing to point to.
  assert.equal(new Searcher([]).search("anything", bounds).hint, undefined);
});

Deno.test("the namespace hint stays within its byte bound however many namespaces there are", () => {
  const names = Array.from({ length: 500 }, (_, i) => `namespace_number_${String(i).padStart(3, "0")}.op`);
  const hint = namespaceHint(names)!;
  assert.ok(new TextEncoder().encode(hint).length <= MAX_HINT_BYTES, `${hint.length}`);
  assert.match(hint, /namespace_number_000, namespace_number_001/);
  const listed = hint.match(/namespace_number_\d+/g)!.length;
  assert.match(hint, new RegExp(` and ${500 - listed} more \\(`));
});
