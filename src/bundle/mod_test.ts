/**
 * Fresh bundles in graph mode (the serve launcher's): remade when a module of the graph, the configuration
 * or a newly imported module changes; refused when a relative URL would break at the bundle's place; made
 * by a write-limited child when the caller may not write; absent when nothing may be run.
 */
import assert from "node:assert/strict";
import { type BundleSpec, freshBundle } from "./mod.ts";

const MOD = new URL("./mod.ts", import.meta.url).pathname;

/**
 * A tiny project in a temp folder: `src/app/entry.ts` exports `answer()` through an import-map name
 * (so the configuration matters) and the path a relative URL names, like the executor's worker URLs.
 */
function tinyProject(cacheDir = ".cache/app/"): { root: string; spec: BundleSpec } {
  const root = Deno.makeTempDirSync({ prefix: "codemode-bundle-" });
  Deno.mkdirSync(`${root}/src/app`, { recursive: true });
  Deno.mkdirSync(`${root}/assets`);
  Deno.writeTextFileSync(`${root}/assets/w.ts`, "export {};\n");
  Deno.writeTextFileSync(`${root}/deno.json`, JSON.stringify({ imports: { "#dep": "./src/app/dep.ts" } }));
  Deno.writeTextFileSync(
    `${root}/src/app/entry.ts`,
    'export { answer } from "#dep";\nexport const asset = new URL("../../assets/w.ts", import.meta.url).pathname;\n',
  );
  Deno.writeTextFileSync(`${root}/src/app/dep.ts`, "export const answer = (): number => 1;\n");
  return {
    root,
    spec: {
      entry: new URL(`file://${root}/src/app/entry.ts`),
      cacheDir: new URL(`file://${root}/${cacheDir}`),
      name: "app",
      sources: "graph",
      config: new URL(`file://${root}/deno.json`),
    },
  };
}

/** Imports a bundle under a fresh URL in the same folder (the module cache would hand back the first). */
async function load(bundle: URL): Promise<{ answer(): number; asset: string }> {
  const copy = new URL(`copy-${crypto.randomUUID()}.js`, bundle);
  Deno.copyFileSync(bundle, copy);
  try {
    return (await import(copy.href)) as { answer(): number; asset: string };
  } finally {
    Deno.removeSync(copy);
  }
}

/** File times lag the clock by up to a tick: the steps of these tests are further apart than that. */
function pause(): Promise<void> {
  return new Promise((r) => setTimeout(r, 50));
}

