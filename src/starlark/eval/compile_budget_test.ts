/**
 * The front end under the budgets: scanning, parsing, resolving and compiling are charged (steps and
 * memory) and polled like execution, in proportion to the source, for generated families of sources
 * that used to compile outside every budget (huge displays, many statements, long chains, huge
 * literals...). Counts of steps and polls are asserted, never wall time.
 */
import assert from "node:assert/strict";
import {
  call,
  compile,
  execFile,
  ResourceError,
  StarFunction,
  StarlarkSyntaxError,
  startCall,
  startCompile,
  Thread,
  type Value,
} from "../mod.ts";
import { FileResolver, resolveFile } from "../resolve/resolve.ts";
import { BYTES_PER_UNIT, FrontEndMeter } from "../syntax/meter.ts";
import { parseFile } from "../syntax/parser.ts";
import { UNIVERSE } from "../builtins/mod.ts";
import { DEFAULT_DIALECT } from "../values/mod.ts";
import { compileFile } from "./compile_file.ts";
import { INTERRUPT_POLL_STEPS } from "../values/value.ts";

const ALL = { ...DEFAULT_DIALECT, recursion: true, set: true };

function startCallOf(th: Thread, f: Value) {
  assert.ok(f instanceof StarFunction);
  return startCall(th, f, []);
}

const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join("");
const join = (n: number, sep: string, f: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => f(i)).join(sep);

/** Source families whose size grows with n (each valid with every dialect option on). */
const FAMILIES: Record<string, (n: number) => string> = {
  "dict, distinct keys": (n) => `d = {${join(n, ", ", (i) => `"k${i}": ${i}`)}}\n`,
  "dict, duplicated keys": (n) => `def f():\n    return {${join(n, ", ", (i) => `"k${i % 2}": ${i}`)}}\n`,
  "dict, int keys": (n) => `d = {${join(n, ", ", (i) => `${i}: ${i}`)}}\n`,
  "set display": (n) => `s = set([${join(n, ", ", (i) => `${i}`)}])\n`,
  "list display": (n) => `l = [${join(n, ", ", (i) => `${i}`)}]\n`,
  "statements": (n) => lines(n, (i) => `x${i} = ${i}\n`),
  "statements in a function": (n) => `def f():\n${lines(n, (i) => `    x = ${i}\n`)}`,
  "defs": (n) => lines(n, (i) => `def f${i}(a, b = ${i}):\n    return a + b\n`),
  "binary chain": (n) => `x = 1${" + 1".repeat(n)}\n`,
  "string concatenation": (n) => `x = ${join(n, " + ", () => `"ab"`)}\n`,
  "distinct identifiers": (n) => `def f():\n${lines(n, (i) => `    v${i} = ${i}\n`)}    return v0\n`,
  "comprehension clauses": (n) => `x = [1 ${lines(n, (i) => `for a${i} in [1] `)}]\n`,
  "elif chain": (n) =>
    `def f(x):\n    if x == 0:\n        return 0\n${
      lines(n, (i) => `    elif x == ${i + 1}:\n        return ${i}\n`)
    }`,
};

function compiledCost(src: string): { steps: number; memory: number; compileSteps: number } {
  const th = new Thread();
  const program = compile(src, { budget: th, dialect: ALL, sliced: true });
  return { steps: th.steps, memory: th.memory, compileSteps: program.compileSteps };
}

Deno.test("compile budget: every family is charged steps and memory, linearly in its size", () => {
  for (const [name, gen] of Object.entries(FAMILIES)) {
    const small = compiledCost(gen(2_000));
    const large = compiledCost(gen(8_000));
    assert.equal(large.steps, large.compileSteps, `${name}: the thread pays what the program records`);
    assert.equal(large.memory, large.steps * BYTES_PER_UNIT, name);
    assert.ok(small.steps >= 2_000, `${name}: ${small.steps} steps for 2,000 elements`);
    // The inline executor compiles for sliced runs, the others do not: the cost must not differ.
    const src = gen(2_000);
    assert.equal(
      compile(src, { dialect: ALL }).compileSteps,
      compile(src, { dialect: ALL, sliced: true }).compileSteps,
      `${name}: sliced or not`,
    );
    const ratio = large.steps / small.steps;
    assert.ok(ratio > 3.5 && ratio < 4.5, `${name}: ${small.steps} → ${large.steps} steps (×${ratio})`);
  }
});

Deno.test("compile budget: the scanner, the resolver and the compiler each count their work", () => {
  for (const [name, gen] of Object.entries(FAMILIES)) {
    const src = gen(3_000);
    const meter = new FrontEndMeter();
    const file = parseFile("m.star", src, { staticChecks: false, meter });
    const scanned = meter.units;
    resolveFile(file, {
      dialect: ALL,
      isPredeclared: () => false,
      isUniversal: (n) => UNIVERSE.has(n),
      meter,
    });
    const resolved = meter.units - scanned;
    compileFile(file, { filename: "m.star", recursion: true, universe: UNIVERSE, meter });
    const compiled = meter.units - scanned - resolved;
    for (const [stage, units] of [["scan", scanned], ["resolve", resolved], ["compile", compiled]] as const) {
      assert.ok(units >= 3_000, `${name}: ${stage} counted ${units} units for 3,000 elements`);
    }
  }
});

