/**
 * `deno task gateway --config FILE`: serves the MCP security gateway over Streamable HTTP. The file may
 * also be given as a positional argument or in `GATEWAY_CONFIG` (for the MCP Inspector's CLI, which
 * takes `--config` for itself).
 *
 * - `--check` validates the file, prints every problem with its place in the file, and exits non-zero
 *   when there is one (zero otherwise), without starting anything. Variables the file names (keys,
 *   secrets) need not be set: each unset one is a warning, so a file can be linted in CI without its
 *   secrets; `--check --strict` makes them problems (what starting the gateway requires). It warns (never
 *   fails) about allow rules a deny rule makes useless, and with `--probe` starts the downstreams and
 *   warns about rules that match none of their tools (see `check_warnings.ts`).
 * - `--stdio CLIENT_ID` serves one configured client over stdin/stdout instead (desktop MCP apps) in its
 *   own mode (code mode, passthrough or both), through the same surface and pipeline as HTTP; client key
 *   variables are not read (the operator names the client); audit records go to stderr when the sink is
 *   `stdout`.
 * - `--log-downstream-stderr` copies what stdio downstreams print on stderr to the log (redacted).
 * - `--watch` reloads when the file changes, however it is changed: written in place, replaced by a
 *   rename (editors' atomic saves, `sed -i`) or through a symlink swap (Kubernetes ConfigMaps). It
 *   watches the directories of the path and of what it resolves to, not the file's inode, and reloads
 *   when the content differs. SIGHUP reloads too. A file with problems is rejected with them and the
 *   running configuration stays. A reload logs what changed (clients, keys rotated, policies,
 *   downstreams), never a value.
 * - `tools` and `explain` (see `cli_tools.ts`) list the downstreams' tools and explain a policy decision.
 * - SIGTERM and SIGINT shut down gracefully: in-flight calls drain, every downstream process group ends,
 *   the audit writer drains. A signal that arrives within a second of the first is the same request (a
 *   supervisor signalling the whole process group reaches the gateway twice); one after that exits at
 *   once (still ending every downstream).
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { connectHint } from "../../mcp.ts";
import {
  ConfigError,
  type ConfigProblem,
  formatProblems,
  type GatewayConfig,
  loadConfig,
  type LoadOptions,
  readConfigFile,
  secretValues,
} from "./config/mod.ts";
import { Redactor } from "./redact/mod.ts";
import { killAllProcessGroups } from "./downstream/mod.ts";
import { Gateway, type ReloadOutcome } from "./gateway.ts";
import { runToolCommand, TOOL_COMMANDS, withDownstreams } from "./cli_tools.ts";
import { probeWarnings, shadowWarnings } from "./check_warnings.ts";

/** Parsed command line. */
export interface CliArgs {
  /** The configuration file. */
  readonly config: string;
  /** Validate only. */
  readonly check: boolean;
  /** Serve this client over stdio. */
  readonly stdio?: string;
  /** Reload on file changes. */
  readonly watch: boolean;
  /** Copy stdio downstreams' stderr to the gateway's log. */
  readonly logDownstreamStderr: boolean;
  /** With `--check`: variables the file names must be set. */
  readonly strict?: boolean;
  /** With `--check`: start the downstreams and warn about rules that match none of their tools. */
  readonly probe?: boolean;
}

/**
 * The command a client spawns to be served as `args.stdio` the way this process serves it: `deno task
 * gateway`'s permissions, this checkout's configuration and CLI, the configuration file by absolute path.
 */
function stdioCommand(args: CliArgs): string[] {
  const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
  return [
    "run",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-net",
    "--allow-run",
    "--config",
    here("../../deno.json"),
    here("./cli.ts"),
    "--config",
    resolve(args.config),
    "--stdio",
    args.stdio ?? "",
  ];
}

/** A stop request within this long of the first is the same request (one drain); a later one exits. */
export const REPEAT_STOP_MS = 1000;

