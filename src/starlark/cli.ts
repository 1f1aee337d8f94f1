/**
 * Command-line runner for the Starlark engine: `deno task star [options] FILE.star`.
 *
 * Executes the file with `json`, `math` and `sum` predeclared. If the file defines `main`, calls it with no
 * arguments and prints the `repr` of its result on stdout. `load("NAME", ...)` runs the file NAME (relative
 * to the main file's folder, or absolute) once, with the same predeclared names, dialect and budgets, and
 * binds its exported globals; the errors read like the reference command's (`cannot load NAME: open NAME:
 * no such file or directory`, `... cycle in load graph`, a loaded file's syntax or runtime error). The
 * reference opens NAME relative to its working directory; the two agree when it runs in the main file's
 * folder, and module names in messages and tracebacks are the names as written, as there. Like the reference `starlark` command,
 * `print()` output goes to stderr, so stdout carries only main's result. The number of executed steps is
 * printed on stderr (`steps: N`). A failing program prints its error (with a traceback for runtime errors)
 * on stderr and exits with status 1; a usage error exits with status 2.
 *
 * Options:
 * - `--all-options`: every dialect option below;
 * - `--set`, `--while`, `--recursion`, `--globalreassign`, `--toplevelcontrol`: one dialect option each
 *   (all off by default, like CodeMode and the reference's library defaults);
 * - `--max-steps N`, `--max-memory BYTES`: budgets (unbounded by default);
 * - `--no-steps`: do not print the step count.
 *
 * `deno task star` starts it through `cli_launcher.ts`, from a bundle, with V8 flags that keep the memory a
 * program takes close to the reference's (the launcher's comment says which and why). This file and the
 * launcher are the only parts of `src/starlark` that use Deno APIs; the engine itself does not.
 *
 * @module
 */
import { execFile } from "./mod.ts";
import { json, math, sum } from "./lib/mod.ts";
import {
  ALL_OPTIONS_DIALECT,
  binaryToBytes,
  call,
  CallDepthError,
  type Dialect,
  EvalError,
  fromJSString,
  type LoadHook,
  repr,
  ResourceError,
  StarlarkSyntaxError,
  type Thread,
  toJSString,
  type Value,
} from "./values/mod.ts";

export type { Dialect };

/** Parsed command line. */
export interface CliOptions {
  /** The program to run. */
  file: string;
  /** Dialect options. */
  dialect: Dialect;
  /** Step budget. */
  maxSteps: number;
  /** Memory budget in bytes. */
  maxMemory: number;
  /** Whether to print the step count on stderr. */
  showSteps: boolean;
}

const USAGE = "usage: deno task star [--all-options] [--set] [--while] [--recursion] [--globalreassign] " +
  "[--toplevelcontrol] [--max-steps N] [--max-memory BYTES] [--no-steps] FILE.star";

/** A command-line usage error. */
export class UsageError extends Error {
  /** Builds a usage error whose message ends with the usage line. */
  constructor(message: string) {
    super(`${message}\n${USAGE}`);
    this.name = "UsageError";
  }
}

function positiveNumber(flag: string, text: string | undefined): number {
  const n = Number(text);
  if (text === undefined || !Number.isSafeInteger(n) || n <= 0) {
    throw new UsageError(`${flag} wants a positive integer, got ${text === undefined ? "nothing" : text}`);
  }
  return n;
}

/**
 * Parses the command-line arguments.
 * @throws {UsageError} on an unknown flag, a bad budget or a missing file.
 */
export function parseArgs(args: readonly string[]): CliOptions {
  const dialect: Dialect = {
    set: false,
    while: false,
    recursion: false,
    topLevelControl: false,
    globalReassign: false,
  };
  const opts: CliOptions = { file: "", dialect, maxSteps: Infinity, maxMemory: Infinity, showSteps: true };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    // Accept both --flag and the reference's single-dash -flag spelling.
    const flag = a.startsWith("--") ? a.slice(2) : a.startsWith("-") && a.length > 1 ? a.slice(1) : undefined;
    if (flag === undefined) {
      if (opts.file !== "") throw new UsageError(`unexpected argument ${a}`);
      opts.file = a;
      continue;
    }
    switch (flag) {
      case "all-options":
        Object.assign(dialect, ALL_OPTIONS_DIALECT);
        break;
      case "set":
        dialect.set = true;
        break;
      case "while":
        dialect.while = true;
        break;
      case "recursion":
        dialect.recursion = true;
        break;
      case "globalreassign":
        dialect.globalReassign = true;
        break;
      case "toplevelcontrol":
        dialect.topLevelControl = true;
        break;
      case "max-steps":
        opts.maxSteps = positiveNumber(a, args[++i]);
        break;
      case "max-memory":
        opts.maxMemory = positiveNumber(a, args[++i]);
        break;
      case "no-steps":
        opts.showSteps = false;
        break;
      default:
        throw new UsageError(`unknown option ${a}`);
    }
  }
  if (opts.file === "") throw new UsageError("missing FILE.star");
  return opts;
}

/** Where the CLI writes; injectable so tests can capture output. */
export interface CliIO {
  /** Reads the program file as text. */
  readFile(path: string): string;
  /** Writes raw bytes to stdout. */
  stdout(bytes: Uint8Array): void;
  /** Writes raw bytes to stderr. */
  stderr(bytes: Uint8Array): void;
}

const encoder = new TextEncoder();

