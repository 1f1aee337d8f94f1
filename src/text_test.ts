import assert from "node:assert/strict";
import { hasSurroundingSpace, isIdentifier, quote, trimSpace, utf8Length } from "./text.ts";

Deno.test("trimSpace and hasSurroundingSpace follow Go's unicode.IsSpace", () => {
  assert.equal(trimSpace(" \t\n\v\f\r\u0085\u00a0x y\u3000\u2028"), "x y");
  assert.equal(trimSpace("\ufeffx"), "\ufeffx"); // BOM is not whitespace in Go
  assert.equal(hasSurroundingSpace("x"), false);
  assert.equal(hasSurroundingSpace("a b"), false);
  assert.equal(hasSurroundingSpace(" x"), true);
  assert.equal(hasSurroundingSpace("x\u0085"), true);
  assert.equal(hasSurroundingSpace("\u00a0x"), true);
  assert.equal(hasSurroundingSpace("\ufeffx"), false);
});

Deno.test("utf8Length matches TextEncoder", () => {
  const enc = new TextEncoder();
  for (const s of ["", "abc", "é", "€", "😀", "a😀b€", "\ud800", "x\udc00y", "\ud800\ud800"]) {
    assert.equal(utf8Length(s), enc.encode(s).length, JSON.stringify(s));
  }
});

Deno.test("isIdentifier follows the reference scanner", () => {
  for (const ok of ["a", "_", "_a1", "records", "é", "ǅx", "None", "True", "assert", "x9"]) {
    assert.ok(isIdentifier(ok), ok);
  }
  for (
    const bad of ["", "1a", "a-b", "a b", "x٣", "x²", "def", "lambda", "load", "as", "import", "yield", "not"]
  ) {
    assert.ok(!isIdentifier(bad), bad);
  }
});

Deno.test("quote shortens long values", () => {
  assert.equal(quote("ab"), '"ab"');
  assert.equal(quote("abcdef", 3), '"abc…"');
});