/** The usage text. */
export const USAGE =
  "usage: deno task gateway [--config] FILE [--check [--strict] [--probe]] [--stdio CLIENT_ID] [--watch] [--log-downstream-stderr]";

/** The environment variable naming the configuration file when the command line does not. */
export const CONFIG_ENV = "GATEWAY_CONFIG";

/**
 * Parses the command line; returns a message for a bad one. The configuration file is `--config FILE`,
 * or a positional `FILE`, or else the `GATEWAY_CONFIG` variable (read through `env`): the MCP
 * Inspector's CLI takes `--config` as its own flag, so a gateway it spawns needs one of the others.
 */
export function parseArgs(
  argv: readonly string[],
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): CliArgs | string {
  let config: string | undefined;
  let stdio: string | undefined;
  let check = false;
  let strict = false;
  let probe = false;
  let watch = false;
  let logDownstreamStderr = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case "--config":
        if (config !== undefined) return `the configuration file is given twice\n${USAGE}`;
        config = value() ?? "";
        break;
      case "--stdio":
        stdio = value();
        break;
      case "--check":
        check = true;
        break;
      case "--strict":
        strict = true;
        break;
      case "--probe":
        probe = true;
        break;
      case "--watch":
        watch = true;
        break;
      case "--log-downstream-stderr":
        logDownstreamStderr = true;
        break;
      case "--help":
      case "-h":
        return USAGE;
      default:
        if (arg.startsWith("-") || arg === "") return `unknown argument ${JSON.stringify(arg)}\n${USAGE}`;
        if (config !== undefined) return `the configuration file is given twice\n${USAGE}`;
        config = arg;
    }
  }
  config ??= env(CONFIG_ENV);
  if (config === undefined || config === "") {
    return `--config FILE (or FILE, or ${CONFIG_ENV}) is required\n${USAGE}`;
  }
  if (stdio === "") return `--stdio needs a client id\n${USAGE}`;
  if (strict && !check) return `--strict goes with --check\n${USAGE}`;
  if (probe && !check) return `--probe goes with --check\n${USAGE}`;
  return {
    config,
    check,
    watch,
    logDownstreamStderr,
    ...(strict ? { strict } : {}),
    ...(probe ? { probe } : {}),
    ...(stdio === undefined ? {} : { stdio }),
  };
}

function log(line: string): void {
  console.error(line);
}

async function load(
  file: string,
  options: LoadOptions = {},
): Promise<GatewayConfig | readonly ConfigProblem[]> {
  try {
    return await readConfigFile(file, (name) => Deno.env.get(name), options);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

/**
 * `--check`: the file's shape and references. Unset variables are warnings unless `strict` (then they are
 * problems, as at start). Resolves with the exit code.
 */
async function check(file: string, strict: boolean, probe: boolean, options: LoadOptions): Promise<number> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    log(`${file}: ${err instanceof Deno.errors.NotFound ? "file not found" : "cannot be read"}`);
    return 1;
  }
  const result = loadConfig(text, (name) => Deno.env.get(name), {
    ...options,
    unset: strict ? "problem" : "warning",
  });
  const warnings = result.warnings ?? [];
  if (warnings.length > 0) {
    log(formatProblems(warnings, file).split("\n").map((l) => `warning: ${l}`).join("\n"));
  }
  if (!result.ok) {
    log(formatProblems(result.problems, file));
    log(`${file}: ${result.problems.length} problem${result.problems.length === 1 ? "" : "s"}`);
    return 1;
  }
  const { clients, downstreams } = result.config;
  const unset = warnings.length === 0
    ? ""
    : `; ${warnings.length} variable${warnings.length === 1 ? "" : "s"} not set (--strict requires them)`;
  // Valid but probably unmeant: allows a deny makes useless, and (probing) rules matching no real tool.
  const lint = [
    ...shadowWarnings(result.config, text),
    ...(probe ? await probeRules(result.config, text) : []),
  ];
  if (lint.length > 0) log(formatProblems(lint, file).split("\n").map((l) => `warning: ${l}`).join("\n"));
  const linted = lint.length === 0 ? "" : `; ${lint.length} warning${lint.length === 1 ? "" : "s"}`;
  log(`${file}: ok (${clients.length} clients, ${downstreams.length} downstreams${unset}${linted})`);
  return 0;
}

