/**
 * `deno task star` starts from a bundle (src/starlark/cli_launcher.ts): the bundle is remade when a source
 * file changes or a file is added, the CLI falls back to its modules when no bundle can be made, and the
 * real launcher runs programs (with `load`) exactly as the CLI module does.
 */
import assert from "node:assert/strict";
import { type BundleLayout, freshBundle } from "../../src/starlark/cli_launcher.ts";

const LAUNCHER = new URL("../../src/starlark/cli_launcher.ts", import.meta.url).pathname;
const CLI = new URL("../../src/starlark/cli.ts", import.meta.url).pathname;

/** A tiny module graph in a temp folder: `entry.ts` exports `answer()` through `dep.ts`. */
function tinyProject(): { root: string; layout: BundleLayout } {
  const root = Deno.makeTempDirSync({ prefix: "codemode-launcher-" });
  Deno.mkdirSync(`${root}/src/lib`, { recursive: true });
  Deno.writeTextFileSync(`${root}/src/entry.ts`, 'export { answer } from "./lib/dep.ts";\n');
  Deno.writeTextFileSync(`${root}/src/lib/dep.ts`, "export const answer = (): number => 1;\n");
  return {
    root,
    layout: {
      sourceDir: new URL(`file://${root}/src/`),
      entry: new URL(`file://${root}/src/entry.ts`),
      cacheDir: new URL(`file://${root}/cache/`),
    },
  };
}

/** Imports a bundle under a fresh URL (the module cache would hand back the first import). */
async function answerOf(bundle: URL): Promise<number> {
  const copy = `${Deno.makeTempDirSync()}/b.js`;
  Deno.copyFileSync(bundle, copy);
  return ((await import(`file://${copy}`)) as { answer(): number }).answer();
}

/**
 * The launcher counts a file written within 20 ms of a build's start as newer than the build (file
 * times lag the clock by up to a tick): the steps of these tests are further apart than that.
 */
function pause(): Promise<void> {
  return new Promise((r) => setTimeout(r, 50));
}

Deno.test("cli launcher: the bundle is made once and reused while no source changes", async () => {
  const { root, layout } = tinyProject();
  try {
    await pause();
    const first = freshBundle(layout);
    assert.ok(first, "no bundle was made");
    assert.equal(await answerOf(first), 1);
    const builtAt = Deno.statSync(first).mtime!.getTime();
    await pause();
    const again = freshBundle(layout);
    assert.equal(again?.href, first.href);
    assert.equal(Deno.statSync(again!).mtime!.getTime(), builtAt, "an up-to-date bundle was remade");
    // No temporary files are left behind.
    assert.deepEqual([...Deno.readDirSync(layout.cacheDir)].map((e) => e.name).sort(), [
      `cli-${Deno.version.deno}.js`,
      `cli-${Deno.version.deno}.json`,
    ]);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("cli launcher: an edited source or an added file makes a new bundle", async () => {
  const { root, layout } = tinyProject();
  try {
    freshBundle(layout);
    await pause();
    Deno.writeTextFileSync(`${root}/src/lib/dep.ts`, "export const answer = (): number => 2;\n");
    assert.equal(await answerOf(freshBundle(layout)!), 2, "an edit did not remake the bundle");
    await pause();
    // A new module imported by an edited one, and a new folder: both in the next bundle.
    Deno.mkdirSync(`${root}/src/lib/more`);
    Deno.writeTextFileSync(`${root}/src/lib/more/three.ts`, "export const three = 3;\n");
    Deno.writeTextFileSync(
      `${root}/src/lib/dep.ts`,
      'import { three } from "./more/three.ts";\nexport const answer = (): number => three;\n',
    );
    assert.equal(await answerOf(freshBundle(layout)!), 3);
    await pause();
    // Editing the new file is seen too: it is in the new manifest.
    Deno.writeTextFileSync(`${root}/src/lib/more/three.ts`, "export const three = 33;\n");
    assert.equal(await answerOf(freshBundle(layout)!), 33);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("cli launcher: no bundle when none can be made (the CLI then runs from its modules)", () => {
  const { root, layout } = tinyProject();
  try {
    // The cache folder cannot be created: a file stands where it should be.
    Deno.writeTextFileSync(`${root}/cache`, "");
    assert.equal(freshBundle(layout), undefined);
    // A module graph that does not bundle.
    Deno.removeSync(`${root}/cache`);
    Deno.writeTextFileSync(`${root}/src/lib/dep.ts`, 'export { gone } from "./missing.ts";\n');
    assert.equal(freshBundle(layout), undefined);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("cli launcher: deno task star's entry prints what the CLI module prints, load included", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "codemode-launcher-run-" });
  try {
    Deno.writeTextFileSync(`${dir}/lib.star`, "def twice(x):\n    return 2 * x\n");
    Deno.writeTextFileSync(
      `${dir}/main.star`,
      'load("lib.star", "twice")\nprint("hi")\ndef main():\n    return [twice(21), {"k": 1.5}]\n',
    );
    Deno.writeTextFileSync(`${dir}/bad.star`, "def main():\n    return 1 // 0\n");
    const run = async (entry: string, file: string) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", entry, `${dir}/${file}`],
        stdin: "null",
      }).output();
      const text = (b: Uint8Array) => new TextDecoder().decode(b);
      return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
    };
    for (const file of ["main.star", "bad.star", "missing.star"]) {
      const viaLauncher = await run(LAUNCHER, file);
      assert.deepEqual(viaLauncher, await run(CLI, file), file);
    }
    const ok = await run(LAUNCHER, "main.star");
    assert.equal(ok.code, 0);
    assert.equal(ok.stdout, '[42, {"k": 1.5}]\n');
    assert.match(ok.stderr, /^hi\n/);
    assert.equal((await run(LAUNCHER, "bad.star")).code, 1);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
