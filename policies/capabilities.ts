/**
 * Generates `policies/capabilities.json`: the OPA capabilities that admit only builtins the Rego
 * authorizer can evaluate deterministically, with the `rego_v1` feature.
 *
 * A builtin is admitted when OPA does not mark it nondeterministic, it is not in the authorizer's
 * refused families (`time.*`, `rand.*`, `uuid.*`, `io.jwt.*`, `http.send`, ...), it is not deprecated,
 * and the wasm module can run it: either OPA compiles it natively into the module (learned by compiling a
 * probe policy that calls every candidate and reading the module's host-builtin list), or it is on the
 * SDK's deterministic allow-list. Compiling with this file therefore fails exactly where loading would.
 *
 * Run: `deno run -A policies/capabilities.ts` (rewrites the file) or with `--check` (exits 1 when the
 * committed file differs from what the installed OPA produces).
 *
 * @module
 */
import {
  inspectPolicyModule,
  isNondeterministic,
  SDK_DETERMINISTIC_BUILTINS,
} from "../src/authz/rego/mod.ts";
import { CAPABILITIES_FILE, compilePolicy, findOpa, runOpa } from "./opa.ts";

/** One builtin declaration of an OPA capabilities document. */
interface BuiltinDecl {
  name: string;
  decl?: { args?: unknown[]; type?: string };
  infix?: string;
  deprecated?: boolean;
  nondeterministic?: boolean;
  [key: string]: unknown;
}

/** The parts of an OPA capabilities document this generator reads and writes. */
export interface Capabilities {
  /** Admitted builtins with their type declarations. */
  builtins: Record<string, unknown>[];
  /** Future keywords (all of them are plain keywords in Rego v1). */
  future_keywords: string[];
  /** Language features. */
  features: string[];
}

/** Internal builtins the compiler emits for operators; always compiled natively. */
const OPERATOR_INTERNALS = new Set(["internal.member_2", "internal.member_3"]);
/** Internal builtins never admitted: printing is disabled and template strings are not a v1 feature. */
const REFUSED_INTERNALS = new Set(["internal.print", "internal.test_case", "internal.template_string"]);

function candidate(b: BuiltinDecl): boolean {
  if (b.deprecated || b.nondeterministic || isNondeterministic(b.name)) return false;
  if (REFUSED_INTERNALS.has(b.name) || b.name === "print") return false;
  return true;
}

/** Keeps what the compiler needs; descriptions would only bloat the file. */
function strip(b: BuiltinDecl): Record<string, unknown> {
  const out: Record<string, unknown> = { name: b.name, decl: b.decl };
  for (const key of ["infix", "relation"]) if (b[key] !== undefined) out[key] = b[key];
  return out;
}

/** Computes the capabilities document with the given OPA binary. */
export async function generateCapabilities(opa: string): Promise<Capabilities> {
  const current = JSON.parse(await runOpa(opa, ["capabilities", "--current"])) as {
    builtins: BuiltinDecl[];
    future_keywords?: string[];
  };
  const candidates = current.builtins.filter(candidate);
  const probed = candidates.filter((b) => b.infix === undefined && !b.name.startsWith("internal."));
  const rules = probed.map((b, i) => {
    const args = (b.decl?.args ?? []).map((_, j) => `input.a${j}`).join(", ");
    return `r${i} if {\n\tx := ${b.name}(${args})\n\tx == x\n}`;
  });
  const { wasm } = await compilePolicy({
    opa,
    sources: { "probe.rego": `package probe\n\n${rules.join("\n\n")}\n` },
    entrypoints: ["probe"],
    capabilities: null,
  });
  const host = new Set((await inspectPolicyModule(wasm)).requiredBuiltins);
  const sdk = new Set(SDK_DETERMINISTIC_BUILTINS);
  const admitted = candidates.filter((b) => {
    if (b.infix !== undefined || OPERATOR_INTERNALS.has(b.name)) return true;
    if (b.name.startsWith("internal.")) return false;
    return !host.has(b.name) || sdk.has(b.name);
  });
  return {
    builtins: admitted.map(strip).sort((a, b) => (a.name as string) < (b.name as string) ? -1 : 1),
    future_keywords: [...current.future_keywords ?? []].sort(),
    features: ["rego_v1"],
  };
}

/** The generated document as the file stores it. */
export function formatCapabilities(caps: Capabilities): string {
  return JSON.stringify(caps, null, 2) + "\n";
}

if (import.meta.main) {
  const opa = await findOpa();
  if (opa === undefined) {
    console.error("error: the OPA CLI is required (install it with .ci/run or put opa on PATH)");
    Deno.exit(1);
  }
  const text = formatCapabilities(await generateCapabilities(opa));
  if (Deno.args.includes("--check")) {
    const committed = await Deno.readTextFile(CAPABILITIES_FILE).catch(() => "");
    if (committed !== text) {
      console.error(`${CAPABILITIES_FILE} is out of date; run deno run -A policies/capabilities.ts`);
      Deno.exit(1);
    }
    console.log(`${CAPABILITIES_FILE} is up to date`);
  } else {
    await Deno.writeTextFile(CAPABILITIES_FILE, text);
    console.log(`wrote ${CAPABILITIES_FILE}`);
  }
}
