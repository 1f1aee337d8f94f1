import assert from "node:assert/strict";
import { CodeModeError } from "../errors.ts";
import { BUDGETS, request, STUBS } from "../../tests/executor/helpers.ts";
import { encodeHostValue } from "./host_codec.ts";
import { checkRequest, judgeOutcome, NativeCallHost, SandboxViolation } from "./host_call.ts";
import { TAG_DICT, WireWriter } from "./codec.ts";
import type { ExecutionRequest, NativeDispatch } from "./contract.ts";

const LIMITS = { maxBytes: 1 << 20, maxDepth: 32 };
const signal = new AbortController().signal;

function args(v: unknown, cap = 0): Uint8Array {
  return encodeHostValue(v, LIMITS, STUBS[cap].input);
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof CodeModeError, String(e));
    return e.code;
  }
  throw new Error("expected a rejection");
}

function host(dispatch: NativeDispatch, budgets: Partial<ExecutionRequest["budgets"]> = {}): NativeCallHost {
  return new NativeCallHost(request("", { dispatch, budgets }));
}

Deno.test("host call: counts calls itself", async () => {
  const h = host(() => Promise.resolve({ key: "k", count: 1 }), { maxNativeCalls: 2 });
  await h.call(0, args({ key: "k" }), signal);
  await h.call(0, args({ key: "k" }), signal);
  assert.equal(await code(h.call(0, args({ key: "k" }), signal)), "resource_limit");
  assert.equal(h.calls, 3, "attempts are counted, including the refused one");
});

Deno.test("host call: re-validates what the worker sent", async () => {
  let dispatched = 0;
  const h = host(() => {
    dispatched++;
    return Promise.resolve({ value: 1.5 });
  }, { maxValueBytes: 64, maxValueDepth: 3 });
  assert.equal(await code(h.call(7, args({ key: "k" }), signal)), "internal");
  assert.equal(await code(h.call(-1, args({ key: "k" }), signal)), "internal");
  // An int tag for a float parameter, an unknown key, a missing key.
  const asInts = encodeHostValue({ x: 2, by: 3 }, LIMITS);
  const e = await h.call(1, asInts, signal).catch((e) => e);
  assert.ok(e instanceof CodeModeError && e.code === "invalid_arguments");
  assert.match(e.detail ?? "", /^math2\.scale: argument x/);
  assert.equal(await code(h.call(1, encodeHostValue({ x: 1.5 }, LIMITS), signal)), "invalid_arguments");
  assert.equal(await code(h.call(0, new Uint8Array([8, 1, 3, 107]), signal)), "internal");
  assert.equal(await code(h.call(0, args({ key: "x".repeat(100) }), signal)), "resource_limit");
  const deep = encodeHostValue({ tags: [{ name: "a" }] }, LIMITS);
  assert.equal(
    await code(h.call(4, deep, signal)),
    "resource_limit",
    "the map is 1, the list 2, the struct 3, the name 4",
  );
  assert.equal(dispatched, 0, "nothing invalid reaches the dispatch");
  await h.call(1, args({ x: 1.5, by: 1 }, 1), signal);
  assert.equal(dispatched, 1);
});

Deno.test("host call: dispatch errors and result checks", async () => {
  const denied = new CodeModeError("permission_denied", "no");
  assert.equal(
    await code(host(() => Promise.reject(denied)).call(0, args({ key: "k" }), signal)),
    "permission_denied",
  );
  const bug = await host(() => Promise.reject(new Error("boom"))).call(0, args({ key: "k" }), signal).catch((
    e,
  ) => e);
  assert.ok(bug instanceof CodeModeError && bug.code === "internal" && bug.cause instanceof Error);
  assert.equal(
    await code(host(() => Promise.resolve({ value: NaN })).call(1, args({ x: 1.5, by: 1 }, 1), signal)),
    "capability_failure",
  );
  assert.equal(
    await code(
      host(() => Promise.resolve({ data: "x".repeat(100) }), { maxValueBytes: 60 }).call(
        2,
        args({ size: 1 }, 2),
        signal,
      ),
    ),
    "resource_limit",
  );
});

