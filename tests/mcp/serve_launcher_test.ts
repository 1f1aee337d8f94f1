/**
 * `deno task serve` starts from a bundle of the serve CLI (src/mcp/serve_launcher.ts): the task's own
 * command serves a real SDK client from it (list and a program in the process sandbox), a bundle older
 * than its sources is remade, and when no bundle can be made the launcher serves from the modules.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { loadServe, SERVE_BUNDLE } from "../../src/mcp/serve_launcher.ts";
import { childEnv } from "./cli_helpers.ts";

const ROOT = new URL("../../", import.meta.url);
const PROGRAM = 'def main():\n    return inventory.stock(sku="TENT-2P")["available_total"]\n';

/** The serve task's command as `deno.json` states it (`deno run FLAGS SCRIPT`), without the task runner. */
function serveTask(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT))) as {
    tasks: { serve: string };
  };
  const words = config.tasks.serve.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "run"]);
  return words.slice(1);
}

Deno.test("serve launcher: the serve task's command serves an SDK client from the bundle", async () => {
  const args = serveTask();
  assert.equal(args.at(-1), "src/mcp/serve_launcher.ts", "the serve task no longer starts the launcher");
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args,
    cwd: ROOT.pathname,
    env: childEnv(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "launcher-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["describe_api", "execute", "search_api"]);
    // The program runs in the process sandbox, whose entry the bundle names by a relative URL.
    const run = await client.callTool({ name: "execute", arguments: { source: PROGRAM } });
    assert.equal(run.isError, undefined, JSON.stringify(run));
    assert.deepEqual(run.structuredContent, { result: 16 });
  } finally {
    await client.close();
  }
  assert.match(stderr, /codemode: programs run in the process executor/);
  assert.doesNotMatch(stderr, /serving from the modules/, stderr);
  const stem = `serve-${Deno.version.deno}`;
  const manifest = JSON.parse(Deno.readTextFileSync(new URL(`${stem}.json`, SERVE_BUNDLE.cacheDir)));
  for (const file of ["src/mcp/serve_cli.ts", "src/demo/catalog.ts", "deno.json", "deno.lock"]) {
    assert.ok(manifest.paths.includes(new URL(file, ROOT).pathname), `${file} is not watched`);
  }
});

Deno.test("serve launcher: a stale bundle is remade; the modules serve when none can be made or loaded", async () => {
  const modules = await import("../../src/mcp/serve_cli.ts");
  // A cache of its own, two folders deep like the real one, so the sandbox URLs still resolve.
  const cacheDir = new URL(`.cache/serve-test-${Deno.pid}/`, ROOT);
  try {
    const spec = { ...SERVE_BUNDLE, cacheDir };
    const first = await loadServe(spec);
    assert.equal(first.from, "bundle");
    assert.notEqual(first.cli.main, modules.main, "the bundle's CLI is the module's");
    assert.equal(typeof first.cli.main, "function");
    const bundle = new URL(`serve-${Deno.version.deno}.js`, cacheDir);
    const manifestFile = new URL(`serve-${Deno.version.deno}.json`, cacheDir);
    const builtAt = Deno.statSync(bundle).mtime!.getTime();
    assert.equal((await loadServe(spec)).from, "bundle");
    assert.equal(Deno.statSync(bundle).mtime!.getTime(), builtAt, "a fresh bundle was remade");
    // As if a source had been edited after the build: the manifest's build time goes back before it.
    const manifest = JSON.parse(Deno.readTextFileSync(manifestFile));
    Deno.writeTextFileSync(manifestFile, JSON.stringify({ ...manifest, startedAt: 0 }));
    assert.equal((await loadServe(spec)).from, "bundle");
    assert.ok(Deno.statSync(bundle).mtime!.getTime() > builtAt, "a stale bundle was not remade");
    assert.ok(JSON.parse(Deno.readTextFileSync(manifestFile)).startedAt > 0);
    // A fresh manifest beside a bundle that does not load (cut short): the modules serve.
    const broken = new URL(`.cache/serve-test-${Deno.pid}-broken/`, ROOT);
    Deno.mkdirSync(broken, { recursive: true });
    Deno.copyFileSync(manifestFile, new URL(`serve-${Deno.version.deno}.json`, broken));
    Deno.writeTextFileSync(new URL(`serve-${Deno.version.deno}.js`, broken), "export const main = (");
    try {
      const fallback = await loadServe({ ...spec, cacheDir: broken });
      assert.equal(fallback.from, "modules");
      assert.equal(fallback.cli.main, modules.main);
    } finally {
      Deno.removeSync(broken, { recursive: true });
    }
  } finally {
    Deno.removeSync(cacheDir, { recursive: true });
  }
  // A cache one folder deep: the bundle would send the sandbox entries elsewhere, so none is made.
  const shallow = Deno.makeTempDirSync({ prefix: "codemode-serve-" });
  try {
    const fallback = await loadServe({ ...SERVE_BUNDLE, cacheDir: new URL(`file://${shallow}/`) });
    assert.equal(fallback.from, "modules");
    assert.equal(fallback.cli.main, modules.main);
  } finally {
    Deno.removeSync(shallow, { recursive: true });
  }
});
