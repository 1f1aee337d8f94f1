import assert from "node:assert/strict";
import type { JsonObject } from "../domain/mod.ts";
import {
  anchorIsLiteralPrefix,
  Automaton,
  decodeEscapes,
  jsonByteLength,
  mergeIntervals,
  REDACTED,
  Redactor,
} from "./mod.ts";

/** Reference: every occurrence interval of every pattern, merged by brute force. */
function bruteIntervals(text: string, patterns: string[]): number[] {
  const starts: [number, number][] = [];
  for (const p of patterns) {
    if (p === "") continue;
    for (let i = text.indexOf(p); i >= 0; i = text.indexOf(p, i + 1)) starts.push([i, i + p.length]);
  }
  starts.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [s, e] of starts) {
    if (out.length > 0 && out[out.length - 1] >= s) out[out.length - 1] = Math.max(out[out.length - 1], e);
    else out.push(s, e);
  }
  return out;
}

Deno.test("redact: the automaton finds overlapping, nested and adjacent occurrences, merged", () => {
  const a = new Automaton(["abcdef", "defghi", "cd", "xyz"]);
  assert.deepEqual(a.intervals("__abcdefghi__"), [2, 11]); // overlap
  assert.deepEqual(a.intervals("xyzxyz"), [0, 6]); // adjacent
  assert.deepEqual(a.intervals("-cd-"), [1, 3]); // nested pattern alone
  assert.deepEqual(a.intervals("xyz xyz"), [0, 3, 4, 7]); // separate
  assert.deepEqual(a.intervals("nothing here"), []);
  // A long match swallowing several earlier merged ones.
  const b = new Automaton(["bb", "dd", "abbcdde"]);
  assert.deepEqual(b.intervals("abbcdde"), [0, 7]);
});

Deno.test("redact: the automaton agrees with brute force on seeded random texts", () => {
  let seed = 12345;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const word = (len: number) => Array.from({ length: len }, () => "abc"[rnd(3)]).join("");
  for (let round = 0; round < 300; round++) {
    const patterns = Array.from({ length: 1 + rnd(5) }, () => word(1 + rnd(4)));
    const text = word(rnd(40));
    assert.deepEqual(
      new Automaton(patterns).intervals(text),
      bruteIntervals(text, patterns),
      `${patterns} ${text}`,
    );
  }
});

Deno.test("redact: the skip filter misses nothing on long texts (seeded, against brute force)", () => {
  let seed = 987;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const word = (len: number, alphabet: string) =>
    Array.from({ length: len }, () => alphabet[rnd(alphabet.length)]).join("");
  for (let round = 0; round < 60; round++) {
    const patterns = Array.from({ length: 1 + rnd(8) }, () => word(4 + rnd(12), "abcd"));
    // Long texts (the filter only runs past four times the longest pattern) with planted occurrences.
    let text = word(200 + rnd(3000), "abcdefgh");
    for (let k = 0; k < 5; k++) {
      const at = rnd(text.length);
      text = text.slice(0, at) + patterns[rnd(patterns.length)] + text.slice(at);
    }
    assert.deepEqual(
      new Automaton(patterns).intervals(text),
      bruteIntervals(text, patterns),
      `round ${round}`,
    );
  }
});

Deno.test("redact: an escaped secret deep inside a long text is found", () => {
  const secret = "deep-secret-0123456789";
  const r = new Redactor({ secrets: [secret] });
  const escaped = secret.replace("0", "\\u0030").replace("-", "\\u002d").replace("d", "\\u0064");
  const text = "x".repeat(50_000) + `{"a":"${escaped}"}` + "\\n".repeat(10) + "y".repeat(50_000) + secret;
  const out = r.redactText(text);
  assert.equal(out.count, 2);
  assert.ok(!out.value.includes("0123456789"));
  assert.ok(out.value.startsWith("x".repeat(50_000) + `{"a":"${REDACTED}"}`));
});

Deno.test("redact: interval merging joins overlap and adjacency", () => {
  assert.deepEqual(mergeIntervals([0, 2, 10, 12], [2, 4, 11, 15, 20, 21]), [0, 4, 10, 15, 20, 21]);
  assert.deepEqual(mergeIntervals([], [1, 2]), [1, 2]);
});

Deno.test("redact: overlapping secrets become one replacement, adjacent ones too", () => {
  const r = new Redactor({ secrets: ["tok-ABCDEF", "DEF-123456"] });
  assert.deepEqual(r.redactText("x tok-ABCDEF-123456 y"), { value: `x ${REDACTED} y`, count: 1 });
  assert.deepEqual(r.redactText("tok-ABCDEFDEF-123456"), { value: REDACTED, count: 1 });
  assert.deepEqual(r.redactText("tok-ABCDEF and DEF-123456"), {
    value: `${REDACTED} and ${REDACTED}`,
    count: 2,
  });
  assert.deepEqual(r.redactText("nothing"), { value: "nothing", count: 0 });
});

