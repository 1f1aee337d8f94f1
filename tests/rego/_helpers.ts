/**
 * Shared helpers of the Rego tests: locating the OPA CLI, registering tests that need it (skipped
 * visibly when it is missing), compiling policies and building authorization inputs.
 *
 * @module
 */
import type { AuthorizationInput } from "../../authz.ts";
import { type CompiledPolicy, compilePolicy, findOpa } from "../../policies/opa.ts";

/** The OPA CLI, when installed (PATH or `.tools/bin/opa`). */
export const OPA: string | undefined = await findOpa();

const skipped: string[] = [];
let summaryScheduled = false;

/**
 * Registers a test that needs the OPA CLI. Without OPA it is registered as ignored and listed in one
 * visible warning per test file, so a run without OPA never looks like a full pass.
 */
export function opaTest(name: string, fn: (opa: string) => Promise<void> | void): void {
  const opa = OPA;
  if (opa === undefined) {
    skipped.push(name);
    if (!summaryScheduled) {
      summaryScheduled = true;
      // At the end of this test file's run, so the list follows the "ignored" lines it explains.
      globalThis.addEventListener("unload", () =>
        console.warn(
          `\n⚠ SKIPPED ${skipped.length} Rego test(s): no OPA CLI on PATH or in .tools/bin ` +
            `(install: go install github.com/open-policy-agent/opa@v1.22.3, or run .ci/run):\n` +
            skipped.map((s) => `  - ${s}`).join("\n"),
        ));
    }
  }
  Deno.test({ name, ignore: opa === undefined, fn: () => fn(opa!) });
}

const cache = new Map<string, Promise<CompiledPolicy>>();

/**
 * Compiles Rego sources (one module per file name) with the given entrypoints; memoized per test process
 * so several tests can share one compilation. `capabilities: null` is OPA's full, permissive set.
 */
export function compile(
  opa: string,
  sources: Record<string, string>,
  entrypoints: readonly string[],
  options: { capabilities?: string | null; files?: Record<string, string> } = {},
): Promise<CompiledPolicy> {
  const key = JSON.stringify([sources, entrypoints, options]);
  let hit = cache.get(key);
  if (hit === undefined) {
    hit = compilePolicy({
      opa,
      sources,
      entrypoints,
      capabilities: options.capabilities,
      files: options.files,
    });
    cache.set(key, hit);
  }
  return hit;
}

/** An authorization input. */
export function call(
  subject: string,
  capabilityId: string,
  args: Record<string, unknown> = {},
  capabilityName: string = capabilityId.split(".").slice(0, 1).concat(capabilityId.split(".").slice(-1)).join(
    ".",
  ),
): AuthorizationInput {
  return { subject: { id: subject }, capabilityId, capabilityName, arguments: args };
}

/** A context whose signal never aborts. */
export const CTX: { signal: AbortSignal } = { signal: new AbortController().signal };

/** Runs `fn` and returns what it threw (or fails when it did not throw). */
export async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}
