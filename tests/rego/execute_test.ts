/**
 * End to end through `Server.execute` with a real compiled policy: the same program is allowed for one
 * subject and `permission_denied` for another (the handler never runs when denied), and policy failures
 * (undefined or non-boolean decisions, evaluation errors) become `policy_failure` without their causes.
 */
import assert from "node:assert/strict";
import { type Authorizer, Builder, CodeModeError, type ExecutorChoice, type Server, t } from "../../mod.ts";
import { loadRegoAuthorizer } from "../../src/authz/rego/mod.ts";
import { compilePolicy } from "../../policies/opa.ts";
import { policyPath } from "../../policies/build.ts";
import { compile, opaTest, thrown } from "./_helpers.ts";

const LOOKUP = 'def main():\n    return records.lookup(key="a", limit=5)\n';
const REFUND = 'def main():\n    return billing.refund(invoice="inv-9", amount=120.5)\n';

interface Harness {
  server: Server;
  calls: string[];
}

async function harness(authorizer: Authorizer, executor: ExecutorChoice): Promise<Harness> {
  const calls: string[] = [];
  const server = await new Builder({ authorizer, executor })
    .register({
      id: "records.entry.lookup",
      name: "records.lookup",
      summary: "Look up one stored record by key",
      input: t.struct({ key: t.str(), limit: t.optional(t.int()) }),
      output: t.struct({ key: t.str(), count: t.int() }),
      handler: ({ key, limit }, ctx) => {
        calls.push(`lookup ${ctx.subject.id}`);
        return { key, count: limit ?? 1 };
      },
    })
    .register({
      id: "billing.invoice.refund",
      name: "billing.refund",
      summary: "Refund part of an invoice",
      input: t.struct({ invoice: t.str(), amount: t.float() }),
      output: t.struct({ invoice: t.str(), refunded: t.float() }),
      handler: ({ invoice, amount }, ctx) => {
        calls.push(`refund ${ctx.subject.id}`);
        return { invoice, refunded: amount };
      },
    })
    .build();
  return { server, calls };
}

function codeError(err: unknown, code: string): CodeModeError {
  assert.ok(err instanceof CodeModeError, `expected CodeModeError, got ${err}`);
  assert.equal(err.code, code, err.message);
  // Trusted causes (the policy's text, the DeniedError) never leave execute.
  assert.equal(err.cause, undefined);
  assert.doesNotMatch(err.message, /rego|decision|data\./);
  return err;
}

// The inline executor runs the same engine and dispatch path as the worker pool; it keeps this test free of
// worker start-up timing (examples/rego/main.ts runs the same flow on the default worker executor).
for (const executor of ["inline"] as const) {
  opaTest(
    `rego e2e (${executor} executor): the same program is allowed for one subject and permission_denied for another`,
    async (opa) => {
      const { bundle } = await compilePolicy({
        opa,
        sources: [policyPath("rbac.rego")],
        entrypoints: ["codemode/authz/allow"],
      });
      const authorizer = await loadRegoAuthorizer(bundle, { decision: "data.codemode.authz.allow" });
      const { server, calls } = await harness(authorizer, executor);
      try {
        assert.deepEqual(await server.execute({ id: "bob" }, LOOKUP), { key: "a", count: 5 });
        assert.deepEqual(calls, ["lookup bob"]);

        // dave has the billing role only: denied, and the handler never runs.
        codeError(await thrown(() => server.execute({ id: "dave" }, LOOKUP)), "permission_denied");
        // An argument constraint: limit must be at most 100.
        codeError(
          await thrown(() =>
            server.execute({ id: "bob" }, 'def main():\n    return records.lookup(key="a", limit=500)\n')
          ),
          "permission_denied",
        );
        // Unknown subjects fall through to the policy's default.
        codeError(await thrown(() => server.execute({ id: "nobody" }, LOOKUP)), "permission_denied");
        assert.deepEqual(calls, ["lookup bob"]);

        // Refund: dave may refund up to 500; bob may not refund at all.
        assert.deepEqual(await server.execute({ id: "dave" }, REFUND), { invoice: "inv-9", refunded: 120.5 });
        codeError(await thrown(() => server.execute({ id: "bob" }, REFUND)), "permission_denied");
        assert.deepEqual(calls, ["lookup bob", "refund dave"]);

        // A denied second call ends the program after the first one ran.
        const both =
          'def main():\n    r = records.lookup(key="k")\n    return billing.refund(invoice="i", amount=1.0)\n';
        codeError(await thrown(() => server.execute({ id: "bob" }, both)), "permission_denied");
        assert.deepEqual(calls, ["lookup bob", "refund dave", "lookup bob"]);
      } finally {
        await server.close();
      }
    },
  );
}

const FAILING = `package codemode.authz

# Undefined for "ghost", a string for "odd", an evaluation conflict for "clash"; true otherwise.
allow := true if not input.subject.id in {"ghost", "odd", "clash"}

allow := "yes" if input.subject.id == "odd"

allow := true if input.subject.id == "clash"

allow := false if input.subject.id == "clash"
`;

opaTest("rego e2e: undefined, non-boolean and failing decisions are policy_failure", async (opa) => {
  const { wasm } = await compile(opa, { "p.rego": FAILING }, ["codemode/authz/allow"]);
  const authorizer = await loadRegoAuthorizer(wasm, { decision: "data.codemode.authz.allow" });
  const { server, calls } = await harness(authorizer, "inline");
  try {
    assert.deepEqual(await server.execute({ id: "bob" }, LOOKUP), { key: "a", count: 5 });
    for (const subject of ["ghost", "odd", "clash"]) {
      codeError(await thrown(() => server.execute({ id: subject }, LOOKUP)), "policy_failure");
    }
    assert.deepEqual(calls, ["lookup bob"]);
  } finally {
    await server.close();
  }
});
