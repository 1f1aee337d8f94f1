/**
 * Depth through built-ins that call back (`sorted`, `min`, `max` with a `key`) and the traceback past
 * the depth limit, as the reference command (`starlark -recursion`) prints them.
 *
 * Seeded programs recurse through a random cycle of "shapes" (a key function, a list or dict
 * comprehension, a `*args` call, a dict display, a slice, an element assignment, an augmented
 * element assignment...). The expected outcome is computed here from the frames each shape
 * puts on the reference's stack (a built-in's frame counts; the stack holds at most 100,000): the
 * value, the error's full traceback, or the stack overflow's traceback. Shapes the engine runs on its
 * explicit stack must match exactly, in this thread and in a worker (half the JS stack); a shape that
 * nests on the JS stack may stop earlier, but only with a classified depth error, never a JS
 * `RangeError` or an internal error. With `STARLARK_REF=1` the reference must print the same.
 */
import assert from "node:assert/strict";
import { runCliCapture, runReferenceFile } from "./cli_runs.ts";
import { execFile, ResourceError, Thread } from "../../src/starlark/mod.ts";
import { seededRandom } from "../../src/starlark/seeded_random_test.ts";

const withReference = Deno.env.get("STARLARK_REF") === "1";
const FILE = "deep.star";
/** The reference's stack bound (its frames, built-ins included); ours is the default maxCallDepth. */
const MAX_FRAMES = 100_000;

/** Runs `src` through our CLI as `--recursion FILE`: stdout and stderr together. */
const runOurs = (src: string) => runCliCapture(["--recursion", "--no-steps"], FILE, src);
const runReference = (src: string) => runReferenceFile(["-recursion"], FILE, src);

/**
 * One way for level n of `f` to reach level n - 1 and return n (the body of `if n % K == i:`, at
 * 8 spaces). `calls` names, outermost first, the callees it goes through before f at level n - 1,
 * each with the text of its call (whose `(` is the caller's position) and, for a Starlark callee, the
 * text its first instruction loads (its entry position, where the reference reports a frame that
 * could not start); `explicit` says whether the engine runs it on its explicit stack.
 */
interface Shape {
  readonly text: string;
  readonly calls: readonly { name: string; call: string; entry?: string; inK?: boolean }[];
  readonly explicit: boolean;
}

const SHAPES: readonly Shape[] = [
  {
    text: "return sorted([n], key = lambda x: f(x - 1))[0]",
    calls: [{ name: "sorted", call: "sorted(" }, { name: "lambda", call: "f(x", entry: "f(x" }],
    explicit: true,
  },
  {
    text: "return max([n], key = lambda x: f(x - 1))",
    calls: [{ name: "max", call: "max(" }, { name: "lambda", call: "f(x", entry: "f(x" }],
    explicit: true,
  },
  {
    text: "return min([n], key = k)",
    calls: [{ name: "min", call: "min(" }, { name: "k", call: "f(x", entry: "f(x", inK: true }],
    explicit: true,
  },
  { text: "return [f(x - 1) + 1 for x in [n]][0]", calls: [], explicit: true },
  { text: "return f(*[n - 1], **{}) + 1", calls: [], explicit: true },
  { text: "return {1: f(n - 1) + 1 for _ in [1]}[1]", calls: [], explicit: true },
  { text: "return {1: f(n - 1) + 1}[1]", calls: [], explicit: true },
  { text: "return [f(n - 1) + 1, 0][0:1][0]", calls: [], explicit: true },
  { text: "d = {}; d[1] = f(n - 1) + 1; return d[1]", calls: [], explicit: true },
  { text: "d = {1: 1}; d[1] += f(n - 1); return d[1]", calls: [], explicit: true },
  { text: "d = [0]; d[f(n - 1) * 0] = n; return d[0]", calls: [], explicit: true },
  { text: "return [v + 1 for _, v in enumerate([f(n - 1)])][0]", calls: [], explicit: true },
  { text: "d = [0]; _, d[f(n - 1) * 0] = 0, n; return d[0]", calls: [], explicit: true },
  { text: "d = [0]; return [d[0] for d[f(n - 1) * 0] in [n]][0]", calls: [], explicit: true },
  // Nested past the 200 levels the generator compiler handles.
  { text: `return f(n - 1) + 1${" + 0".repeat(250)}`, calls: [], explicit: false },
];

/** k's body line, whose calls and entry the `min` shape's frames point at. */
const K_BODY = "    return f(x - 1)";