Deno.test("host call: the intermediate budget is exact and counts only successful results", async () => {
  // { data: "x" * n } encodes to 1 + 1 + (1 + 4) + (1 + 1 + n) = n + 9 bytes for n < 128.
  let fail = false;
  const h = host((_c, a) => {
    if (fail) return Promise.reject(new CodeModeError("capability_failure", "nope"));
    return Promise.resolve({ data: "x".repeat(a.size as number) });
  }, { maxIntermediateValueBytes: 100 });
  assert.equal((await h.call(2, args({ size: 41 }, 2), signal)).length, 50);
  fail = true;
  assert.equal(await code(h.call(2, args({ size: 41 }, 2), signal)), "capability_failure");
  fail = false;
  assert.equal((await h.call(2, args({ size: 41 }, 2), signal)).length, 50);
  assert.equal(h.intermediateBytes, 100);
  assert.equal(await code(h.call(2, args({ size: 0 }, 2), signal)), "resource_limit");
});

Deno.test("host call: judging outcomes", () => {
  const req = request("", { budgets: { maxValueBytes: 10, maxValueDepth: 2 } });
  const ok = judgeOutcome({ ok: true, value: encodeHostValue([1], LIMITS), steps: 3 }, req, undefined);
  assert.deepEqual(ok, { value: [1], reusable: true });
  // The host re-checks what the worker measured.
  const deep = judgeOutcome({ ok: true, value: encodeHostValue([[1]], LIMITS), steps: 1 }, req, undefined);
  assert.ok(deep.error instanceof CodeModeError && deep.error.code === "resource_limit" && !deep.reusable);
  const big = judgeOutcome(
    { ok: true, value: encodeHostValue("x".repeat(20), LIMITS), steps: 1 },
    req,
    undefined,
  );
  assert.equal((big.error as CodeModeError).code, "resource_limit");
  const junk = judgeOutcome({ ok: true, value: new Uint8Array([42]), steps: 1 }, req, undefined);
  assert.equal((junk.error as CodeModeError).code, "internal");
  const cases: [Parameters<typeof judgeOutcome>[0], string, boolean][] = [
    [{ ok: false, kind: "program", message: "m", detail: "d", steps: 1 }, "invalid_program", true],
    [{ ok: false, kind: "arguments", message: "m", detail: "d", steps: 1 }, "invalid_arguments", true],
    // The engine stopped itself at a budget: the sandbox is sound (see Verdict.atBudget).
    [{ ok: false, kind: "resource", message: "m", steps: 1 }, "resource_limit", true],
    [{ ok: false, kind: "interrupted", message: "m", code: "deadline", steps: 1 }, "resource_limit", true],
    [{ ok: false, kind: "interrupted", message: "m", code: "cancelled", steps: 1 }, "internal", false],
    [{ ok: false, kind: "internal", message: "m", steps: 1 }, "internal", false],
    [{ ok: false, kind: "native", message: "m", code: "permission_denied", steps: 1 }, "internal", false],
  ];
  for (const [outcome, expected, reusable] of cases) {
    const v = judgeOutcome(outcome, req, undefined);
    assert.equal((v.error as CodeModeError).code, expected, outcome.ok ? "" : outcome.kind);
    assert.equal(v.reusable, reusable);
  }
  const deadline = judgeOutcome(
    { ok: false, kind: "interrupted", message: "m", code: "deadline", steps: 1 },
    req,
    undefined,
  );
  assert.equal(((deadline.error as Error).cause as DOMException).name, "TimeoutError");
  const denied = new CodeModeError("permission_denied", "no");
  const native = judgeOutcome(
    { ok: false, kind: "native", message: "m", code: "permission_denied", steps: 1 },
    req,
    denied,
  );
  assert.equal(native.error, denied, "the host's own error, not the worker's word");
  assert.equal(native.reusable, true);
  const limit = new CodeModeError("resource_limit", "too many");
  assert.equal(
    judgeOutcome({ ok: false, kind: "native", message: "m", code: "resource_limit", steps: 1 }, req, limit)
      .reusable,
    false,
  );
  const program = judgeOutcome(
    { ok: false, kind: "program", message: "m", detail: "bad\u0007", steps: 1 },
    req,
    undefined,
  );
  assert.equal((program.error as CodeModeError).detail, "bad\\x07");
  assert.equal(BUDGETS.maxValueDepth, 32);
});

