/**
 * Runs starlark-go's own conformance corpus (`go.starlark.net/starlark/testdata/*.star`, read from the Go
 * module cache, never copied into this repo) through our engine, the way the reference's test driver
 * (`starlark/eval_test.go`, `TestExecFile`) runs it:
 *
 * - chunks split on `---`, options per chunk (`option:NAME` anywhere in the chunk), and `### "regex"`
 *   annotations checked against the outermost frame of the error in the file (see `chunkedfile.ts`);
 * - `load("assert.star", ...)` executes the real `starlarktest/assert.star` once, with TypeScript
 *   versions of its Go natives; `json.star` and `math.star` serve our modules;
 * - predeclared `hasfields`, `fibonacci` and `struct`, as in the driver.
 *
 * Skipped (and reported as ignored tests): `time.star` and `proto.star`, which test Go-only library
 * modules (`lib/time`, `lib/proto`) that CodeMode does not ship. Three files are not in `TestExecFile`
 * and are run the way their own Go tests use them: `benchmark.star` (each `bench_*` function called once
 * with `b.n == 1`, as `BenchmarkStarlark` does), `paths.star` (executed, as `BenchmarkProgram` compiles
 * it) and `function_param.star` (executed; its Go test inspects `Function.ParamDefault`, a Go API).
 *
 * The corpus must be in the module cache at the version pinned below (CI's `.ci/run` installs the
 * reference `starlark` command with `go install`, which puts the module there); otherwise the test is
 * ignored with a warning.
 */
import { execFile } from "../../src/starlark/mod.ts";
import { StarFunction } from "../../src/starlark/eval/function.ts";
import { call } from "../../src/starlark/values/call.ts";
import { json } from "../../src/starlark/lib/mod.ts";
import {
  Builtin,
  EvalError,
  StarObject,
  Thread,
  toJSString,
  type Value,
} from "../../src/starlark/values/value.ts";
import {
  chunkDialect,
  type GoChunk,
  goRegExp,
  hasOption,
  readChunks,
} from "./reference_corpus/chunkedfile.ts";
import { assertModuleLoader, makeLoad, setReporter } from "./reference_corpus/natives.ts";
import { fibonacci, hasfieldsBuiltin, structBuiltin } from "./reference_corpus/values.ts";

/** The go.starlark.net version whose corpus we run; keep in sync with `.ci/run`. */
export const STARLARK_GO_VERSION = "v0.0.0-20260908191801-89a6a09411d5";

/** Files of the corpus we do not run, with the reason. */
const SKIPPED_FILES: Readonly<Record<string, string>> = {
  "time.star": "tests the Go-only `time` library module (go.starlark.net/lib/time), not part of CodeMode",
  "proto.star": "tests the Go-only `proto` library module (go.starlark.net/lib/proto, protobuf descriptors)",
};

/** Chunks we do not run (`file:line` of the chunk's first line), with the reason. None at present. */
const SKIPPED_CHUNKS: Readonly<Record<string, string>> = {};

/** A runaway chunk must end the test, not hang it; no chunk needs anywhere near this many steps. */
const MAX_STEPS = 200_000_000;

async function goModCache(): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("go", { args: ["env", "GOMODCACHE"], stdout: "piped", stderr: "null" })
      .output();
    const dir = new TextDecoder().decode(out.stdout).trim();
    if (out.success && dir !== "") return dir;
  } catch {
    // No go on PATH: fall back to Go's default location.
  }
  const env = Deno.env.get("GOMODCACHE");
  if (env) return env;
  const gopath = Deno.env.get("GOPATH")?.split(":")[0];
  if (gopath) return `${gopath}/pkg/mod`;
  const home = Deno.env.get("HOME");
  return home ? `${home}/go/pkg/mod` : undefined;
}