/** `--probe`: starts every downstream, compares the rules with their tools, stops them. */
async function probeRules(config: GatewayConfig, text: string): Promise<ConfigProblem[]> {
  const redactor = new Redactor({ secrets: secretValues(config), patterns: config.redaction.patterns });
  const redact = (line: string) => redactor.redactText(line).value;
  return await withDownstreams(
    config.downstreams,
    { out: log, err: log },
    redact,
    (registry) => probeWarnings(config, registry.downstreams, text),
  );
}

/**
 * What a reload changed, by name only (client ids, downstream names; never a key, a secret or a rule's
 * text): clients added and removed, keys rotated, policies changed, downstreams started, restarted and
 * stopped, and settings that need a restart.
 */
export function describeChanges(prev: GatewayConfig, next: GatewayConfig, r: ReloadOutcome): string {
  const ids = (c: GatewayConfig) => new Map(c.clients.map((x) => [x.id, x]));
  const before = ids(prev);
  const after = ids(next);
  const added = [...after.keys()].filter((id) => !before.has(id));
  const removed = [...before.keys()].filter((id) => !after.has(id));
  const rotated = [...after.entries()]
    .filter(([id, c]) => before.has(id) && before.get(id)!.apiKey !== c.apiKey)
    .map(([id]) => id);
  const modes = [...after.entries()]
    .filter(([id, c]) => before.has(id) && (before.get(id)!.mode ?? prev.mode) !== (c.mode ?? next.mode))
    .map(([id]) => id);
  const rules = (c: GatewayConfig, id: string) => JSON.stringify(c.policy.clients[id] ?? null);
  const policies = [...new Set([...Object.keys(prev.policy.clients), ...Object.keys(next.policy.clients)])]
    .filter((id) => rules(prev, id) !== rules(next, id));
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const parts = [
    added.length > 0 ? `clients added: ${added.join(", ")}` : "",
    removed.length > 0 ? `clients removed: ${removed.join(", ")}` : "",
    rotated.length > 0 ? `keys rotated: ${rotated.join(", ")}` : "",
    modes.length > 0 ? `mode changed: ${modes.join(", ")}` : "",
    policies.length > 0 ? `policy changed: ${policies.join(", ")}` : "",
    !same(prev.redaction, next.redaction) ? "redaction changed" : "",
    !same(prev.authz, next.authz) ? "authorizer changed" : "",
    !same(prev.codemode, next.codemode) ? "code mode limits changed" : "",
  ].filter((p) => p !== "");
  const downstreams = describeReload(r);
  if (parts.length === 0) return downstreams === "" ? " (no change in effect)" : downstreams;
  return downstreams === "" ? ` (${parts.join("; ")})` : ` (${parts.join("; ")}; ${downstreams.slice(2)}`;
}

