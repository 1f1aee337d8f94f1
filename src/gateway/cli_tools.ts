/**
 * The operator's command-line tools, next to serving:
 *
 * - `tools --config FILE [--downstream NAME]` starts the downstreams (or the one named), lists every
 *   tool with its namespaced name and the first line of its description (redacted like everything a
 *   downstream says), and exits: what an operator needs to write a policy.
 * - `explain --config FILE --client ID --tool NAME` says what the policy decides for that client and
 *   tool, with the reason code and the rule that made it (`file:line`), and whether the tool exists
 *   (starting its downstream to find out): a missing tool is said to be missing.
 *
 * @module
 */
import {
  ConfigError,
  type DownstreamConfig,
  formatProblems,
  type GatewayConfig,
  readConfigFile,
  secretValues,
} from "./config/mod.ts";
import { DownstreamRegistry } from "./downstream/mod.ts";
import { explainDecision, presenceIn } from "./explain.ts";
import { Redactor } from "./redact/mod.ts";

/** The subcommands this module runs. */
export const TOOL_COMMANDS: ReadonlySet<string> = new Set(["tools", "explain"]);

/** Usage of the subcommands. */
export const TOOLS_USAGE = [
  "usage: deno task gateway tools --config FILE [--downstream NAME]",
  "       deno task gateway explain --config FILE --client ID --tool NAME",
].join("\n");

/** Where the tools write (tests capture it). */
export interface ToolsOutput {
  /** Results (stdout). */
  readonly out: (line: string) => void;
  /** Diagnostics (stderr). */
  readonly err: (line: string) => void;
  /** Reads the environment (default `Deno.env.get`). */
  readonly env?: (name: string) => string | undefined;
  /** Time allowed for each downstream to start (default 60000). */
  readonly startTimeoutMs?: number;
}

function flags(argv: readonly string[], known: readonly string[]): Map<string, string> | string {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (!known.includes(flag)) return `unknown argument ${JSON.stringify(flag)}`;
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--")) return `${flag} needs a value`;
    if (out.has(flag)) return `${flag} given twice`;
    out.set(flag, value);
    i++;
  }
  return out;
}

async function load(file: string, io: ToolsOutput): Promise<GatewayConfig | undefined> {
  try {
    // Client keys are not needed to list tools or explain a decision.
    return await readConfigFile(file, io.env ?? ((n) => Deno.env.get(n)), { clientKeys: "ignored" });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.err(formatProblems(err.problems, file));
    return undefined;
  }
}

/**
 * Starts `downstreams`, runs `use`, and stops them (their process groups end) whatever happens. Also
 * what `--check --probe` runs its rules against.
 */
export async function withDownstreams<T>(
  downstreams: readonly DownstreamConfig[],
  io: ToolsOutput,
  redact: (text: string) => string,
  use: (registry: DownstreamRegistry) => T | Promise<T>,
): Promise<T> {
  const registry = new DownstreamRegistry({
    hostEnv: io.env ?? ((n) => Deno.env.get(n)),
    startTimeoutMs: io.startTimeoutMs ?? 60_000,
    events: {
      log: (name, message, cause) =>
        io.err(redact(`downstream ${name}: ${message}${cause instanceof Error ? `: ${cause.message}` : ""}`)),
    },
  });
  try {
    await registry.apply(downstreams);
    return await use(registry);
  } finally {
    await registry.close();
  }
}

function firstLine(text: string | undefined): string {
  const line = (text ?? "").trim().split("\n")[0].trim();
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** `tools`: resolves with the exit code (1 when a downstream did not come up). */
async function listTools(argv: readonly string[], io: ToolsOutput): Promise<number> {
  const parsed = flags(argv, ["--config", "--downstream"]);
  if (typeof parsed === "string" || !parsed.has("--config")) {
    io.err(`${typeof parsed === "string" ? `${parsed}\n` : ""}${TOOLS_USAGE}`);
    return 2;
  }
  const file = parsed.get("--config")!;
  const config = await load(file, io);
  if (config === undefined) return 1;
  const only = parsed.get("--downstream");
  const chosen = config.downstreams.filter((d) => only === undefined || d.name === only);
  if (chosen.length === 0) {
    io.err(only === undefined ? `${file}: no downstreams` : `${file}: no downstream "${only}"`);
    return 2;
  }
  const redactor = new Redactor({ secrets: secretValues(config), patterns: config.redaction.patterns });
  const redact = (text: string) => redactor.redactText(text).value;
  return await withDownstreams(chosen, io, redact, (registry) => {
    let code = 0;
    for (const d of registry.downstreams) {
      if (d.state !== "up") {
        io.err(`downstream ${d.name}: ${d.state}, its tools are not listed`);
        code = 1;
        continue;
      }
      for (const tool of d.tools) {
        // A downstream's text, like everything it says, crosses the redactor.
        io.out(redact(`${d.name}__${tool.name}\t${firstLine(tool.description)}`));
      }
    }
    return code;
  });
}

/** `explain`: resolves with the exit code (0 when explained, whatever the decision). */
async function explain(argv: readonly string[], io: ToolsOutput): Promise<number> {
  const parsed = flags(argv, ["--config", "--client", "--tool"]);
  if (
    typeof parsed === "string" || !parsed.has("--config") || !parsed.has("--client") || !parsed.has("--tool")
  ) {
    io.err(`${typeof parsed === "string" ? `${parsed}\n` : ""}${TOOLS_USAGE}`);
    return 2;
  }
  const file = parsed.get("--config")!;
  const config = await load(file, io);
  if (config === undefined) return 1;
  const redactor = new Redactor({ secrets: secretValues(config), patterns: config.redaction.patterns });
  const redact = (text: string) => redactor.redactText(text).value;
  const explanation = await explainDecision(
    config,
    parsed.get("--client")!,
    parsed.get("--tool")!,
    // Whether the tool exists: its downstream is started and asked.
    (ref) =>
      withDownstreams(
        config.downstreams.filter((d) => d.name === ref.downstream),
        io,
        redact,
        (registry) => presenceIn(registry.downstreams, ref),
      ),
    { file, text: await Deno.readTextFile(file) },
  );
  io.out(`decision: ${explanation.decision} (${explanation.reason})`);
  for (const line of explanation.lines) io.out(redact(line));
  return 0;
}

/** Runs `tools` or `explain` (`argv[0]`); resolves with the exit code. */
export async function runToolCommand(argv: readonly string[], io: ToolsOutput): Promise<number> {
  const [command, ...rest] = argv;
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(TOOLS_USAGE);
    return 0;
  }
  if (command === "tools") return await listTools(rest, io);
  if (command === "explain") return await explain(rest, io);
  io.err(TOOLS_USAGE);
  return 2;
}