Deno.test("redact: a secret split by JSON escapes is still caught", () => {
  const secret = "s3cr3t-value-42";
  const r = new Redactor({ secrets: [secret] });
  // JSON text inside a text content item, the secret written with \u escapes and an escaped slash.
  const text = JSON.stringify({ token: "x" }).replace("x", "s3cr\\u0033t-val\\u0075e-42");
  const out = r.redactText(text);
  assert.equal(out.count, 1);
  assert.ok(!out.value.includes("u0033"), out.value);
  assert.equal(out.value, `{"token":"${REDACTED}"}`);
  // A secret containing a quote, which JSON text escapes.
  const q = new Redactor({ secrets: ['pa"ss-word'] });
  assert.deepEqual(q.redactText(JSON.stringify({ p: 'pa"ss-word' })), {
    value: `{"p":"${REDACTED}"}`,
    count: 1,
  });
  // The decoded JSON value of the wire form holds the secret whole.
  const wire = '{"content":[{"type":"text","text":"s3cr\\u0033t-value-42"}]}';
  const decoded = r.redactValue(JSON.parse(wire));
  assert.equal(decoded.count, 1);
  assert.deepEqual(decoded.value, { content: [{ type: "text", text: REDACTED }] });
  // A backslash that starts no escape is kept.
  assert.equal(decodeEscapes("a\\qb"), undefined);
});

Deno.test("redact: anchored patterns run only where the anchor occurs", () => {
  let runs = 0;
  const r = new Redactor({
    patterns: [{ name: "aws", regex: "AKIA[0-9A-Z]{16}", anchor: "AKIA" }],
  });
  assert.deepEqual(r.redactText("key AKIAABCDEFGHIJKLMNOP end"), { value: `key ${REDACTED} end`, count: 1 });
  // Two adjacent matches join into one replacement, like adjacent secrets.
  assert.deepEqual(r.redactText("AKIAABCDEFGHIJKLMNOPAKIAABCDEFGHIJKLMNOP"), { value: REDACTED, count: 1 });
  assert.deepEqual(r.redactText("AKIAABCDEFGHIJKLMNOP AKIAABCDEFGHIJKLMNOP"), {
    value: `${REDACTED} ${REDACTED}`,
    count: 2,
  });
  // Gating: a regex that would match without the anchor does not run where the anchor is absent.
  const gated = new Redactor({ patterns: [{ name: "digits", regex: "[0-9]{6}", anchor: "pin=" }] });
  assert.deepEqual(gated.redactText("order 123456"), { value: "order 123456", count: 0 });
  assert.deepEqual(gated.redactText("pin=123456"), { value: `pin=${REDACTED}`, count: 1 });
  // Observe gating directly: a regex whose source counts its executions.
  const counting = new Redactor({ patterns: [{ name: "c", regex: "zz", anchor: "ANCHOR" }] });
  const orig = RegExp.prototype.exec;
  RegExp.prototype.exec = function (this: RegExp, s: string) {
    if (this.source === "zz") runs++;
    return orig.call(this, s);
  };
  try {
    counting.redactText("zz zz no anchor");
    assert.equal(runs, 0);
    assert.deepEqual(counting.redactText("zz ANCHOR"), { value: `${REDACTED} ANCHOR`, count: 1 });
    assert.ok(runs >= 1);
  } finally {
    RegExp.prototype.exec = orig;
  }
});

Deno.test("redact: many anchored patterns gate independently", () => {
  const patterns = Array.from(
    { length: 40 },
    (_, i) => ({ name: `p${i}`, regex: `K${i}x[0-9]+`, anchor: `K${i}x` }),
  );
  const r = new Redactor({ patterns });
  assert.deepEqual(r.redactText("K3x11 K35x22 K39x"), { value: `${REDACTED} ${REDACTED} K39x`, count: 2 });
});

function deepFreeze(v: JsonObject): JsonObject {
  for (const x of Object.values(v)) if (x !== null && typeof x === "object") deepFreeze(x as JsonObject);
  return Object.freeze(v);
}

Deno.test("redact: values are walked, keys included, and never mutated", () => {
  const r = new Redactor({ secrets: ["hunter2-secret"] });
  const input = deepFreeze({
    content: [{ type: "text", text: "pw hunter2-secret" }],
    structuredContent: { "hunter2-secret": 1, n: 5, ok: true, nil: null },
    untouched: { a: "b" },
  });
  const out = r.redactValue(input);
  assert.equal(out.count, 2);
  assert.deepEqual(out.value.content, [{ type: "text", text: `pw ${REDACTED}` }]);
  assert.deepEqual(out.value.structuredContent, { [REDACTED]: 1, n: 5, ok: true, nil: null });
  assert.equal(out.value.untouched, input.untouched, "unchanged subtrees are shared");
  assert.equal((input.content as JsonObject[])[0].text, "pw hunter2-secret");
  const same = r.redactValue(input.untouched as JsonObject);
  assert.equal(same.value, input.untouched);
  assert.equal(same.count, 0);
});

