/**
 * Budget tests: hostile programs must end with a resource error (or their documented error) promptly.
 *
 * Two ways of measuring "within 50 ms of its budget":
 * - deadline: `checkInterrupt` reports a deadline DEADLINE_MS after the start; the program must stop at
 *   most OVERRUN_MS after the deadline (no single operation may run unpolled for longer);
 * - steps: with only a step budget, a hostile program must stop at most OVERRUN_MS later than a plain
 *   loop that exhausts the same budget (built-ins charge steps in proportion to their work).
 * Allocation bombs must fail on the memory budget before doing the work, i.e. within OVERRUN_MS.
 */
import assert from "node:assert/strict";
import { execFile } from "../../src/starlark/mod.ts";
import { json, math, sum } from "../../src/starlark/lib/mod.ts";
import { call } from "../../src/starlark/values/call.ts";
import {
  type Dialect,
  EvalError,
  ResourceError,
  type ResourceKind,
  StarlarkSyntaxError,
} from "../../src/starlark/values/value.ts";
import { loadFactor, slack } from "../timing.ts";

const DEADLINE_MS = 150;
const OVERRUN_MS = 50;
const MAX_MEMORY = 64 * 1024 * 1024;
const STEP_BUDGET = 2_000_000;
/** Memory budget of the step-budget runs: large, so that the step budget is what stops most programs. */
const STEP_MODE_MEMORY = 256 * 1024 * 1024;

interface Outcome {
  error: unknown;
  elapsed: number;
  /** How oversubscribed the cores were around the run (see `tests/timing.ts`). */
  factor: number;
}

interface Budget {
  dialect?: Partial<Dialect>;
  maxSteps?: number;
  maxMemory?: number;
  deadlineMs?: number;
}

/** Runs `source` (calling `main` when defined) under the given budgets. */
function run(source: string, budget: Budget): Outcome {
  const before = loadFactor();
  const start = performance.now();
  const deadline = budget.deadlineMs === undefined ? Infinity : start + budget.deadlineMs;
  let error: unknown;
  try {
    const { globals, thread } = execFile(source, {
      filename: "hostile.star",
      predeclared: { json, math, sum },
      dialect: budget.dialect,
      maxSteps: budget.maxSteps,
      maxMemory: budget.maxMemory,
      checkInterrupt: () => (performance.now() > deadline ? "deadline exceeded" : undefined),
    });
    const main = globals.get("main");
    if (main !== undefined) call(thread, main, [], []);
  } catch (e) {
    error = e;
  }
  return { error, elapsed: performance.now() - start, factor: Math.max(before, loadFactor()) };
}

/**
 * Runs up to three times and keeps the run with the most headroom under its bound: timing bounds are
 * about the engine, not about the scheduler, and `deno test --parallel` on a busy machine can pause any
 * single run for a while. `fixedMs` is the part of the bound the behaviour itself sets (a deadline, a
 * baseline); the overrun allowance is scaled by the load the run saw. A systematic overrun (an
 * operation that never polls) still fails every attempt.
 */
function runBest(source: string, budget: Budget, fixedMs: number): Outcome & { limit: number } {
  const limitOf = (o: Outcome) => fixedMs + slack(OVERRUN_MS, o.factor);
  let best = run(source, budget);
  // Far beyond the limit is no scheduling hiccup: do not spend more time retrying it.
  for (let i = 1; i < 3 && best.elapsed > limitOf(best) && best.elapsed < 4 * limitOf(best); i++) {
    const next = run(source, budget);
    if (next.elapsed - limitOf(next) < best.elapsed - limitOf(best)) best = next;
  }
  return { ...best, limit: limitOf(best) };
}

function describe(e: unknown): string {
  if (e === undefined) return "no error";
  return e instanceof Error ? `${e.name}: ${e.message.slice(0, 200)}` : String(e);
}

interface Hostile {
  name: string;
  source: string;
  dialect?: Partial<Dialect>;
  /** Resource kinds accepted; `undefined` accepts any ResourceError. */
  kinds?: ResourceKind[];
  /** Also accept a Starlark error (syntax or evaluation) as the documented outcome. */
  starlarkErrorOk?: boolean;
  /** Must fail on its own (memory budget, depth...) before the deadline. */
  fast?: boolean;
  /** Finite work the reference completes: succeeding (in bounded time) is also correct. */
  mayComplete?: boolean;
  /**
   * Every step does a bounded amount of work (one dict insert, one tuple in a comprehension), just more
   * than an empty loop iteration. The deadline bounds it like any program; in step mode it must stop on
   * its step budget, but its wall time is not compared with an empty loop's.
   */
  boundedPerStep?: boolean;
}

