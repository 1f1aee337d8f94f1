/**
 * How fast `deno task serve` answers a desktop client that has just spawned it: the time from spawn to the
 * answer of the first `tools/list`, through the official MCP SDK client (`StdioClientTransport` + `Client`),
 * as a client such as Claude Desktop does it (initialize, then list). Target: a median ≤ 250 ms.
 *
 * Rows (each over `--runs N` fresh processes, default 15, median and p90), measured in the same run so that
 * the machine's load affects them alike:
 *
 * - `direct`: the `serve` task's command read from `deno.json` (`deno run <its flags> <its script>`), spawned
 *   without the task runner: what a client configured with that command line runs;
 * - `deno task serve`: the same through the task runner (which adds its own start-up: it reads the config);
 * - `modules`: the task's flags on `src/mcp/serve_cli.ts` itself, the server loaded module by module (how it
 *   started before the bundled launcher).
 *
 * Also the server's CPU time (user + system, from /proc) when its list answer arrived: on a machine shared
 * with other work it varies far less than wall time, and on a quiet one it is close to it.
 *
 * Then where the time of a `direct` start goes: a bare `deno run` of an empty script with the same flags,
 * the server's own stderr line (loaded, transport up), initialize answered, list answered; and, inside one
 * cold process, loading the CLI from its bundle and from its modules, the demo catalog's build (what the
 * first listing needs) and a process pool's probe and first program (the sandbox warm-up, which a stdio
 * start now leaves until the first listing has been answered).
 *
 * ```sh
 * deno run -A bench/stdio_start.ts [--runs N] [--check] [--before DIR]
 * ```
 *
 * `--before DIR` adds a row for the serve task of another checkout, e.g. the last commit's:
 * `git archive HEAD | tar -x -C /tmp/head && deno run -A bench/stdio_start.ts --before /tmp/head`.
 *
 * With `--check` it exits 1 when the `direct` median misses 250 ms. Not a test: timing on a shared machine
 * is noisy, so the figure is reported, not asserted in CI.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { freshBundle } from "../src/bundle/mod.ts";
import { SERVE_BUNDLE } from "../src/mcp/serve_launcher.ts";

// The SDK client loads in the parent only (dynamically): the probe child times the server's own loading,
// which shares the SDK's modules.
type Sdk = {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport;
  getDefaultEnvironment: typeof import("@modelcontextprotocol/sdk/client/stdio.js").getDefaultEnvironment;
};

async function loadSdk(): Promise<Sdk> {
  const client = await import("@modelcontextprotocol/sdk/client/index.js");
  const stdio = await import("@modelcontextprotocol/sdk/client/stdio.js");
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
  };
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TARGET_MS = 250;
const MODULES_ENTRY = "src/mcp/serve_cli.ts";
const PROGRAM = 'def main():\n    return inventory.stock(sku="TENT-2P")["available_total"]\n';

/** The `serve` task's `deno run` flags and script, as `deno.json` states them. */
function serveTask(root = ROOT): { flags: string[]; script: string } {
  const config = JSON.parse(Deno.readTextFileSync(`${root}/deno.json`)) as { tasks: Record<string, string> };
  const words = String(config.tasks.serve ?? "").split(/\s+/);
  const script = words.findIndex((w, i) => i >= 2 && !w.startsWith("-"));
  if (words[0] !== "deno" || words[1] !== "run" || script < 0) {
    throw new Error(`the serve task is not "deno run ... SCRIPT": ${config.tasks.serve}`);
  }
  return { flags: words.slice(2, script), script: words[script] };
}

