/**
 * Budget and robustness tests: steps, cancellation, call depth, memory, deep source nesting and JS
 * exceptions from built-ins. These are the engine's security boundary.
 */
import assert from "node:assert/strict";
import {
  Builtin,
  call,
  compile,
  EvalError,
  execFile,
  type ExecOptions,
  InternalError,
  ResourceError,
  StarlarkSyntaxError,
  Thread,
} from "../mod.ts";
import { INTERRUPT_POLL_STEPS } from "../values/value.ts";

function resourceError(f: () => unknown): ResourceError {
  try {
    f();
  } catch (e) {
    if (e instanceof ResourceError) return e;
    throw e;
  }
  throw new Error("no resource error");
}

Deno.test("budget: a busy while loop stops at the step budget", () => {
  let thread: Thread | undefined;
  const e = resourceError(() => {
    const p = compile("def f():\n    while True:\n        pass\nf()\n", { dialect: { while: true } });
    thread = new Thread({ maxSteps: 100_000 });
    p.run(thread);
  });
  assert.equal(e.resource, "steps");
  assert.equal(e.message, "Starlark computation cancelled: too many steps");
  assert.ok(thread!.steps > 100_000 && thread!.steps <= 100_001, `steps ${thread!.steps}`);
});

Deno.test("budget: a huge range loop and a comprehension stop at the step budget", () => {
  for (
    const src of [
      "def f():\n    for i in range(1 << 30):\n        pass\nf()\n",
      "x = [i for i in range(1 << 30)]\n",
    ]
  ) {
    assert.equal(resourceError(() => execFile(src, { maxSteps: 50_000 })).resource, "steps");
  }
});

Deno.test("budget: step counts are deterministic and cover statements, iterations and calls", () => {
  const src = "def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\nx = f(10)\n";
  const a = execFile(src).thread.steps;
  const b = execFile(src).thread.steps;
  assert.equal(a, b);
  // execFile's thread also pays for compiling the source (a step per token and per node).
  const compiling = compile(src).compileSteps;
  assert.ok(compiling > 0 && compiling < 200, `compiling: ${compiling} steps`);
  // 10 iterations, each an iteration step and a statement step, plus the surrounding statements and call.
  assert.ok(a - compiling >= 20 && a - compiling < 40, `steps ${a} (${compiling} compiling)`);
  const big = execFile(src.replace("f(10)", "f(1000)")).thread.steps;
  assert.equal(big - a, 2 * 990);
});

Deno.test("budget: the interrupt poll cancels a running program", () => {
  let polls = 0;
  const e = resourceError(() =>
    execFile("def f():\n    while True:\n        pass\nf()\n", {
      dialect: { while: true },
      checkInterrupt: () => (++polls >= 3 ? "deadline exceeded" : undefined),
    })
  );
  assert.equal(e.resource, "cancelled");
  assert.equal(e.message, "Starlark computation cancelled: deadline exceeded");
  assert.equal(polls, 3);
});

Deno.test("budget: the interrupt is polled every few thousand steps", () => {
  let polls = 0;
  const { thread } = execFile("def f():\n    for i in range(100000):\n        pass\nf()\n", {
    checkInterrupt: () => void polls++,
  });
  const expected = Math.floor(thread.steps / INTERRUPT_POLL_STEPS);
  assert.ok(polls >= expected - 1 && polls <= expected + 1, `${polls} polls for ${thread.steps} steps`);
});

Deno.test("budget: call depth limit with recursion enabled", () => {
  const src = "def f(n):\n    return 0 if n == 0 else f(n - 1) + 1\nx = f(N)\n";
  const ok = execFile(src.replace("N", "500"), { dialect: { recursion: true } });
  assert.equal(ok.globals.get("x"), 500);
  const e = resourceError(() =>
    execFile(src.replace("N", "500"), { dialect: { recursion: true }, maxCallDepth: 100 })
  );
  assert.equal(e.resource, "depth");
  assert.match(e.message, /Starlark stack overflow \(maximum call depth 100 exceeded\)/);
});

Deno.test("budget: deep recursion runs on the heap up to maxCallDepth (the reference's 100,000 by default)", () => {
  const src = "def f(n):\n    return 0 if n == 0 else f(n - 1) + 1\nx = f(N)\n";
  const deep = (n: number, opts: Partial<ExecOptions> = {}) =>
    execFile(src.replace("N", String(n)), { dialect: { recursion: true }, ...opts }).globals.get("x");
  assert.equal(deep(99_998), 99_998);
  const e = resourceError(() => deep(99_999));
  assert.equal(e.resource, "depth");
  assert.match(e.message, /maximum call depth 100000 exceeded/);
  assert.equal(deep(200_000, { maxCallDepth: 1e9 }), 200_000);
  // Live frames are charged to the memory budget, and given back when they return.
  assert.equal(resourceError(() => deep(50_000, { maxMemory: 1 << 20 })).resource, "memory");
  const loop = "def f(n):\n    return 0 if n == 0 else f(n - 1) + 1\ndef g():\n    for i in range(200):\n" +
    "        f(1000)\ng()\n";
  execFile(loop, { dialect: { recursion: true }, maxMemory: 4 << 20 });
});

