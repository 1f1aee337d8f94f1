/**
 * Side-by-side benchmark: runs every program in `bench/programs/` (except `parse300.star`, which belongs
 * to the parser bench) through our engine, through starlark-go and through CPython, and prints the median
 * whole-process wall time of each, the ratios ours/starlark-go and ours/CPython, and their geometric means.
 *
 *     deno task compare [--runs N] [--only NAME[,NAME...]] [--no-python] [--cpu]
 *
 * `--cpu` reports the processes' CPU time (user + system, from GNU `time`, which must be installed at
 * /usr/bin/time) instead of wall time: on a busy machine it varies much less than wall time.
 *
 * How each implementation runs a program (each must print the same checksum, or the script fails):
 * - ours: `deno run -A src/starlark/cli.ts --no-steps FILE.star`; the CLI calls `main()` and prints its repr.
 * - starlark-go: the `starlark` command on FILE.star plus an appended line `print(main())` (the reference
 *   command does not call `main` by itself). The binary is looked up on PATH, then in `.tools/bin`; if
 *   absent it is built once with `go install go.starlark.net/cmd/starlark@VERSION` into `.tools/bin`
 *   (the same program `go run go.starlark.net/cmd/starlark@VERSION` runs, without recompiling per run).
 * - CPython: `python3` on the same text (Starlark's common subset is valid Python), preceded by
 *   `bench/programs/python/NAME.py` when that prelude exists (e.g. a `json` shim).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** The starlark-go version the project pins (the reference implementation). */
export const STARLARK_GO_VERSION = "v0.0.0-20260908191801-89a6a09411d5";

const root = fileURLToPath(new URL("..", import.meta.url));
const programsDir = join(root, "bench", "programs");
const EXCLUDED = new Set(["parse300.star"]);

/** One implementation under test. */
interface Runner {
  name: string;
  /** Builds the command for a program; returns undefined when this runner cannot run it. */
  command(program: string): Promise<{ cmd: string; args: string[] } | undefined>;
  /** Extracts the checksum from the process output. */
  checksum(out: { stdout: string; stderr: string }): string;
}

interface Flags {
  runs: number;
  only: Set<string> | undefined;
  python: boolean;
  cpu: boolean;
}

function parseFlags(args: string[]): Flags {
  let runs = 5;
  let only: Set<string> | undefined;
  let python = true;
  let cpu = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--runs") {
      runs = Number(args[++i]);
      if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs wants a positive integer");
    } else if (args[i] === "--only") {
      only = new Set((args[++i] ?? "").split(",").map((s) => s.replace(/\.star$/, "")));
    } else if (args[i] === "--no-python") {
      python = false;
    } else if (args[i] === "--cpu") {
      cpu = true;
    } else {
      throw new Error(
        `unknown argument ${args[i]}; usage: deno task compare [--runs N] [--only a,b] [--no-python] [--cpu]`,
      );
    }
  }
  return { runs, only, python, cpu };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function which(cmd: string): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir !== "" && await exists(join(dir, cmd))) return join(dir, cmd);
  }
  return undefined;
}

