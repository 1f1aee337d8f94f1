/**
 * Long operations poll the interrupt hook from inside, not only before they start: every loop written in
 * JS over a long text (hashing, quoting, JSON, whitespace splitting, case mapping, transcoding, strided
 * slicing), every long build of text from pieces (`%` formatting included), and the sorts of millions of
 * values. The checks count polls per megabyte, so they do
 * not depend on the speed of the machine.
 */
import assert from "node:assert/strict";
import { call, execFile, json, ResourceError } from "./mod.ts";
import { TextBuilder, Thread } from "./values/mod.ts";

/** Polls made while `f(s)` evaluates `expr` on the global `s` built by `init` (built before counting). */
function pollsDuring(init: string, expr: string): number {
  let counting = false;
  let polls = 0;
  const thread: Thread = new Thread({
    checkInterrupt: () => {
      if (counting) {
        polls++;
        // No polls from the step counter: only those made inside the operation count.
        thread.nextPoll = Infinity;
      }
      return undefined;
    },
  });
  const { globals } = execFile(`def f(s):\n    return ${expr}\n\ns = ${init}\n`, {
    thread,
    predeclared: { json },
  });
  counting = true;
  thread.nextPoll = Infinity;
  call(thread, globals.get("f")!, [globals.get("s")!], []);
  return polls;
}

const MB = 1 << 20;
const cases: [string, string][] = [
  ['"ab c" * (MB // 4)', "hash(s)"],
  ['"é\\n\\x01" * (MB // 4)', "repr(s)"],
  ['"é\\n\\x01" * (MB // 4)', "json.encode(s)"],
  ['"é\\n\\x01" * (MB // 4)', "json.decode(json.encode(s))"],
  ['"é\\n\\x01" * (MB // 4)', "json.indent(json.encode([s]))"],
  ['"ab c" * (MB // 4)', "s.split()"],
  ['"a" * MB', "s.rsplit(None, 1)"],
  ['"ab c" * (MB // 4)', "s.title()"],
  ['"ab c" * (MB // 4)', "s[::2]"],
  ['b"ab\\xff" * (MB // 3)', "str(s)"],
  ['"é\\n\\x01" * (MB // 4)', "str(s.codepoint_ords())"],
  ['"%d" * (MB // 8)', "s % tuple(range(MB // 8))"],
  ['"\\\\\\"" * (MB // 2)', "json.encode(s)"],
  ['"\\x01" * MB', "json.encode({s: 1})"],
  ['"\\\\" * MB', "json.encode({s: 1})"],
  ['"%%" * (MB // 2)', "s % ()"],
  ['"{{" * (MB // 2)', "s.format()"],
  ["[i * 7919 % 1000003 for i in range(MB)]", "sorted(s)"],
  ["[(i * 7919 % 1000003) * 0.5 for i in range(MB // 2)]", "sorted(s, reverse=True)"],
  ["[str(i * 7919 % 1000003) for i in range(MB // 4)]", "sorted(s)"],
  ["[(i % 7, str(i)) for i in range(MB // 4)]", "sorted(s)"],
];

Deno.test("polling: long text loops poll the interrupt hook every few tens of kilobytes", () => {
  for (const [init, expr] of cases) {
    const polls = pollsDuring(init.replaceAll("MB", String(MB)), expr.replaceAll("MB", String(MB)));
    // One poll per 32 KiB of input at least (the input is ~1 MB): 16 leaves room for loops that take
    // two bytes per step.
    assert.ok(polls >= 16, `${expr} on ${init}: ${polls} polls`);
  }
});

Deno.test("polling: a TextBuilder joins its pieces in flat chunks and polls between them", () => {
  let polls = 0;
  const thread = new Thread({ checkInterrupt: () => void polls++ });
  const b = new TextBuilder(thread);
  let expected = "";
  for (let i = 0; i < 10_000; i++) {
    b.add(String(i % 10));
    expected += String(i % 10);
  }
  assert.equal(b.length, 10_000);
  assert.equal(b.finish(), expected);
  assert.equal(polls, 3); // after 4,096 and 8,192 pieces, and the last chunk
  assert.equal(new TextBuilder().finish(), "");
});

Deno.test("polling: a cancellation inside a long text loop stops it", () => {
  let polls = 0;
  const e = (() => {
    try {
      execFile('s = "é\\n" * (1 << 21)\nx = repr(s)\n', {
        checkInterrupt: () => (++polls > 3 ? "deadline exceeded" : undefined),
      });
    } catch (err) {
      return err;
    }
  })();
  assert.ok(e instanceof ResourceError && e.resource === "cancelled", String(e));
});