Deno.test("bundle: made once from the module graph and reused while nothing changes", async () => {
  const { root, spec } = tinyProject();
  try {
    await pause();
    const first = freshBundle(spec);
    assert.ok(first, "no bundle was made");
    const mod = await load(first);
    assert.equal(mod.answer(), 1);
    // The relative URL resolves from the bundle's place (same depth as the entry) to the same file.
    assert.equal(mod.asset, `${root}/assets/w.ts`);
    const builtAt = Deno.statSync(first).mtime!.getTime();
    await pause();
    assert.equal(freshBundle(spec)?.href, first.href);
    assert.equal(Deno.statSync(first).mtime!.getTime(), builtAt, "an up-to-date bundle was remade");
    const manifest = JSON.parse(
      Deno.readTextFileSync(new URL(`app-${Deno.version.deno}.json`, spec.cacheDir)),
    );
    assert.deepEqual(
      (manifest.paths as string[]).toSorted(),
      [`${root}/deno.json`, `${root}/src/app/dep.ts`, `${root}/src/app/entry.ts`],
    );
    assert.deepEqual([...Deno.readDirSync(spec.cacheDir)].map((e) => e.name).sort(), [
      `app-${Deno.version.deno}.js`,
      `app-${Deno.version.deno}.json`,
    ]);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("bundle: an edited module, a newly imported one or an edited configuration makes a new bundle", async () => {
  const { root, spec } = tinyProject();
  try {
    freshBundle(spec);
    await pause();
    Deno.writeTextFileSync(`${root}/src/app/dep.ts`, "export const answer = (): number => 2;\n");
    assert.equal((await load(freshBundle(spec)!)).answer(), 2, "an edit did not remake the bundle");
    await pause();
    Deno.mkdirSync(`${root}/src/more`);
    Deno.writeTextFileSync(`${root}/src/more/three.ts`, "export const three = 3;\n");
    Deno.writeTextFileSync(
      `${root}/src/app/dep.ts`,
      'import { three } from "../more/three.ts";\nexport const answer = (): number => three;\n',
    );
    assert.equal((await load(freshBundle(spec)!)).answer(), 3);
    await pause();
    Deno.writeTextFileSync(`${root}/src/more/three.ts`, "export const three = 33;\n");
    assert.equal((await load(freshBundle(spec)!)).answer(), 33, "the new module is not watched");
    await pause();
    // The import map now sends #dep elsewhere: only the configuration changed.
    Deno.writeTextFileSync(`${root}/src/app/other.ts`, "export const answer = (): number => 4;\n");
    await pause();
    freshBundle(spec);
    await pause();
    Deno.writeTextFileSync(
      `${root}/deno.json`,
      JSON.stringify({ imports: { "#dep": "./src/app/other.ts" } }),
    );
    assert.equal((await load(freshBundle(spec)!)).answer(), 4, "a configuration edit did not remake it");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("bundle: refused when a relative URL would name a missing file from the bundle's place", () => {
  // One folder less deep than the entry: "../../assets/w.ts" would leave the project.
  const { root, spec } = tinyProject("cache/");
  try {
    assert.equal(freshBundle(spec), undefined);
    // Only the manifest that remembers the refusal: no bundle, no temporary file.
    assert.deepEqual([...Deno.readDirSync(spec.cacheDir)].map((e) => e.name), [
      `app-${Deno.version.deno}.json`,
    ]);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("bundle: a graph that does not bundle gives none, is not retried until a source changes", async () => {
  const { root, spec } = tinyProject();
  try {
    Deno.writeTextFileSync(`${root}/src/app/dep.ts`, 'export { gone as answer } from "./missing.ts";\n');
    await pause();
    assert.equal(freshBundle(spec), undefined);
    const manifest = new URL(`app-${Deno.version.deno}.json`, spec.cacheDir);
    assert.equal(JSON.parse(Deno.readTextFileSync(manifest)).failed, true);
    const triedAt = Deno.statSync(manifest).mtime!.getTime();
    await pause();
    assert.equal(freshBundle(spec), undefined);
    assert.equal(Deno.statSync(manifest).mtime!.getTime(), triedAt, "a known failure was tried again");
    // The missing module appears: the graph may bundle now, so it is tried again.
    Deno.writeTextFileSync(`${root}/src/app/missing.ts`, "export const gone = (): number => 7;\n");
    assert.equal((await load(freshBundle(spec)!)).answer(), 7);
    await pause();
    // Fixed: the change is seen and the bundle made.
    Deno.writeTextFileSync(`${root}/src/app/dep.ts`, "export const answer = (): number => 6;\n");
    assert.equal((await load(freshBundle(spec)!)).answer(), 6);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

/** Runs freshBundle(spec) in a child with these permissions; what it returned, and what it may write. */
async function inChild(spec: BundleSpec, permissions: string[]): Promise<{ bundle: string; write: string }> {
  const script = `
    import { freshBundle } from ${JSON.stringify(MOD)};
    const spec = ${JSON.stringify({ ...spec, entry: spec.entry.href })};
    const bundle = freshBundle({ ...spec, entry: new URL(spec.entry), cacheDir: new URL(spec.cacheDir),
      config: new URL(spec.config) });
    const write = Deno.permissions.querySync({ name: "write", path: new URL(spec.cacheDir) }).state;
    console.log(JSON.stringify({ bundle: bundle?.href ?? "none", write }));
  `;
  const file = Deno.makeTempFileSync({ suffix: ".ts" });
  try {
    Deno.writeTextFileSync(file, script);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-config", "--no-prompt", ...permissions, file],
      stdin: "null",
      stderr: "inherit",
    }).output();
    assert.equal(out.code, 0);
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    Deno.removeSync(file);
  }
}

Deno.test("bundle: a process that may run Deno but not write has the bundle made by a child", async () => {
  const { root, spec } = tinyProject();
  try {
    await pause();
    const made = await inChild(spec, ["--allow-read", `--allow-run=${Deno.execPath()}`]);
    assert.notEqual(made.write, "granted", "the caller could write: the child path was not taken");
    const bundle = new URL(`app-${Deno.version.deno}.js`, spec.cacheDir);
    assert.equal(made.bundle, bundle.href);
    assert.equal((await load(bundle)).answer(), 1);
    // No run permission and a stale bundle: the caller runs its modules.
    await pause();
    Deno.writeTextFileSync(`${root}/src/app/dep.ts`, "export const answer = (): number => 5;\n");
    assert.equal((await inChild(spec, ["--allow-read"])).bundle, "none");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
