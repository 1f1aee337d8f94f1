/**
 * `--check` warnings through the real CLI process: an allow rule a deny rule fully covers is named with
 * its place in the file (always), and `--check --probe` starts the real stdio downstreams and names the
 * policy and limit rules that match none of their tools. Warnings never fail the check.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../src/gateway/config/mod.ts";
import { shadowWarnings } from "../../src/gateway/check_warnings.ts";
import { globMatches } from "../../src/limits/mod.ts";
import { randomKey, stdioDownstream } from "./_helpers.ts";

const CLI = new URL("../../src/gateway/cli.ts", import.meta.url).pathname;
const SERVER = new URL("../console/fixtures/echo_server.ts", import.meta.url).pathname;
const ENV = { W_ALICE_KEY: randomKey(), W_BOB_KEY: randomKey() };

function yaml(policy: string, extra = ""): string {
  return `listen: 127.0.0.1:0
clients:
  - { id: alice, api_key_env: W_ALICE_KEY }
  - { id: bob, api_key_env: W_BOB_KEY }
downstreams:
${stdioDownstream("echo", ["run", JSON.stringify(SERVER)])}
${stdioDownstream("other", ["run", JSON.stringify(SERVER)])}
${extra}policy:
  clients:
${policy}`;
}

async function check(text: string, ...flags: string[]) {
  const dir = await Deno.makeTempDir({ prefix: "gw-check-warn-" });
  const file = `${dir}/gateway.yaml`;
  await Deno.writeTextFile(file, text);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "--config", file, "--check", ...flags],
    env: ENV,
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(dir, { recursive: true });
  const stderr = new TextDecoder().decode(out.stderr);
  const warnings = stderr.split("\n").filter((l) => l.startsWith("warning: "))
    .map((l) => l.slice("warning: ".length).replace(`${file}:`, ""));
  return { code: out.code, stderr, warnings };
}

const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

Deno.test("--check warns, with the place in the file, about allows a deny fully covers", async () => {
  const text = yaml(`    alice:
      allow:
        - echo__e*
        - other__*
        - echo__sleep
      deny: ["echo__*", "other__hang"]
    bob:
      allow: ["*__sleep", "echo__echo"]
      deny: ["*__s*"]
`);
  const r = await check(text);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.warnings, [
    `${
      lineOf(text, "echo__e*")
    }:11: policy.clients.alice.allow[0]: allow "echo__e*" is shadowed by deny "echo__*": deny wins, so it allows nothing`,
    `${
      lineOf(text, "echo__sleep")
    }:11: policy.clients.alice.allow[2]: allow "echo__sleep" is shadowed by deny "echo__*": deny wins, so it allows nothing`,
    `${
      lineOf(text, '"*__sleep"')
    }:15: policy.clients.bob.allow[0]: allow "*__sleep" is shadowed by deny "*__s*": deny wins, so it allows nothing`,
  ]);
  assert.match(r.stderr, /: ok \(2 clients, 2 downstreams; 3 warnings\)/);
  // A deny that takes part of an allow away is the normal use: no warning.
  const partial = await check(yaml(`    alice: { allow: ["echo__*"], deny: ["echo__hang"] }\n`));
  assert.equal(partial.code, 0);
  assert.deepEqual(partial.warnings, []);
  assert.match(partial.stderr, /: ok \(2 clients, 2 downstreams\)/);
});

Deno.test("shadow warnings: an allow is named exactly when no name it matches escapes the denies", () => {
  let seed = 99;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const patterns = ["echo__*", "echo__e*", "echo__echo", "*__echo", "*__*", "other__*", "*o__e*", "echo__*o"];
  // Names that exercise every pattern above, plus ones none of their literals predict.
  const names = ["echo", "echoz", "e", "ezo", "sleep", "zzz", "o", "x__echo"].flatMap((t) =>
    ["echo", "other", "xo", "z"].map((d) => `${d}__${t}`)
  );
  for (let i = 0; i < 150; i++) {
    const allow = [patterns[Math.floor(next() * patterns.length)]];
    const deny = Array.from({ length: 1 + Math.floor(next() * 2) }, () => patterns[Math.floor(next() * 8)]);
    const text = yaml(`    alice: { allow: ${JSON.stringify(allow)}, deny: ${JSON.stringify(deny)} }\n`);
    const loaded = loadConfig(text, (n) => (ENV as Record<string, string>)[n]);
    assert.ok(loaded.ok);
    const warned = shadowWarnings(loaded.config, text).length > 0;
    // Brute force over the sample names: a warned allow must leave none of them allowed.
    const escapes = names.some((n) => globMatches(allow[0], n) && !deny.some((d) => globMatches(d, n)));
    if (warned) assert.equal(escapes, false, `${allow} / ${deny}`);
    // And an allow the denies fully cover is warned about (the deny is one pattern covering it).
    if (deny.some((d) => d === "*__*" || d === allow[0])) assert.equal(warned, true, `${allow} / ${deny}`);
  }
});

Deno.test("--check --probe starts the downstreams and warns about rules that match no tool", async () => {
  const broken = `${stdioDownstream("broken", ["run", JSON.stringify(`${SERVER}.missing.ts`)])}\n`;
  const limits = `limits:
  rules:
    - { tools: ["echo__sl*", "other__nothing_*"], rate: 10/s }
`;
  const text = yaml(
    `    alice:
      allow: ["echo__ech*", "echo__nope_*", "*__sleep", "*__zzz*", "broken__x"]
      deny: ["other__hang", "other__han"]
`,
    broken + limits,
  );
  const r = await check(text, "--probe");
  assert.equal(r.code, 0, r.stderr);
  const running = "(running: echo, other)";
  assert.deepEqual(r.warnings.map((w) => w.replace(/^\d+:\d+: /, "")), [
    `downstreams: downstream "broken" is ${
      /downstream "broken" is (\w+)/.exec(r.stderr)?.[1]
    }: rules naming its tools were not checked`,
    `policy.clients.alice.allow[1]: allow "echo__nope_*" matches no tool of a running downstream ${running}`,
    `policy.clients.alice.allow[3]: allow "*__zzz*" matches no tool of a running downstream ${running}`,
    `policy.clients.alice.deny[1]: deny "other__han" matches no tool of a running downstream ${running}`,
    `limits.rules[0].tools[1]: tool pattern "other__nothing_*" of limit rule "rule 1" matches no tool of a running downstream ${running}`,
  ]);
  assert.ok(r.warnings[1].startsWith(`${lineOf(text, "echo__nope_*")}:`), r.warnings[1]);
  assert.match(r.stderr, /; 5 warnings\)/);
  // Without --probe nothing is started and only the file itself is judged.
  const plain = await check(text);
  assert.equal(plain.code, 0);
  assert.deepEqual(plain.warnings, []);
});

Deno.test("--probe goes with --check", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "--config", "x.yaml", "--probe"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.match(new TextDecoder().decode(out.stderr), /--probe goes with --check/);
});