function quantile(samples: readonly number[], q: number): number {
  const sorted = samples.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function median(samples: readonly number[]): number {
  const s = samples.toSorted((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function childEnv(sdk: Sdk): Record<string, string> {
  const env: Record<string, string> = { ...sdk.getDefaultEnvironment(), NO_COLOR: "1" };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir !== undefined) env.DENO_DIR = denoDir;
  return env;
}

/** One start, with the moments (ms after spawn) the outside can see. */
interface Start {
  /** The server's first stderr line ("MCP server on stdio"): modules loaded, transport up. */
  readonly announced: number;
  /** `initialize` answered. */
  readonly initialized: number;
  /** The first `tools/list` answered: the figure this benchmark is about. */
  readonly listed: number;
  /**
   * CPU time (user + system) the server process had used when its list answer arrived, 10 ms ticks: less
   * sensitive than wall time to other load on a shared machine; close to the wall time on a quiet one.
   */
  readonly cpu: number;
  /**
   * The first `execute` (one native call) answered, sent right after the list: it waits for the sandbox,
   * which a stdio start warms only once the first listing is answered.
   */
  readonly executed: number;
}

/** User + system CPU milliseconds of a live process, from /proc (Linux; NaN elsewhere). */
function cpuMs(pid: number | null | undefined): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** One way to start the server: a command line, run in a checkout. */
interface Variant {
  readonly name: string;
  readonly command: string;
  readonly args: string[];
  readonly cwd: string;
}

async function startOnce(sdk: Sdk, { command, args, cwd }: Variant): Promise<Start> {
  const transport = new sdk.StdioClientTransport({
    command,
    args,
    cwd,
    env: childEnv(sdk),
    stderr: "pipe",
  });
  const client = new sdk.Client({ name: "stdio-start-bench", version: "1.0.0" });
  let announced = NaN;
  const t0 = performance.now();
  transport.stderr?.once("data", () => announced = performance.now() - t0);
  await client.connect(transport);
  const initialized = performance.now() - t0;
  const { tools } = await client.listTools();
  const listed = performance.now() - t0;
  const cpu = cpuMs(transport.pid);
  const run = await client.callTool({ name: "execute", arguments: { source: PROGRAM } });
  const executed = performance.now() - t0;
  if (run.isError) throw new Error(`the first execute failed: ${JSON.stringify(run)}`);
  if (tools.length === 0) throw new Error("the server listed no tools");
  const pid = transport.pid;
  await client.close();
  // The next start waits for this server to be gone: its shutdown must not compete with the next spawn.
  for (let waited = 0; pid !== null && waited < 5_000 && exists(`/proc/${pid}`); waited += 5) {
    await new Promise((r) => setTimeout(r, 5));
  }
  return { announced, initialized, listed, cpu, executed };
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Spawn → exit of `deno run FLAGS` on an empty script: the floor no server can go under. */
async function emptyStart(flags: string[], empty: string): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, empty],
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  if (!out.success) throw new Error("deno run of an empty script failed");
  return performance.now() - t0;
}

function row(name: string, samples: readonly number[]): string {
  return `${name.padEnd(44)} median ${median(samples).toFixed(0).padStart(5)} ms   p90 ${
    quantile(samples, 0.9).toFixed(0).padStart(5)
  } ms   n=${samples.length}`;
}

/** In-process phases of one cold start (a child with the task's flags, so nothing is loaded yet). */
interface Phases {
  /** Loading and evaluating the serve CLI: the bundle, or its modules. */
  readonly loadMs: number;
  /** Building the demo catalog (inline executor: search index, descriptions; no sandbox). */
  readonly catalogMs: number;
  /** A process pool's probe and first program: the sandbox warm-up a start no longer waits for. */
  readonly firstProgramMs: number;
}

/** `--probe bundle|modules`: the phases of one cold start, timed from inside, printed as JSON on stdout. */
async function probe(from: string): Promise<void> {
  const entry = from === "bundle" ? freshBundle(SERVE_BUNDLE) : SERVE_BUNDLE.entry;
  if (entry === undefined) throw new Error("no bundle could be made");
  const t0 = performance.now();
  await import(entry.href);
  const t1 = performance.now();
  // The demo and the executor are in the CLI's graph (and bundle): from here on, nothing new loads but
  // these modules, shared by both ways.
  const demo = await import("../src/demo/mod.ts");
  const executor = await import("../src/executor/mod.ts");
  const t2 = performance.now();
  const catalog = await demo.buildDemoServer({ executor: "inline" });
  await catalog.close();
  const t3 = performance.now();
  const pool = new executor.ProcessPool({ maxConcurrentExecutions: 1 });
  const server = await demo.buildDemoServer({ executor: pool });
  await server.execute({ id: "probe" }, "def main():\n    return 1\n");
  const t4 = performance.now();
  await server.close();
  const phases: Phases = { loadMs: t1 - t0, catalogMs: t3 - t2, firstProgramMs: t4 - t3 };
  console.log(JSON.stringify(phases));
}

async function probeOnce(flags: string[], from: "bundle" | "modules"): Promise<Phases> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, "--allow-write", fileURLToPath(import.meta.url), "--probe", from],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("the probe failed");
  return JSON.parse(new TextDecoder().decode(out.stdout)) as Phases;
}

