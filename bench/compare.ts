/**
 * Side-by-side benchmark: runs every program in `bench/programs/` (except `parse300.star`, which belongs
 * to the parser bench) through our engine, through starlark-go and through CPython, and prints the median
 * whole-process wall time of each, the ratios ours/starlark-go and ours/CPython, and their geometric means,
 * then the median peak memory (maximum resident set size) of ours and starlark-go and their ratio.
 *
 *     deno task compare [--runs N] [--only NAME[,NAME...]] [--no-python] [--cpu] [--modules] [--v8-flags F]
 *
 * `--cpu` reports the processes' CPU time (user + system) instead of wall time: on a busy machine it varies
 * much less than wall time. CPU time and peak memory come from GNU `time` at /usr/bin/time; without it
 * `--cpu` fails and the memory columns are left out.
 *
 * Ours starts as `deno task star` starts it, through `src/starlark/cli_launcher.ts`, from a single-file
 * bundle of the CLI; `--modules` runs `src/starlark/cli.ts` from its module graph instead (15–20 ms and
 * 8 MiB more per process).
 *
 * A start-up row (printed last, measured first): a program whose `main()` returns 0, run at least 11 times,
 * median wall time (always wall: start-up is what a user waits for) and peak memory — each implementation's
 * floor. The memory columns then also give each program's peak above its implementation's floor (`ours Δ`,
 * `go Δ`: what the engine allocates for the program's values, without Deno's fixed start-up), their ratio
 * and its geometric mean. A Δ below {@link MIN_DELTA_MIB} (zero or negative included: a program lighter
 * than the floor's own noise) counts as that, so that every ratio is defined; such a cell is marked `*`.
 *
 * `--v8-flags A,B` runs ours with those V8 flags instead of the `star` task's (to try candidates).
 *
 * How each implementation runs a program (each must print the same checksum, or the script fails):
 * - ours: the `star` task's command (`deno run -A --v8-flags=... src/starlark/cli_launcher.ts`, read from
 *   `deno.json`, so the V8 flags are the CLI's own) with `--no-steps --set FILE.star`; the CLI calls `main()` and
 *   prints its repr (`--set` because the reference command enables sets by default). A program whose first
 *   line is `# dialect: -globalreassign` (it uses `while`) runs with `--while --globalreassign
 *   --toplevelcontrol` here and `-globalreassign` there.
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

/**
 * The `deno run` options of the `star` task in `deno.json` (everything between `deno run` and the script),
 * so that ours runs with the flags `deno task star` gives it.
 */
export async function starTaskOptions(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const words = String(config.tasks?.star ?? "").split(/\s+/);
  const script = words.findIndex((w) => w.endsWith("cli_launcher.ts"));
  if (words[0] !== "deno" || words[1] !== "run" || script < 0) {
    throw new Error(`the star task is not "deno run ... cli_launcher.ts": ${config.tasks?.star}`);
  }
  return words.slice(2, script);
}
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
  modules: boolean;
  /** V8 flags replacing the `star` task's, or undefined for the task's own. */
  v8Flags: string | undefined;
}

function parseFlags(args: string[]): Flags {
  let runs = 5;
  let only: Set<string> | undefined;
  let python = true;
  let cpu = false;
  let modules = false;
  let v8Flags: string | undefined;
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
    } else if (args[i] === "--modules") {
      modules = true;
    } else if (args[i] === "--v8-flags") {
      v8Flags = args[++i];
      if (v8Flags === undefined || v8Flags === "") throw new Error("--v8-flags wants a comma-separated list");
    } else {
      throw new Error(
        `unknown argument ${
          args[i]
        }; usage: deno task compare [--runs N] [--only a,b] [--no-python] [--cpu] [--modules] [--v8-flags F]`,
      );
    }
  }
  return { runs, only, python, cpu, modules, v8Flags };
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

/**
 * Whether a program's first line is `# dialect: -globalreassign`: the reference command allows `while` only
 * under that flag, which also allows reassigned globals and top-level control flow.
 */
async function needsGlobalReassign(program: string): Promise<boolean> {
  return hasGlobalReassignLine(await Deno.readTextFile(program));
}

function hasGlobalReassignLine(text: string): boolean {
  return text.startsWith("# dialect: -globalreassign\n");
}

/** The options our CLI needs for a compare program of this text (its dialect line), before the file name. */
export function ourDialectOptions(text: string): string[] {
  return hasGlobalReassignLine(text) ? ["--while", "--globalreassign", "--toplevelcontrol"] : [];
}

