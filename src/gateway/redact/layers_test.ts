/**
 * The redactor's coverage, exactly as docs/gateway.md states it: exact bytes, any number of layers of
 * JSON string escapes up to {@link MAX_ESCAPE_LAYERS}, and values nested deeper than the walk goes
 * replaced whole; and what it does not claim to find (base64, case changes, reversal, splitting, zero-
 * width characters), so the documentation cannot promise more than these tests show.
 */
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../domain/mod.ts";
import { decodeEscapes, deeperView, MAX_ESCAPE_LAYERS, MAX_REDACT_DEPTH, REDACTED, Redactor } from "./mod.ts";

function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

/** `JSON.stringify` applied `layers` times. */
function encodeLayers(value: string, layers: number): string {
  let s = value;
  for (let i = 0; i < layers; i++) s = JSON.stringify(s);
  return s;
}

/** An ASCII-only JSON encoder (Python's `ensure_ascii`): every non-ASCII unit as `\uXXXX`. */
function encodeAscii(value: string): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Every layer of escapes peeled off `text` (the text itself first). */
function allLayers(text: string): string[] {
  const out = [text];
  for (let view = decodeEscapes(text); view !== undefined; view = deeperView(view)) out.push(view.text);
  return out;
}

Deno.test("redact: a secret under 1..8 layers of JSON string escapes is found, the rest kept (seeded)", () => {
  const r0 = rng(2026);
  const alphabet = 'ab"\\/\n\t\u0007é中😀-Zx';
  for (let round = 0; round < 120; round++) {
    let secret = "";
    while (secret.length < 8 + r0(10)) secret += alphabet[r0(alphabet.length)];
    // At least one character every encoder escapes, so each layer changes how the secret is written.
    secret = `k${'"\\'[r0(2)]}${secret}`;
    const r = new Redactor({ secrets: [secret] });
    const layers = 1 + (round % MAX_ESCAPE_LAYERS);
    const ascii = round % 3 === 0;
    let inner = secret;
    for (let i = 0; i < layers; i++) inner = ascii ? encodeAscii(inner) : JSON.stringify(inner);
    const text = `before {"token":${inner},"n":${round}} after`;
    const out = r.redactText(text);
    assert.ok(out.count >= 1, `round ${round}, ${layers} layers: not found in ${text}`);
    for (const [i, layer] of allLayers(out.value).entries()) {
      assert.ok(!layer.includes(secret), `round ${round}: the secret survives under layer ${i}`);
    }
    assert.ok(out.value.startsWith('before {"token":'), out.value);
    assert.ok(out.value.endsWith(`,"n":${round}} after`), out.value);
  }
});

Deno.test("redact: layers are peeled only as deep as MAX_ESCAPE_LAYERS", () => {
  const secret = 'q"uote-secret';
  const r = new Redactor({ secrets: [secret] });
  // The deepest layer peeled, and one more, of a standard encoding.
  assert.equal(MAX_ESCAPE_LAYERS, 8, "docs/gateway.md states this number");
  const deepest = encodeLayers(secret, MAX_ESCAPE_LAYERS);
  assert.equal(r.redactText(deepest).count, 1);
  const beyond = encodeLayers(secret, MAX_ESCAPE_LAYERS + 1);
  assert.equal(r.redactText(beyond).value, beyond);
  // A hostile chain of \u005c escapes needs one layer per 5 units: past the bound it stays as it is.
  let chain = '\\"';
  for (let i = 0; i < MAX_ESCAPE_LAYERS + 2; i++) chain = `\\u005c${chain.slice(1)}`;
  const hostile = `q${chain}uote-secret`;
  assert.equal(r.redactText(hostile).value, hostile);
});

Deno.test("redact: a value nested deeper than the walk is replaced whole, never passed unscanned", () => {
  const secret = "deep-secret-7e2f";
  const r = new Redactor({ secrets: [secret] });
  for (const depth of [MAX_REDACT_DEPTH + 1, MAX_REDACT_DEPTH + 40]) {
    let value: JsonValue = { token: secret, other: "kept?" };
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { d: value } : [value];
    const out = r.redactValue(value);
    assert.ok(out.count >= 1);
    // Walk down to where the guard cut: a [REDACTED] string stands for the whole subtree.
    let node: JsonValue = out.value;
    let level = 0;
    while (node !== null && typeof node === "object") {
      node = Array.isArray(node) ? node[0] : (node as JsonObject).d ?? null;
      level++;
    }
    assert.equal(node, REDACTED, `depth ${depth}`);
    assert.ok(level <= MAX_REDACT_DEPTH + 1, `cut at ${level}`);
  }
  // A secret-free deep value fails closed too: past the guard nothing is known to be safe.
  let clean: JsonValue = { ok: "nothing secret" };
  for (let i = 0; i < MAX_REDACT_DEPTH + 5; i++) clean = [clean];
  assert.ok(r.redactValue(clean).count >= 1);
  // Just within the guard the value is walked and kept as it is.
  let shallow: JsonValue = { token: secret };
  for (let i = 0; i < MAX_REDACT_DEPTH - 1; i++) shallow = [shallow];
  const kept = r.redactValue(shallow);
  assert.equal(kept.count, 1);
  assert.ok(
    JSON.stringify(kept.value).endsWith(`{"token":"${REDACTED}"}${"]".repeat(MAX_REDACT_DEPTH - 1)}`),
  );
});

Deno.test("redact: a value nested far past any stack is handled without overflowing", () => {
  const secret = "very-deep-secret-1";
  const r = new Redactor({ secrets: [secret] });
  let value: JsonValue = secret;
  for (let i = 0; i < 200_000; i++) value = [value];
  const out = r.redactValue(value);
  let node: JsonValue = out.value;
  while (Array.isArray(node)) node = node[0];
  assert.equal(node, REDACTED);
});

Deno.test("redact: what is not covered (documented): encodings other than JSON escapes, splits", () => {
  const secret = "Sup3r-Secret-Value";
  const r = new Redactor({ secrets: [secret] });
  const notCovered: Record<string, string> = {
    base64: btoa(secret),
    "upper case": secret.toUpperCase(),
    "lower case": secret.toLowerCase(),
    reversed: [...secret].reverse().join(""),
    "split across lines": `${secret.slice(0, 9)}\n${secret.slice(9)}`,
    "zero-width space inside": `${secret.slice(0, 9)}\u200b${secret.slice(9)}`,
    "percent-encoded": [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(""),
    hex: [...secret].map((c) => c.charCodeAt(0).toString(16)).join(""),
    "HTML entities": [...secret].map((c) => `&#${c.charCodeAt(0)};`).join(""),
    "space inserted": `${secret.slice(0, 9)} ${secret.slice(9)}`,
  };
  for (const [how, text] of Object.entries(notCovered)) {
    assert.equal(r.redactText(text).count, 0, how);
  }
  // Split across items of one value: each item alone is not the secret.
  const items = r.redactValue([secret.slice(0, 9), secret.slice(9)]);
  assert.equal(items.count, 0);
  // Covered, for contrast: exact bytes, and JSON string escapes of any of its characters.
  assert.equal(r.redactText(`x${secret}y`).count, 1);
  assert.equal(r.redactText(secret.replace("S", "\\u0053").replace("-", "\\u002d")).count, 1);
});