interface Program {
  readonly src: string;
  /** What the reference prints. */
  readonly want: string;
  /** Whether every shape runs on the explicit stack (the output must then be exactly `want`). */
  readonly explicit: boolean;
  readonly n: number;
}

/** A frame of the reference's stack: its traceback line while it calls, and if it could not start. */
interface Frame {
  readonly site: string;
  /** Null for a built-in (the reference checks the depth only when a Starlark function starts). */
  readonly entry: string | null;
}

/** Column (1-based) of `what` in `line`, plus `plus`. */
function col(line: string, what: string, plus = 0): number {
  const i = line.indexOf(what);
  if (i < 0) throw new Error(`${what} not in ${line}`);
  return i + 1 + plus;
}

/** A program recursing `n` levels through `shapes` (level m uses `shapes[m % K]`), failing at 0 or not. */
function program(shapes: readonly Shape[], n: number, fails: boolean): Program {
  const k = shapes.length;
  const lines = ["def k(x):", K_BODY, "def f(n):", "    if n == 0:"];
  const failLine = '        return {}["missing"]';
  lines.push(fails ? failLine : "        return 0");
  const bodyLine: number[] = [];
  shapes.forEach((s, i) => {
    lines.push(`    if n % ${k} == ${i}:`);
    lines.push(`        ${s.text}`);
    bodyLine.push(lines.length);
  });
  const top = `print(f(${n}))`;
  lines.push(top, "");
  const fEntry = `4:${col(lines[3], "n")}: in f`;
  // The frames of the reference's stack, outermost first, up to the first that cannot start.
  const frames: Frame[] = [{ site: `${lines.length - 1}:${col(top, "f(", 1)}: in <toplevel>`, entry: null }];
  // Enough levels to pass the bound by a whole level (a built-in's frame never stops the stack).
  let m = n;
  for (; m > 0 && frames.length <= MAX_FRAMES + 3; m--) {
    const s = shapes[m % k], l = bodyLine[m % k], text = lines[l - 1];
    // f's own position: the `(` of its shape's first call, or of its recursive call.
    const first = s.calls.length > 0 ? s.calls[0].call : text.includes("f(*") ? "f(*" : "f(";
    frames.push({ site: `${l}:${col(text, first, first.indexOf("("))}: in f`, entry: fEntry });
    for (const { name, entry, inK } of s.calls) {
      if (entry === undefined) {
        frames.push({ site: `<builtin>: in ${name}`, entry: null });
        continue;
      }
      // The callee calls f (at its `(`); it starts at its first load, the `f`.
      const [cl, ct] = inK === true ? [2, K_BODY] : [l, text];
      frames.push({
        site: `${cl}:${col(ct, "f(x", 1)}: in ${name}`,
        entry: `${cl}:${col(ct, entry)}: in ${name}`,
      });
    }
  }
  if (m === 0) frames.push({ site: `5:${col(failLine, "[")}: in f`, entry: fEntry });
  const tb = (fs: readonly string[]) =>
    "Traceback (most recent call last):\n" +
    fs.map((f) => f.startsWith("<") ? `  ${f}\n` : `  ${FILE}:${f}\n`).join("");
  let stop = -1;
  for (let i = MAX_FRAMES; i < frames.length; i++) {
    if (frames[i].entry !== null) {
      stop = i;
      break;
    }
  }
  let want: string;
  if (stop >= 0) {
    const fs = frames.slice(0, stop).map((f) => f.site);
    want = tb([...fs, frames[stop].entry!]) + "Error: Starlark stack overflow\n";
  } else if (fails) {
    want = tb(frames.map((f) => f.site)) + 'Error: key "missing" not in dict\n';
  } else {
    want = `${n}\n`;
  }
  return { src: lines.join("\n"), want, explicit: shapes.every((s) => s.explicit), n };
}

function programs(seed: number, count: number): Program[] {
  const rnd = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const explicit = SHAPES.filter((s) => s.explicit), jsStack = SHAPES.filter((s) => !s.explicit);
  const out: Program[] = [];
  for (let i = 0; i < count; i++) {
    const shapes = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(explicit));
    // A third of the programs also go through a shape that nests on the JS stack.
    if (rnd() < 1 / 3) shapes[Math.floor(rnd() * shapes.length)] = pick(jsStack);
    out.push(program(shapes, pick([3, 150, 2_500, 12_000, 34_000, 60_000]), rnd() < 0.4));
  }
  return out;
}

const CASES = [
  ...programs(20261202, 14),
  // Past the limit through sorted (3 frames a level), and deep but within it through min and a list.
  program([SHAPES[0]], 34_000, false),
  program([SHAPES[2], SHAPES[3]], 12_000, true),
];

