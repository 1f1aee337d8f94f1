/**
 * Tests of the decoder's token reading (json_decode.ts): compact text, where the next byte is read
 * directly, against the same documents with spaces between tokens, where the general space skipping
 * runs, on generated documents and on every prefix of them (the end of the text met at each token).
 */
import assert from "node:assert/strict";
import { type Builtin, repr, Thread, type Value } from "../values/mod.ts";
import { json } from "./json.ts";
import { Decoder } from "./json_decode.ts";
import { seededRandom } from "../seeded_random_test.ts";

/** The decoded value's repr and the steps and memory charged, or the error message without its offset. */
function outcome(s: string): string {
  const b = json.members.get("decode") as Builtin;
  const thread = new Thread();
  try {
    const v: Value = b.fn(thread, [s], [], b);
    return `${repr(v)} steps=${thread.steps} mem=${thread.memory}`;
  } catch (e) {
    return "error: " + (e as Error).message.replace(/at offset \d+, /, "");
  }
}

/** A random compact document, as a list of its tokens. */
function tokens(rand: () => number, depth: number, out: string[]): void {
  const r = rand();
  if (depth > 3 || r < 0.4) {
    out.push(
      ['"a"', '"k\\n"', "0", "-12", "3.5", "-0.25e3", "true", "false", "null", '"\\u00e9"'][
        Math.floor(rand() * 10)
      ],
    );
    return;
  }
  const obj = r < 0.7;
  out.push(obj ? "{" : "[");
  const n = Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) {
    if (i > 0) out.push(",");
    if (obj) out.push(`"k${Math.floor(rand() * 5)}"`, ":");
    tokens(rand, depth + 1, out);
  }
  out.push(obj ? "}" : "]");
}

Deno.test("json decode: spaces between tokens change nothing, nor where the text ends", () => {
  const rand = seededRandom(6);
  const spaces = [" ", "\t", "\n", "\r\n", "  "];
  for (let n = 0; n < 300; n++) {
    const toks: string[] = [];
    tokens(rand, 0, toks);
    const compact = toks.join("");
    const spaced = toks.map((t) => spaces[Math.floor(rand() * spaces.length)] + t).join("") + " ";
    const want = outcome(compact);
    assert.ok(!want.startsWith("error"), compact);
    // Spaces are charged as text, so the values agree and the charges are compared only without spaces.
    assert.equal(outcome(spaced).replace(/ steps=.*/, ""), want.replace(/ steps=.*/, ""), spaced);
    // Every prefix fails the same way, compact or followed by spaces (the end of the text after a token).
    for (let k = 0; k < toks.length; k++) {
      const prefix = toks.slice(0, k).join("");
      const got = outcome(prefix);
      assert.ok(got.startsWith("error"), prefix);
      assert.equal(got, outcome(prefix + " \n"), JSON.stringify(prefix));
      assert.ok(!got.includes("NaN") && !got.includes("want ','"), `${prefix}: ${got}`);
    }
  }
});

Deno.test("json decode: the end of the text after each kind of token", () => {
  const cases: [string, string][] = [
    ["", "unexpected end of file"],
    ["[", "unexpected end of file"],
    ["[1", "unexpected end of file"],
    ["[1,", "unexpected end of file"],
    ["{", "unexpected end of file"],
    ['{"a"', "unexpected end of file"],
    ['{"a":', "unexpected end of file"],
    ['{"a":1', "unexpected end of file"],
    ['{"a":1,', "unexpected end of file"],
  ];
  for (const [text, want] of cases) {
    for (const tail of ["", " ", "\t\n"]) assert.equal(outcome(text + tail), "error: json.decode: " + want);
  }
});

Deno.test("json decode: a decoder released after a document holds none of its values", () => {
  const rand = seededRandom(61);
  const d = new Decoder(new Thread(), "");
  // What a spare decoder's stacks hold (test access to its private fields).
  const held = (): unknown[] => {
    const f = d as unknown as { elems: unknown[]; kv: unknown[]; dicts: unknown[] };
    return [...f.elems, ...f.kv, ...f.dicts].filter((x) => x !== null && x !== undefined);
  };
  for (let n = 0; n < 200; n++) {
    const toks: string[] = [];
    tokens(rand, 0, toks);
    // Big objects too (more keys than a compact dict holds), and long lists.
    const big = "{" + Array.from({ length: 1 + Math.floor(rand() * 20) }, (_, i) => `"b${i}":[${i},"s"]`) +
      "}";
    const text = `[${toks.join("")},${big},[${"1.5,".repeat(Math.floor(rand() * 50))}{"x":"y"}]]`;
    d.reuse(new Thread(), text);
    const v = d.decode();
    assert.ok(v !== null);
    d.release();
    assert.deepEqual(held(), [], text);
  }
});
