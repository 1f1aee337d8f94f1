/**
 * Helpers around the OPA CLI, shared by `deno task policies`, the Rego tests and the benchmark: find the
 * binary, compile Rego sources to a wasm bundle, and run `opa eval`.
 *
 * The CLI is a build-time tool only; the runtime authorizer never needs it.
 *
 * @module
 */
import { readBundle } from "../src/authz/rego/mod.ts";

/** The repository root (this file lives in `policies/`). */
export const REPO_ROOT: string = new URL("../", import.meta.url).pathname;

/** The capabilities file that admits only deterministic, SDK-supported builtins. */
export const CAPABILITIES_FILE: string = new URL("./capabilities.json", import.meta.url).pathname;

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return info.isFile && (info.mode === null || (info.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}

/**
 * The `opa` binary on `PATH`, else the project-local `.tools/bin/opa`, else `undefined`. The `CODEMODE_OPA`
 * environment variable, when set, is the only candidate (set it to `none` to run as if OPA were missing).
 */
export async function findOpa(): Promise<string | undefined> {
  const forced = Deno.env.get("CODEMODE_OPA");
  if (forced !== undefined) return await isExecutableFile(forced) ? forced : undefined;
  const dirs = (Deno.env.get("PATH") ?? "").split(":").filter((d) => d !== "");
  for (const dir of [...dirs, `${REPO_ROOT}.tools/bin`]) {
    const candidate = `${dir.replace(/\/+$/, "")}/opa`;
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** The failure of an OPA CLI command, with its stderr. */
export class OpaCommandError extends Error {
  /** The command's error output (stderr, or stdout when stderr is empty). */
  readonly stderr: string;
  /** Creates the error. */
  constructor(message: string, stderr: string) {
    super(`${message}: ${stderr.trim()}`);
    this.name = "OpaCommandError";
    this.stderr = stderr;
  }
}

/** Runs `opa` with `args`, feeding `stdin`; resolves to stdout or rejects with {@link OpaCommandError}. */
export async function runOpa(opa: string, args: string[], stdin?: string, cwd?: string): Promise<string> {
  const child = new Deno.Command(opa, {
    args,
    cwd,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const out = await child.output();
  const decoder = new TextDecoder();
  if (!out.success) {
    // opa reports some errors (compile errors of `opa build`) on stdout.
    const stderr = decoder.decode(out.stderr);
    throw new OpaCommandError(
      `opa ${args[0]} failed`,
      stderr.trim() === "" ? decoder.decode(out.stdout) : stderr,
    );
  }
  return decoder.decode(out.stdout);
}

/** What {@link compilePolicy} needs. */
export interface CompileRequest {
  /** The OPA binary. */
  readonly opa: string;
  /** Rego sources keyed by file name (written to a temporary folder), or existing file paths. */
  readonly sources: Record<string, string> | readonly string[];
  /** Extra (non-Rego) files for the bundle, keyed by relative path, e.g. `{ "data.json": "{...}" }`. */
  readonly files?: Record<string, string>;
  /** Entrypoints in slash form (`codemode/authz/allow`). */
  readonly entrypoints: readonly string[];
  /** Capabilities file; defaults to the shipped one. Pass `null` for OPA's full (permissive) set. */
  readonly capabilities?: string | null;
}

/** A compiled policy. */
export interface CompiledPolicy {
  /** The `opa build` bundle (`.tar.gz`). */
  readonly bundle: Uint8Array;
  /** Its `/policy.wasm`. */
  readonly wasm: Uint8Array;
}

/** Compiles Rego to a wasm bundle with `opa build -t wasm` in a temporary folder. */
export async function compilePolicy(req: CompileRequest): Promise<CompiledPolicy> {
  const dir = await Deno.makeTempDir({ prefix: "codemode-rego-" });
  try {
    const written = {
      ...(Array.isArray(req.sources) ? {} : req.sources as Record<string, string>),
      ...req.files,
    };
    for (const [name, text] of Object.entries(written)) {
      const path = `${dir}/src/${name}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, text);
    }
    const paths = Array.isArray(req.sources) ? [...req.sources as readonly string[]] : [];
    if (Object.keys(written).length > 0) paths.push(`${dir}/src`);
    const out = `${dir}/bundle.tar.gz`;
    const args = ["build", "-t", "wasm", "-o", out];
    for (const e of req.entrypoints) args.push("-e", e);
    const caps = req.capabilities === undefined ? CAPABILITIES_FILE : req.capabilities;
    if (caps !== null) args.push("--capabilities", caps);
    await runOpa(req.opa, [...args, ...paths]);
    const bundle = await Deno.readFile(out);
    const { wasm } = await readBundle(bundle, 256 * 1024 * 1024);
    return { bundle, wasm };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/**
 * Evaluates `query` with `opa eval` on Rego sources (no wasm involved) and returns the value of the first
 * expression of the first result, or `undefined` when the query is undefined.
 */
export async function opaEval(
  opa: string,
  sources: readonly string[],
  query: string,
  input?: unknown,
): Promise<unknown> {
  const args = ["eval", "--format", "json"];
  for (const s of sources) args.push("-d", s);
  if (input !== undefined) args.push("--stdin-input");
  args.push(query);
  const out = JSON.parse(await runOpa(opa, args, input === undefined ? undefined : JSON.stringify(input)));
  const first = out?.result?.[0]?.expressions?.[0];
  return first === undefined ? undefined : first.value;
}
