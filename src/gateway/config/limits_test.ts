/** The `limits:` section of the gateway configuration: the issue's own example, defaults, and problems. */
import assert from "node:assert/strict";
import { loadConfig } from "./mod.ts";

const ENV: Record<string, string> = {
  ALICE_KEY: "alice-key-0123456789abcdef",
  BOB_KEY: "bob-key-0123456789abcdef00",
};
const env = (name: string) => ENV[name];

const BASE = `
clients:
  - { id: alice, api_key_env: ALICE_KEY }
  - { id: bob, api_key_env: BOB_KEY }
downstreams:
  memory: { transport: stdio, command: deno }
  everything: { transport: stdio, command: deno }
`;

function limitsOf(block: string) {
  const r = loadConfig(BASE + block, env);
  assert.ok(r.ok, r.ok ? "" : JSON.stringify(r.problems));
  return r.config.limits;
}

function problemsOf(block: string): string[] {
  const r = loadConfig(BASE + block, env);
  assert.ok(!r.ok, "expected problems");
  return r.problems.map((p) => `${p.path}: ${p.message}`);
}

Deno.test("config limits: the issue's example loads with the meaning it states", () => {
  const limits = limitsOf(`
limits:
  store: memory
  on_store_error: deny
  rules:
    - { clients: ["*"], tools: ["*"], rate: 600/min, burst: 100 }
    - { clients: [bob], tools: ["memory__search_*"], rate: 60/min }
    - { clients: ["*"], downstreams: [everything], concurrency: 4 }
    - { clients: [alice], quota: 5000/day }
`);
  assert.ok(limits);
  assert.equal(limits.store, "memory");
  assert.equal(limits.onStoreError, "deny");
  assert.equal(limits.storeTimeoutMs, 50);
  assert.deepEqual(limits.rules.map((r) => r.name), ["rule 1", "rule 2", "rule 3", "rule 4"]);
  assert.deepEqual(limits.rules[0], {
    name: "rule 1",
    clients: ["*"],
    tools: ["*"],
    downstreams: ["*"],
    rate: { count: 600, periodMs: 60_000 },
    burst: 100,
  });
  assert.deepEqual(limits.rules[1].tools, ["memory__search_*"]);
  assert.equal(limits.rules[1].burst, undefined);
  assert.deepEqual(limits.rules[2].downstreams, ["everything"]);
  assert.equal(limits.rules[2].concurrency, 4);
  assert.deepEqual(limits.rules[3].quota, { count: 5000, periodMs: 86_400_000 });
});

Deno.test("config limits: named rules, a Redis store, allow on store error, a reset time", () => {
  const limits = limitsOf(`
limits:
  store: redis://127.0.0.1:6379/0
  on_store_error: allow
  store_timeout_ms: 20
  lease_ms: 5000
  rules:
    - { name: daily, clients: [alice], quota: 10/day, quota_reset: "06:00" }
`);
  assert.ok(limits);
  assert.equal(limits.store, "redis://127.0.0.1:6379/0");
  assert.equal(limits.onStoreError, "allow");
  assert.equal(limits.storeTimeoutMs, 20);
  assert.equal(limits.leaseMs, 5000);
  assert.equal(limits.rules[0].name, "daily");
  assert.equal(limits.rules[0].quotaResetMs, 6 * 3_600_000);
  assert.equal(limitsOf(""), undefined, "no section, no limits");
});

Deno.test("config limits: every problem is reported at its place", () => {
  const cases: [string, RegExp][] = [
    ["{ clients: [carol], rate: 1/s }", /limits\.rules\[0\]\.clients: unknown client "carol"/],
    ["{ downstreams: [nope], rate: 1/s }", /downstreams: unknown downstream "nope"/],
    ['{ tools: ["nope__x"], rate: 1/s }', /tools: "nope__x" names unknown downstream "nope"/],
    ['{ tools: ["mem*"], rate: 1/s }', /tools: "mem\*" is not a namespaced tool pattern/],
    ['{ tools: ["memory"], rate: 1/s }', /tools: "memory" is not a namespaced tool pattern/],
    ["{ rate: 10/fortnight }", /rate: unit "fortnight" is not one of s, min, h/],
    ["{ rate: 0/s }", /rate: the count must be between 1/],
    ["{ quota: 10/s }", /quota: unit "s" is not one of min, h, day/],
    ["{ burst: 5, concurrency: 2 }", /burst: burst needs a rate/],
    ['{ quota_reset: "06:00", rate: 1/s }', /quota_reset: quota_reset needs a quota/],
    ['{ quota: 1/day, quota_reset: "6am" }', /quota_reset: must be a UTC time HH:MM/],
    ["{ clients: [alice] }", /limits\.rules\[0\]: states no limit/],
    ["{ concurrency: 0 }", /concurrency: must be between 1/],
    ["{ clients: [], rate: 1/s }", /clients: must name at least one pattern/],
    ["{ colour: red, rate: 1/s }", /unknown key "colour"/],
  ];
  for (const [rule, expected] of cases) {
    const found = problemsOf(`limits:\n  rules:\n    - ${rule}\n`);
    assert.ok(found.some((p) => expected.test(p)), `${rule}: ${found.join(" | ")}`);
  }
  assert.ok(
    problemsOf("limits:\n  rules:\n    - { name: a, rate: 1/s }\n    - { name: a, rate: 2/s }\n")
      .some((p) => /duplicate rule name "a"/.test(p)),
  );
  for (const store of ["mysql://x/0", "redis://127.0.0.1:6379/zero", "memroy"]) {
    assert.ok(
      problemsOf(`limits: { store: "${store}", rules: [] }\n`).some((p) => p.startsWith("limits.store:")),
      store,
    );
  }
  assert.ok(
    problemsOf("limits: { on_store_error: maybe }\n").some((p) => p.startsWith("limits.on_store_error")),
  );
});