function describeReload(r: ReloadOutcome): string {
  const parts = [
    r.downstreams.started.length > 0 ? `started ${r.downstreams.started.join(", ")}` : "",
    r.downstreams.restarted.length > 0 ? `restarted ${r.downstreams.restarted.join(", ")}` : "",
    r.downstreams.stopped.length > 0 ? `stopped ${r.downstreams.stopped.join(", ")}` : "",
    r.ignored.length > 0 ? `needs a restart to change: ${r.ignored.join(", ")}` : "",
  ].filter((p) => p !== "");
  return parts.length === 0 ? "" : ` (${parts.join("; ")})`;
}

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  if (TOOL_COMMANDS.has(argv[0] ?? "")) {
    return await runToolCommand(argv, { out: (line) => console.log(line), err: log });
  }
  const args = parseArgs(argv);
  if (typeof args === "string") {
    log(args);
    return args === USAGE ? 0 : 2;
  }
  // --stdio serves the client its operator names: client key variables are neither needed nor read.
  const loadOptions: LoadOptions = args.stdio === undefined ? {} : { clientKeys: "ignored" };
  if (args.check) return await check(args.config, args.strict === true, args.probe === true, loadOptions);
  const loaded = await load(args.config, loadOptions);
  if (!("listen" in loaded)) {
    log(formatProblems(loaded, args.config));
    log(`${args.config}: ${loaded.length} problem${loaded.length === 1 ? "" : "s"}`);
    return 1;
  }
  const config: GatewayConfig = loaded;
  if (args.stdio !== undefined && !config.clients.some((c) => c.id === args.stdio)) {
    log(`--stdio: no client "${args.stdio}" in ${args.config}`);
    return 2;
  }

  // Whatever ends this process (a normal exit, an uncaught error), no downstream outlives it.
  globalThis.addEventListener("unload", killAllProcessGroups);
  globalThis.addEventListener("error", killAllProcessGroups);
  globalThis.addEventListener("unhandledrejection", killAllProcessGroups);
  // In --stdio mode stdout carries the MCP protocol, so a stdout audit sink writes to stderr.
  const gateway = await Gateway.create(config, {
    log,
    auditToStderr: args.stdio !== undefined,
    logDownstreamStderr: args.logDownstreamStderr,
    configFile: args.config,
  });
  let stopping = false;
  let stoppedAt = 0;
  let exitCode = 0;
  const finished = Promise.withResolvers<void>();
  const stop = (signal: string, repeatExits = true) => {
    if (stopping && !repeatExits) return;
    // A supervisor that signals the whole process group (systemd, `deno task`) reaches the gateway more
    // than once for one request: only a request after a pause may cut the drain short.
    if (stopping && performance.now() - stoppedAt < REPEAT_STOP_MS) return;
    if (stopping) {
      log(`gateway: ${signal} again, exiting now`);
      killAllProcessGroups();
      Deno.exit(130);
    }
    stopping = true;
    stoppedAt = performance.now();
    log(`gateway: ${signal}, draining`);
    gateway.close().catch((err) => {
      exitCode = 1;
      log(`gateway: shutdown failed: ${err instanceof Error ? err.message : "unknown error"}`);
    }).finally(() => finished.resolve());
  };

  let reloading = Promise.resolve();
  const reload = (why: string) => {
    reloading = reloading.then(async () => {
      if (stopping) return;
      const next = await load(args.config, loadOptions).catch(
        () => [{ path: "", message: "cannot read the file" }],
      );
      if (!("listen" in next)) {
        log(`gateway: ${why}: ${args.config} rejected, keeping the running configuration`);
        log(formatProblems(next as readonly ConfigProblem[], args.config));
        gateway.noteReloadFailure(
          `${args.config} rejected: ${formatProblems(next as readonly ConfigProblem[], args.config)}`.slice(
            0,
            2000,
          ),
        );
        return;
      }
      const prev = gateway.config;
      const outcome = await gateway.reload(next);
      log(`gateway: ${why}: configuration reloaded${describeChanges(prev, next, outcome)}`);
    });
  };

  const signals: [Deno.Signal, () => void][] = [
    ["SIGTERM", () => stop("SIGTERM")],
    ["SIGINT", () => stop("SIGINT")],
  ];
  // Windows has no SIGTERM/SIGHUP listeners (and no process groups); there --watch reloads.
  if (Deno.build.os === "windows") signals.splice(0, 1);
  else signals.push(["SIGHUP", () => reload("SIGHUP")]);
  for (const [sig, fn] of signals) Deno.addSignalListener(sig, fn);

  const watcher = args.watch ? new ConfigWatcher(args.config, () => reload("file changed")) : undefined;
  await watcher?.start();

  if (args.stdio !== undefined) {
    // The client's own mode (code mode, passthrough or both), through the surface HTTP serves.
    await gateway.serveStdio(args.stdio, (why) => stop(why, false));
    log(`gateway: serving client ${args.stdio} on stdio`);
    log(connectHint("gateway", { kind: "stdio", command: Deno.execPath(), args: stdioCommand(args) }));
  } else {
    const { url, metricsUrl } = await gateway.serve();
    log(`gateway: listening on ${url}${metricsUrl === undefined ? "" : `, metrics on ${metricsUrl}`}`);
    // Each client sends its own key (the variable its api_key_env names): a placeholder, never a key.
    log(connectHint("gateway", { kind: "http", url, bearer: "<the client's key, from its api_key_env>" }));
  }

  await finished.promise;
  for (const [sig, fn] of signals) Deno.removeSignalListener(sig, fn);
  watcher?.close();
  await reloading.catch(() => {});
  log("gateway: stopped");
  return exitCode;
}