Deno.test("redact: secrets then patterns in one text; counts add up", () => {
  const r = new Redactor({
    secrets: ["SERVICE-TOKEN-XYZ"],
    patterns: [{ name: "gh", regex: "ghp_[A-Za-z0-9]{8}", anchor: "ghp_" }],
  });
  const out = r.redactText("a SERVICE-TOKEN-XYZ b ghp_abcd1234 c");
  assert.deepEqual(out, { value: `a ${REDACTED} b ${REDACTED} c`, count: 2 });
  // A pattern match overlapping a secret joins it: no tail of either is left.
  const o = new Redactor({
    secrets: ["tok-SECRET-9"],
    patterns: [{ name: "k", regex: "SECRET-9[0-9]{4}", anchor: "SECRET-" }],
  });
  assert.deepEqual(o.redactText("x tok-SECRET-91234 y"), { value: `x ${REDACTED} y`, count: 1 });
});

Deno.test("redact: jsonByteLength equals the UTF-8 length of JSON.stringify", () => {
  const values = [
    null,
    true,
    false,
    0,
    -1.5e-7,
    1e21,
    "",
    'quote " backslash \\ newline \n tab \t bell \u0007 nul \0',
    "é ü 中文 😀",
    "lone \ud800 surrogate \udc00",
    [1, "a", [null, {}], []],
    { a: 1, 'k"ey': [true], nested: { deep: { x: "y" } }, skipped: undefined },
    { content: [{ type: "text", text: "x".repeat(1000) }] },
    // Chunk boundaries of the measure: pairs and multi-byte characters straddling 16 KiB.
    "a".repeat(16383) + "😀" + "é".repeat(20000) + "中".repeat(40000),
    "😀".repeat(30000),
    "\ud800".repeat(20000),
  ];
  const enc = new TextEncoder();
  for (const v of values) {
    assert.equal(jsonByteLength(v), enc.encode(JSON.stringify(v)).length, JSON.stringify(v));
  }
});

Deno.test("redact: no secret survives, whatever the surroundings (seeded property test)", () => {
  let seed = 4242;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pick = (alphabet: string, len: number) =>
    Array.from({ length: len }, () => alphabet[rnd(alphabet.length)]).join("");
  for (let round = 0; round < 200; round++) {
    // Secrets over a small alphabet overlap and abut often; some carry non-BMP characters.
    const secrets = Array.from({ length: 1 + rnd(6) }, () => pick("ab😀-", 8 + rnd(8)));
    const r = new Redactor({ secrets });
    let text = pick("abc -\\n", rnd(2000));
    for (let k = 0; k < 1 + rnd(6); k++) {
      const at = rnd(text.length + 1);
      const secret = secrets[rnd(secrets.length)];
      // Sometimes written with a JSON escape inside.
      const written = rnd(3) === 0 ? secret.replace("a", "\\u0061") : secret;
      text = text.slice(0, at) + written + text.slice(at);
    }
    const out = r.redactText(text).value;
    for (const secret of secrets) {
      assert.ok(!out.includes(secret), `round ${round}: ${secret} survived`);
      const view = decodeEscapes(out);
      assert.ok(
        view === undefined || !view.text.includes(secret),
        `round ${round}: escaped ${secret} survived`,
      );
    }
  }
});

Deno.test("redact: a regex counts as led by its anchor only when it cannot match without it", () => {
  assert.equal(anchorIsLiteralPrefix("AKIA[0-9A-Z]{16}", "AKIA"), true);
  assert.equal(anchorIsLiteralPrefix("sk_live_[0-9a-z]{24}", "sk_live_"), true);
  assert.equal(anchorIsLiteralPrefix("a\\.b[0-9]+", "a.b"), true);
  assert.equal(anchorIsLiteralPrefix("a.b[0-9]+", "a.b"), false, "an unescaped dot is not the literal");
  assert.equal(anchorIsLiteralPrefix("AKIA?[0-9]", "AKIA"), false, "a quantifier makes the last A optional");
  assert.equal(anchorIsLiteralPrefix("AKIA{2}", "AKIA"), false);
  assert.equal(anchorIsLiteralPrefix("AKIA[0-9]|[0-9]{6}", "AKIA"), false, "an alternative needs no anchor");
  assert.equal(anchorIsLiteralPrefix("[A]KIA", "AKIA"), false);
  assert.equal(anchorIsLiteralPrefix("pin=[0-9]{6}", "pin="), true);
  // Either way the outcome is the gated one.
  const alt = new Redactor({ patterns: [{ name: "a", regex: "AKIA[0-9]{4}|[0-9]{6}", anchor: "AKIA" }] });
  assert.deepEqual(alt.redactText("123456"), { value: "123456", count: 0 });
  assert.deepEqual(alt.redactText("AKIA1234 123456"), { value: `${REDACTED} ${REDACTED}`, count: 2 });
});