const nest = (n: number, open: string, close: string) => open.repeat(n) + close.repeat(n);

const HOSTILE: Hostile[] = [
  // Like the reference, results of 2^30 elements or more are refused outright ("excessive repeat",
  // "repeat count N too large"); smaller ones must hit the memory budget.
  {
    name: "huge string repetition",
    source: 'def main():\n    return "x" * 1000000000000\n',
    starlarkErrorOk: true,
    fast: true,
  },
  {
    name: "huge list repetition",
    source: "def main():\n    return [0] * 10000000000\n",
    starlarkErrorOk: true,
    fast: true,
  },
  { name: "large string repetition", source: 'def main():\n    return "x" * 500000000\n', fast: true },
  { name: "large list repetition", source: "def main():\n    return [0] * 500000000\n", fast: true },
  { name: "large bytes repetition", source: 'def main():\n    return b"ab" * 250000000\n', fast: true },
  { name: "range materialised", source: "def main():\n    return list(range(1000000000000000000))\n" },
  { name: "range into a tuple", source: "def main():\n    return tuple(range(1 << 60))\n" },
  { name: "sorted huge range", source: "def main():\n    return sorted(range(1 << 60))\n" },
  {
    name: "list doubling",
    source: "def main():\n    a = [0]\n    for i in range(100):\n        a = a + a\n    return len(a)\n",
  },
  {
    name: "in-place list doubling",
    source: "def main():\n    a = [0]\n    for i in range(100):\n        a.extend(a)\n    return len(a)\n",
  },
  {
    name: "string doubling",
    source: 'def main():\n    s = "ab"\n    for i in range(100):\n        s += s\n    return len(s)\n',
  },
  {
    name: "join of a huge repeated list",
    source: 'def main():\n    return ",".join(["abc"] * 100000000)\n',
  },
  {
    name: "dict growth",
    source: "def main():\n    d = {}\n    for i in range(1 << 40):\n        d[i] = i\n",
    boundedPerStep: true,
  },
  {
    name: "deeply nested list literal",
    source: `x = ${nest(100_000, "[", "]")}\n`,
    starlarkErrorOk: true,
    fast: true,
  },
  {
    name: "deeply nested parentheses",
    source: `x = ${nest(100_000, "(", ")")}\n`,
    starlarkErrorOk: true,
    fast: true,
  },
  {
    name: "json.decode of 100k nested brackets",
    source: `def main():\n    return json.decode("${nest(100_000, "[", "]")}")\n`,
    starlarkErrorOk: true,
    mayComplete: true,
  },
  {
    name: "repr of a 100k-deep list",
    source: "def main():\n    a = []\n    for i in range(100000):\n        a = [a]\n    return str(a)\n",
    starlarkErrorOk: true,
    mayComplete: true,
  },
  {
    name: "json.encode of a 100k-deep list",
    source:
      "def main():\n    a = []\n    for i in range(100000):\n        a = [a]\n    return json.encode(a)\n",
    starlarkErrorOk: true,
    mayComplete: true,
  },
  {
    name: "equality of 100k-deep lists",
    source: "def main():\n    a = []\n    b = []\n    for i in range(100000):\n" +
      "        a = [a]\n        b = [b]\n    return a == b\n",
    starlarkErrorOk: true,
    mayComplete: true,
  },
  {
    name: "busy while loop",
    source: "def main():\n    n = 0\n    while True:\n        n += 1\n",
    dialect: { while: true },
  },
  {
    name: "busy for loop over a huge range",
    source: "def main():\n    n = 0\n    for i in range(1 << 62):\n        n += i\n",
  },
  {
    // Runs on the heap up to the reference's 100,000 frames, polled like any loop.
    name: "deep recursion",
    source: "def f(n):\n    return f(n + 1) + 1\ndef main():\n    return f(0)\n",
    dialect: { recursion: true },
  },
  {
    name: "nested comprehension explosion",
    source:
      "def main():\n    return len([(a, b, c) for a in range(5000) for b in range(5000) for c in range(5000)])\n",
    boundedPerStep: true,
  },
  {
    name: "string replace explosion",
    source:
      'def main():\n    s = "a" * 1000\n    for i in range(20):\n        s = s.replace("a", "aa")\n    return len(s)\n',
  },
  {
    name: "format width explosion via repetition",
    source: 'def main():\n    return "%s" % ("x" * 300000000)\n',
    fast: true,
  },
];

