/**
 * Where the memory of `deno task compare`'s `ours Δ` column goes: how much of a program's peak above the
 * empty program is the runtime warming up (V8's optimizing compilers and their threads, the pages of the
 * `deno` binary they run from, the young generation) rather than the engine's values.
 *
 *     deno run -A bench/memory_floor.ts [--runs N] [--all]
 *
 * Part 1, the runtime alone (no engine): a plain JS program that makes 60 small functions hot, against an
 * empty JS file, with the `star` task's V8 flags and with `--no-concurrent-recompilation` added. Its Δ is
 * what any optimized Deno program pays above an empty one.
 *
 * Part 2, the engine: a few compare programs through the `star` task's bundle, with a probe that reads
 * the process's own `/proc/self/status` and V8 heap figures as it exits: peak RSS (`VmHWM`), file-backed
 * pages (`RssFile`: the binary's code the JIT and the GC touched), anonymous pages (`RssAnon`: heaps,
 * compiler zones, thread stacks) and V8's committed heap. Each row is the median run by peak; its
 * columns are deltas from the empty program's row. Six programs by default, `--all` for every compare
 * program; each also runs with `--no-concurrent-recompilation` (the flag that trades compile-thread memory
 * for main-thread time).
 *
 * Linux only (it reads `/proc`); GNU time is not needed.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { ourDialectOptions, starTaskOptions } from "./compare.ts";
import { freshBundle } from "../src/starlark/cli_launcher.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

/** What one process reported as it exited, in KiB. */
interface Probe {
  hwm: number;
  file: number;
  anon: number;
  heap: number;
}

/** Reads the probe line (`PROBE hwm file anon heap`) a run printed on stderr. */
function parseProbe(stderr: string): Probe {
  const line = stderr.split("\n").find((l) => l.startsWith("PROBE "));
  if (line === undefined) throw new Error(`no probe line in:\n${stderr.slice(-2000)}`);
  const [hwm, file, anon, heap] = line.slice(6).split(" ").map(Number);
  return { hwm, file, anon, heap };
}

/** JS that prints the probe line at exit (an `unload` listener, so `Deno.exit` still reports). */
const PROBE_JS = `
globalThis.addEventListener("unload", () => {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kib = (name) => Number(status.match(new RegExp(name + ":\\\\s+(\\\\d+)"))[1]);
  const heap = Math.round(Deno.memoryUsage().heapTotal / 1024);
  console.error("PROBE", kib("VmHWM"), kib("RssFile"), kib("RssAnon"), heap);
});
`;

/** Sixty functions, each run hot enough for TurboFan, allocating almost nothing. */
const HOT_JS = `
const fns = [];
for (let k = 0; k < 60; k++) {
  fns.push(new Function("a", "b",
    "let s = 0; for (let i = 0; i < a.length; i++) { s += a[i] * " + k + " + (b[i % b.length] | 0);" +
    " if (s > 1e9) s = s % " + (k + 7) + "; } return s;"));
}
const a = Array.from({ length: 1000 }, (_, i) => i);
let t = 0;
for (let r = 0; r < 400; r++) for (const f of fns) t += f(a, [1, 2, 3]);
console.log(t);
`;

async function runOnce(args: string[]): Promise<Probe> {
  const out = await new Deno.Command(Deno.execPath(), { args, stdout: "null", stderr: "piped" }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`deno ${args.join(" ")} failed:\n${stderr.slice(-2000)}`);
  return parseProbe(stderr);
}

/** The run with the median peak of `runs`. */
async function medianRun(args: string[], runs: number): Promise<Probe> {
  const all: Probe[] = [];
  for (let i = 0; i < runs; i++) all.push(await runOnce(args));
  all.sort((x, y) => x.hwm - y.hwm);
  return all[Math.floor(all.length / 2)];
}

const mib = (kib: number) => (kib / 1024).toFixed(1);

function row(name: string, p: Probe, floor: Probe | undefined): string {
  const d = (k: keyof Probe) =>
    floor === undefined ? mib(p[k]) : (p[k] >= floor[k] ? "+" : "") + mib(p[k] - floor[k]);
  return [
    name.padEnd(34),
    d("hwm").padStart(8),
    d("file").padStart(8),
    d("anon").padStart(8),
    d("heap").padStart(8),
  ]
    .join(" ");
}

function header(title: string): void {
  console.log(`\n${title}`);
  console.log(
    ["".padEnd(34), "peak", "file", "anon", "V8 heap"].map((h, i) => i ? h.padStart(8) : h).join(" "),
  );
}

async function main(): Promise<void> {
  const all = Deno.args.includes("--all");
  const at = Deno.args.indexOf("--runs");
  const runs = at >= 0 ? Number(Deno.args[at + 1]) : 5;
  if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs wants a positive integer");
  const options = await starTaskOptions();
  const v8 = options.find((o) => o.startsWith("--v8-flags=")) ?? "--v8-flags=";
  const serial = `${v8},--no-concurrent-recompilation`.replace("=,", "=");
  const dir = await Deno.makeTempDir({ prefix: "codemode-memfloor-" });
  try {
    await Deno.writeTextFile(join(dir, "empty.js"), PROBE_JS);
    await Deno.writeTextFile(join(dir, "hot.js"), PROBE_JS + HOT_JS);
    console.log(`MiB; median of ${runs} runs by peak; Deno ${Deno.version.deno}, V8 ${Deno.version.v8}`);

    header("1. The runtime alone (plain JS, no engine); rows below the first are deltas from it");
    const empty = await medianRun(["run", "-A", v8, join(dir, "empty.js")], runs);
    console.log(row("empty JS file", empty, undefined));
    console.log(
      row("60 hot functions", await medianRun(["run", "-A", v8, join(dir, "hot.js")], runs), empty),
    );
    console.log(
      row(
        "  same, no concurrent recompilation",
        await medianRun(["run", "-A", serial, join(dir, "hot.js")], runs),
        empty,
      ),
    );

    header("2. The engine (the star task's bundle); rows below the first are deltas from it");
    const bundle = freshBundle();
    if (bundle === undefined) throw new Error("cannot make the CLI bundle");
    const entry = join(dir, "star.js");
    await Deno.writeTextFile(
      entry,
      PROBE_JS + `const cli = await import(${JSON.stringify(bundle.href)});\ncli.main();\n`,
    );
    const programs = all
      ? [...Deno.readDirSync(join(root, "bench", "programs"))]
        .filter((e) => e.isFile && e.name.endsWith(".star") && e.name !== "parse300.star")
        .map((e) => e.name.replace(/\.star$/, "")).sort()
      : ["int_loops", "calls", "strings", "expr_eval", "build_graph", "json_floats"];
    const starArgs = async (name: string, flags: string) => {
      const path = join(dir, `${name}.star`);
      const text = name === "empty"
        ? "def main():\n    return 0\n"
        : await Deno.readTextFile(join(root, "bench", "programs", `${name}.star`));
      await Deno.writeTextFile(path, text + "\nprint(main())\n");
      const dialect = ourDialectOptions(text);
      return ["run", "-A", flags, entry, "--no-steps", "--set", ...dialect, path];
    };
    const floor = await medianRun(await starArgs("empty", v8), runs);
    console.log(row("empty program", floor, undefined));
    for (const name of programs) {
      console.log(row(name, await medianRun(await starArgs(name, v8), runs), floor));
      console.log(
        row(
          "  same, no concurrent recompilation",
          await medianRun(await starArgs(name, serial), runs),
          floor,
        ),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main();
