/**
 * Tests of bulk work: copies, repetitions and hash-table builds are charged before they run (steps and
 * memory), and long copies poll the interrupt hook between chunks.
 */
import assert from "node:assert/strict";
import { call } from "./call.ts";
import { execFile } from "../mod.ts";
import { repr } from "./ops.ts";
import { appendElems, extendList, POLL_CHUNK, repeatArray } from "./ops_bulk.ts";
import { List, ResourceError, Thread } from "./value.ts";
import type { Value } from "./value.ts";

interface Run {
  result: Value | undefined;
  error: unknown;
  thread: Thread;
  polls: number;
}

/** Runs `main()` of `source` with a counting interrupt hook. */
function run(source: string, options: { maxSteps?: number; maxMemory?: number } = {}): Run {
  let polls = 0;
  let result: Value | undefined, error: unknown;
  const thread = new Thread({ ...options, dialect: { set: true }, checkInterrupt: () => void polls++ });
  try {
    const { globals } = execFile(source, { thread });
    polls = 0;
    result = call(thread, globals.get("main")!, [], []);
  } catch (e) {
    error = e;
  }
  return { result, error, thread, polls };
}

Deno.test("bulk: extending a list by itself appends the elements present before", () => {
  const r = run(
    "def main():\n    a = [1, 2]\n    a.extend(a)\n    a.extend((3,))\n    a += a[:1]\n    return a\n",
  );
  assert.equal(r.error, undefined);
  assert.equal(repr(r.result!), "[1, 2, 1, 2, 3, 1]");
  const big = new List(Array.from({ length: POLL_CHUNK + 5 }, (_, i) => i));
  extendList(new Thread(), big, big.elems);
  assert.equal(big.elems.length, 2 * (POLL_CHUNK + 5));
  assert.equal(big.elems[POLL_CHUNK + 5], 0);
  assert.equal(big.elems[2 * POLL_CHUNK + 9], POLL_CHUNK + 4);
});

Deno.test("bulk: a million-element extend is charged first and polls while it copies", () => {
  const r = run("def main():\n    a = [0] * 1000000\n    b = []\n    b.extend(a)\n    return len(b)\n");
  assert.equal(r.result, 1_000_000);
  // The repetition and the extend each charge a step per element, and 16 bytes per appended slot.
  assert.ok(r.thread.steps >= 2_000_000, `${r.thread.steps} steps`);
  assert.ok(r.thread.memory >= 8_000_000 + 16_000_000, `${r.thread.memory} bytes`);
  let polls = 0;
  const t = new Thread({ checkInterrupt: () => void polls++ });
  const dst: Value[] = [];
  appendElems(t, dst, new Array(10 * POLL_CHUNK).fill(0), 10 * POLL_CHUNK);
  assert.equal(dst.length, 10 * POLL_CHUNK);
  assert.ok(polls >= 9, `${polls} polls`);
});

Deno.test("bulk: in-place doubling stops on the memory budget before the copy that exceeds it", () => {
  const r = run(
    "def main():\n    a = [0]\n    for i in range(40):\n        a.extend(a)\n    return len(a)\n",
    { maxMemory: 64 << 20 },
  );
  assert.ok(r.error instanceof ResourceError && r.error.resource === "memory", String(r.error));
  assert.ok(r.thread.memory > 64 << 20);
});

Deno.test("bulk: repetition builds a packed copy and charges the result", () => {
  const t = new Thread();
  const out = repeatArray(t, [1, "a"], 5);
  assert.deepEqual(out, [1, "a", 1, "a", 1, "a", 1, "a", 1, "a"]);
  const r = run("def main():\n    return len([1, 2, 3] * 100000) + len((1,) * 7)\n");
  assert.equal(r.result, 300_007);
  assert.ok(r.thread.steps >= 300_000, `${r.thread.steps} steps`);
});

Deno.test("bulk: hash-table builds charge their insertions", () => {
  const r = run(
    "def main():\n    d = dict([(i, i) for i in range(100000)])\n    s = set(range(100000))\n" +
      "    return len(dict(d)) + len(s | s) + len({}.update(d) or d)\n",
  );
  assert.equal(r.result, 300_000);
  // Several steps per insertion into a big table, for the dict, its copy, the set and its union.
  assert.ok(r.thread.steps >= 2_000_000, `${r.thread.steps} steps`);
});