function accepted(h: Hostile, e: unknown): boolean {
  if (e === undefined) return h.mayComplete === true;
  if (e instanceof ResourceError) return h.kinds === undefined || h.kinds.includes(e.resource);
  return h.starlarkErrorOk === true && (e instanceof StarlarkSyntaxError || e instanceof EvalError);
}

for (const h of HOSTILE) {
  Deno.test(`budget (deadline): ${h.name}`, () => {
    const { error, elapsed, limit } = runBest(h.source, {
      dialect: h.dialect,
      maxMemory: MAX_MEMORY,
      deadlineMs: DEADLINE_MS,
    }, h.fast ? 0 : DEADLINE_MS);
    assert.ok(accepted(h, error), `unexpected outcome: ${describe(error)}`);
    assert.ok(
      elapsed <= limit,
      `took ${elapsed.toFixed(1)} ms (limit ${limit.toFixed(0)} ms); ended with ${describe(error)}`,
    );
  });
}

Deno.test("budget (deadline): a cancelled program reports the host's reason", () => {
  const { error } = run("def main():\n    while True:\n        pass\n", {
    dialect: { while: true },
    deadlineMs: 20,
  });
  assert.ok(error instanceof ResourceError, describe(error));
  assert.equal(error.resource, "cancelled");
  assert.match(error.message, /deadline exceeded/);
});

Deno.test("budget (memory): allocation bombs fail on the memory budget", () => {
  for (
    const source of [
      'def main():\n    return "x" * 500000000\n',
      "def main():\n    return [0] * 500000000\n",
      "def main():\n    return (1, 2) * 250000000\n",
      'def main():\n    return ["ab"] * 10000 * 10000\n',
    ]
  ) {
    const { error, elapsed, limit } = runBest(source, { maxMemory: MAX_MEMORY }, 0);
    assert.ok(error instanceof ResourceError, describe(error));
    assert.equal(error.resource, "memory");
    assert.ok(elapsed <= limit, `took ${elapsed.toFixed(1)} ms (limit ${limit.toFixed(0)} ms)`);
  }
});

Deno.test("budget (steps): hostile programs stop within 50 ms of a plain loop exhausting the same budget", () => {
  const baselineSource = "def main():\n    for i in range(1 << 62):\n        pass\n";
  // The best of three baselines, so that a slow first run (JIT warm-up) does not loosen the bound.
  let baseline = Infinity;
  for (let i = 0; i < 3; i++) {
    const { error, elapsed } = run(baselineSource, { maxSteps: STEP_BUDGET });
    assert.ok(error instanceof ResourceError && error.resource === "steps", describe(error));
    baseline = Math.min(baseline, elapsed);
  }
  const failures: string[] = [];
  for (const h of HOSTILE) {
    if (h.fast) continue;
    const { error, elapsed, limit } = runBest(h.source, {
      dialect: h.dialect,
      maxSteps: STEP_BUDGET,
      maxMemory: STEP_MODE_MEMORY,
    }, baseline);
    if (!accepted(h, error)) failures.push(`${h.name}: ${describe(error)}`);
    else if (h.boundedPerStep) {
      if (!(error instanceof ResourceError && error.resource === "steps")) {
        failures.push(`${h.name}: must stop on its step budget, ended with ${describe(error)}`);
      }
    } else if (elapsed > limit) {
      failures.push(`${h.name}: ${elapsed.toFixed(1)} ms vs baseline ${baseline.toFixed(1)} ms`);
    }
  }
  assert.deepEqual(failures, []);
});

Deno.test("budget (steps): a program within its budget completes", () => {
  const { error } = run("def main():\n    return len([i for i in range(1000)])\n", { maxSteps: STEP_BUDGET });
  assert.equal(error, undefined, describe(error));
});