Deno.test("compile budget: compiling polls the interrupt hook as often as running does", () => {
  for (const [name, gen] of Object.entries(FAMILIES)) {
    let polls = 0;
    const th = new Thread({ checkInterrupt: () => void polls++ });
    compile(gen(10_000), { budget: th, dialect: ALL });
    const expected = Math.floor(th.steps / INTERRUPT_POLL_STEPS);
    assert.ok(expected >= 5, `${name}: ${th.steps} steps`);
    assert.ok(
      polls >= expected - 1 && polls <= expected + 1,
      `${name}: ${polls} polls for ${th.steps} steps`,
    );
  }
});

Deno.test("compile budget: an interrupt, the step budget and the memory budget stop a compilation", () => {
  const src = FAMILIES["dict, distinct keys"](50_000);
  let polls = 0;
  const cancelled = new Thread({ checkInterrupt: () => ++polls >= 2 ? "deadline" : undefined });
  assert.throws(
    () => compile(src, { budget: cancelled }),
    (e) => e instanceof ResourceError && e.resource === "cancelled" && /deadline/.test(e.message),
  );
  assert.ok(cancelled.steps <= 2 * INTERRUPT_POLL_STEPS + 256, `${cancelled.steps} steps before the stop`);

  const stepped = new Thread({ maxSteps: 20_000 });
  assert.throws(
    () => compile(src, { budget: stepped }),
    (e) => e instanceof ResourceError && e.resource === "steps",
  );
  assert.ok(stepped.steps <= 20_000 + 256, `${stepped.steps} steps`);

  const small = new Thread({ maxMemory: 1 << 20 });
  assert.throws(
    () => compile(src, { budget: small }),
    (e) => e instanceof ResourceError && e.resource === "memory",
  );
  // execFile charges its own thread for compiling.
  assert.throws(
    () => execFile(src, { maxSteps: 20_000 }),
    (e) => e instanceof ResourceError && e.resource === "steps",
  );
});

Deno.test("compile budget: huge int literals are refused, long ones converted in polled pieces", () => {
  const th = new Thread({ maxIntBits: 4096 });
  assert.throws(
    () => compile(`x = ${"7".repeat(2_000)}\n`, { budget: th }),
    (e) =>
      e instanceof StarlarkSyntaxError &&
      /int literal too large \(2000 digits; ints are limited to 4096 bits\)/.test(e.message),
  );
  assert.throws(
    () => compile(`x = 0x${"f".repeat(1_100)}\n`, { budget: th }),
    (e) => e instanceof StarlarkSyntaxError && /int literal too large/.test(e.message),
  );
  // Without a budget, the default cap (DEFAULT_MAX_INT_BITS) applies: 4 million digits never convert.
  assert.throws(() => compile(`x = ${"7".repeat(4_000_000)}\n`), /int literal too large/);
  // Leading zeros of a hex literal do not count.
  assert.equal(execFile(`x = 0x${"0".repeat(5_000)}1\n`, { maxIntBits: 4096 }).globals.get("x"), 1);

  let polls = 0;
  const polled = new Thread({ checkInterrupt: () => void polls++ });
  const digits = "9".repeat(70_000);
  const p = compile(`x = ${digits}\n`, { budget: polled });
  assert.ok(polls >= 4, `${polls} polls converting 70,000 digits`);
  assert.ok(polled.steps > 70_000, `${polled.steps} steps`);
  assert.equal(p.run(new Thread()).get("x"), BigInt(digits));
});

Deno.test("compile budget: a sliced compilation stops between top-level statements when due", () => {
  const src = FAMILIES["statements"](20_000);
  const th = new Thread();
  const job = startCompile(src, { budget: th, sliced: true });
  let slices = 0;
  let program;
  for (;;) {
    slices++;
    th.pauseAt = 0; // always due: the job stops at its first poll past a statement
    program = job.step(true);
    if (program !== undefined) break;
    assert.ok(slices < 100_000, "the job makes progress");
  }
  th.pauseAt = Infinity;
  const whole = compiledCost(src);
  assert.equal(program.compileSteps, whole.compileSteps, "the same work, in pieces");
  assert.equal(th.steps, whole.steps);
  // A poll every 4,096 steps, and each due poll stops the job after its statement.
  assert.ok(
    slices >= Math.floor(th.steps / INTERRUPT_POLL_STEPS) - 1,
    `${slices} slices for ${th.steps} steps`,
  );
  const out = program.run(new Thread());
  assert.equal(out.get("x19999"), 19_999);
});

