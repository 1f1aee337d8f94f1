/**
 * An {@link Authorizer} that decides every native call with an OPA Rego policy compiled to WebAssembly.
 *
 * Importing this module adds the `@open-policy-agent/opa-wasm` dependency; the core, `authz` and `mcp`
 * entry points never import it. No JavaScript library compiles Rego, so policies are compiled ahead of
 * time with the OPA CLI — `opa build -t wasm -e codemode/authz/allow --capabilities policies/capabilities.json
 * policy.rego` — and the authorizer loads either the resulting bundle (`bundle.tar.gz`, with its
 * `data.json` files) or the bare `policy.wasm`. The capabilities file admits exactly the builtins the
 * authorizer accepts, so a policy that compiles with it also loads.
 *
 * **Loading** ({@link loadRegoAuthorizer}) rejects, with a {@link RegoLoadError}: a blank decision, one that
 * is not a ground `data` reference (`data.x[y]`, `input.allow`), one that is not an entrypoint of the
 * module, invalid wasm or bundles, and any module that calls a nondeterministic builtin (`http.send`,
 * `time.*`, `rand.*`, `uuid.*`, `net.lookup_ip_addr`, `opa.runtime`, `io.jwt.*`, ...) or a builtin the SDK
 * does not implement deterministically — the module lists the host builtins it needs, and the loader reads
 * that list. Surrounding whitespace of the decision is accepted.
 *
 * **The input document** of every decision is exactly
 * `{"subject": {"id"}, "capability": {"id", "name"}, "arguments": {...}}`, with omitted optional arguments
 * absent from `arguments`. It is always an object, so the SDK's quirk of passing `false`, `0`, `""` or
 * `null` to the policy as *no* input never applies.
 *
 * **Outcomes** of `authorize`: `true` resolves; `false` rejects with a `DeniedError` (CodeMode reports
 * `permission_denied`); an undefined decision rejects with a {@link RegoPolicyError} `rego: decision is
 * undefined`, a non-boolean one with `rego: decision must be boolean`, and an evaluation failure (an OPA
 * abort, a builtin error, wasm memory exhaustion beyond `maxMemoryBytes`) with a `RegoPolicyError` too —
 * CodeMode reports all of these as `policy_failure` without passing their text to the program. An aborted
 * signal rejects with its reason. Write total decisions (`default allow := false`) so unmatched input is
 * an intentional denial rather than a policy failure.
 *
 * **Concurrency**: one authorizer is safe for any number of concurrent calls. The SDK evaluates
 * synchronously, so evaluations never interleave; after a failed evaluation the wasm instance is replaced.
 *
 * **Deviations from OPA's Go evaluator** (inherited from the wasm target and the SDK): `sprintf` follows
 * `sprintf-js` (no `%v`, no `%!(MISSING)` markers); `regex.split`, which the SDK runs with JavaScript
 * `RegExp`, is refused; print statements are erased; bundle signatures are not verified, so load bundles
 * from a trusted place.
 *
 * @example Load a compiled policy and use it in a server
 * ```ts
 * import { Builder, t } from "@codemode/codemode";
 * import { loadRegoAuthorizer } from "@codemode/codemode/authz/rego";
 *
 * // Produced by: deno task policies (or opa build -t wasm -e codemode/authz/allow ...)
 * const authorizer = await loadRegoAuthorizer(await Deno.readFile("policies/build/rbac.tar.gz"), {
 *   decision: "data.codemode.authz.allow",
 * });
 * const server = await new Builder({ authorizer })
 *   .register({
 *     id: "records.entry.lookup",
 *     name: "records.lookup",
 *     summary: "Look up one stored record by key",
 *     input: t.struct({ key: t.str(), limit: t.optional(t.int()) }),
 *     output: t.struct({ key: t.str(), count: t.int() }),
 *     handler: ({ key, limit }) => ({ key, count: limit ?? 1 }),
 *   })
 *   .build();
 * await server.execute({ id: "bob" }, 'def main():\n    return records.lookup(key="a")\n');
 * await server.close();
 * ```
 *
 * @example Decide one call directly
 * ```ts
 * import { DeniedError } from "@codemode/codemode/authz";
 * import { loadRegoAuthorizer } from "@codemode/codemode/authz/rego";
 *
 * const authorizer = await loadRegoAuthorizer(await Deno.readFile("policy.wasm"), {
 *   decision: "data.codemode.authz.allow",
 *   data: { roles: { bob: ["reader"] } }, // the base document for a bare policy.wasm
 *   maxMemoryBytes: 16 * 1024 * 1024,
 * });
 * try {
 *   await authorizer.authorize(
 *     { subject: { id: "bob" }, capabilityId: "records.entry.lookup", capabilityName: "records.lookup", arguments: {} },
 *     { signal: AbortSignal.timeout(1_000) },
 *   );
 * } catch (err) {
 *   if (!(err instanceof DeniedError)) throw err; // a RegoPolicyError: the policy itself failed
 * }
 * ```
 *
 * @module
 */
export {
  type AuthorizationContext,
  type AuthorizationInput,
  type Authorizer,
  DeniedError,
  type Subject,
} from "../authz.ts";
export {
  DEFAULT_MAX_BUNDLE_BYTES,
  DEFAULT_MAX_MEMORY_BYTES,
  isNondeterministic,
  loadRegoAuthorizer,
  RegoAuthorizer,
  RegoLoadError,
  type RegoLoadErrorKind,
  type RegoOptions,
  RegoPolicyError,
  type RegoPolicyErrorKind,
  SDK_DETERMINISTIC_BUILTINS,
} from "../src/authz/rego/mod.ts";