function runners(starlarkGo: string, python: boolean, cli: string, denoOptions: string[]): Runner[] {
  const list: Runner[] = [
    {
      name: "ours",
      command: async (program) => ({
        cmd: Deno.execPath(),
        args: [
          "run",
          ...denoOptions,
          cli,
          "--no-steps",
          "--set",
          ...ourDialectOptions(await Deno.readTextFile(program)),
          program,
        ],
      }),
      checksum: (out) => lastLine(out.stdout),
    },
    {
      name: "starlark-go",
      command: async (program) => ({
        cmd: starlarkGo,
        args: [
          ...(await needsGlobalReassign(program) ? ["-globalreassign"] : []),
          await withDriver(program, ""),
        ],
      }),
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

/** GNU time, when installed: it reports CPU time and peak memory. */
const GNU_TIME = "/usr/bin/time";

/**
 * Runs a command once; `ms` is its wall time, or its CPU time (user + system) when `cpu` is set, and
 * `rssKiB` its peak resident set size (NaN without GNU time).
 */
async function timeOnce(
  cmd: { cmd: string; args: string[] },
  cpu: boolean,
  gnuTime: boolean,
): Promise<{ ms: number; rssKiB: number; stdout: string; stderr: string }> {
  let timeFile: string | undefined;
  let run = cmd;
  if (gnuTime) {
    tmpDir ??= await Deno.makeTempDir({ prefix: "codemode-compare-" });
    timeFile = join(tmpDir, "time.txt");
    run = { cmd: GNU_TIME, args: ["-f", "%U %S %M", "-o", timeFile, cmd.cmd, ...cmd.args] };
  }
  const start = performance.now();
  const out = await new Deno.Command(run.cmd, { args: run.args, stdout: "piped", stderr: "piped" }).output();
  let ms = performance.now() - start;
  let rssKiB = NaN;
  const stdout = decoder.decode(out.stdout);
  const stderr = decoder.decode(out.stderr);
  if (!out.success) {
    throw new Error(`${cmd.cmd} ${cmd.args.join(" ")} failed (exit ${out.code}):\n${stderr.slice(-2000)}`);
  }
  if (timeFile !== undefined) {
    const [user, sys, rss] = lastLine(await Deno.readTextFile(timeFile)).split(" ").map(Number);
    if (!Number.isFinite(user) || !Number.isFinite(sys) || !Number.isFinite(rss)) {
      throw new Error(`cannot read ${timeFile}`);
    }
    if (cpu) ms = (user + sys) * 1000;
    rssKiB = rss;
  }
  return { ms, rssKiB, stdout, stderr };
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

/** Median time and peak memory of each implementation on one program, after checking they agree. */
async function measure(
  impls: Runner[],
  program: string,
  runs: number,
  cpu: boolean,
  gnuTime: boolean,
): Promise<{ medians: number[]; rss: number[] }> {
  const name = program.replace(/^.*\//, "");
  const medians: number[] = [];
  const rss: number[] = [];
  let expected: string | undefined;
  for (const impl of impls) {
    const cmd = await impl.command(program);
    if (cmd === undefined) throw new Error(`${impl.name} cannot run ${name}`);
    // One untimed run warms caches (Deno's transpile cache, the CLI bundle, the page cache) and checks
    // the result.
    const warm = await timeOnce(cmd, cpu, gnuTime);
    const sum = impl.checksum(warm);
    expected ??= sum;
    if (sum !== expected) {
      throw new Error(`${name}: ${impl.name} printed ${sum}, but ${impls[0].name} printed ${expected}`);
    }
    const times: number[] = [];
    const peaks: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = await timeOnce(cmd, cpu, gnuTime);
      times.push(t.ms);
      peaks.push(t.rssKiB);
    }
    medians.push(median(times));
    rss.push(median(peaks));
  }
  return { medians, rss };
}

/**
 * Peaks above this many MiB over the floor count as that: below it a Δ is noise of the floor's own
 * measurement (a few hundred KiB between runs), and a Δ at or below zero would leave the ratio undefined.
 */
export const MIN_DELTA_MIB = 0.5;

/** A program's peak above its implementation's floor, in MiB, clamped at {@link MIN_DELTA_MIB}. */
export function deltaMiB(peakKiB: number, floorKiB: number): { mib: number; clamped: boolean } {
  const mib = (peakKiB - floorKiB) / 1024;
  return mib < MIN_DELTA_MIB ? { mib: MIN_DELTA_MIB, clamped: true } : { mib, clamped: false };
}

/** The `deno run` options ours runs with: the star task's, or its own V8 flags replaced by `v8Flags`. */
export function denoOptions(taskOptions: string[], v8Flags: string | undefined): string[] {
  if (v8Flags === undefined) return taskOptions;
  return [...taskOptions.filter((o) => !o.startsWith("--v8-flags=")), `--v8-flags=${v8Flags}`];
}

async function main(): Promise<void> {
  const { runs, only, python, cpu, modules, v8Flags } = parseFlags(Deno.args);
  const gnuTime = await exists(GNU_TIME);
  if (cpu && !gnuTime) throw new Error(`--cpu needs GNU time at ${GNU_TIME}`);
  const starlarkGo = await locateStarlarkGo();
  const cli = join(root, "src", "starlark", modules ? "cli.ts" : "cli_launcher.ts");
  const options = denoOptions(await starTaskOptions(), v8Flags);
  const impls = runners(starlarkGo, python, cli, options);
  const programs = [...Deno.readDirSync(programsDir)]
    .filter((e) => e.isFile && e.name.endsWith(".star") && !EXCLUDED.has(e.name))
    .map((e) => e.name)
    .filter((n) => only === undefined || only.has(n.replace(/\.star$/, "")))
    .sort();
  if (programs.length === 0) throw new Error("no programs selected");

  console.log(
    `starlark-go: ${starlarkGo} (${STARLARK_GO_VERSION}); ${runs} runs per program, median ${
      cpu ? "CPU (user + system)" : "wall"
    } time; ours from ${modules ? "the CLI's modules" : "the launcher's bundle of the CLI"} with ${
      options.join(" ")
    }`,
  );

  // The floors first: every program's Δ columns subtract them.
  tmpDir ??= await Deno.makeTempDir({ prefix: "codemode-compare-" });
  const trivial = join(tmpDir, "startup.star");
  await Deno.writeTextFile(trivial, "def main():\n    return 0\n");
  const start = await measure(impls, trivial, Math.max(runs, 11), false, gnuTime);

  const memory = gnuTime ? ["ours MiB", "go MiB", "mem o/g", "ours Δ", "go Δ", "Δ o/g"] : [];
  const header = [
    "program",
    ...impls.map((r) => `${r.name} ms`),
    "ours/go",
    ...(python ? ["ours/py"] : []),
    ...memory,
  ];
  const widths = [20, 12, 15, 12, 9, 9, 10, 10, 9, 9, 9, 7];
  // Without CPython, drop its time and ratio columns.
  if (!python) {
    widths.splice(3, 1);
    widths.splice(4, 1);
  }
  console.log(header.map((h, i) => pad(h, widths[i], i > 0)).join(" "));

  const ratiosGo: number[] = [];
  const ratiosPy: number[] = [];
  const ratiosMem: number[] = [];
  const ratiosDelta: number[] = [];
  for (const name of programs) {
    const { medians, rss } = await measure(impls, join(programsDir, name), runs, cpu, gnuTime);
    const rGo = medians[0] / medians[1];
    ratiosGo.push(rGo);
    const row = [name.replace(/\.star$/, ""), ...medians.map((m) => m.toFixed(0)), rGo.toFixed(2)];
    if (python) {
      const rPy = medians[0] / medians[2];
      ratiosPy.push(rPy);
      row.push(rPy.toFixed(2));
    }
    if (gnuTime) {
      const rMem = rss[0] / rss[1];
      ratiosMem.push(rMem);
      const ours = deltaMiB(rss[0], start.rss[0]);
      const go = deltaMiB(rss[1], start.rss[1]);
      const rDelta = ours.mib / go.mib;
      ratiosDelta.push(rDelta);
      const cell = (d: { mib: number; clamped: boolean }) => d.mib.toFixed(1) + (d.clamped ? "*" : "");
      row.push(
        (rss[0] / 1024).toFixed(1),
        (rss[1] / 1024).toFixed(1),
        rMem.toFixed(2),
        cell(ours),
        cell(go),
        rDelta.toFixed(2),
      );
    }
    console.log(row.map((c, i) => pad(c, widths[i], i > 0)).join(" "));
  }
  const gm = ["geomean", ...impls.map(() => ""), geomean(ratiosGo).toFixed(2)];
  if (python) gm.push(geomean(ratiosPy).toFixed(2));
  if (gnuTime) gm.push("", "", geomean(ratiosMem).toFixed(2), "", "", geomean(ratiosDelta).toFixed(2));
  console.log(gm.map((c, i) => pad(c, widths[i], i > 0)).join(" "));

  const row = ["start-up (wall)", ...start.medians.map((m) => m.toFixed(1)), ""];
  if (python) row.push("");
  if (gnuTime) row.push(...start.rss.map((k) => (k / 1024).toFixed(1)), "");
  console.log(row.map((c, i) => pad(c, widths[i], i > 0)).join(" "));
  if (gnuTime) {
    console.log(`Δ: peak minus the start-up row's peak; * marks a Δ clamped at ${MIN_DELTA_MIB} MiB`);
  }
  await Deno.remove(tmpDir, { recursive: true });
}

if (import.meta.main) await main();