Deno.test("compile budget: a program compiled once charges each later run what compiling it cost", () => {
  const src = FAMILIES["defs"](500);
  const first = new Thread();
  const program = compile(src, { budget: first });
  const later = new Thread();
  program.chargeCompilation(later);
  assert.equal(later.steps, first.steps);
  assert.equal(later.memory, first.memory);
  const resolver = new FileResolver("m.star", {
    dialect: DEFAULT_DIALECT,
    isPredeclared: () => false,
    isUniversal: (n) => UNIVERSE.has(n),
  });
  const file = parseFile("m.star", src, { staticChecks: false });
  for (const s of file.stmts) resolver.statement(s);
  resolver.finish(file);
  assert.equal(file.globals?.length, 500);
});

Deno.test("compile budget: sliced: the generator forms are built between turns, polled, uncharged", () => {
  const src = `def f():\n    return 1\ndef main():\n${
    lines(20_000, (i) => `    x${i} = f()\n`)
  }    return x7\n`;
  let polls = 0;
  const plain = new Thread({ checkInterrupt: () => void polls++ });
  compile(src, { budget: plain, sliced: true });
  const compilePolls = polls;
  polls = 0;
  const th = new Thread({ checkInterrupt: () => void polls++ });
  const program = startCompile(src, { budget: th, sliced: true }).step(true)!;
  assert.equal(th.steps, plain.steps, "the generator forms are not charged");
  assert.equal(program.compileSteps, plain.steps);
  // 20,000 statements with a call each: building their generator forms counts several units each, and
  // polls every 4,096 of them.
  assert.ok(polls - compilePolls >= 15, `${polls} polls, ${compilePolls} compiling alone`);
  // And a deadline passing while they are built stops the compilation.
  let n = 0;
  const late = new Thread({ checkInterrupt: () => ++n > compilePolls + 2 ? "deadline" : undefined });
  assert.throws(
    () => startCompile(src, { budget: late, sliced: true }).step(true),
    (e) => e instanceof ResourceError && e.resource === "cancelled",
  );
  const run = program.start(new Thread());
  while (!run.top.resume());
  const main = run.globals().get("main")!;
  assert.equal(call(new Thread(), main, [], []), 1);
});

Deno.test("deep compile: an elif chain of any length gets its generator form without recursion", () => {
  const src = `def main():\n    x = 1\n    if x == 0:\n        return len([])\n${
    lines(30_000, (i) => `    elif x == ${i + 2}:\n        return len([${i}])\n`)
  }    return -1\n`;
  const program = compile(src, { sliced: true });
  const th = new Thread();
  const run = program.start(th);
  while (!run.top.resume());
  const sliced = startCallOf(th, run.globals().get("main")!);
  while (!sliced.resume());
  assert.equal(sliced.value, -1);
});

Deno.test("compile budget: long tokens and spelling hints are charged by their size, before the work", () => {
  const cost = (src: string) => {
    const th = new Thread();
    try {
      compile(src, { budget: th });
    } catch (e) {
      if (!(e instanceof StarlarkSyntaxError)) throw e;
    }
    return th;
  };
  // One token each: its length decides.
  for (const n of [100_000, 400_000]) {
    const escaped = cost(`x = "${"a\\n".repeat(n / 2)}"\n`);
    assert.ok(escaped.steps >= n / 2, `escaped literal of ${n}: ${escaped.steps} steps`);
    assert.ok(escaped.memory >= 3 * n, `escaped literal of ${n}: ${escaped.memory} bytes`);
    const plain = cost(`x = "${"a".repeat(n)}"\n`);
    assert.ok(plain.steps >= n / 8, `plain literal of ${n}: ${plain.steps} steps`);
    const comment = cost(`# ${"c".repeat(n)}\nx = 1\n`);
    assert.ok(comment.steps >= n / 8, `comment of ${n}: ${comment.steps} steps`);
  }
  // A literal too big for the memory budget is refused before it is decoded.
  const small = new Thread({ maxMemory: 1 << 20 });
  assert.throws(
    () => compile(`x = "${"\\x41".repeat(200_000)}"\n`, { budget: small }),
    (e) => e instanceof ResourceError && e.resource === "memory",
  );
  assert.ok(small.memory <= (1 << 20) + 3 * 800_000 + 1024, `${small.memory}`);
  // n undefined names among n globals: each hint weighs every name in sight.
  const hints = (n: number) =>
    cost(`${lines(n, (i) => `g${i} = ${i}\n`)}def f():\n${lines(n, (i) => `    u${i}\n`)}`).steps;
  const h1 = hints(300), h2 = hints(600);
  assert.ok(h2 / h1 > 3.5, `hints: ${h1} → ${h2} steps (quadratic work must cost quadratic steps)`);
});
