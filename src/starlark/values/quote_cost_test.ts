/**
 * Quoting charges its escapes: a text of control bytes takes ~10× longer to quote than plain text, so
 * `repr` and `json.encode` must charge per escape (as they go) for the step budget to bound their time.
 */
import assert from "node:assert/strict";
import { json } from "../lib/mod.ts";
import { call } from "../mod.ts";
import { Dict, quote, STEPS_PER_ESCAPE, Thread } from "./mod.ts";

const N = 100_000;
const TEXTS: [string, string, number][] = [
  // [name, text, escapes or non-ASCII runes in it]
  ["control bytes", "\x01".repeat(N), N],
  ["newlines and quotes", '\n"'.repeat(N / 2), N],
  ["invalid bytes", "\xff".repeat(N), N],
  // Printable ASCII: JSON escapes it with a native replacement (charged per match).
  ["quotes and backslashes", '"\\'.repeat(N / 2), N],
];

Deno.test("quote charges every escape it writes", () => {
  for (const [name, text, escapes] of TEXTS) {
    const thread = new Thread();
    quote(text, false, thread);
    assert.ok(thread.steps >= STEPS_PER_ESCAPE * escapes, `${name}: ${thread.steps} steps`);
  }
  // Plain text is not charged as if escaped.
  const plain = new Thread();
  quote("abc ".repeat(N / 4), false, plain);
  assert.ok(plain.steps < N / 4, `plain: ${plain.steps} steps`);
});

Deno.test("json.encode charges every escape, in values and in dict keys", () => {
  const encode = json.members.get("encode")!;
  for (const [name, text, escapes] of TEXTS) {
    const keyed = new Dict();
    keyed.setUnchecked(text, 1);
    for (const value of [text, keyed]) {
      const thread = new Thread();
      call(thread, encode, [value], []);
      assert.ok(thread.steps >= STEPS_PER_ESCAPE * escapes, `${name}: ${thread.steps} steps`);
    }
  }
});

Deno.test("a step budget stops the quoting of a long escaped text part way", () => {
  const thread = new Thread({ maxSteps: 50_000 });
  assert.throws(() => quote("\x01".repeat(10 * N), false, thread), /too many steps/);
});
