/**
 * `authorize` on the shipped 20-rule RBAC policy (policies/rbac.rego) compiled to wasm
 * (target: p50 ≤ 50 µs). Uses policies/build/rbac.tar.gz when `deno task policies` has run, otherwise
 * compiles the policy with the OPA CLI; without either, the benchmarks are skipped with a warning.
 *
 * `deno bench` reports mean, p75 and p99; for the median run `deno run -A bench/rego_bench.ts`, which times
 * 20,000 individual calls per case and prints p50/p90/p99.
 */
import { DeniedError } from "../authz.ts";
import { loadRegoAuthorizer, type RegoAuthorizer } from "../src/authz/rego/mod.ts";
import { compilePolicy, findOpa } from "../policies/opa.ts";
import { BUILD_DIR, policyPath, SHIPPED_POLICIES } from "../policies/build.ts";

async function policyBytes(name: string): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(`${BUILD_DIR}/${name}.tar.gz`);
  } catch {
    const opa = await findOpa();
    if (opa === undefined) return undefined;
    const p = SHIPPED_POLICIES.find((s) => s.name === name)!;
    return (await compilePolicy({ opa, sources: [policyPath(p.source)], entrypoints: p.entrypoints })).bundle;
  }
}

async function load(name: string, decision: string): Promise<RegoAuthorizer | undefined> {
  const bytes = await policyBytes(name);
  return bytes === undefined ? undefined : await loadRegoAuthorizer(bytes, { decision });
}

const rbac = await load("rbac", "data.codemode.authz.allow");
const gateway = await load("gateway", "data.gateway.policy.allow");
if (rbac === undefined || gateway === undefined) {
  console.warn("⚠ SKIPPED Rego benchmarks: no policies/build/ and no OPA CLI to compile the policies");
}
const ctx = { signal: new AbortController().signal };

const allowed = {
  subject: { id: "carol" },
  capabilityId: "records.entry.update",
  capabilityName: "records.update",
  arguments: { key: "users/42", value: "hello world" },
};
const denied = {
  subject: { id: "erin" },
  capabilityId: "billing.invoice.refund",
  capabilityName: "billing.refund",
  arguments: { invoice: "inv-1", amount: 750.5 },
};

Deno.bench(
  { name: "rego rbac (20 rules): authorize → allow", group: "rego", baseline: true, ignore: !rbac },
  async () => {
    await rbac!.authorize(allowed, ctx);
  },
);

Deno.bench(
  { name: "rego rbac (20 rules): authorize → DeniedError", group: "rego", ignore: !rbac },
  async () => {
    try {
      await rbac!.authorize(denied, ctx);
    } catch (err) {
      if (!(err instanceof DeniedError)) throw err;
    }
  },
);

Deno.bench({ name: "rego gateway: authorize → allow", group: "rego", ignore: !gateway }, async () => {
  await gateway!.authorize({
    subject: { id: "claude-desktop" },
    capabilityId: "github__create_issue",
    capabilityName: "github.create_issue",
    arguments: { title: "t" },
  }, ctx);
});

/** Times `runs` individual calls after a warm-up and returns the sorted durations in µs. */
async function sample(fn: () => Promise<void>, runs: number): Promise<number[]> {
  for (let i = 0; i < 2_000; i++) await fn();
  const out = new Float64Array(runs);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    out[i] = (performance.now() - t0) * 1000;
  }
  return [...out.sort()];
}

if (import.meta.main && rbac && gateway) {
  const cases: [string, () => Promise<void>][] = [
    ["rbac (20 rules) → allow", () => rbac.authorize(allowed, ctx)],
    ["rbac (20 rules) → DeniedError", () => rbac.authorize(denied, ctx).catch(() => {})],
    [
      "gateway → allow",
      () =>
        gateway.authorize({
          subject: { id: "claude-desktop" },
          capabilityId: "github__create_issue",
          capabilityName: "github.create_issue",
          arguments: { title: "t" },
        }, ctx),
    ],
  ];
  for (const [name, fn] of cases) {
    const xs = await sample(fn, 20_000);
    const q = (p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(1);
    console.log(`${name.padEnd(32)} p50 ${q(0.5)} µs  p90 ${q(0.9)} µs  p99 ${q(0.99)} µs`);
  }
}
