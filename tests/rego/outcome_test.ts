/**
 * The outcome table of `RegoAuthorizer.authorize` on real policies compiled by `opa build -t wasm`:
 * true → allow, false → DeniedError, undefined and non-boolean → policy errors, evaluation failures
 * (strings, errors, memory exhaustion) → policy errors, aborted signal → its reason; the exact input
 * document; and 16 concurrent evaluations.
 */
import assert from "node:assert/strict";
import { DeniedError } from "../../authz.ts";
import { loadRegoAuthorizer, type RegoAuthorizer, RegoPolicyError } from "../../src/authz/rego/mod.ts";
import { call, compile, CTX, opaTest, thrown } from "./_helpers.ts";

const POLICY = `package t

default allow := false

allow if input.subject.id == "yes"

# No default: undefined unless the subject is "yes".
maybe if input.subject.id == "yes"

nonbool := "granted" if input.subject.id == "str"

nonbool := 7 if input.subject.id == "num"

nonbool := {"a": [1]} if input.subject.id == "obj"

nonbool := null if input.subject.id == "null"

nonbool := true if input.subject.id == "yes"

# Two values for one complete rule: OPA aborts the evaluation (the SDK throws a string).
conflict := 1 if input.arguments.a == 1

conflict := 2 if input.arguments.b == 1

default conflict := 0

# The SDK's sprintf rejects verbs it does not know by throwing a JavaScript error.
fmt if sprintf(input.arguments.format, [1]) != ""

# Allocates an array of input.arguments.n numbers.
big if count([x | some x in numbers.range(1, input.arguments.n)]) > 0

default doc_full := false

doc_full if input == {
	"subject": {"id": "subject-1"},
	"capability": {"id": "records.entry.lookup", "name": "records.lookup"},
	"arguments": {"key": "alpha", "limit": 2, "ratio": 0.5, "exact": true},
}

default doc_absent := false

doc_absent if input == {
	"subject": {"id": "subject-1"},
	"capability": {"id": "records.entry.lookup", "name": "records.lookup"},
	"arguments": {"key": "alpha"},
}
`;

const ENTRYPOINTS = [
  "t/allow",
  "t/maybe",
  "t/nonbool",
  "t/conflict",
  "t/fmt",
  "t/big",
  "t/doc_full",
  "t/doc_absent",
];

async function authorizer(
  opa: string,
  decision: string,
  options: { maxMemoryBytes?: number } = {},
): Promise<RegoAuthorizer> {
  const { wasm } = await compile(opa, { "t.rego": POLICY }, ENTRYPOINTS);
  return await loadRegoAuthorizer(wasm, { decision, ...options });
}

function policyError(err: unknown, kind: RegoPolicyError["kind"], message?: string | RegExp): void {
  assert.ok(err instanceof RegoPolicyError, `expected RegoPolicyError, got ${err}`);
  assert.equal(err.kind, kind);
  assert.ok(!(err instanceof DeniedError));
  if (typeof message === "string") assert.equal(err.message, message);
  else if (message) assert.match(err.message, message);
}

opaTest("rego outcome: true allows, false is a DeniedError", async (opa) => {
  const a = await authorizer(opa, "data.t.allow");
  assert.equal(await a.authorize(call("yes", "x.y"), CTX), undefined);
  const err = await thrown(() => a.authorize(call("no", "x.y"), CTX));
  assert.ok(err instanceof DeniedError);
  assert.match((err as Error).message, /^rego: data\.t\.allow is false$/);
});

opaTest("rego outcome: undefined decision is a policy error", async (opa) => {
  const a = await authorizer(opa, "data.t.maybe");
  await a.authorize(call("yes", "x.y"), CTX);
  policyError(
    await thrown(() => a.authorize(call("no", "x.y"), CTX)),
    "undefined",
    "rego: decision is undefined",
  );
});

opaTest("rego outcome: non-boolean decisions are policy errors", async (opa) => {
  const a = await authorizer(opa, "data.t.nonbool");
  await a.authorize(call("yes", "x.y"), CTX);
  for (const subject of ["str", "num", "obj", "null"]) {
    policyError(
      await thrown(() => a.authorize(call(subject, "x.y"), CTX)),
      "not_boolean",
      "rego: decision must be boolean",
    );
  }
  policyError(await thrown(() => a.authorize(call("other", "x.y"), CTX)), "undefined");
});

opaTest("rego outcome: an evaluation abort (thrown string) is a policy error", async (opa) => {
  const a = await authorizer(opa, "data.t.conflict");
  // A non-boolean result when the evaluation succeeds proves the failure below comes from the conflict.
  policyError(await thrown(() => a.authorize(call("s", "x.y", { a: 1 }), CTX)), "not_boolean");
  const err = await thrown(() => a.authorize(call("s", "x.y", { a: 1, b: 1 }), CTX));
  policyError(err, "evaluation", /^rego: evaluation failed: .*conflict/);
  assert.equal(typeof (err as Error).cause, "string", "the SDK threw a string; the cause keeps it");
});

