/**
 * Deep recursion inside a zero-permission Web Worker, whose JS stack is no larger than the main
 * thread's: the reference's 100,000 frames run (they live on the heap), also through a built-in's
 * key, and past the limit the program ends with a classified depth error while the worker stays
 * alive for the next program.
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
    assert.equal(over.error, "CallDepthError");
    assert.equal(over.resource, "depth");
    assert.match(over.message!, /maximum call depth 100000 exceeded/);
    // Recursion through a built-in's key runs on the explicit stack too; its frames count (three a
    // level): 33,332 levels fit, 50,000 do not, and end with the same classified error.
    const viaSorted = "def f(n):\n    return 0 if n == 0 else sorted([1], key = lambda x: f(n - 1))[0]\n" +
      "x = f(N)\n";
    assert.deepEqual(await ask(w, viaSorted.replace("N", "33332")), { ok: 1 });
    const js = await ask(w, viaSorted.replace("N", "50000"));
    assert.equal(js.error, "CallDepthError");
    assert.equal(js.resource, "depth");
    assert.match(js.message!, /maximum call depth 100000 exceeded/);
    assert.deepEqual(await ask(w, RECURSE.replace("N", "10")), { ok: 10 });
  } finally {
    w.terminate();
  }
});