Deno.test("host call: the source limit is checked in UTF-8 bytes", () => {
  const src = "é".repeat(50); // 100 bytes
  assert.doesNotThrow(() => checkRequest(request(src, { budgets: { maxSourceBytes: 100 } })));
  assert.throws(
    () => checkRequest(request(src, { budgets: { maxSourceBytes: 99 } })),
    (e: unknown) => e instanceof CodeModeError && e.code === "resource_limit",
  );
});

Deno.test("host call: keys that only invalid UTF-8 told apart are invalid_arguments, not a violation", async () => {
  let dispatched = 0;
  const dictStub = {
    name: "tags.put",
    input: { kind: "struct", fields: [{ name: "m", type: { kind: "dict", of: { kind: "int" } } }] },
    output: { kind: "struct", fields: [] },
  } as const;
  const req = request("", {
    capabilities: [dictStub],
    dispatch: () => {
      dispatched++;
      return Promise.resolve({});
    },
  });
  const h = new NativeCallHost(req);
  const w = new WireWriter(LIMITS);
  w.byte(TAG_DICT);
  w.varint(1);
  w.binaryString("m");
  w.byte(TAG_DICT);
  w.varint(2);
  // "é"[1:] and "ü"[1:] in Starlark, each followed by U+202E (the bidi override, as UTF-8 bytes).
  for (const k of ["\xa9\xe2\x80\xae", "\xbc\xe2\x80\xae"]) {
    w.binaryString(k);
    w.int(1);
  }
  const e = await h.call(0, w.finish(), signal).catch((e) => e);
  assert.ok(e instanceof CodeModeError && e.code === "invalid_arguments" && !(e instanceof SandboxViolation));
  assert.equal(
    e.detail,
    "tags.put: argument m has two keys that are the same text once invalid UTF-8 is replaced by U+FFFD: " +
      '"\\xa9\\u202e" and "\\xbc\\u202e"',
    "both keys named, the override escaped",
  );
  assert.equal(dispatched, 0);
});

Deno.test("host call: a final value whose keys collide once decoded is invalid_program, reusable", () => {
  const w = new WireWriter(LIMITS);
  w.byte(TAG_DICT);
  w.varint(2);
  w.binaryString("\xa9");
  w.int(1);
  w.binaryString("\xbc");
  w.int(2);
  const v = judgeOutcome({ ok: true, value: w.finish(), steps: 1 }, request(""), undefined);
  assert.ok(v.error instanceof CodeModeError && v.error.code === "invalid_program", String(v.error));
  assert.match(v.error.detail ?? "", /^final value: a dict has two keys .* "\\xa9" and "\\xbc"$/);
  assert.equal(v.reusable, true);
});

Deno.test("host call: details from the engine side are escaped again", () => {
  const req = request("");
  for (const kind of ["program", "arguments"] as const) {
    const v = judgeOutcome(
      { ok: false, kind, message: "m", detail: "a\u202eb\u2066c\u2028d\nе\u200b", steps: 1 },
      req,
      undefined,
    );
    assert.equal((v.error as CodeModeError).detail, "a\\u202eb\\u2066c\\u2028d\\nе\\u200b");
  }
  const long = judgeOutcome(
    { ok: false, kind: "program", message: "m", detail: "😀".repeat(3000), steps: 1 },
    req,
    undefined,
  );
  const detail = (long.error as CodeModeError).detail ?? "";
  assert.ok(detail.length <= 2048 && detail.isWellFormed() && detail.endsWith("..."));
});
