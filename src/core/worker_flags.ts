/**
 * Whether this Deno process may create Web Workers with permission options. Without the unstable
 * `worker-options` feature, `new Worker(url, { deno: { permissions: "none" } })` does not throw: Deno
 * prints a line and exits the whole process with code 70. A library must never end its host, so
 * `build()` asks here first and fails with a diagnostic instead.
 *
 * Deno exposes no API for its unstable flags, so the answer is read from what started the process,
 * without prompting and without spawning anything: the configuration files Deno would use (every
 * `deno.json`/`deno.jsonc` above the main module's directory — where Deno 2 looks — and above the
 * working directory) for `"unstable": ["worker-options"]`, and, where Deno lets it be read (Linux, with
 * `--allow-all`), the command line `/proc/self/cmdline` for `--unstable-worker-options`, `--config` and
 * `--no-config`.
 *
 * Anything it cannot read — a config file without read permission, one it cannot parse, a compiled
 * binary (whose flags were fixed at compile time) — is `"unknown"`, and `build()` goes on as before.
 * When the configs were all read and none enables the feature but the command line could not be read,
 * the answer is `"missing"`: a flag or a `--config` file elsewhere, given on the command line only, is
 * then refused by mistake (Deno exposes neither to the program: `Deno.args` holds only the script's own
 * arguments), and the diagnostic says how to state it: `workerOptions: "enabled"` in the Builder
 * options, or the feature in a `deno.json` where it is looked for — one line against a host that dies.
 *
 * @module
 */

/** What the process's flags say about worker permission options. */
export type WorkerOptionsState = "enabled" | "missing" | "unknown";

/** What {@link workerOptionsState} reads; tests pass their own. */
export interface ProcessView {
  /** `Deno.execPath()`: a compiled binary is not `deno`. */
  readonly execPath: string;
  /** The process's arguments (`argv[0]` is the executable), or `undefined` when they cannot be read. */
  readonly argv: readonly string[] | undefined;
  /** The main module's URL. */
  readonly mainModule: string | undefined;
  /** The working directory. */
  readonly cwd: string | undefined;
  /** Reads a text file, `undefined` when it does not exist, `null` when it may not be read. */
  readonly readText: (path: string) => string | undefined | null;
}

const FLAG = "--unstable-worker-options";
const SUBCOMMANDS = new Set(["run", "test", "serve", "bench", "eval", "repl"]);
// What a script operand looks like (flags that take a separate value never do).
const SCRIPT = /^(file:|https?:|jsr:|npm:)|\.(ts|tsx|mts|js|jsx|mjs|cjs)$/;

/** The real process, read without prompts: every path is queried before it is read. */
export function currentProcess(): ProcessView {
  const readText = (path: string): string | undefined | null => {
    try {
      if (Deno.permissions.querySync({ name: "read", path }).state !== "granted") return null;
      return Deno.readTextFileSync(path);
    } catch (e) {
      return e instanceof Deno.errors.NotFound ? undefined : null;
    }
  };
  const cmdline = Deno.build.os === "linux" ? readText("/proc/self/cmdline") : null;
  let cwd: string | undefined;
  try {
    if (Deno.permissions.querySync({ name: "read" }).state === "granted") cwd = Deno.cwd();
  } catch {
    cwd = undefined;
  }
  return {
    execPath: Deno.execPath(),
    argv: typeof cmdline === "string"
      ? cmdline.split("\0").filter((a, i, all) => a !== "" || i < all.length - 1)
      : undefined,
    mainModule: Deno.mainModule,
    cwd,
    readText,
  };
}

/** Removes `//` and `/* *\/` comments outside strings, so a `deno.jsonc` parses as JSON. */
function stripComments(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else {
      out += c;
    }
  }
  // Trailing commas, which JSONC allows.
  return out.replace(/,(\s*[}\]])/g, "$1");
}

/** `true`/`false` when `text` is a config that does/does not list worker-options; `undefined` if unparsable. */
function configEnables(text: string): boolean | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripComments(text));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== "object") return undefined;
  const unstable = (parsed as { unstable?: unknown }).unstable;
  return Array.isArray(unstable) && unstable.includes("worker-options");
}

function basename(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

function parentDirs(dir: string): string[] {
  const dirs: string[] = [];
  let d = dir.replace(/\/+$/, "") || "/";
  for (;;) {
    dirs.push(d);
    if (d === "/" || d === "") break;
    const up = d.slice(0, d.lastIndexOf("/")) || "/";
    if (up === d) break;
    d = up;
  }
  return dirs;
}

/** Where the config can be: `--config` wins; otherwise every directory above the main module and cwd. */
function configCandidates(view: ProcessView, explicit: string | undefined): string[] {
  if (explicit !== undefined) {
    return [explicit.startsWith("/") || view.cwd === undefined ? explicit : `${view.cwd}/${explicit}`];
  }
  const roots: string[] = [];
  if (view.mainModule?.startsWith("file:")) {
    const path = decodeURIComponent(new URL(view.mainModule).pathname);
    roots.push(path.slice(0, path.lastIndexOf("/")) || "/");
  }
  if (view.cwd !== undefined) roots.push(view.cwd);
  const files: string[] = [];
  for (const root of roots) {
    for (const dir of parentDirs(root)) {
      for (const name of ["deno.json", "deno.jsonc"]) {
        const f = `${dir === "/" ? "" : dir}/${name}`;
        if (!files.includes(f)) files.push(f);
      }
    }
  }
  return files;
}

/**
 * Whether worker permission options are enabled in the process described by `view` (by default, this
 * one). `"missing"` only when every source was read and none enables them.
 */
export function workerOptionsState(view: ProcessView = currentProcess()): WorkerOptionsState {
  // A compiled binary carries the flags it was compiled with; nothing here can tell.
  if (!/^deno(\.exe)?$/.test(basename(view.execPath))) return "unknown";
  const argv = view.argv ?? [];
  if (argv.length > 0 && (argv.length < 2 || !SUBCOMMANDS.has(argv[1]))) return "unknown";
  // The flag is looked for everywhere (a script argument that spells it only errs towards "enabled");
  // the config flags only before the script, whose own arguments could spell them too.
  if (argv.some((a) => a === FLAG || a.startsWith(`${FLAG}=`) || a === "--unstable")) return "enabled";
  let explicit: string | undefined;
  let noConfig = false;
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    if (SCRIPT.test(a)) break;
    if (a === "--no-config") noConfig = true;
    else if (a === "--config" || a === "-c") explicit = argv[++i];
    else if (a.startsWith("--config=")) explicit = a.slice("--config=".length);
  }
  if (noConfig) return "missing";
  let unreadable = false;
  for (const file of configCandidates(view, explicit)) {
    const text = view.readText(file);
    if (text === null) unreadable = true;
    if (typeof text !== "string") continue;
    const enables = configEnables(text);
    if (enables === true) return "enabled";
    if (enables === undefined) unreadable = true;
  }
  return unreadable ? "unknown" : "missing";
}

/** The diagnostic `build()` reports when worker permission options are missing. */
export const WORKER_OPTIONS_DIAGNOSTIC =
  "the worker executor needs Web Worker permission options, which this Deno process was started " +
  'without (Deno would exit with code 70 at the first execution): add "unstable": ["worker-options"] ' +
  'to the deno.json above your main module or working directory, or choose executor: "process" or ' +
  '"inline". If you did enable them in a way build() cannot see without --allow-all (a deno.json passed ' +
  "with --config from another directory, or --unstable-worker-options), say so with workerOptions: " +
  '"enabled" in the Builder options';