Deno.test("depth callbacks: the generated programs cover both outcomes and both kinds of shape", () => {
  assert.ok(CASES.some((c) => c.explicit && c.want.endsWith("Error: Starlark stack overflow\n")));
  assert.ok(CASES.some((c) => c.explicit && c.want === `${c.n}\n` && c.n >= 10_000));
  assert.ok(CASES.some((c) => !c.explicit));
});

for (const [i, c] of CASES.entries()) {
  Deno.test(`depth callbacks: program ${i} (${c.explicit ? "explicit" : "JS stack"}, n=${c.n})`, async () => {
    const got = runOurs(c.src);
    if (c.explicit) {
      assert.ok(got === c.want, `differs from the expected output (${got.length} vs ${c.want.length} chars)`);
    } else if (got !== c.want) {
      // Nested on the JS stack: it may stop earlier, with the classified error only.
      assert.equal(got, "Starlark stack overflow (nesting too deep)\n");
    }
    if (withReference) {
      const ref = await runReference(c.src);
      assert.ok(ref === c.want, `the reference disagrees with the expectation:\n${ref.slice(-300)}`);
    }
  });
}

Deno.test("depth callbacks: running out of JS stack leaves no call depth behind", () => {
  const plain = "def f(n):\n    return f(n - 1) + 1 if n else 0\nx = f(N)\n";
  const run = (n: number, thread?: Thread) =>
    execFile(plain.replace("N", String(n)), { dialect: { recursion: true }, thread }).globals.get("x");
  assert.equal(run(99_998), 99_998);
  // The JS stack can run out anywhere, also in the explicit stack's own bookkeeping as an activation
  // ends (it happened there with calls through an element assignment and sorted, 700 deep): a thread
  // whose memory counter fails there once, while 200 activations are live, stands in for it.
  const thread = new Thread({ dialect: { recursion: true } });
  let memory = 0, armed = true;
  Object.defineProperty(thread, "memory", {
    get: () => memory,
    set: (v: number) => {
      if (armed && v < memory) {
        armed = false;
        throw new RangeError("Maximum call stack size exceeded");
      }
      memory = v;
    },
  });
  assert.throws(() => run(300, thread), (e) => e instanceof ResourceError && e.resource === "depth");
  assert.equal(run(99_998), 99_998);
});

interface Answer {
  ok?: unknown;
  error?: string;
  resource?: string;
  message?: string;
}

Deno.test("depth callbacks: a worker (half the JS stack) ends every program as this thread does", async () => {
  const w = new Worker(new URL("./depth_worker.ts", import.meta.url), {
    type: "module",
    deno: { permissions: "none" },
  });
  const ask = (src: string) =>
    new Promise<Answer>((resolve, reject) => {
      w.onmessage = (ev: MessageEvent<Answer>) => resolve(ev.data);
      w.onerror = (ev) => {
        ev.preventDefault();
        reject(new Error(`worker died: ${ev.message}`));
      };
      w.postMessage({ src });
    });
  try {
    for (const [i, c] of CASES.entries()) {
      const a = await ask(c.src.replace(`print(f(${c.n}))`, `x = f(${c.n})`));
      const want: Answer = c.want === `${c.n}\n`
        ? { ok: c.n }
        : c.want.endsWith("Error: Starlark stack overflow\n")
        ? {
          error: "CallDepthError",
          resource: "depth",
          message: "Starlark stack overflow (maximum call depth 100000 exceeded)",
        }
        : { error: "EvalError", resource: undefined, message: 'key "missing" not in dict' };
      if (!c.explicit && a.message === "Starlark stack overflow (nesting too deep)") {
        assert.deepEqual(
          a,
          { error: "ResourceError", resource: "depth", message: a.message },
          `program ${i}`,
        );
        continue;
      }
      assert.deepEqual(a, want, `program ${i}`);
    }
    // Whatever ended those runs left no depth behind: the limit is still exactly the reference's.
    const plain = "def f(n):\n    return f(n - 1) + 1 if n else 0\nx = f(N)\n";
    assert.deepEqual(await ask(plain.replace("N", "99998")), { ok: 99998 });
    const js = "def f(n):\n    if not n:\n        return 0\n    return f(n - 1) + 1" + " + 0".repeat(250) +
      "\n" +
      "x = f(N)\n";
    assert.equal((await ask(js.replace("N", "99998"))).resource, "depth");
    assert.deepEqual(await ask(plain.replace("N", "99998")), { ok: 99998 });
  } finally {
    w.terminate();
  }
});