async function main(args: string[]): Promise<number> {
  const at = args.indexOf("--runs");
  const runs = at >= 0 ? Number(args[at + 1]) : 15;
  if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs expects a positive integer");
  const sdk = await loadSdk();
  const { flags, script } = serveTask();
  const deno = Deno.execPath();
  const variants: Variant[] = [
    { name: `direct (deno run ... ${script})`, command: deno, args: ["run", ...flags, script], cwd: ROOT },
    { name: "deno task serve", command: deno, args: ["task", "--quiet", "serve"], cwd: ROOT },
    {
      name: `modules (deno run ... ${MODULES_ENTRY})`,
      command: deno,
      args: ["run", ...flags, MODULES_ENTRY],
      cwd: ROOT,
    },
  ];
  // `--before DIR`: another checkout's serve task in the same run (e.g. `git archive HEAD | tar -x -C DIR`).
  const before = args.indexOf("--before");
  if (before >= 0) {
    const dir = args[before + 1];
    const other = serveTask(dir);
    variants.push({
      name: `--before: ${other.script}`,
      command: deno,
      args: ["run", ...other.flags, other.script],
      cwd: dir,
    });
  }
  const empty = await Deno.makeTempFile({ suffix: ".js" });
  try {
    // One start of each first: it makes the bundle if it is missing and fills Deno's caches.
    for (const v of variants) await startOnce(sdk, v);
    const starts = variants.map(() => [] as Start[]);
    const empties: number[] = [];
    // Interleaved, so that a burst of load on the machine hits every row alike.
    for (let i = 0; i < runs; i++) {
      for (const [j, v] of variants.entries()) starts[j].push(await startOnce(sdk, v));
      empties.push(await emptyStart(flags, empty));
    }
    console.log(`spawn → first tools/list answer (official SDK client over stdio), ${runs} runs:`);
    for (const [j, v] of variants.entries()) console.log(row(v.name, starts[j].map((s) => s.listed)));
    console.log("server CPU time (user + system) used by the first list answer:");
    for (const [j, v] of variants.entries()) {
      if (v.name !== "deno task serve") console.log(row(v.name, starts[j].map((s) => s.cpu)));
    }

    const direct = starts[0];
    console.log("\nwhere a direct start's time goes (ms after spawn):");
    console.log(row("  deno run of an empty script (to its exit)", empties));
    console.log(row("  server's first stderr line (loaded, serving)", direct.map((s) => s.announced)));
    console.log(row("  initialize answered", direct.map((s) => s.initialized)));
    console.log(row("  first tools/list answered", direct.map((s) => s.listed)));
    console.log(row("  then the first execute answered", direct.map((s) => s.executed)));
    if (before >= 0) {
      console.log(row("  (--before) first execute answered", starts.at(-1)!.map((s) => s.executed)));
    }

    const probes = Math.min(runs, 7);
    const phases = { bundle: [] as Phases[], modules: [] as Phases[] };
    for (let i = 0; i < probes; i++) {
      phases.bundle.push(await probeOnce(flags, "bundle"));
      phases.modules.push(await probeOnce(flags, "modules"));
    }
    console.log("\ninside one cold process (ms):");
    console.log(row("  load + evaluate the CLI from its bundle", phases.bundle.map((p) => p.loadMs)));
    console.log(row("  load + evaluate the CLI from its modules", phases.modules.map((p) => p.loadMs)));
    console.log(row("  demo catalog build (inline executor)", phases.bundle.map((p) => p.catalogMs)));
    console.log(row("  process pool probe + first program", phases.bundle.map((p) => p.firstProgramMs)));

    const m = median(direct.map((s) => s.listed));
    console.log(`\ntarget: direct median ≤ ${TARGET_MS} ms: ${m <= TARGET_MS ? "ok" : "MISSED"}`);
    return args.includes("--check") && m > TARGET_MS ? 1 : 0;
  } finally {
    await Deno.remove(empty);
  }
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--probe");
  if (at >= 0) await probe(Deno.args[at + 1]);
  else Deno.exit(await main(Deno.args));
}
