/** Unit tests of the Rego authorizer's pure parts: references, builtin checks, thrown-value text. */
import assert from "node:assert/strict";
import { entrypointName, parseDecision } from "../../src/authz/rego/reference.ts";
import { checkRequiredBuiltins, isNondeterministic } from "../../src/authz/rego/builtins.ts";
import { RegoLoadError, thrownText } from "../../src/authz/rego/errors.ts";

Deno.test("decision reference: segments and entrypoint names", () => {
  const cases: [string, unknown[], string | undefined][] = [
    ["data.codemode.authz.allow", ["codemode", "authz", "allow"], "codemode/authz/allow"],
    ["  data.a_b.C9 ", ["a_b", "C9"], "a_b/C9"],
    ['data["x y"].z', ["x y", "z"], "x y/z"],
    ['data["a\\u0041"]', ["aA"], "aA"],
    ["data[`raw\\n`]", ["raw\\n"], "raw\\n"],
    ["data.a[ 1 ]", ["a", 1], undefined],
    ["data.a[-2.5e3]", ["a", -2500], undefined],
    ["data.a[true][false][null]", ["a", true, false, null], undefined],
    ['data["a/b"]', ["a/b"], undefined],
    ['data[""]', [""], undefined],
    ["data", [], undefined],
  ];
  for (const [text, path, entry] of cases) {
    const ref = parseDecision(text);
    assert.deepEqual(ref.path, path, text);
    assert.equal(ref.text, text.trim());
    assert.equal(entrypointName(ref), entry, text);
  }
});

Deno.test("builtin checks: refused families and the SDK allow-list", () => {
  for (const n of ["http.send", "time.now_ns", "time.parse_ns", "rand.intn", "uuid.rfc4122", "uuid.parse"]) {
    assert.ok(isNondeterministic(n), n);
  }
  for (const n of ["net.lookup_ip_addr", "opa.runtime", "io.jwt.decode", "io.jwt.verify_hs256"]) {
    assert.ok(isNondeterministic(n), n);
  }
  for (const n of ["sprintf", "startswith", "net.cidr_contains", "timex", "io.jwtx"]) {
    assert.ok(!isNondeterministic(n), n);
  }
  checkRequiredBuiltins([]);
  checkRequiredBuiltins(["sprintf", "yaml.unmarshal"]);
  assert.throws(
    () => checkRequiredBuiltins(["sprintf", "uuid.rfc4122", "crypto.md5", "http.send"]),
    (err: unknown) =>
      err instanceof RegoLoadError && err.kind === "builtins" &&
      err.message.includes("nondeterministic builtins are not allowed: http.send, uuid.rfc4122;") &&
      err.message.includes("not implemented deterministically by the wasm SDK: crypto.md5)"),
  );
});

Deno.test("thrown values of the SDK become one readable line", () => {
  assert.equal(thrownText("opa_abort: boom"), "opa_abort: boom");
  assert.equal(
    thrownText({ message: "not implemented: built-in function 3: x" }),
    "not implemented: built-in function 3: x",
  );
  assert.equal(thrownText(new RangeError("grow failed")), "grow failed");
  assert.equal(thrownText({ code: 7 }), '{"code":7}');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(thrownText(cyclic), "[object Object]");
  assert.equal(thrownText(42), "42");
  assert.equal(thrownText(undefined), "undefined");
  assert.equal(thrownText(Object.create(null)), "{}");
});
