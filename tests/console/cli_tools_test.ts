/**
 * The operator's command-line tools through the real CLI process: `tools` starts real stdio
 * downstreams and lists every tool by namespaced name with its one-line description, then exits;
 * `explain` gives the decision, its reason code and the rule's `file:line` (deny wins, the shadowed
 * allow is named), and says when a tool is missing.
 */
import assert from "node:assert/strict";
import { randomKey, stdioDownstream } from "../gateway/_helpers.ts";

const CLI = new URL("../../src/gateway/cli.ts", import.meta.url).pathname;
const SERVER = new URL("./fixtures/echo_server.ts", import.meta.url).pathname;

const YAML = `listen: 127.0.0.1:0
clients:
  - { id: alice, api_key_env: T_ALICE_KEY }
  - { id: bob, api_key_env: T_BOB_KEY }
  - { id: carol, api_key_env: T_CAROL_KEY }
downstreams:
${stdioDownstream("echo", ["run", JSON.stringify(SERVER)])}
${stdioDownstream("other", ["run", JSON.stringify(SERVER)])}
policy:
  clients:
    alice:
      allow: ["echo__*"]
      deny:
        - echo__hang
    bob:
      allow:
        - other__echo
`;

async function run(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("cli tools: lists every tool of the running downstreams, or of the one named", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli-tools-" });
  const file = `${dir}/gateway.yaml`;
  await Deno.writeTextFile(file, YAML);
  const all = await run(["tools", "--config", file]);
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(all.stdout.trim().split("\n"), [
    "echo__echo\tAnswers its text.",
    "echo__sleep\tAnswers after ms milliseconds.",
    "echo__hang\tNever answers.",
    "other__echo\tAnswers its text.",
    "other__sleep\tAnswers after ms milliseconds.",
    "other__hang\tNever answers.",
  ]);
  const one = await run(["tools", "--config", file, "--downstream", "other"]);
  assert.equal(one.code, 0);
  assert.deepEqual(one.stdout.trim().split("\n").map((l) => l.split("\t")[0]), [
    "other__echo",
    "other__sleep",
    "other__hang",
  ]);
  const none = await run(["tools", "--config", file, "--downstream", "nope"]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no downstream "nope"/);
  const bad = await run(["tools", "--config", file, "--frobnicate", "x"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown argument "--frobnicate"[\s\S]*usage/);
});

Deno.test("cli explain: decision, reason code, the deciding rule's file:line, and missing tools", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli-explain-" });
  const file = `${dir}/gateway.yaml`;
  await Deno.writeTextFile(file, YAML);
  const lineOf = (needle: string) => YAML.split("\n").findIndex((l) => l.includes(needle)) + 1;
  const explain = async (client: string, tool: string) => {
    const r = await run(["explain", "--config", file, "--client", client, "--tool", tool], {
      T_ALICE_KEY: randomKey(),
    });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim().split("\n");
  };
  assert.deepEqual(await explain("alice", "echo__echo"), [
    "decision: allowed (allowed)",
    `rule: allow "echo__*" at ${file}:${lineOf('allow: ["echo__*"]')}`,
    'tool: exists: downstream "echo" lists it',
  ]);
  assert.deepEqual(await explain("alice", "echo__hang"), [
    "decision: denied (denied_explicit)",
    `rule: deny "echo__hang" at ${file}:${lineOf("- echo__hang")}`,
    `shadowed: allow "echo__*" at ${file}:${lineOf('allow: ["echo__*"]')} (deny wins)`,
    'tool: exists: downstream "echo" lists it',
  ]);
  assert.deepEqual(await explain("alice", "echo__nope"), [
    "decision: denied (not_found)",
    `rule: allow "echo__*" at ${file}:${lineOf('allow: ["echo__*"]')}`,
    'tool: missing: downstream "echo" lists no tool "nope"',
  ]);
  assert.deepEqual(await explain("bob", "echo__echo"), [
    "decision: denied (denied_default)",
    `rule: none: no allow rule of "bob" at ${file}:${lineOf("    bob:")} matches`,
    'tool: exists: downstream "echo" lists it',
  ]);
  assert.deepEqual(await explain("bob", "other__echo"), [
    "decision: allowed (allowed)",
    `rule: allow "other__echo" at ${file}:${lineOf("- other__echo")}`,
    'tool: exists: downstream "other" lists it',
  ]);
  assert.deepEqual(await explain("carol", "ghost__x"), [
    "decision: denied (denied_default)",
    'rule: none: client "carol" has no policy entry (deny by default)',
    'tool: missing: no downstream "ghost" is configured',
  ]);
  const [first] = await explain("alice", "no-namespace");
  assert.equal(first, "decision: denied (denied_default)");
  const usage = await run(["explain", "--config", file, "--client", "alice"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /usage/);
});
