/**
 * Rego authorization example: registers two capabilities, loads the shipped RBAC policy
 * (policies/rbac.rego) compiled to wasm, and runs one program as a subject the policy allows and as one
 * it denies.
 *
 * Run:
 *
 * ```sh
 * deno task policies                 # opa build -t wasm ... → policies/build/rbac.tar.gz
 * deno run -A examples/rego/main.ts
 * ```
 *
 * Without `policies/build/`, the example compiles the policy itself when the OPA CLI is installed.
 *
 * @module
 */
import { Builder, CodeModeError, t } from "../../mod.ts";
import { loadRegoAuthorizer } from "../../authz/rego.ts";
import { compilePolicy, findOpa } from "../../policies/opa.ts";
import { BUILD_DIR, policyPath } from "../../policies/build.ts";

/** The compiled RBAC bundle: from `deno task policies`, or compiled now with the OPA CLI. */
async function rbacBundle(): Promise<Uint8Array> {
  try {
    return await Deno.readFile(`${BUILD_DIR}/rbac.tar.gz`);
  } catch {
    const opa = await findOpa();
    if (opa === undefined) {
      console.error(
        "No policies/build/rbac.tar.gz and no OPA CLI: install opa v1.22.3 and run deno task policies",
      );
      Deno.exit(1);
    }
    const compiled = await compilePolicy({
      opa,
      sources: [policyPath("rbac.rego")],
      entrypoints: ["codemode/authz/allow"],
    });
    return compiled.bundle;
  }
}

// 1. The policy decides every native call. Loading checks the decision is an entrypoint of the module
//    and that the policy uses no nondeterministic builtin.
const authorizer = await loadRegoAuthorizer(await rbacBundle(), { decision: "data.codemode.authz.allow" });

// 2. Capabilities are keyed by stable IDs; the policy grants those IDs to roles (see policies/rbac.rego).
const server = await new Builder({ authorizer })
  .register({
    id: "records.entry.lookup",
    name: "records.lookup",
    summary: "Look up one stored record by key",
    searchTerms: ["fetch entry", "find stored item"],
    input: t.struct({ key: t.str(), limit: t.optional(t.int()) }),
    output: t.struct({ key: t.str(), count: t.int() }),
    handler: ({ key, limit }, { subject }) => {
      console.log(`  handler: records.lookup(key=${JSON.stringify(key)}) for ${subject.id}`);
      return { key, count: limit ?? 1 };
    },
  })
  .register({
    id: "billing.invoice.refund",
    name: "billing.refund",
    summary: "Refund part of an invoice",
    input: t.struct({ invoice: t.str(), amount: t.float() }),
    output: t.struct({ invoice: t.str(), refunded: t.float() }),
    handler: ({ invoice, amount }) => ({ invoice, refunded: amount }),
  })
  .build();

const program = `
def main():
    first = records.lookup(key="users/42", limit=3)
    return {"key": first["key"], "count": first["count"]}
`;

try {
  // 3. bob has the "reader" role, which grants records.entry.lookup with limit ≤ 100: allowed.
  console.log("bob runs the program:");
  console.log("  result:", await server.execute({ id: "bob" }, program));

  // 4. dave has only the "billing" role: the call is denied before the handler runs.
  console.log("dave runs the same program:");
  try {
    await server.execute({ id: "dave" }, program);
  } catch (err) {
    if (!(err instanceof CodeModeError)) throw err;
    console.log(`  rejected: ${err.code} (${err.message})`);
  }
} finally {
  await server.close();
}
