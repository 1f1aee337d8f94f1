/**
 * Deep recursion inside a zero-permission Web Worker, whose JS stack is no larger than the main
 * thread's: the reference's 100,000 frames run (they live on the heap), and past the limit, or past
 * the JS stack through a built-in, the program ends with a classified depth error while the worker
 * stays alive for the next program.
 */
import assert from "node:assert/strict";

interface Answer {
  ok?: unknown;
  error?: string;
  resource?: string;
  message?: string;
}

function ask(w: Worker, src: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    w.onmessage = (ev: MessageEvent<Answer>) => resolve(ev.data);
    w.onerror = (ev) => {
      ev.preventDefault();
      reject(new Error(`worker died: ${ev.message}`));
    };
    w.postMessage({ src });
  });
}

const RECURSE = "def f(n):\n    return f(n - 1) + 1 if n else 0\nx = f(N)\n";

Deno.test("depth: a worker runs the reference's call depth and survives past it", async () => {
  const w = new Worker(new URL("./depth_worker.ts", import.meta.url), {
    type: "module",
    deno: { permissions: "none" },
  });
  try {
    assert.deepEqual(await ask(w, RECURSE.replace("N", "99998")), { ok: 99998 });
    const over = await ask(w, RECURSE.replace("N", "99999"));
    assert.equal(over.error, "ResourceError");
    assert.equal(over.resource, "depth");
    assert.match(over.message!, /maximum call depth 100000 exceeded/);
    // Recursion through a built-in nests on the JS stack: a depth error, not a RangeError or a crash.
    const viaSorted = "def f(n):\n    return 0 if n == 0 else sorted([1], key = lambda x: f(n - 1))[0]\n" +
      "x = f(50000)\n";
    const js = await ask(w, viaSorted);
    assert.equal(js.error, "ResourceError");
    assert.equal(js.resource, "depth");
    assert.deepEqual(await ask(w, RECURSE.replace("N", "10")), { ok: 10 });
  } finally {
    w.terminate();
  }
});
