/**
 * Runs one program file through our CLI (in process) and through the reference command (in a temp
 * folder, with its own flags), each returning stdout and stderr together, so differential tests compare
 * whole outputs, tracebacks included.
 *
 * @module
 */
import { runCli } from "../../src/starlark/cli.ts";

/** What `deno task star FLAGS FILE` prints (stdout then stderr as written), `file` holding `source`. */
export function runCliCapture(flags: readonly string[], file: string, source: string): string {
  let out = "";
  const dec = new TextDecoder();
  runCli([...flags, file], {
    readFile: () => source,
    stdout: (b) => void (out += dec.decode(b)),
    stderr: (b) => void (out += dec.decode(b)),
  });
  return out;
}

/** What the reference `starlark FLAGS FILE` prints (stdout, then stderr), run where `file` holds `source`. */
export async function runReferenceFile(
  flags: readonly string[],
  file: string,
  source: string,
): Promise<string> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/${file}`, source);
    const out = await new Deno.Command("starlark", { args: [...flags, file], cwd: dir }).output();
    const dec = new TextDecoder();
    return dec.decode(out.stdout) + dec.decode(out.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