/**
 * Watches a configuration path, not its inode: the directories holding the path and what it resolves
 * to (a symlink swap changes the link in the first, an in-place edit of the target shows in the
 * second), re-resolved after every change. An event calls `onChange` once things settle, and only when
 * the file's bytes differ from the last ones seen (other files in those directories change too).
 */
export class ConfigWatcher {
  readonly #path: string;
  readonly #onChange: () => void;
  readonly #watchers = new Map<string, Deno.FsWatcher>();
  #last: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /** Watches `path`; `onChange` is called when its content changed. */
  constructor(path: string, onChange: () => void) {
    this.#path = resolve(path);
    this.#onChange = onChange;
  }

  /** Records the current content and starts watching. */
  async start(): Promise<void> {
    this.#last = await this.#read();
    await this.#rewatch();
  }

  async #read(): Promise<string | undefined> {
    try {
      return await Deno.readTextFile(this.#path);
    } catch {
      return undefined;
    }
  }

  /** The directories to watch now: the path's, and its resolved target's (when it resolves). */
  async #directories(): Promise<Set<string>> {
    const dirs = new Set([dirname(this.#path)]);
    try {
      dirs.add(dirname(await Deno.realPath(this.#path)));
    } catch {
      // Missing for a moment (between a delete and a create): the path's directory still sees it return.
    }
    return dirs;
  }

  async #rewatch(): Promise<void> {
    if (this.#closed) return;
    const wanted = await this.#directories();
    for (const [dir, w] of this.#watchers) {
      if (!wanted.has(dir)) {
        this.#watchers.delete(dir);
        w.close();
      }
    }
    for (const dir of wanted) {
      if (this.#watchers.has(dir)) continue;
      let w: Deno.FsWatcher;
      try {
        w = Deno.watchFs(dir, { recursive: false });
      } catch {
        continue;
      }
      this.#watchers.set(dir, w);
      void this.#pump(dir, w);
    }
  }

  async #pump(dir: string, w: Deno.FsWatcher): Promise<void> {
    try {
      for await (const event of w) {
        if (event.kind === "access") continue;
        this.#poke();
      }
    } catch {
      // The directory went away: the next change elsewhere re-resolves.
    }
    if (this.#watchers.get(dir) === w) this.#watchers.delete(dir);
  }

  #poke(): void {
    clearTimeout(this.#timer);
    // Editors write in bursts (truncate, write, rename): look once it settles.
    this.#timer = setTimeout(() => void this.#settled(), 200);
  }

  async #settled(): Promise<void> {
    if (this.#closed) return;
    await this.#rewatch();
    const now = await this.#read();
    if (now === this.#last) return;
    this.#last = now;
    this.#onChange();
  }

  /** Stops watching. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
