/**
 * An idle server does not keep its process alive (issue 26): a host that builds a server, runs one
 * program and returns without `await server.close()` exits by itself, on every executor. A Web Worker
 * cannot be unref'd, so a pool that stays quiet for its idle timeout (5 s by default) ends its warm
 * spares too, and spawns them again with the next execution.
 */
import assert from "node:assert/strict";
import { WorkerPool } from "../../src/executor/mod.ts";
import { ProcessPool } from "../../src/executor/mod.ts";
import { request } from "../executor/helpers.ts";

const FIXTURE = new URL("./fixtures/forget_close.ts", import.meta.url).pathname;

/** Runs the fixture; resolves to its exit code and stdout, or `timeout` when it had to be killed. */
async function runFixture(args: string[], limitMs: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", FIXTURE, ...args],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, limitMs);
  const started = performance.now();
  const out = await child.output();
  clearTimeout(timer);
  return {
    killed,
    code: out.code,
    ms: performance.now() - started,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

for (const executor of ["inline", "worker", "process"]) {
  Deno.test(`${executor}: a server never closed lets its process exit once idle`, async () => {
    // The pool's idle timeout is 5 s; 25 s leaves room for a loaded machine (it used to never exit).
    const r = await runFixture([executor], 25_000);
    assert.equal(r.killed, false, `the process was still alive after 25 s: ${r.stderr}`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), '"name of c-1"');
  });

  Deno.test(`${executor}: a server built, never used and never closed lets its process exit`, async () => {
    const r = await runFixture([executor, "--no-run"], 25_000);
    assert.equal(r.killed, false, `the process was still alive after 25 s: ${r.stderr}`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), '"built"');
  });
}

for (
  const [name, make] of [
    ["worker", () => new WorkerPool({ idleTimeoutMs: 200, warmWorkers: 1 })],
    ["process", () => new ProcessPool({ idleTimeoutMs: 200, warmWorkers: 1, spawnTimeoutMs: 30_000 })],
  ] as const
) {
  Deno.test(`${name} pool: a quiet pool ends its spares, and the next execution brings them back`, async () => {
    const pool = make();
    try {
      assert.equal(await pool.run(request("def main():\n    return 1\n")), 1);
      const until = async (what: string, ok: () => boolean) => {
        const end = performance.now() + 20_000;
        while (!ok()) {
          assert.ok(performance.now() < end, `${what}: ${JSON.stringify(pool.stats())}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      await until("everything ended", () => pool.stats().live === 0);
      const spawned = pool.stats().spawned;
      // Stays empty: no spare is spawned again while nothing runs.
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(pool.stats().live, 0);
      assert.equal(pool.stats().spawned, spawned);
      assert.equal(await pool.run(request("def main():\n    return 2\n")), 2);
      await until("a warm spare again", () => pool.stats().fresh === 1);
    } finally {
      await pool.close();
    }
  });
}
