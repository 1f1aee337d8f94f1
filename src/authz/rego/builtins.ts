/**
 * Which builtins a compiled policy may require from its host.
 *
 * OPA compiles most builtins into the wasm module itself; the rest are imported from the host, and the
 * module lists those in its `builtins` export. The JavaScript SDK implements only a handful of them, so
 * this is an allow-list: a policy that needs any other host builtin is rejected at load time instead of
 * failing (or, worse, behaving differently from OPA) at decision time.
 *
 * @module
 */
import { RegoLoadError } from "./errors.ts";

/**
 * Host builtins the SDK implements deterministically. `regex.split` is left out on purpose: the SDK runs it
 * with JavaScript `RegExp` (backtracking, different syntax) instead of RE2, so its decisions could differ
 * from OPA's and a hostile argument could make it run for a long time.
 */
export const SDK_DETERMINISTIC_BUILTINS: readonly string[] = Object.freeze([
  "sprintf",
  "yaml.is_valid",
  "yaml.marshal",
  "yaml.unmarshal",
]);

const ALLOWED = new Set(SDK_DETERMINISTIC_BUILTINS);

/** Builtins that depend on the clock, randomness, the network or the runtime (by name or prefix). */
const NONDETERMINISTIC_NAMES = new Set([
  "http.send",
  "net.lookup_ip_addr",
  "opa.runtime",
  // OPA marks these nondeterministic: a schema may carry a remote $ref.
  "json.match_schema",
  "json.verify_schema",
]);
const NONDETERMINISTIC_PREFIXES = ["time.", "rand.", "uuid.", "io.jwt."];

/** Whether `name` is a builtin whose result depends on something other than its arguments. */
export function isNondeterministic(name: string): boolean {
  return NONDETERMINISTIC_NAMES.has(name) || NONDETERMINISTIC_PREFIXES.some((p) => name.startsWith(p));
}

/**
 * Rejects a module whose required host builtins include a nondeterministic one or one the SDK does not
 * implement deterministically. Lists every offending name so one load attempt shows the whole problem.
 */
export function checkRequiredBuiltins(required: readonly string[]): void {
  const nondeterministic: string[] = [];
  const unavailable: string[] = [];
  for (const name of [...required].sort()) {
    if (isNondeterministic(name)) nondeterministic.push(name);
    else if (!ALLOWED.has(name)) unavailable.push(name);
  }
  const problems: string[] = [];
  if (nondeterministic.length > 0) {
    problems.push(`nondeterministic builtins are not allowed: ${nondeterministic.join(", ")}`);
  }
  if (unavailable.length > 0) {
    problems.push(`builtins not implemented deterministically by the wasm SDK: ${unavailable.join(", ")}`);
  }
  if (problems.length > 0) {
    throw new RegoLoadError(
      "builtins",
      `rego: policy requires unavailable builtins (${problems.join("; ")}); ` +
        "compile it with the capabilities file in policies/capabilities.json",
    );
  }
}