Deno.test("budget: exhausting the JS stack is a depth error, not a crash", () => {
  // A built-in that calls back into Starlark runs on the explicit stack: only the budgets bound it
  // (180,000 frames, past the default maxCallDepth).
  const viaSorted =
    "def f(n):\n    return 0 if n == 0 else sorted([1], key = lambda x: f(n - 1))[0]\nx = f(60000)\n";
  const opts = { dialect: { recursion: true }, maxCallDepth: 1e9, maxSteps: 1e9 };
  assert.equal(execFile(viaSorted, opts).globals.get("x"), 1);
  // An expression nested past 200 levels (a chain of 250 terms) has no generator form: its calls
  // nest on the JS stack.
  const viaNesting = "def f(n):\n    if n == 0:\n        return 0\n    return f(n - 1) + 1" +
    " + 0".repeat(250) +
    "\nx = f(200000)\n";
  const e = resourceError(() => execFile(viaNesting, opts));
  assert.equal(e.resource, "depth");
  assert.equal(e.message, "Starlark stack overflow (nesting too deep)");
});

Deno.test("budget: deeply nested source is a syntax error, a long chain is not", () => {
  assert.throws(
    () => compile("x = " + "(".repeat(100_000) + "1" + ")".repeat(100_000) + "\n"),
    StarlarkSyntaxError,
  );
  // Left-nested chains are as deep as they are long, and the reference accepts any length.
  assert.equal(compile("x = " + "1 - ".repeat(50_000) + "1\n").globalNames.length, 1);
  // Long but shallow programs are fine.
  const wide = "x = [" + Array(20000).fill("1").join(", ") + "]\n";
  assert.equal(compile(wide).globalNames.length, 1);
});

Deno.test("budget: list doubling with += is charged to the memory budget", () => {
  const e = resourceError(() =>
    execFile("def f():\n    l = [1]\n    for i in range(60):\n        l += l\nf()\n", { maxMemory: 1 << 20 })
  );
  assert.equal(e.resource, "memory");
});

Deno.test("budget: budgets also apply to functions called after execution", () => {
  const { globals, thread } = execFile("def spin():\n    for i in range(1 << 30):\n        pass\n", {
    maxSteps: 10_000,
  });
  assert.equal(resourceError(() => call(thread, globals.get("spin")!, [], [])).resource, "steps");
});

Deno.test("robustness: a JS exception in a built-in becomes an internal error with a traceback", () => {
  const buggy = new Builtin("buggy", () => {
    throw new TypeError("cannot read properties of undefined");
  });
  try {
    execFile("def f():\n    buggy()\nf()\n", { filename: "b.star", predeclared: { buggy } });
    assert.fail("no error");
  } catch (e) {
    assert.ok(e instanceof InternalError);
    assert.ok(e instanceof EvalError);
    assert.equal(e.message, "internal error: cannot read properties of undefined");
    assert.deepEqual(e.callStack.map((f) => `${f.filename}:${f.line}:${f.col}:${f.name}`), [
      "b.star:3:2:<toplevel>",
      "b.star:2:10:f",
      "<builtin>:0:0:buggy",
    ]);
    assert.ok(e.cause instanceof TypeError);
  }
});

Deno.test("robustness: a built-in returning undefined is an internal error", () => {
  const bad = new Builtin("bad", () => undefined as unknown as null);
  assert.throws(
    () => execFile("bad()\n", { predeclared: { bad } }),
    (e: unknown) => e instanceof EvalError && /undefined \(not None\) returned from bad/.test(e.message),
  );
});

Deno.test("budget: comprehensions are charged to the memory budget as they grow", () => {
  assert.equal(
    resourceError(() => execFile("x = [i for i in range(1 << 20)]\n", { maxMemory: 1 << 20 })).resource,
    "memory",
  );
  assert.equal(
    resourceError(() => execFile("x = {i: i for i in range(1 << 20)}\n", { maxMemory: 1 << 20 })).resource,
    "memory",
  );
  // Many small comprehensions, or a dict that stops growing, stay within a small budget.
  execFile(
    "def f():\n    for i in range(10000):\n        x = [j for j in range(3)]\n" +
      "    return {k % 1024: k for k in range(100000)}\nf()\n",
    { maxMemory: 1 << 20 },
  );
});

Deno.test("budget: spreading a large iterable is charged", () => {
  const src = "def f(*args):\n    return len(args)\nx = f(*range(1 << 22))\n";
  assert.equal(resourceError(() => execFile(src, { maxMemory: 1 << 20 })).resource, "memory");
  assert.equal(resourceError(() => execFile(src, { maxSteps: 100_000 })).resource, "steps");
});
