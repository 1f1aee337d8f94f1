/**
 * A host without the `worker-options` feature gets a `build()` diagnostic instead of a process that
 * exits with code 70 (issue 11). The detection on fake process views, then a real consumer project in a
 * temporary folder whose `deno.json` lacks the feature, run as a child Deno process.
 */
import assert from "node:assert/strict";
import {
  type ProcessView,
  WORKER_OPTIONS_DIAGNOSTIC,
  workerOptionsState,
} from "../../src/core/worker_flags.ts";

function view(files: Record<string, string | null>, over: Partial<ProcessView> = {}): ProcessView {
  return {
    execPath: "/usr/bin/deno",
    argv: undefined,
    mainModule: "file:///home/me/app/main.ts",
    cwd: "/home/me/app",
    readText: (path) => (Object.hasOwn(files, path) ? files[path] : undefined),
    ...over,
  };
}

Deno.test("worker-options: read from the config Deno would use", () => {
  const on = '{ "unstable": ["worker-options"] }';
  assert.equal(workerOptionsState(view({ "/home/me/app/deno.json": on })), "enabled");
  // A workspace root above the member counts, and deno.jsonc comments and trailing commas parse.
  assert.equal(
    workerOptionsState(view({
      "/home/me/app/deno.json": "{}",
      "/home/me/deno.jsonc": '{\n  // the root\n  "unstable": ["worker-options",], /* ok */\n}',
    })),
    "enabled",
  );
  assert.equal(workerOptionsState(view({ "/home/me/app/deno.json": '{ "unstable": ["kv"] }' })), "missing");
  assert.equal(workerOptionsState(view({})), "missing", "no config anywhere and no flag");
});

Deno.test("worker-options: the command line, when it can be read", () => {
  const argv = (...a: string[]) => ({ argv: ["deno", ...a] });
  assert.equal(workerOptionsState(view({}, argv("run", "--unstable-worker-options", "main.ts"))), "enabled");
  assert.equal(workerOptionsState(view({}, argv("test", "-A", "--unstable", "x_test.ts"))), "enabled");
  const on = '{ "unstable": ["worker-options"] }';
  assert.equal(
    workerOptionsState(view({ "/etc/app.json": on }, argv("run", "--config", "/etc/app.json", "main.ts"))),
    "enabled",
  );
  // --no-config ignores every file; a script argument spelling it does not.
  assert.equal(
    workerOptionsState(view({ "/home/me/app/deno.json": on }, argv("run", "--no-config", "main.ts"))),
    "missing",
  );
  assert.equal(
    workerOptionsState(view({ "/home/me/app/deno.json": on }, argv("run", "main.ts", "--no-config"))),
    "enabled",
  );
});

Deno.test("worker-options: anything unreadable is unknown, never a refusal", () => {
  assert.equal(workerOptionsState(view({ "/home/me/app/deno.json": null })), "unknown", "no read permission");
  assert.equal(workerOptionsState(view({ "/home/me/app/deno.json": "{ nope" })), "unknown", "unparsable");
  assert.equal(workerOptionsState(view({}, { execPath: "/opt/my-compiled-app" })), "unknown", "compiled");
  assert.equal(workerOptionsState(view({}, { argv: ["deno", "compile", "x.ts"] })), "unknown");
});

Deno.test("a consumer project without worker-options gets a build() diagnostic, not exit code 70", async () => {
  const dir = await Deno.makeTempDir({ prefix: "codemode-consumer-" });
  try {
    // A consumer's config: the packages our modules import, and no worker-options.
    const imports = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url))).imports;
    await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify({ imports }));
    const mod = new URL("../../mod.ts", import.meta.url).href;
    await Deno.writeTextFile(
      `${dir}/main.ts`,
      `import { allowAll, Builder, t } from "${mod}";
const b = new Builder({ authorizer: allowAll() });
b.register({ name: "a.b", summary: "x", output: t.struct({}), handler: () => ({}) });
try {
  const s = await b.build();
  console.log("built");
  await s.close();
} catch (e) {
  console.log("refused: " + (e as Error).message);
}
`,
    );
    for (const flags of [["--allow-read"], ["--allow-all"]]) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--quiet", "--no-prompt", "--no-check", ...flags, `${dir}/main.ts`],
        cwd: dir,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, `${flags}: ${stdout}${new TextDecoder().decode(out.stderr)}`);
      assert.ok(stdout.includes(WORKER_OPTIONS_DIAGNOSTIC), stdout);
    }
    // With the feature in the consumer's deno.json, the same program builds and runs.
    await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify({ imports, unstable: ["worker-options"] }));
    const ok = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", "--no-check", "--allow-read", `${dir}/main.ts`],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(ok.stdout).trim(), "built", new TextDecoder().decode(ok.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a deno.json passed with --config from elsewhere: seen under --allow-all, else stated with workerOptions", async () => {
  const dir = await Deno.makeTempDir({ prefix: "codemode-config-elsewhere-" });
  try {
    // The app has no configuration of its own; the one that enables worker-options lives elsewhere.
    await Deno.mkdir(`${dir}/app`);
    await Deno.mkdir(`${dir}/conf`);
    await Deno.mkdir(`${dir}/cwd`);
    const imports = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url))).imports;
    await Deno.writeTextFile(
      `${dir}/conf/deno.json`,
      JSON.stringify({ imports, unstable: ["worker-options"] }),
    );
    const mod = new URL("../../mod.ts", import.meta.url).href;
    const program = (options: string) =>
      `import { allowAll, Builder, t } from "${mod}";
const b = new Builder({ authorizer: allowAll()${options} });
b.register({ name: "a.b", summary: "x", output: t.struct({ n: t.int() }), handler: () => ({ n: 7 }) });
try {
  const s = await b.build();
  console.log("ran " + JSON.stringify(await s.execute({ id: "u" }, "def main():\\n    return a.b()\\n")));
  await s.close();
} catch (e) {
  console.log("refused: " + (e as Error).message);
}
`;
    await Deno.writeTextFile(`${dir}/app/detect.ts`, program(""));
    await Deno.writeTextFile(`${dir}/app/stated.ts`, program(', workerOptions: "enabled"'));
    const run = async (flags: string[], file: string) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          "--no-prompt",
          "--no-check",
          "--config",
          `${dir}/conf/deno.json`,
          ...flags,
          file,
        ],
        cwd: `${dir}/cwd`,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout).trim();
      assert.equal(out.code, 0, `${flags} ${file}: ${text}${new TextDecoder().decode(out.stderr)}`);
      return text;
    };
    // Without --allow-all the command line cannot be read: refused, and told how to state it.
    const refused = await run(["--allow-read"], `${dir}/app/detect.ts`);
    assert.ok(refused.startsWith("refused: ") && refused.includes(WORKER_OPTIONS_DIAGNOSTIC), refused);
    assert.match(refused, /--config from another directory.*workerOptions: "enabled"/);
    // Under --allow-all the --config flag is read; stated explicitly it needs nothing more. Both run.
    assert.equal(await run(["--allow-all"], `${dir}/app/detect.ts`), 'ran {"n":7}');
    assert.equal(await run(["--allow-read"], `${dir}/app/stated.ts`), 'ran {"n":7}');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
