/**
 * `deno task policies`: compiles the shipped Rego policies to wasm with the OPA CLI
 * (`opa build -t wasm -e <entrypoint> --capabilities policies/capabilities.json`) into `policies/build/`
 * (git-ignored). Each policy yields `<name>.tar.gz` (the OPA bundle) and `<name>.wasm` (its module).
 *
 * @module
 */
import { CAPABILITIES_FILE, compilePolicy, findOpa } from "./opa.ts";

/** One shipped policy. */
export interface ShippedPolicy {
  /** Output base name in `policies/build/`. */
  readonly name: string;
  /** Rego source file, relative to `policies/`. */
  readonly source: string;
  /** The decision a host loads (the first entrypoint). */
  readonly decision: string;
  /** Entrypoints in slash form; the first one is the decision. */
  readonly entrypoints: readonly string[];
}

/** The policies in this folder. */
export const SHIPPED_POLICIES: readonly ShippedPolicy[] = Object.freeze([
  {
    name: "rbac",
    source: "rbac.rego",
    decision: "data.codemode.authz.allow",
    entrypoints: ["codemode/authz/allow"],
  },
  {
    name: "gateway",
    source: "gateway.rego",
    decision: "data.gateway.policy.allow",
    entrypoints: ["gateway/policy/allow", "gateway/policy/reason"],
  },
]);

/** Absolute path of a file in `policies/`. */
export function policyPath(relative: string): string {
  return new URL(`./${relative}`, import.meta.url).pathname;
}

/** The output folder. */
export const BUILD_DIR: string = policyPath("build");

/** Compiles every shipped policy into `outDir`; returns the files written. */
export async function buildPolicies(opa: string, outDir: string = BUILD_DIR): Promise<string[]> {
  await Deno.mkdir(outDir, { recursive: true });
  const written: string[] = [];
  for (const p of SHIPPED_POLICIES) {
    const compiled = await compilePolicy({
      opa,
      sources: [policyPath(p.source)],
      entrypoints: p.entrypoints,
      capabilities: CAPABILITIES_FILE,
    });
    const bundlePath = `${outDir}/${p.name}.tar.gz`;
    const wasmPath = `${outDir}/${p.name}.wasm`;
    await Deno.writeFile(bundlePath, compiled.bundle);
    await Deno.writeFile(wasmPath, compiled.wasm);
    written.push(bundlePath, wasmPath);
  }
  return written;
}

if (import.meta.main) {
  const opa = await findOpa();
  if (opa === undefined) {
    console.error(
      "error: the OPA CLI is required to compile policies: put opa on PATH or run .ci/run " +
        "(go install github.com/open-policy-agent/opa@v1.22.3)",
    );
    Deno.exit(1);
  }
  for (const file of await buildPolicies(opa)) console.log(`wrote ${file}`);
}
