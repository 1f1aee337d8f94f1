/**
 * Load-time checks of the Rego authorizer: decision references, entrypoints, invalid wasm, refused
 * builtins (every nondeterministic one, compiled with OPA's permissive capabilities), options and
 * cancellation.
 */
import assert from "node:assert/strict";
import { isNondeterministic, loadRegoAuthorizer, RegoLoadError } from "../../src/authz/rego/mod.ts";
import { runOpa } from "../../policies/opa.ts";
import { call, compile, CTX, opaTest, thrown } from "./_helpers.ts";

const ALLOW = `package codemode.authz

default allow := false

allow if input.subject.id == "alice"

other := 1
`;

function loadError(err: unknown, kind: RegoLoadError["kind"], message?: RegExp): void {
  assert.ok(err instanceof RegoLoadError, `expected RegoLoadError, got ${err}`);
  assert.equal(err.kind, kind, err.message);
  assert.match(err.message, /^rego: /);
  if (message) assert.match(err.message, message);
}

/** The smallest valid wasm module: magic and version only. */
const EMPTY_WASM = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

Deno.test("rego load: decision references that are blank, not data, or not ground are rejected", async () => {
  const cases: [unknown, RegExp][] = [
    ["", /blank/],
    ["   \n\t", /blank/],
    [undefined, /must be a string/],
    ["input.subject.id", /must be a data reference/],
    ["datax.allow", /must be a data reference/],
    ["x", /must be a data reference/],
    ["data.codemode.authz[x]", /not ground/],
    ["data.codemode[_].allow", /not ground/],
    ["data.codemode.authz.", /not a valid reference/],
    ["data..allow", /not a valid reference/],
    ["data.codemode allow", /not a valid reference/],
    ["data.a[1 + 2]", /not a valid reference/],
    ['data.a["unterminated]', /unterminated string/],
    ["data.a[[1]]", /not a valid reference/],
    ["data.a(1)", /not a valid reference/],
  ];
  for (const [decision, message] of cases) {
    // The decision is checked before the source is even looked at.
    loadError(
      await thrown(() => loadRegoAuthorizer(EMPTY_WASM, { decision: decision as string })),
      "decision",
      message,
    );
  }
});

Deno.test("rego load: invalid wasm and non-OPA modules are rejected", async () => {
  const decision = "data.codemode.authz.allow";
  loadError(
    await thrown(() =>
      loadRegoAuthorizer(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0xff]), { decision })
    ),
    "wasm",
    /invalid wasm module/,
  );
  loadError(await thrown(() => loadRegoAuthorizer(EMPTY_WASM, { decision })), "wasm", /not an OPA policy/);
  loadError(
    await thrown(() => loadRegoAuthorizer(new TextEncoder().encode("package x"), { decision })),
    "wasm",
    /neither a wasm module nor a gzipped bundle/,
  );
  loadError(await thrown(() => loadRegoAuthorizer("nope" as unknown as Uint8Array, { decision })), "options");
});

Deno.test("rego load: options are validated and an aborted signal wins", async () => {
  const decision = "data.codemode.authz.allow";
  for (const maxMemoryBytes of [-1, 1.5, 1024, 2 ** 40, Number.NaN]) {
    loadError(await thrown(() => loadRegoAuthorizer(EMPTY_WASM, { decision, maxMemoryBytes })), "options");
  }
  loadError(await thrown(() => loadRegoAuthorizer(EMPTY_WASM, { decision, maxBundleBytes: -5 })), "options");
  loadError(await thrown(() => loadRegoAuthorizer(EMPTY_WASM, null as never)), "options");
  const controller = new AbortController();
  const reason = new Error("cancelled");
  controller.abort(reason);
  // Cancellation takes precedence over the module being invalid.
  assert.equal(
    await thrown(() => loadRegoAuthorizer(EMPTY_WASM, { decision, signal: controller.signal })),
    reason,
  );
});

