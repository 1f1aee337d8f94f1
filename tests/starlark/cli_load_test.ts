/**
 * `load` in `deno task star`: the multi-file fixture in `cli_load/` runs in-process through the CLI, its
 * modules read from disk relative to the main file, and every case prints what the reference command
 * prints (checked against the binary itself with `STARLARK_REF=1`, where the reference runs in the
 * fixture folder, since it opens modules relative to its working directory).
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { makeLoader, runCli } from "../../src/starlark/cli.ts";
import { EvalError, type Thread, type Value } from "../../src/starlark/values/value.ts";

const dir = fileURLToPath(new URL("./cli_load/", import.meta.url));
const decoder = new TextDecoder();

/** Runs `name` from the fixture folder with our CLI, given its path from elsewhere. */
function ours(name: string): { status: number; output: string } {
  const chunks: Uint8Array[] = [];
  const status = runCli(["--no-steps", dir + name], {
    readFile: (path) => Deno.readTextFileSync(path),
    stdout: (b) => chunks.push(b.slice()),
    stderr: (b) => chunks.push(b.slice()),
  });
  const text = decoder.decode(new Uint8Array(chunks.flatMap((c) => [...c])));
  // The main file is named by the path it was given; the reference runs in the folder.
  return { status, output: text.replaceAll(dir, "") };
}

// What the reference command prints for each case (as `starlark NAME` in cli_load/), and its status.
const CASES: Record<string, [number, string]> = {
  "prog.star": [0, 'loading strings once\nHI! True {"n": 7}\n[1, 2, 3, 7, "X!", "YY!"]\n'],
  "missing.star": [
    1,
    "Traceback (most recent call last):\n  missing.star:1:1: in <toplevel>\n" +
    "Error: cannot load nowhere.star: open nowhere.star: no such file or directory\n",
  ],
  "cycle.star": [
    1,
    "Traceback (most recent call last):\n  cycle.star:1:1: in <toplevel>\n" +
    "Error: cannot load cycle_a.star: cannot load cycle_b.star: cannot load cycle_a.star: cycle in load graph\n",
  ],
  "syntax.star": [
    1,
    "Traceback (most recent call last):\n  syntax.star:1:1: in <toplevel>\n" +
    "Error: cannot load broken.star: broken.star:2:1: got end of file, want primary expression\n",
  ],
  "syntax_utf8.star": [
    1,
    "Traceback (most recent call last):\n  syntax_utf8.star:1:1: in <toplevel>\n" +
    "Error: cannot load broken_utf8.star: broken_utf8.star:1:7: unexpected input character '¡'\n",
  ],
  "broken_utf8.star": [1, "broken_utf8.star:1:7: unexpected input character '¡'\n"],
  "unknown_name.star": [
    1,
    "loading strings once\nTraceback (most recent call last):\n  unknown_name.star:1:1: in <toplevel>\n" +
    "Error: load: name summarise not found in module util.star (did you mean summarize?)\n",
  ],
  "private.star": [1, "private.star:1:20: load: names with leading underscores are not exported: _hidden\n"],
  "at_load.star": [
    1,
    "Traceback (most recent call last):\n  at_load.star:1:1: in <toplevel>\n" +
    'Error: cannot load fails.star: key "k" not in dict\n',
  ],
  "traceback.star": [
    1,
    "loading strings once\nTraceback (most recent call last):\n  traceback.star:4:5: in <toplevel>\n" +
    "  traceback.star:3:17: in call\n  lib/strings.star:5:13: in shout\nError: int has no .upper field or method\n",
  ],
  "frozen.star": [
    1,
    "loading strings once\nTraceback (most recent call last):\n  frozen.star:5:5: in <toplevel>\n" +
    "  frozen.star:4:7: in bump\nError: cannot apply |= to frozen hash table\n",
  ],
  "directory.star": [
    1,
    "Traceback (most recent call last):\n  directory.star:1:1: in <toplevel>\n" +
    "Error: cannot load lib: read lib: is a directory\n",
  ],
};

for (const [name, [status, output]] of Object.entries(CASES)) {
  Deno.test(`cli load: ${name}`, () => {
    const got = ours(name);
    assert.equal(got.output, output);
    assert.equal(got.status, status);
  });
}

Deno.test({
  name: "cli load: every case prints what the reference command prints",
  ignore: Deno.env.get("STARLARK_REF") !== "1",
  async fn() {
    for (const name of Object.keys(CASES)) {
      const out = await new Deno.Command("starlark", {
        args: [name],
        cwd: dir,
        stdout: "piped",
        stderr: "piped",
      })
        .output();
      const want = decoder.decode(out.stdout) + decoder.decode(out.stderr);
      const got = ours(name);
      assert.equal(got.output, want, name);
      assert.equal(got.status, out.code, name);
    }
  },
});

Deno.test("cli load: a module runs once, its failure is cached, and budgets cover loaded modules", () => {
  const runs: string[] = [];
  const files: Record<string, string> = { "m/a.star": "x = 1", "m/bad.star": "y = 1 // 0" };
  const load = makeLoader(
    {
      readFile: (path) => {
        if (!(path in files)) throw new Deno.errors.NotFound(path);
        return files[path];
      },
    },
    "m/main.star",
    (text, filename) => {
      runs.push(filename);
      if (text.includes("//")) throw new EvalError("floored division by zero");
      return new Map<string, Value>([["x", 1]]);
    },
  );
  const thread = {} as Thread;
  assert.equal(load(thread, "a.star").get("x"), 1);
  assert.equal(load(thread, "a.star").get("x"), 1);
  assert.throws(() => load(thread, "bad.star"), /floored division by zero/);
  assert.throws(() => load(thread, "bad.star"), /floored division by zero/);
  assert.throws(() => load(thread, "none.star"), /open none\.star: no such file or directory$/);
  assert.deepEqual(runs, ["a.star", "bad.star"]);

  // A step budget spans the main file and what it loads.
  let stderr = "";
  const r = runCli(["--max-steps", "2000", "spin.star"], {
    readFile: (path) =>
      path === "spin.star" ? 'load("loop.star", "n")\n' : "n = len([i for i in range(100000)])\n",
    stdout: () => {},
    stderr: (b) => stderr += decoder.decode(b),
  });
  assert.equal(r, 1);
  assert.match(stderr, /too many steps/);
});
