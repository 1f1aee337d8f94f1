import assert from "node:assert/strict";
import { allowAll } from "../../authz.ts";
import { ProbedExecutor, ScriptedExecutor } from "../../tests/core/fake_executor.ts";
import { Builder } from "./builder.ts";
import { RegistrationError } from "./capability.ts";
import { isCodeModeError } from "../errors.ts";
import { PROBE_TIMEOUT_MS } from "./executor_select.ts";
import { t } from "./types.ts";

const lookup = {
  id: "records.entry.lookup",
  name: "records.lookup",
  summary: "Look up one stored record by key",
  searchTerms: ["fetch entry", "find stored item"],
  input: t.struct({ key: t.str(), limit: t.optional(t.int()) }),
  output: t.struct({ key: t.str(), count: t.int() }),
  handler: ({ key, limit }: { key: string; limit?: number }) => ({ key, count: limit ?? 1 }),
};

async function buildFails(builder: Builder): Promise<RegistrationError> {
  try {
    await builder.build();
  } catch (e) {
    assert.ok(e instanceof RegistrationError, String(e));
    assert.ok(isCodeModeError(e, "invalid_registration"));
    return e;
  }
  assert.fail("build() should have failed");
}

Deno.test("build returns a working server", async () => {
  const executor = new ScriptedExecutor();
  const server = await new Builder({ authorizer: allowAll(), executor }).register(lookup).build();
  assert.deepEqual(server.search("find a stored record"), {
    results: [{
      name: "records.lookup",
      signature: "records.lookup(*, key: str, limit: int | None)",
      summary: "Look up one stored record by key",
    }],
    truncated: false,
  });
  assert.equal(server.describe("records.lookup").description, lookup.summary);
  assert.throws(() => server.describe("records.entry.lookup"), (e) => isCodeModeError(e, "not_found"));
  assert.throws(() => server.describe(" records.lookup"), (e) => isCodeModeError(e, "not_found"));
  assert.throws(() => server.describe("Records.lookup"), (e) => isCodeModeError(e, "not_found"));
  assert.throws(
    () => server.describe("fetch entry"),
    (e) => isCodeModeError(e, "not_found"),
    "search terms are not names",
  );
  assert.equal(server.limits.maxSearchResults, 20);
  await server.close();
  await server.close();
  assert.equal(executor.closeCalls, 1);
});

Deno.test("the builder is one-shot", async () => {
  const b = new Builder({ authorizer: allowAll(), executor: new ScriptedExecutor() });
  b.register(lookup);
  await b.build();
  await assert.rejects(
    b.build(),
    (e) => isCodeModeError(e, "invalid_registration") && /already called/.test(e.message),
  );
  assert.throws(
    () => b.register(lookup),
    (e) => isCodeModeError(e, "invalid_registration") && /after build/.test(e.message),
  );
});

Deno.test("a failed build still closes the builder", async () => {
  const b = new Builder({ authorizer: allowAll(), executor: new ScriptedExecutor() });
  b.register({ ...lookup, name: "list.x" });
  await buildFails(b);
  await assert.rejects(b.build(), (e) => isCodeModeError(e, "invalid_registration"));
  assert.throws(() => b.register(lookup));
});

Deno.test("option problems and registration problems are returned together", async () => {
  const b = new Builder({
    authorizer: undefined as never,
    limits: { maxExecutionTime: -1, maxValueDepth: -2 },
    disabledCapabilities: ["missing"],
    executor: "threads" as never,
  });
  b.register({ ...lookup, summary: "" });
  b.register({ ...lookup, id: "other", name: "records.lookup.deep" });
  const e = await buildFails(b);
  assert.deepEqual(e.diagnostics, [
    "options.authorizer is required (use allowAll() to permit every call)",
    "limits: maxExecutionTime must not be negative (got -1)",
    "limits: maxValueDepth must not be negative (got -2)",
    'executor must be "worker", "process", "inline" or an object with run() and close()',
    'capability "records.lookup" (registration 1): summary must not be empty',
    'capability "records.lookup" (registration 1): name is also the namespace of capability "records.lookup.deep" (registration 2)',
    'disabledCapabilities: "missing" does not match a registered capability ID',
  ]);
  assert.match(e.message, /^7 registration problems:\n- options\.authorizer/);
});