opaTest("rego load: the decision must be an entrypoint of the module", async (opa) => {
  const { wasm, bundle } = await compile(opa, { "p.rego": ALLOW }, ["codemode/authz/allow"]);
  for (const source of [wasm, bundle]) {
    const a = await loadRegoAuthorizer(source, { decision: "  data.codemode.authz.allow\n" });
    assert.equal(a.decision, "data.codemode.authz.allow");
    assert.equal(a.entrypoint, "codemode/authz/allow");
    assert.deepEqual(a.entrypoints, ["codemode/authz/allow"]);
    await a.authorize(call("alice", "x.y"), CTX);
  }
  // Bracket form naming the same path.
  await loadRegoAuthorizer(wasm, { decision: 'data["codemode"].authz[`allow`]' });
  // Defined in the source but not compiled as an entrypoint.
  loadError(
    await thrown(() => loadRegoAuthorizer(wasm, { decision: "data.codemode.authz.other" })),
    "entrypoint",
    /data\.codemode\.authz\.other is not an entrypoint of the module \(entrypoints: codemode\/authz\/allow\)/,
  );
  for (
    const decision of [
      "data.codemode.authz",
      "data",
      'data["codemode/authz"].allow',
      "data.codemode.authz[0]",
    ]
  ) {
    loadError(await thrown(() => loadRegoAuthorizer(wasm, { decision })), "entrypoint");
  }
});

opaTest(
  "rego load: every nondeterministic builtin is rejected (compiled with permissive capabilities)",
  async (opa) => {
    const current = JSON.parse(await runOpa(opa, ["capabilities", "--current"])) as {
      builtins: {
        name: string;
        nondeterministic?: boolean;
        deprecated?: boolean;
        decl?: { args?: unknown[] };
      }[];
    };
    const refused = current.builtins.filter((b) =>
      (b.nondeterministic || isNondeterministic(b.name)) && !b.deprecated
    );
    const names = refused.map((b) => b.name);
    for (
      const required of [
        "http.send",
        "time.now_ns",
        "rand.intn",
        "uuid.rfc4122",
        "net.lookup_ip_addr",
        "opa.runtime",
      ]
    ) {
      assert.ok(names.includes(required), `${required} is in OPA's builtin list`);
    }
    assert.ok(names.filter((n) => n.startsWith("io.jwt.")).length >= 10);
    assert.ok(names.filter((n) => n.startsWith("time.")).length >= 8);
    const failures: string[] = [];
    // Compile a few at a time: each is its own module so each rejection is attributable to one builtin.
    for (let i = 0; i < refused.length; i += 4) {
      await Promise.all(
        refused.slice(i, i + 4).map(async (b) => {
          const args = (b.decl?.args ?? []).map((_, j) => `input.arguments.a${j}`).join(", ");
          const src = `package codemode.authz\n\nallow if {\n\tx := ${b.name}(${args})\n\tx == x\n}\n`;
          const { wasm } = await compile(opa, { "p.rego": src }, ["codemode/authz/allow"], {
            capabilities: null,
          });
          const err = await thrown(() => loadRegoAuthorizer(wasm, { decision: "data.codemode.authz.allow" }))
            .catch(() => undefined);
          if (
            !(err instanceof RegoLoadError) || err.kind !== "builtins" ||
            !err.message.includes(`nondeterministic builtins are not allowed: ${b.name}`)
          ) failures.push(`${b.name}: ${err}`);
        }),
      );
    }
    assert.deepEqual(failures, [], `${refused.length} builtins checked`);
    assert.ok(refused.length >= 35, `only ${refused.length} refused builtins found`);
  },
);