/** Finds the starlark-go binary, building it into .tools/bin when needed. */
async function locateStarlarkGo(): Promise<string> {
  const onPath = await which("starlark");
  if (onPath !== undefined) return onPath;
  const toolsBin = join(root, ".tools", "bin");
  const local = join(toolsBin, "starlark");
  if (await exists(local)) return local;
  console.error(`building starlark-go ${STARLARK_GO_VERSION} into .tools/bin ...`);
  const out = await new Deno.Command("go", {
    args: ["install", `go.starlark.net/cmd/starlark@${STARLARK_GO_VERSION}`],
    env: { GOBIN: toolsBin },
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!out.success || !(await exists(local))) {
    throw new Error("could not build starlark-go with `go install`");
  }
  return local;
}

let tmpDir: string | undefined;

async function withDriver(program: string, prelude: string): Promise<string> {
  tmpDir ??= await Deno.makeTempDir({ prefix: "codemode-compare-" });
  const base = program.replace(/^.*\//, "");
  const text = prelude + await Deno.readTextFile(program) + "\nprint(main())\n";
  const path = join(tmpDir, `${prelude === "" ? "go" : "py"}-${base}`);
  await Deno.writeTextFile(path, text);
  return path;
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return lines[lines.length - 1] ?? "";
}

function runners(starlarkGo: string, python: boolean): Runner[] {
  const list: Runner[] = [
    {
      name: "ours",
      command: (program) =>
        Promise.resolve({
          cmd: Deno.execPath(),
          args: ["run", "-A", join(root, "src", "starlark", "cli.ts"), "--no-steps", program],
        }),
      checksum: (out) => lastLine(out.stdout),
    },
    {
      name: "starlark-go",
      command: async (program) => ({ cmd: starlarkGo, args: [await withDriver(program, "")] }),
      // The reference command prints to stderr.
      checksum: (out) => lastLine(out.stderr),
    },
  ];
  if (python) {
    list.push({
      name: "python3",
      command: async (program) => {
        const name = program.replace(/^.*\//, "").replace(/\.star$/, "");
        const preludePath = join(programsDir, "python", `${name}.py`);
        const prelude = await exists(preludePath) ? await Deno.readTextFile(preludePath) : "";
        // A non-empty prelude also keeps the temp file name distinct from the starlark-go one.
        return { cmd: "python3", args: [await withDriver(program, prelude || "# python\n")] };
      },
      checksum: (out) => lastLine(out.stdout),
    });
  }
  return list;
}

const decoder = new TextDecoder();

/** Runs a command once; `ms` is its wall time, or its CPU time (user + system) when `cpu` is set. */
async function timeOnce(
  cmd: { cmd: string; args: string[] },
  cpu: boolean,
): Promise<{ ms: number; stdout: string; stderr: string }> {
  let timeFile: string | undefined;
  let run = cmd;
  if (cpu) {
    tmpDir ??= await Deno.makeTempDir({ prefix: "codemode-compare-" });
    timeFile = join(tmpDir, "time.txt");
    run = { cmd: "/usr/bin/time", args: ["-f", "%U %S", "-o", timeFile, cmd.cmd, ...cmd.args] };
  }
  const start = performance.now();
  const out = await new Deno.Command(run.cmd, { args: run.args, stdout: "piped", stderr: "piped" }).output();
  let ms = performance.now() - start;
  const stdout = decoder.decode(out.stdout);
  const stderr = decoder.decode(out.stderr);
  if (!out.success) {
    throw new Error(`${cmd.cmd} ${cmd.args.join(" ")} failed (exit ${out.code}):\n${stderr.slice(-2000)}`);
  }
  if (timeFile !== undefined) {
    const [user, sys] = lastLine(await Deno.readTextFile(timeFile)).split(" ").map(Number);
    if (!Number.isFinite(user) || !Number.isFinite(sys)) throw new Error(`cannot read ${timeFile}`);
    ms = (user + sys) * 1000;
  }
  return { ms, stdout, stderr };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function geomean(xs: number[]): number {
  return xs.length === 0 ? NaN : Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
}

function pad(s: string, n: number, right = false): string {
  return right ? s.padStart(n) : s.padEnd(n);
}

async function main(): Promise<void> {
  const { runs, only, python, cpu } = parseFlags(Deno.args);
  const starlarkGo = await locateStarlarkGo();
  const impls = runners(starlarkGo, python);
  const programs = [...Deno.readDirSync(programsDir)]
    .filter((e) => e.isFile && e.name.endsWith(".star") && !EXCLUDED.has(e.name))
    .map((e) => e.name)
    .filter((n) => only === undefined || only.has(n.replace(/\.star$/, "")))
    .sort();
  if (programs.length === 0) throw new Error("no programs selected");

  console.log(
    `starlark-go: ${starlarkGo} (${STARLARK_GO_VERSION}); ${runs} runs per program, median ${
      cpu ? "CPU (user + system)" : "wall"
    } time`,
  );
  const header = ["program", ...impls.map((r) => `${r.name} ms`), "ours/go", ...(python ? ["ours/py"] : [])];
  const widths = [20, 12, 15, 12, 9, 9];
  console.log(header.map((h, i) => pad(h, widths[i], i > 0)).join(" "));

  const ratiosGo: number[] = [];
  const ratiosPy: number[] = [];
  for (const name of programs) {
    const program = join(programsDir, name);
    const medians: number[] = [];
    let expected: string | undefined;
    for (const impl of impls) {
      const cmd = await impl.command(program);
      if (cmd === undefined) throw new Error(`${impl.name} cannot run ${name}`);
      // One untimed run warms caches (Deno's transpile cache, the page cache) and checks the result.
      const warm = await timeOnce(cmd, cpu);
      const sum = impl.checksum(warm);
      expected ??= sum;
      if (sum !== expected) {
        throw new Error(`${name}: ${impl.name} printed ${sum}, but ${impls[0].name} printed ${expected}`);
      }
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push((await timeOnce(cmd, cpu)).ms);
      medians.push(median(times));
    }
    const rGo = medians[0] / medians[1];
    ratiosGo.push(rGo);
    const row = [name.replace(/\.star$/, ""), ...medians.map((m) => m.toFixed(0)), rGo.toFixed(2)];
    if (python) {
      const rPy = medians[0] / medians[2];
      ratiosPy.push(rPy);
      row.push(rPy.toFixed(2));
    }
    console.log(row.map((c, i) => pad(c, widths[i], i > 0)).join(" "));
  }
  const gm = ["geomean", ...impls.map(() => ""), geomean(ratiosGo).toFixed(2)];
  if (python) gm.push(geomean(ratiosPy).toFixed(2));
  console.log(gm.map((c, i) => pad(c, widths[i], i > 0)).join(" "));
  if (tmpDir !== undefined) await Deno.remove(tmpDir, { recursive: true });
}

if (import.meta.main) await main();