/**
 * Program text is a byte string (one char per UTF-8 byte), written unchanged; anything else (a host file
 * name with non-Latin-1 characters, an internal error) is encoded as UTF-8.
 */
function toBytes(s: string): Uint8Array {
  // deno-lint-ignore no-control-regex
  return /^[\x00-\xff]*$/.test(s) ? binaryToBytes(s) : encoder.encode(s);
}

/** Formats any error the engine may throw the way the reference command prints it. */
export function formatError(e: unknown): string {
  if (e instanceof EvalError) return e.backtrace();
  // Past maxCallDepth: the reference's traceback and "Error: Starlark stack overflow".
  if (e instanceof CallDepthError) return e.backtrace();
  // A syntax error's message is a JS string (it quotes the source text); the output is a byte string.
  if (e instanceof StarlarkSyntaxError) return fromJSString(e.message);
  if (e instanceof ResourceError) return e.message;
  if (e instanceof Error) return `internal error: ${e.stack ?? e.message}`;
  return `internal error: ${String(e)}`;
}

/**
 * Runs the CLI with the given arguments; returns the process exit status.
 * Strings produced by the program are byte strings, so they are written as bytes, unchanged.
 */
export function runCli(args: readonly string[], io: CliIO): number {
  let opts: CliOptions;
  try {
    opts = parseArgs(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(encoder.encode(e.message + "\n"));
    return 2;
  }
  let source: string;
  try {
    source = io.readFile(opts.file);
  } catch (e) {
    io.stderr(encoder.encode(`${opts.file}: ${(e as Error).message}\n`));
    return 1;
  }
  let thread: Thread | undefined;
  const reportSteps = () => {
    if (opts.showSteps && thread !== undefined) io.stderr(encoder.encode(`steps: ${thread.steps}\n`));
  };
  const predeclared = { json, math, sum };
  const print = (_thread: Thread, msg: string) => io.stderr(toBytes(msg + "\n"));
  try {
    const load = makeLoader(
      io,
      opts.file,
      (text, filename, thread) => execFile(text, { filename, predeclared, thread, load }).globals,
    );
    const result = execFile(source, {
      filename: opts.file,
      predeclared,
      dialect: opts.dialect,
      maxSteps: opts.maxSteps,
      maxMemory: opts.maxMemory,
      print,
      load,
    });
    thread = result.thread;
    const main: Value | undefined = result.globals.get("main");
    if (main !== undefined) {
      const value = call(thread, main, [], []);
      io.stdout(toBytes(repr(value) + "\n"));
    }
    reportSteps();
    return 0;
  } catch (e) {
    thread ??= (e as { thread?: Thread }).thread;
    io.stderr(toBytes(formatError(e) + "\n"));
    reportSteps();
    return 1;
  }
}

/** Runs a module's source as `filename` on `thread` and returns its (frozen) globals. */
export type ModuleRunner = (source: string, filename: string, thread: Thread) => ReadonlyMap<string, Value>;

/** The directory part of a path, with its trailing slash ("" for a bare file name). */
function dirOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash + 1);
}

/** The reference's wording (Go's `os` errors) for a module file that cannot be read. */
function readError(module: string, e: unknown): EvalError {
  const name = (e as Error)?.name;
  if (name === "IsADirectory") return new EvalError(`read ${module}: is a directory`);
  if (name === "PermissionDenied") return new EvalError(`open ${module}: permission denied`);
  return new EvalError(`open ${module}: no such file or directory`);
}

/**
 * The CLI's load hook, like the reference command's: each module runs at most once (its globals, or its
 * error, are cached), and a module asked for while it is still loading is a cycle. Modules run on the
 * loading thread, so the step and memory budgets cover the whole program.
 */
export function makeLoader(io: Pick<CliIO, "readFile">, mainFile: string, run: ModuleRunner): LoadHook {
  const dir = dirOf(mainFile);
  // null marks a module whose loading is in progress.
  const cache = new Map<string, { globals?: ReadonlyMap<string, Value>; error?: unknown } | null>();
  return (thread, module) => {
    const entry = cache.get(module);
    if (entry === null) throw new EvalError("cycle in load graph");
    if (entry === undefined) {
      cache.set(module, null);
      const done: { globals?: ReadonlyMap<string, Value>; error?: unknown } = {};
      try {
        const name = toJSString(module);
        let text: string;
        try {
          text = io.readFile(name.startsWith("/") ? name : dir + name);
        } catch (e) {
          throw readError(module, e);
        }
        done.globals = run(text, name, thread);
      } catch (e) {
        // Budget exhaustion stops the whole program; it is not a property of the module to cache.
        if (e instanceof ResourceError) {
          cache.delete(module);
          throw e;
        }
        done.error = e;
      }
      cache.set(module, done);
      return unpack(done);
    }
    return unpack(entry);
  };
}

function unpack(
  entry: { globals?: ReadonlyMap<string, Value>; error?: unknown },
): ReadonlyMap<string, Value> {
  if (entry.error !== undefined) throw entry.error;
  return entry.globals!;
}

/** Runs the CLI on `Deno.args` with the process's files and streams, then exits with its status. */
export function main(): never {
  Deno.exit(runCli(Deno.args, {
    readFile: (path) => Deno.readTextFileSync(path),
    stdout: (bytes) => writeAll(Deno.stdout, bytes),
    stderr: (bytes) => writeAll(Deno.stderr, bytes),
  }));
}

if (import.meta.main) main();

function writeAll(w: { writeSync(p: Uint8Array): number }, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += w.writeSync(bytes.subarray(off));
}
