/**
 * Runs one-line `starlark -c` programs in both implementations and returns everything each prints, so
 * that differential tests compare whole outputs (printed text, or the error with its traceback).
 *
 * @module
 */
import { execFile } from "../../../src/starlark/mod.ts";
import { json, math } from "../../../src/starlark/lib/mod.ts";
import { EvalError, StarlarkSyntaxError, toJSString } from "../../../src/starlark/values/value.ts";

/** Runs `source` in our engine as `starlark -c` runs it and returns what the reference would print. */
export function runOurs(source: string): string {
  let out = "";
  try {
    execFile(source, {
      filename: "cmdline",
      predeclared: { json, math },
      // The reference command enables `set` (its -set flag is on by default) and nothing else.
      dialect: { set: true },
      maxSteps: 10_000_000,
      print: (_thread, msg) => {
        out += toJSString(msg) + "\n";
      },
    });
  } catch (e) {
    if (e instanceof EvalError) out += toJSString(e.backtrace()) + "\n";
    // Syntax errors are JS strings (they quote the source text), not byte strings.
    else if (e instanceof StarlarkSyntaxError) out += e.message + "\n";
    else out += `internal error: ${(e as Error)?.stack ?? e}\n`;
  }
  return out;
}

const decoder = new TextDecoder();

/** How long the reference may run one program. */
export const REFERENCE_TIMEOUT_MS = 10_000;

/**
 * Runs `source` with the reference binary (`starlark -c`, on PATH) and returns its output, or
 * `undefined` when the reference itself crashes (a Go panic is a bug of its own, not a behaviour to copy)
 * or runs past `REFERENCE_TIMEOUT_MS`.
 */
export async function runReference(source: string): Promise<string | undefined> {
  const out = await new Deno.Command("starlark", {
    args: ["-c", source],
    stdout: "piped",
    stderr: "piped",
    // The reference has no step or memory budget: a runaway program is killed and left out.
    signal: AbortSignal.timeout(REFERENCE_TIMEOUT_MS),
  }).output();
  if (out.signal !== null) return undefined;
  // The reference prints to stderr; stdout stays empty for these programs.
  const text = decoder.decode(out.stdout) + decoder.decode(out.stderr);
  if (text.includes("panic:") || text.includes("goroutine ")) return undefined;
  return text;
}

/** Applies `fn` to every item with at most `width` calls in flight, keeping the results in order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  width: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}

/** One program whose outputs differ. */
export interface Difference {
  /** The program. */
  source: string;
  /** What the reference printed. */
  reference: string;
  /** What our engine printed. */
  ours: string;
}

/** The result of comparing programs with the reference. */
export interface Comparison {
  /** How many programs ran (those on which the reference crashes are dropped). */
  ran: number;
  /** The programs whose whole outputs differ. */
  differences: Difference[];
}

/** Runs every program in both implementations and collects those whose whole outputs differ. */
export async function compareSources(sources: readonly string[]): Promise<Comparison> {
  const references = await mapLimited(sources, 3, runReference);
  const differences: Difference[] = [];
  let ran = 0;
  sources.forEach((source, i) => {
    const reference = references[i];
    if (reference === undefined) return;
    ran++;
    const ours = runOurs(source);
    if (ours !== reference) differences.push({ source, reference, ours });
  });
  return { ran, differences };
}
