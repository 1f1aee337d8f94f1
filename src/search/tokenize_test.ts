import assert from "node:assert/strict";
import { CONNECTOR_WORDS, runeCount, splitWords, tokenize } from "./tokenize.ts";

Deno.test("camel case splits lower→upper unless the token began upper-case", () => {
  assert.deepEqual(tokenize("createReview"), ["create", "review"]);
  assert.deepEqual(tokenize("GitHub"), ["github"]);
  assert.deepEqual(tokenize("MySQL"), ["mysql"]);
  assert.deepEqual(tokenize("GitHub.Pulls.createReview"), ["github", "pulls", "create", "review"]);
  assert.deepEqual(tokenize("AbC"), ["abc"]);
  assert.deepEqual(tokenize("aB"), ["b"], "'a' is a connector");
  assert.deepEqual(splitWords("xY"), ["x", "Y"]);
});

Deno.test("acronyms split before the last capital of a run followed by lower case", () => {
  assert.deepEqual(tokenize("parseXMLFile"), ["parse", "xml", "file"]);
  assert.deepEqual(tokenize("getHTTPResponse"), ["get", "http", "response"]);
  assert.deepEqual(tokenize("XMLParser"), ["xml", "parser"]);
  assert.deepEqual(tokenize("HTTP"), ["http"]);
  assert.deepEqual(tokenize("MySQLDatabase"), ["mysql", "database"]);
  assert.deepEqual(splitWords("ABc"), ["A", "Bc"]);
});

Deno.test("letter↔digit changes split", () => {
  assert.deepEqual(tokenize("v2Api"), ["v", "2", "api"]);
  assert.deepEqual(tokenize("ipv6addr"), ["ipv", "6", "addr"]);
  assert.deepEqual(tokenize("HTTPServer2Go"), ["http", "server", "2", "go"]);
  assert.deepEqual(tokenize("2FA"), ["2", "fa"]);
  assert.deepEqual(tokenize("x٣y"), ["x", "٣", "y"], "Unicode decimal digits are digits");
});

Deno.test("every non-letter, non-digit rune separates", () => {
  assert.deepEqual(tokenize("x_y-z.w/v\tu"), ["x", "y", "z", "w", "v", "u"]);
  assert.deepEqual(tokenize("x²y"), ["x", "y"], "superscripts are not decimal digits");
  assert.deepEqual(tokenize("ab\u0301c"), ["ab", "c"], "combining marks separate");
  assert.deepEqual(tokenize("😀fish"), ["fish"]);
  assert.deepEqual(tokenize("  \u00a0 "), []);
});

Deno.test("Unicode letters and case", () => {
  assert.deepEqual(tokenize("ÉcoleNormale"), ["écolenormale"]);
  assert.deepEqual(tokenize("straße"), ["straße"]);
  assert.deepEqual(tokenize("ΑΒΓδ"), ["αβ", "γδ"]);
  assert.deepEqual(tokenize("東京タワー"), ["東京タワー"], "letters without case stay together");
  assert.deepEqual(splitWords("x𝐀b"), ["x", "𝐀b"], "astral upper-case letters (surrogate pairs) split too");
});

Deno.test("connector words are removed and tokens deduplicated in first-occurrence order", () => {
  assert.equal(CONNECTOR_WORDS.size, 13);
  for (const w of ["a", "an", "and", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with"]) {
    assert.deepEqual(tokenize(w.toUpperCase()), [], w);
  }
  assert.deepEqual(tokenize("Find the records of a user and the User's records"), [
    "find",
    "records",
    "user",
    "s",
  ]);
  assert.deepEqual(tokenize("toString"), ["string"]);
  assert.deepEqual(tokenize("into onto"), ["into", "onto"]);
});

Deno.test("runeCount counts code points", () => {
  assert.equal(runeCount("abc"), 3);
  assert.equal(runeCount("é😀"), 2);
  assert.equal(runeCount("\ud800x"), 2);
});
