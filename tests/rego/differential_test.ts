/**
 * Differential test: 200 generated inputs per shipped policy, decided by `opa eval` on the Rego source
 * (OPA's Go evaluator, one batched call) and by the authorizer on the wasm compiled from the same source,
 * must give the same decisions.
 */
import assert from "node:assert/strict";
import type { AuthorizationInput } from "../../authz.ts";
import { DeniedError } from "../../authz.ts";
import { loadRegoAuthorizer, RegoPolicyError } from "../../src/authz/rego/mod.ts";
import { compilePolicy, opaEval } from "../../policies/opa.ts";
import { policyPath, SHIPPED_POLICIES } from "../../policies/build.ts";
import { CTX, opaTest } from "./_helpers.ts";
import { seededRandom } from "../../src/starlark/seeded_random_test.ts";

function generator(seed: number) {
  const r = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const maybe = (p: number) => r() < p;
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  return { pick, maybe, int, r };
}

const RBAC_SUBJECTS = ["alice", "bob", "carol", "dave", "erin", "svc-report", "mallory", "zoe", ""];
const RBAC_CAPS = [
  "records.entry.lookup",
  "records.entry.update",
  "records.entry.delete",
  "billing.invoice.list",
  "billing.invoice.refund",
  "reports.summary.build",
  "records.entry.purge",
];

function rbacInputs(n: number): AuthorizationInput[] {
  const g = generator(20240601);
  const out: AuthorizationInput[] = [];
  for (let i = 0; i < n; i++) {
    const args: Record<string, unknown> = {};
    if (g.maybe(0.8)) {
      args.key = g.pick([
        "a",
        "users/1",
        "internal/secret",
        "cfg.lock",
        "internal/x.lock",
        "",
        "internal/ü",
        "ключ.lock",
      ]);
    }
    if (g.maybe(0.5)) args.limit = g.pick([g.int(-5, 150), 1, 100, 101, 0, 2.5, "10"]);
    if (g.maybe(0.4)) {
      args.value = g.pick(["v", "é", "😀"]).repeat(g.pick([0, 10, 1024, 1025, g.int(0, 1100)]));
    }
    if (g.maybe(0.4)) args.confirm = g.pick([true, false, "yes"]);
    if (g.maybe(0.5)) args.amount = g.pick([g.int(-10, 800), 0, 500, 500.5, 0.25, 501, 1e21, 1e-7, -0]);
    if (g.maybe(0.4)) args.year = g.pick([g.int(1990, 2110), 2000, 2100, "2024"]);
    if (g.maybe(0.4)) args.format = g.pick(["json", "csv", "xml", ""]);
    const id = g.pick(RBAC_CAPS);
    out.push({
      subject: { id: g.pick(RBAC_SUBJECTS) },
      capabilityId: id,
      capabilityName: id.split(".").filter((_, j) => j !== 1).join("."),
      arguments: args,
    });
  }
  return out;
}

const GATEWAY_CLIENTS = ["claude-desktop", "ci-bot", "auditor", "stranger"];
const GATEWAY_TOOLS = [
  "github__create_issue",
  "github__delete_repo",
  "github__list_issues",
  "filesystem__read_file",
  "filesystem__write_file",
  "filesystem__list_directory",
  "jira__admin_reset",
  "jira__get_ticket",
  "memory__create_entities",
  "weird.name__tool",
];

function gatewayInputs(n: number): AuthorizationInput[] {
  const g = generator(77);
  return Array.from({ length: n }, () => {
    const tool = g.pick(GATEWAY_TOOLS);
    return {
      subject: { id: g.pick(GATEWAY_CLIENTS) },
      capabilityId: tool,
      capabilityName: tool.replace("__", "."),
      arguments: g.maybe(0.5) ? { path: "/tmp/x" } : {},
    };
  });
}

/** The seed's input document (what the authorizer sends to the policy). */
function document(i: AuthorizationInput) {
  return {
    subject: { id: i.subject.id },
    capability: { id: i.capabilityId, name: i.capabilityName },
    arguments: i.arguments,
  };
}

/** "true" / "false" / "undefined" / "non-boolean" for one OPA value. */
function classify(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value !== "boolean") return "non-boolean";
  return String(value);
}

async function authorizerOutcome(
  authorize: (i: AuthorizationInput) => Promise<void>,
  input: AuthorizationInput,
): Promise<string> {
  try {
    await authorize(input);
    return "true";
  } catch (err) {
    if (err instanceof DeniedError) return "false";
    if (err instanceof RegoPolicyError && err.kind === "undefined") return "undefined";
    if (err instanceof RegoPolicyError && err.kind === "not_boolean") return "non-boolean";
    return `error: ${err}`;
  }
}

for (const [policyName, inputs] of [["rbac", rbacInputs(200)], ["gateway", gatewayInputs(200)]] as const) {
  opaTest(`rego differential: ${policyName} policy, opa eval vs wasm on 200 inputs`, async (opa) => {
    const shipped = SHIPPED_POLICIES.find((p) => p.name === policyName)!;
    const source = policyPath(shipped.source);
    const { wasm } = await compilePolicy({ opa, sources: [source], entrypoints: shipped.entrypoints });
    const authorizer = await loadRegoAuthorizer(wasm, { decision: shipped.decision });

    // One opa eval for the whole batch: an object keyed by case index keeps undefined decisions visible
    // as missing keys instead of silently shortening an array.
    const query = `{k: v | some k, c in input.cases; v := ${shipped.decision} with input as c}`;
    const decided = await opaEval(opa, [source], query, { cases: inputs.map(document) }) as Record<
      string,
      unknown
    >;
    assert.equal(Object.keys(decided).length, inputs.length, "every case has a decision");
    const expected = inputs.map((_, k) => classify(decided[String(k)]));
    const actual = await Promise.all(
      inputs.map((i) => authorizerOutcome((x) => authorizer.authorize(x, CTX), i)),
    );
    const mismatches = inputs.flatMap((input, k) =>
      expected[k] === actual[k]
        ? []
        : [`${JSON.stringify(document(input))}: opa ${expected[k]}, wasm ${actual[k]}`]
    );
    assert.deepEqual(mismatches, []);
    // The generated inputs exercise both outcomes, not just one.
    const allowed = expected.filter((e) => e === "true").length;
    assert.ok(allowed >= 20 && allowed <= 180, `${allowed} of 200 allowed`);
  });
}
