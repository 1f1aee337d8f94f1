/**
 * What the composition root needs around the loader: reading a file, the typed error that carries every
 * problem, printing problems, the secret values to redact, and change detection for reloads.
 *
 * @module
 */
import { CodeModeError } from "../../errors.ts";
import { type EnvLookup, loadConfig, type LoadOptions } from "./load.ts";
import type { DownstreamConfig, GatewayConfig } from "./types.ts";
import type { ConfigProblem } from "./yaml_tree.ts";

/** `file:line:column: path: message`, one problem per line, in file order. */
export function formatProblems(problems: readonly ConfigProblem[], file = "config"): string {
  return problems
    .map((p) => `${file}:${p.line}:${p.column}: ${p.path === "" ? "" : `${p.path}: `}${p.message}`)
    .join("\n");
}

/** A configuration that did not validate; `problems` holds every problem found. */
export class ConfigError extends CodeModeError {
  /** Every problem, in file order. */
  readonly problems: readonly ConfigProblem[];
  /** The file the problems are in. */
  readonly file: string;

  /** Creates the error; its message lists every problem. */
  constructor(problems: readonly ConfigProblem[], file: string) {
    super(
      "invalid_registration",
      `${file}: ${problems.length} configuration problem${problems.length === 1 ? "" : "s"}\n` +
        formatProblems(problems, file),
    );
    this.name = "ConfigError";
    this.problems = problems;
    this.file = file;
  }
}

/**
 * Reads and validates a configuration file. Throws {@link ConfigError} with every problem (an unreadable
 * file is one problem); `env` defaults to the process environment, `options` are the loader's.
 */
export async function readConfigFile(
  path: string,
  env: EnvLookup = (name) => Deno.env.get(name),
  options: LoadOptions = {},
): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    const why = err instanceof Deno.errors.NotFound ? "file not found" : "cannot be read";
    throw new ConfigError([{ path: "", line: 0, column: 0, message: why }], path);
  }
  const result = loadConfig(text, env, options);
  if (!result.ok) throw new ConfigError(result.problems, path);
  return result.config;
}

/**
 * Every secret value the gateway holds: downstream secrets, client and operator API keys (all to be
 * redacted).
 */
export function secretValues(config: GatewayConfig): string[] {
  const values = new Set<string>();
  for (const d of config.downstreams) for (const v of Object.values(d.secrets)) values.add(v);
  // An OAuth-only client has no key (an empty string, which is no secret to redact).
  for (const c of config.clients) if (c.apiKey !== "") values.add(c.apiKey);
  for (const o of config.operators) values.add(o.apiKey);
  if (config.oauth?.introspection !== undefined) values.add(config.oauth.introspection.clientSecret);
  return [...values];
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * Whether two downstream entries are the same (so a reload may keep the running one). Secret values are
 * compared too: a rotated secret restarts the downstream.
 */
export function sameDownstream(a: DownstreamConfig, b: DownstreamConfig): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
