/**
 * The shipped capabilities file and policies: the file is what the generator produces, every builtin it
 * admits loads in the authorizer, refused builtins do not compile with it, and `deno task policies`
 * compiles the shipped policies into loadable bundles.
 */
import assert from "node:assert/strict";
import { loadRegoAuthorizer, SDK_DETERMINISTIC_BUILTINS } from "../../src/authz/rego/mod.ts";
import { CAPABILITIES_FILE, compilePolicy, OpaCommandError, runOpa } from "../../policies/opa.ts";
import { formatCapabilities, generateCapabilities } from "../../policies/capabilities.ts";
import { buildPolicies, SHIPPED_POLICIES } from "../../policies/build.ts";
import { call, CTX, opaTest, thrown } from "./_helpers.ts";

interface Decl {
  name: string;
  infix?: string;
  decl?: { args?: unknown[] };
}

const committed = JSON.parse(await Deno.readTextFile(CAPABILITIES_FILE)) as {
  builtins: Decl[];
  features: string[];
};

Deno.test("capabilities file: rego_v1 only, no refused builtin", () => {
  assert.deepEqual(committed.features, ["rego_v1"]);
  const names = committed.builtins.map((b) => b.name);
  for (
    const refused of [
      "http.send",
      "time.now_ns",
      "rand.intn",
      "uuid.rfc4122",
      "net.lookup_ip_addr",
      "opa.runtime",
    ]
  ) {
    assert.ok(!names.includes(refused), refused);
  }
  assert.ok(!names.some((n) => /^(time|rand|uuid|io\.jwt)\./.test(n)));
  for (const n of SDK_DETERMINISTIC_BUILTINS) assert.ok(names.includes(n), n);
  assert.ok(
    names.includes("internal.member_2") && names.includes("glob.match") && names.includes("startswith"),
  );
});

opaTest("capabilities file: matches what the generator produces with OPA v1.22.3", async (opa) => {
  const version = await runOpa(opa, ["version"]);
  if (!/^Version: v?1\.22\.3$/m.test(version)) {
    console.warn(
      `⚠ capabilities freshness not checked: installed OPA is not v1.22.3 (${version.split("\n")[0]})`,
    );
    return;
  }
  const generated = formatCapabilities(await generateCapabilities(opa));
  assert.equal(
    await Deno.readTextFile(CAPABILITIES_FILE),
    generated,
    "run deno run -A policies/capabilities.ts",
  );
});

opaTest("capabilities file: a policy calling every admitted builtin loads in the authorizer", async (opa) => {
  const callable = committed.builtins.filter((b) => b.infix === undefined && !b.name.startsWith("internal."));
  const rules = callable.map((b, i) => {
    const args = (b.decl?.args ?? []).map((_, j) => `input.arguments.a${j}`).join(", ");
    return `r${i} if {\n\tx := ${b.name}(${args})\n\tx == x\n}`;
  });
  const src = `package probe\n\n${rules.join("\n\n")}\n\ndefault allow := true\n`;
  const { wasm } = await compilePolicy({
    opa,
    sources: { "probe.rego": src },
    entrypoints: ["probe", "probe/allow"],
  });
  const a = await loadRegoAuthorizer(wasm, { decision: "data.probe.allow" });
  assert.deepEqual([...a.requiredBuiltins], [...SDK_DETERMINISTIC_BUILTINS].sort());
  await a.authorize(call("s", "x.y"), CTX);
});

opaTest("capabilities file: refused builtins do not compile with it; print is erased", async (opa) => {
  const refused = [
    "time.now_ns() > 0",
    'http.send({"method": "get", "url": "http://x"}) != {}',
    'rand.intn("a", 2) > 0',
    'regex.split("a", "bab") != []',
    'io.jwt.decode("x") != []',
  ];
  for (const expr of refused) {
    const err = await thrown(() =>
      compilePolicy({
        opa,
        sources: { "p.rego": `package p\n\nallow if ${expr}\n` },
        entrypoints: ["p/allow"],
      })
    );
    assert.ok(err instanceof OpaCommandError, `${expr}: ${err}`);
    assert.match(err.stderr, /undefined function/, expr);
  }
  // Like OPA with print statements disabled, the wasm compiler erases print(): it neither fails nor prints.
  const { wasm } = await compilePolicy({
    opa,
    sources: {
      "p.rego":
        'package p\n\nallow if {\n\tprint("visible?", input.subject.id)\n\tinput.subject.id == "a"\n}\n',
    },
    entrypoints: ["p/allow"],
  });
  const a = await loadRegoAuthorizer(wasm, { decision: "data.p.allow" });
  assert.deepEqual(a.requiredBuiltins, []);
  const log = console.log;
  const printed: unknown[] = [];
  console.log = (...args: unknown[]) => printed.push(args);
  try {
    await a.authorize(call("a", "x.y"), CTX);
  } finally {
    console.log = log;
  }
  assert.deepEqual(printed, []);
});

opaTest("deno task policies: compiles the shipped policies into loadable bundles", async (opa) => {
  const out = await Deno.makeTempDir({ prefix: "codemode-policies-" });
  try {
    const written = await buildPolicies(opa, out);
    assert.equal(written.length, SHIPPED_POLICIES.length * 2);
    for (const p of SHIPPED_POLICIES) {
      for (const ext of ["tar.gz", "wasm"]) {
        const a = await loadRegoAuthorizer(await Deno.readFile(`${out}/${p.name}.${ext}`), {
          decision: p.decision,
        });
        assert.deepEqual(a.entrypoints, [...p.entrypoints].sort());
      }
    }
    const rbac = await loadRegoAuthorizer(await Deno.readFile(`${out}/rbac.tar.gz`), {
      decision: "data.codemode.authz.allow",
    });
    await rbac.authorize(call("bob", "records.entry.lookup", { key: "a", limit: 10 }), CTX);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