function isDir(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** The module's root directory, or the reason it cannot be used. */
async function locateCorpus(): Promise<{ root: string } | { why: string }> {
  const cache = await goModCache();
  if (cache === undefined) return { why: "cannot determine the Go module cache (no go, GOMODCACHE or HOME)" };
  const root = `${cache}/go.starlark.net@${STARLARK_GO_VERSION}`;
  if (!isDir(`${root}/starlark/testdata`)) {
    return {
      why: `go.starlark.net@${STARLARK_GO_VERSION} is not in the Go module cache (${cache}); ` +
        `install it with: go install go.starlark.net/cmd/starlark@${STARLARK_GO_VERSION}`,
    };
  }
  return { root };
}

/** What running one chunk went wrong with (empty when it passed, like a Go test with no t.Error). */
function runChunk(
  filename: string,
  chunk: GoChunk,
  load: ReturnType<typeof makeLoad>,
): string[] {
  const failures = [...chunk.badAnnotations];
  const want = new Map(chunk.wantErrs);
  const thread = new Thread({ dialect: chunkDialect(chunk.source), load, maxSteps: MAX_STEPS });
  setReporter(thread, { error: (msg) => failures.push(msg) });
  try {
    execFile(chunk.source, {
      filename,
      thread,
      predeclared: { hasfields: hasfieldsBuiltin, fibonacci, struct: structBuiltin },
    });
  } catch (e) {
    if (e instanceof EvalError) {
      // The driver reports the error at the innermost frame that is in this file (`CallStack.At(0)` is
      // the innermost frame).
      const frame = e.callStack.findLast((f) => f.filename === filename && f.line > 0);
      const msg = toJSString(e.message);
      if (frame === undefined) {
        failures.push(`error outside ${filename}:\n${toJSString(e.backtrace())}`);
      } else {
        const pattern = want.get(frame.line);
        if (pattern === undefined) {
          failures.push(`${filename}:${frame.line}: unexpected error: ${msg}`);
        } else {
          want.delete(frame.line);
          if (!goRegExp(pattern).test(msg)) {
            failures.push(
              `${filename}:${frame.line}: error ${JSON.stringify(msg)} does not match pattern ${
                JSON.stringify(pattern)
              }`,
            );
          }
        }
      }
    } else {
      const err = e as Error;
      failures.push(`${err?.name}: ${toJSString(String(err?.message))}\n${err?.stack ?? ""}`);
    }
  }
  for (const [line, pattern] of want) {
    failures.push(`${filename}:${line}: expected error matching ${JSON.stringify(pattern)}`);
  }
  return failures;
}

/** The `b` argument of a `bench_*` function (the reference's `benchmark`), for a single iteration. */
class Benchmark extends StarObject {
  get typeName(): string {
    return "benchmark";
  }
  starlarkRepr(): string {
    return "<benchmark>";
  }
  hashKey(): string {
    throw new EvalError("unhashable: benchmark");
  }
  starlarkAttrNames(): string[] {
    return ["n", "restart", "start", "stop"];
  }
  starlarkAttr(name: string): Value | undefined {
    if (name === "n") return 1;
    if (name === "restart" || name === "start" || name === "stop") return new Builtin(name, () => null, this);
    return undefined;
  }
}

function fail(failures: string[]): void {
  if (failures.length > 0) throw new Error(failures.join("\n\n"));
}

const located = await locateCorpus();

if ("why" in located) {
  console.warn(`reference corpus test ignored: ${located.why}`);
  Deno.test({ name: "reference corpus: starlark-go testdata", ignore: true, fn() {} });
} else {
  const testdata = `${located.root}/starlark/testdata`;
  const assertSource = Deno.readTextFileSync(`${located.root}/starlarktest/assert.star`);
  const load = makeLoad(assertModuleLoader(assertSource), testdata);
  const files = [...Deno.readDirSync(testdata)]
    .filter((e) => e.isFile && e.name.endsWith(".star"))
    .map((e) => e.name)
    .sort();

  for (const name of files) {
    const filename = `testdata/${name}`;
    const text = Deno.readTextFileSync(`${testdata}/${name}`);
    const skip = SKIPPED_FILES[name];
    if (skip !== undefined) {
      Deno.test({ name: `reference corpus: ${name} (skipped: ${skip})`, ignore: true, fn() {} });
      continue;
    }
    if (name === "benchmark.star") {
      Deno.test(`reference corpus: ${name}`, async (t) => {
        // BenchmarkStarlark: json in the universe, options of the whole file, then each bench_* function.
        const { globals, thread } = execFile(text, {
          filename,
          predeclared: { json },
          dialect: chunkDialect(text),
          maxSteps: MAX_STEPS,
        });
        for (const [fname, fn] of globals) {
          if (!fname.startsWith("bench_") || !(fn instanceof StarFunction)) continue;
          await t.step(fname, () => void call(thread, fn, [new Benchmark()], []));
        }
      });
      continue;
    }
    if (name === "paths.star" || name === "function_param.star") {
      Deno.test(`reference corpus: ${name}`, () => {
        // Whole-file programs with the legacy (all off) options and no predeclared names.
        execFile(text, { filename, maxSteps: MAX_STEPS });
      });
      continue;
    }
    Deno.test(`reference corpus: ${name}`, async (t) => {
      for (const chunk of readChunks(text)) {
        const where = `${name}:${chunk.start}`;
        const why = SKIPPED_CHUNKS[where];
        await t.step({
          name: why === undefined ? where : `${where} (skipped: ${why})`,
          ignore: why !== undefined,
          fn: () => fail(runChunk(filename, chunk, load)),
        });
      }
    });
  }

  Deno.test("reference corpus: the harness reports every kind of failure", () => {
    const cases: [string, RegExp][] = [
      ['load("assert.star", "assert")\nassert.eq(1, 2)\nassert.eq(3, 3)\n', /Error: 1 != 2$/],
      ['load("assert.star", "assert")\nassert.fails(lambda: 1, "x")\n', /evaluation succeeded unexpectedly/],
      ['load("assert.star", "assert")\nassert.eq(1.0, 1.5)\n', /floats: 1\.0 != 1\.5/],
      ['x = 1 ### "nope"\n', /:1: expected error matching "nope"/],
      ["def f():\n  return 1 // 0\nf()\n", /:2: unexpected error: floored division by zero/],
      ['x = 1 // 0 ### "wrong"\n', /does not match pattern "wrong"/],
      ['load("assert.star", "nonesuch")\n', /name nonesuch not found in module assert\.star/],
      ["x = (\n", /SyntaxError/],
    ];
    for (const [src, want] of cases) {
      const failures = runChunk("testdata/selftest.star", readChunks(src)[0], load);
      if (failures.length !== 1 || !want.test(failures[0])) {
        throw new Error(`${JSON.stringify(src)}: got ${JSON.stringify(failures)}, want one matching ${want}`);
      }
    }
    const ok = 'load("assert.star", "assert")\nassert.eq(1, 1.0)\n1 // 0 ### "division by zero"\n';
    const failures = runChunk("testdata/selftest.star", readChunks(ok)[0], load);
    if (failures.length !== 0) throw new Error(`unexpected failures: ${failures}`);
  });

  Deno.test("reference corpus: every file either runs or is skipped with a reason", () => {
    // The corpus must not silently shrink: the pinned version has 23 files (and the proto directory).
    if (files.length < 23) throw new Error(`only ${files.length} .star files in ${testdata}`);
    for (const name of Object.keys(SKIPPED_FILES)) {
      if (!files.includes(name)) throw new Error(`skipped file ${name} is not in the corpus`);
    }
    if (!hasOption(readChunks(Deno.readTextFileSync(`${testdata}/while.star`))[0].source, "while")) {
      throw new Error("while.star no longer enables option:while");
    }
  });
}

Deno.test("reference corpus: .ci/run installs the pinned go.starlark.net version", () => {
  const ci = Deno.readTextFileSync(new URL("../../.ci/run", import.meta.url));
  const m = /STARLARK_GO_VERSION=(\S+)/.exec(ci);
  if (m === null || m[1] !== STARLARK_GO_VERSION) {
    throw new Error(`.ci/run pins ${m?.[1]}, this test expects ${STARLARK_GO_VERSION}`);
  }
});