Deno.test("an authorizer without authorize() is rejected", async () => {
  const e = await buildFails(new Builder({ authorizer: {} as never, executor: new ScriptedExecutor() }));
  assert.deepEqual(e.diagnostics, ["options.authorizer must have an authorize() method"]);
  const n = await buildFails(new Builder(null as never));
  assert.deepEqual(n.diagnostics, ["options must be an object with an authorizer"]);
});

Deno.test("an empty builder builds; limits resolve zero to default", async () => {
  const server = await new Builder({
    authorizer: allowAll(),
    executor: new ScriptedExecutor(),
    limits: { maxSearchResults: 0, maxNativeCalls: 3 },
  }).build();
  assert.equal(server.limits.maxSearchResults, 20);
  assert.equal(server.limits.maxNativeCalls, 3);
  assert.deepEqual(server.search("anything"), { results: [], truncated: false });
});

Deno.test("options and registrations are copied", async () => {
  const disabled = ["records.entry.lookup"];
  const terms = ["fetch entry"];
  const input: { kind: string; fields: { name: string; type: unknown }[] } = {
    kind: "struct",
    fields: [{ name: "key", type: t.str() }],
  };
  const b = new Builder({
    authorizer: allowAll(),
    executor: new ScriptedExecutor(),
    disabledCapabilities: disabled,
  });
  b.register({ ...lookup, searchTerms: terms, input: input as never });
  b.register({ ...lookup, id: undefined, name: "other.op", searchTerms: ["zebra"] });
  disabled.length = 0;
  terms.push("zebra");
  input.fields.push({ name: "added", type: t.int() });
  const server = await b.build();
  assert.throws(() => server.describe("records.lookup"), "still disabled");
  assert.deepEqual(server.search("zebra").results.map((r) => r.name), ["other.op"]);
  assert.equal(server.describe("other.op").signature, "other.op(*, key: str, limit: int | None)");
  const copied = new Builder({ authorizer: allowAll(), executor: new ScriptedExecutor() });
  copied.register({ ...lookup, input: input as never });
  input.fields.length = 0;
  assert.equal(
    (await copied.build()).describe("records.lookup").signature,
    "records.lookup(*, key: str, added: int)",
  );
});

Deno.test("build runs the executor probe with a generous default deadline, or the configured one", async () => {
  const ok = new ProbedExecutor();
  await new Builder({ authorizer: allowAll(), executor: ok }).build();
  assert.deepEqual(ok.probeCalls, [{ timeout: PROBE_TIMEOUT_MS }]);
  assert.equal(PROBE_TIMEOUT_MS, 30_000);

  const configured = new ProbedExecutor();
  await new Builder({ authorizer: allowAll(), executor: configured, probeTimeoutMs: 90_000 }).build();
  assert.deepEqual(configured.probeCalls, [{ timeout: 90_000 }]);
  for (const bad of [-1, Number.NaN, Infinity, "5000"]) {
    const e = await buildFails(
      new Builder({ authorizer: allowAll(), executor: new ProbedExecutor(), probeTimeoutMs: bad as number }),
    );
    assert.match(e.diagnostics.join("\n"), /probeTimeoutMs must be a positive number/);
  }

  const broken = new ProbedExecutor(new Error("worker did not answer"));
  const e = await buildFails(new Builder({ authorizer: allowAll(), executor: broken }));
  assert.equal(e.diagnostics.length, 1);
  assert.match(e.diagnostics[0], /executor probe failed: worker did not answer\. Check the host wiring/);
  assert.equal(broken.closeCalls, 1, "a failed probe closes the executor");
});

Deno.test("the probe is skipped when construction validation fails", async () => {
  const ex = new ProbedExecutor();
  const b = new Builder({ authorizer: allowAll(), executor: ex });
  b.register({ ...lookup, name: "bad" });
  await buildFails(b);
  assert.equal(ex.probeCalls.length, 0);
});