opaTest("rego outcome: a builtin's JavaScript error is a policy error", async (opa) => {
  const a = await authorizer(opa, "data.t.fmt");
  await a.authorize(call("s", "x.y", { format: "n=%d" }), CTX);
  policyError(
    await thrown(() => a.authorize(call("s", "x.y", { format: "%y" }), CTX)),
    "evaluation",
    /^rego: evaluation failed: /,
  );
  // The instance was replaced after the failure and keeps working.
  await a.authorize(call("s", "x.y", { format: "n=%d" }), CTX);
});

opaTest("rego outcome: memory exhaustion under maxMemoryBytes is a policy error", async (opa) => {
  const a = await authorizer(opa, "data.t.big", { maxMemoryBytes: 2 * 1024 * 1024 });
  assert.equal(a.maxMemoryBytes, 2 * 1024 * 1024);
  await a.authorize(call("s", "x.y", { n: 100 }), CTX);
  // Inside the wasm heap (opa_malloc fails and aborts).
  policyError(
    await thrown(() => a.authorize(call("s", "x.y", { n: 1_000_000 }), CTX)),
    "memory",
    "rego: evaluation exceeded the policy memory limit of 2097152 bytes",
  );
  await a.authorize(call("s", "x.y", { n: 100 }), CTX);
  // While copying the input into memory (WebAssembly.Memory.grow throws a RangeError).
  policyError(
    await thrown(() => a.authorize(call("s", "x.y", { n: 1, pad: "x".repeat(3_000_000) }), CTX)),
    "memory",
  );
  await a.authorize(call("s", "x.y", { n: 100 }), CTX);
});

opaTest("rego outcome: an aborted signal rejects with its reason, before any other outcome", async (opa) => {
  const a = await authorizer(opa, "data.t.allow");
  const controller = new AbortController();
  const reason = new DOMException("stop", "AbortError");
  controller.abort(reason);
  assert.equal(await thrown(() => a.authorize(call("yes", "x.y"), { signal: controller.signal })), reason);
  assert.equal(await thrown(() => a.authorize(call("no", "x.y"), { signal: controller.signal })), reason);
  const timeout = new AbortController();
  const timeoutReason = new DOMException("late", "TimeoutError");
  timeout.abort(timeoutReason);
  const c = await authorizer(opa, "data.t.conflict");
  assert.equal(
    await thrown(() => c.authorize(call("s", "x.y", { a: 1, b: 1 }), { signal: timeout.signal })),
    timeoutReason,
  );
});

opaTest(
  "rego input: exactly subject.id, capability.id/name and arguments; absent optionals absent",
  async (opa) => {
    const full = await authorizer(opa, "data.t.doc_full");
    const input = {
      subject: { id: "subject-1" },
      capabilityId: "records.entry.lookup",
      capabilityName: "records.lookup",
      arguments: { key: "alpha", limit: 2, ratio: 0.5, exact: true },
    };
    await full.authorize(input, CTX);
    // Any extra or different field changes the document, so the same rule denies.
    assert.ok(
      await thrown(() =>
        full.authorize({ ...input, arguments: { ...input.arguments, extra: 1 } }, CTX)
      ) instanceof DeniedError,
    );
    assert.ok(
      await thrown(() => full.authorize({ ...input, capabilityName: "records.other" }, CTX)) instanceof
        DeniedError,
    );

    const absent = await authorizer(opa, "data.t.doc_absent");
    await absent.authorize({ ...input, arguments: { key: "alpha" } }, CTX);
    // An explicit undefined (an omitted optional) is absent too.
    await absent.authorize({ ...input, arguments: { key: "alpha", limit: undefined } }, CTX);
  },
);

opaTest("rego concurrency: 16 concurrent evaluations each get their own decision", async (opa) => {
  const allow = await authorizer(opa, "data.t.allow");
  const big = await authorizer(opa, "data.t.big", { maxMemoryBytes: 2 * 1024 * 1024 });
  const jobs: Promise<string>[] = [];
  const expected: string[] = [];
  const outcome = (p: Promise<void>) =>
    p.then(
      () => "allow",
      (e) => e instanceof DeniedError ? "deny" : e instanceof RegoPolicyError ? e.kind : "other",
    );
  for (let i = 0; i < 16; i++) {
    if (i % 4 === 3) {
      // Interleave failures that force the instance to be replaced mid-batch.
      const n = i % 8 === 3 ? 1_000_000 : 50;
      jobs.push(outcome(big.authorize(call("s", "x.y", { n }), CTX)));
      expected.push(n === 50 ? "allow" : "memory");
    } else {
      const subject = i % 2 === 0 ? "yes" : `no-${i}`;
      jobs.push(outcome(allow.authorize(call(subject, "x.y", { i }), CTX)));
      expected.push(subject === "yes" ? "allow" : "deny");
    }
  }
  assert.deepEqual(await Promise.all(jobs), expected);

  // 16 calls issued at once right after a failure all wait for the same replacement instance.
  await thrown(() => big.authorize(call("s", "x.y", { n: 1_000_000 }), CTX));
  const after = await Promise.all(
    Array.from({ length: 16 }, (_, i) => outcome(big.authorize(call("s", "x.y", { n: 10 + i }), CTX))),
  );
  assert.deepEqual(after, Array(16).fill("allow"));
});