opaTest("rego load: host builtins the SDK does not implement deterministically are rejected", async (opa) => {
  const cases: Record<string, string> = {
    "crypto.sha256": `crypto.sha256(input.subject.id) != ""`,
    "regex.split": `count(regex.split("a+", input.subject.id)) > 0`,
    "hex.encode": `hex.encode(input.subject.id) != ""`,
    "semver.compare": `semver.compare(input.arguments.v, "1.0.0") == 0`,
    "units.parse": `units.parse(input.arguments.u) > 0`,
    "trace": `trace(input.subject.id)`,
  };
  for (const [name, expr] of Object.entries(cases)) {
    const src = `package codemode.authz\n\nallow if ${expr}\n`;
    const { wasm } = await compile(opa, { "p.rego": src }, ["codemode/authz/allow"], { capabilities: null });
    loadError(
      await thrown(() => loadRegoAuthorizer(wasm, { decision: "data.codemode.authz.allow" })),
      "builtins",
      new RegExp(
        `^rego: policy requires unavailable builtins \\(builtins not implemented deterministically by the wasm SDK: ${
          name.replace(".", "\\.")
        }\\)`,
      ),
    );
  }
  // Several offenders are all named, nondeterministic ones separately.
  const src =
    `package codemode.authz\n\nallow if {\n\ttime.now_ns() > 0\n\thex.encode("a") != ""\n\trand.intn("k", 3) >= 0\n}\n`;
  const { wasm } = await compile(opa, { "p.rego": src }, ["codemode/authz/allow"], { capabilities: null });
  loadError(
    await thrown(() => loadRegoAuthorizer(wasm, { decision: "data.codemode.authz.allow" })),
    "builtins",
    /nondeterministic builtins are not allowed: rand\.intn, time\.now_ns; builtins not implemented deterministically by the wasm SDK: hex\.encode\)/,
  );
});

opaTest("rego load: the SDK's deterministic host builtins and native builtins load", async (opa) => {
  const src = `package codemode.authz

allow if {
	sprintf("%s-%d", [input.subject.id, 3]) == "alice-3"
	yaml.unmarshal("a: 1").a == 1
	yaml.is_valid("b: [1, 2]")
	yaml.marshal({"k": "v"}) != ""
	regex.match("^al", input.subject.id)
	json.unmarshal("[1]") == [1]
	glob.match("a*", [], input.subject.id)
}
`;
  const { wasm } = await compile(opa, { "p.rego": src }, ["codemode/authz/allow"]);
  const a = await loadRegoAuthorizer(wasm, { decision: "data.codemode.authz.allow" });
  assert.deepEqual(a.requiredBuiltins, ["sprintf", "yaml.is_valid", "yaml.marshal", "yaml.unmarshal"]);
  await a.authorize(call("alice", "x.y"), CTX);
});

opaTest("rego load: data for a bare module is validated and used", async (opa) => {
  const src = `package codemode.authz\n\nallow if input.subject.id in data.acl.users\n`;
  const { wasm, bundle } = await compile(opa, { "p.rego": src }, ["codemode/authz/allow"]);
  const a = await loadRegoAuthorizer(wasm, {
    decision: "data.codemode.authz.allow",
    data: { acl: { users: ["bob"] } },
  });
  await a.authorize(call("bob", "x.y"), CTX);
  loadError(
    await thrown(() =>
      loadRegoAuthorizer(wasm, { decision: "data.codemode.authz.allow", data: [1] as never })
    ),
    "data",
  );
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  loadError(
    await thrown(() => loadRegoAuthorizer(wasm, { decision: "data.codemode.authz.allow", data: cyclic })),
    "data",
  );
  loadError(
    await thrown(() => loadRegoAuthorizer(bundle, { decision: "data.codemode.authz.allow", data: {} })),
    "data",
    /bundle brings its own data/,
  );
  // Data larger than the memory limit cannot be loaded.
  loadError(
    await thrown(() =>
      loadRegoAuthorizer(wasm, {
        decision: "data.codemode.authz.allow",
        data: { blob: "x".repeat(2_000_000) },
        maxMemoryBytes: 1024 * 1024,
      })
    ),
    "data",
    /does not fit/,
  );
});
