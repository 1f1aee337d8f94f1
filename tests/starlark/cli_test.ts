/**
 * Tests of the `deno task star` command (src/starlark/cli.ts), run in-process with captured output.
 */
import assert from "node:assert/strict";
import { parseArgs, runCli, UsageError } from "../../src/starlark/cli.ts";

interface Captured {
  status: number;
  stdout: string;
  stderr: string;
}

function runWith(files: Record<string, string>, args: string[]): Captured {
  const out: Uint8Array[] = [];
  const err: Uint8Array[] = [];
  const status = runCli(args, {
    readFile: (path) => {
      if (!(path in files)) throw new Error("no such file");
      return files[path];
    },
    stdout: (b) => out.push(b.slice()),
    stderr: (b) => err.push(b.slice()),
  });
  const text = (parts: Uint8Array[]) =>
    new TextDecoder().decode(new Uint8Array(parts.flatMap((p) => [...p])));
  return { status, stdout: text(out), stderr: text(err) };
}

Deno.test("cli: calls main and prints the repr of its result on stdout; print goes to stderr", () => {
  const r = runWith({
    "p.star": 'def main():\n    print("hello", 1)\n    return {"a": [1, 2.0, "é"], "n": None}\n',
  }, ["p.star"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '{"a": [1, 2.0, "é"], "n": None}\n');
  assert.match(r.stderr, /^hello 1\n/);
  assert.match(r.stderr, /steps: [1-9]\d*\n$/);
});

Deno.test("cli: a file without main prints nothing on stdout", () => {
  const r = runWith({ "p.star": "x = 1 + 2\n" }, ["p.star", "--no-steps"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, "");
});

Deno.test("cli: json, math and sum are predeclared", () => {
  const r = runWith({
    "p.star": "def main():\n    return [json.encode({'b': 1, 'a': 2}), math.floor(2.5), sum([1, 2, 3])]\n",
  }, ["--no-steps", "p.star"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '["{\\"a\\":2,\\"b\\":1}", 2, 6]\n');
});

Deno.test("cli: runtime errors print a traceback and exit 1", () => {
  const r = runWith({ "bad.star": "def f():\n    return 1 // 0\ndef main():\n    return f()\n" }, [
    "bad.star",
  ]);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /Traceback \(most recent call last\):\n/);
  assert.match(r.stderr, /bad\.star:2:\d+: in f\n/);
  assert.match(r.stderr, /Error: floored division by zero\n/);
});

Deno.test("cli: syntax errors print file:line:col and exit 1", () => {
  const r = runWith({ "bad.star": "x = (1,\n" }, ["--no-steps", "bad.star"]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^bad\.star:2:1: got end of file, want '\)'\n$/);
});

Deno.test("cli: dialect flags", () => {
  const src = "n = 0\nwhile n < 3:\n    n += 1\ndef main():\n    return n\n";
  const off = runWith({ "w.star": src }, ["--no-steps", "w.star"]);
  assert.equal(off.status, 1);
  assert.match(off.stderr, /does not support while loops/);
  const on = runWith({ "w.star": src }, ["--all-options", "--no-steps", "w.star"]);
  assert.equal(on.status, 0, on.stderr);
  assert.equal(on.stdout, "3\n");
  const some = runWith({ "w.star": src }, [
    "--while",
    "--toplevelcontrol",
    "--globalreassign",
    "--no-steps",
    "w.star",
  ]);
  assert.equal(some.status, 0, some.stderr);
  const rec = runWith({
    "r.star": "def f(n):\n    return 1 if n == 0 else n * f(n - 1)\ndef main():\n    return f(5)\n",
  }, ["--recursion", "--no-steps", "r.star"]);
  assert.equal(rec.stdout, "120\n", rec.stderr);
  const set = runWith({ "s.star": "def main():\n    return set([1, 1])\n" }, [
    "--set",
    "--no-steps",
    "s.star",
  ]);
  assert.equal(set.stdout, "set([1])\n", set.stderr);
});

Deno.test("cli: --max-steps stops a runaway program with a resource error", () => {
  const r = runWith({ "loop.star": "def main():\n    for i in range(1 << 60):\n        pass\n" }, [
    "--max-steps",
    "10000",
    "loop.star",
  ]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /too many steps/);
});

Deno.test("cli: usage errors exit 2", () => {
  assert.equal(runWith({}, []).status, 2);
  assert.equal(runWith({}, ["--bogus", "x.star"]).status, 2);
  assert.equal(runWith({}, ["--max-steps", "-3", "x.star"]).status, 2);
  assert.equal(runWith({}, ["missing.star"]).status, 1);
  assert.throws(() => parseArgs(["a.star", "b.star"]), UsageError);
  const opts = parseArgs(["-recursion", "--max-memory", "1000", "a.star"]);
  assert.equal(opts.dialect.recursion, true);
  assert.equal(opts.maxMemory, 1000);
  assert.equal(opts.file, "a.star");
});
