/**
 * What a model reads when something goes wrong (issue 11): a `resource_limit` names the budget and its
 * value, an int is accepted for a float wherever exact, Python habits get a hint after the reference's
 * own message, and a failing capability names itself. Through `Server.execute` with the real engine, on
 * the inline executor and the worker pool (the worker reports the budget across the sandbox boundary).
 */
import assert from "node:assert/strict";
import {
  allowAll,
  Builder,
  CapabilityError,
  CodeModeError,
  isCodeModeError,
  type Limits,
  type Server,
  t,
} from "../../mod.ts";
import { errorText } from "../../mcp.ts";

const U = { id: "user-1" };

async function server(executor: "inline" | "worker", limits: Partial<Limits> = {}): Promise<Server> {
  const builder = new Builder({ authorizer: allowAll(), executor, limits });
  builder.register({
    name: "fx.convert",
    summary: "Convert an amount",
    input: t.struct({ amount: t.float(), rate: t.optional(t.float()) }),
    output: t.struct({ amount: t.float() }),
    handler: ({ amount, rate }) => ({ amount: amount * (rate ?? 2) }),
  });
  builder.register({
    name: "data.blob",
    summary: "A large text",
    input: t.struct({ bytes: t.int() }),
    output: t.struct({ text: t.str() }),
    handler: ({ bytes }) => ({ text: "x".repeat(bytes) }),
  });
  builder.register({
    name: "data.count",
    summary: "An integral amount as a bigint",
    output: t.struct({ total: t.float() }),
    handler: () => ({ total: 2n ** 60n as unknown as number }),
  });
  builder.register({
    name: "data.broken",
    summary: "Always fails",
    output: t.struct({}),
    handler: () => {
      throw new Error("db password is hunter2");
    },
  });
  builder.register({
    name: "data.missing",
    summary: "Fails with an approved text",
    output: t.struct({}),
    handler: () => {
      throw new CapabilityError("no such record", { safeForModel: true });
    },
  });
  return await builder.build();
}

/** The MCP text of the failure of `source`, after checking its code. */
async function failureText(s: Server, source: string, code: string): Promise<string> {
  try {
    await s.execute(U, source);
  } catch (e) {
    assert.ok(isCodeModeError(e), String(e));
    assert.equal(e.code, code, `${e.code}: ${e.message}`);
    assert.equal(e.cause === undefined || (e.cause as Error).name === "TimeoutError", true);
    return errorText(e);
  }
  throw new Error(`expected ${code} for ${source}`);
}

const main = (body: string) => `def main():\n${body.split("\n").map((l) => "    " + l).join("\n")}\n`;

for (const kind of ["inline", "worker"] as const) {
  Deno.test(`${kind}: every resource_limit names its budget and value`, async () => {
    const s = await server(kind, {
      maxExecutionSteps: 50_000,
      maxNativeCalls: 5,
      maxValueBytes: 100_000,
      maxMemoryBytes: 8_000_000,
      maxIntBits: 4_096,
      maxSourceBytes: 2_000,
    });
    try {
      const cases: [string, RegExp][] = [
        [
          main("n = 0\nfor i in range(1000000):\n    n += i\nreturn n"),
          /maxExecutionSteps exceeded \(limit: 50,000 steps\)/,
        ],
        [main('s = "x" * 100000000\nreturn len(s)'), /maxMemoryBytes exceeded \(limit: 8,000,000 bytes\)/],
        [
          main("x = 1 << 500\nfor i in range(4):\n    x = x * x\nreturn x"),
          /maxIntBits exceeded \(limit: 4,096 bits\)/,
        ],
        [
          main("for i in range(10):\n    fx.convert(amount=1.0)\nreturn 1"),
          /maxNativeCalls exceeded \(limit: 5 capability calls\)/,
        ],
        [main('return "y" * 200000'), /final value: maxValueBytes exceeded \(limit: 100,000 bytes\)/],
        [
          main("return data.blob(bytes=200000)"),
          /data\.blob result: maxValueBytes exceeded \(limit: 100,000 bytes\)/,
        ],
        [
          main("return 1") + "#".repeat(3_000),
          /the program is 3,0\d\d bytes|maxSourceBytes exceeded \(limit: 2,000 bytes\)/,
        ],
      ];
      for (const [source, pattern] of cases) {
        const text = await failureText(s, source, "resource_limit");
        assert.match(text, /^resource limit exceeded: /, text);
        assert.match(text, pattern, text);
      }
      // The search query budget is named the same way.
      assert.throws(() => s.search("q".repeat(300)), (e) => {
        assert.ok(isCodeModeError(e, "resource_limit"));
        assert.match(errorText(e), /maxSearchQueryBytes exceeded \(limit: 256 bytes\)/);
        return true;
      });
    } finally {
      await s.close();
    }
  });

  Deno.test(`${kind}: an int is a float wherever the float holds it exactly`, async () => {
    const s = await server(kind);
    try {
      // sum([]) is the int 0; models write amount=100.
      assert.deepEqual(await s.execute(U, main("return fx.convert(amount=sum([]))")), { amount: 0 });
      assert.deepEqual(await s.execute(U, main("return fx.convert(amount=100, rate=3)")), { amount: 300 });
      assert.deepEqual(
        await s.execute(
          U,
          main('r = fx.convert(amount=1 << 60, rate=1)\nreturn [r["amount"] == 1 << 60, type(r["amount"])]'),
        ),
        [true, "float"],
      );
      // A handler's integral bigint for a float field reaches the program as that float.
      assert.deepEqual(await s.execute(U, main('r = data.count()\nreturn type(r["total"])')), "float");
      const text = await failureText(s, main("return fx.convert(amount=(1 << 60) + 1)"), "invalid_arguments");
      assert.match(text, /amount must be a float; the int 1152921504606846977 has no exact float value/);
    } finally {
      await s.close();
    }
  });
}

Deno.test("Python habits get a hint after the reference's own message", async () => {
  const s = await server("inline");
  try {
    const cases: [string, RegExp, RegExp][] = [
      [main("return 2 ** 64"), /got '\*\*', want newline/, /math\.pow/],
      [main('x = 1\nreturn f"a{x}"'), /got string literal, want newline/, /no f-strings/],
      ["import json\n" + main("return 1"), /got import, want primary expression/, /no import/],
      ["class A:\n    pass\n" + main("return 1"), /got class/, /no classes/],
      [main("try:\n    x = 1\nexcept:\n    pass\nreturn 1"), /got try/, /no try\/except/],
      [main("return 1 is None"), /got is, want newline/, /use == and !=/],
      [main("x = [1]\ndel x[0]\nreturn x"), /got del/, /list\.pop/],
      [main("while True:\n    pass\nreturn 1"), /does not support while loops/, /for loop over range/],
      [
        "def f(n):\n    return f(n - 1) if n else 0\n" + main("return f(3)"),
        /called recursively/,
        /recursion is off/,
      ],
      [main("return true"), /undefined: true/, /True and False/],
    ];
    for (const [source, reference, hint] of cases) {
      const text = await failureText(s, source, "invalid_program");
      assert.match(text, reference, text);
      // The reference's message comes first, unchanged; the hint follows it.
      const at = text.indexOf(" (hint: ");
      assert.ok(at > 0, text);
      assert.match(text.slice(0, at), reference, text);
      assert.match(text.slice(at), hint, text);
    }
    // A string after a name that is not f gets no f-string hint, and plain errors get none at all.
    const plain = await failureText(s, main('x = 1\nreturn x "a"'), "invalid_program");
    assert.doesNotMatch(plain, /hint/);
    assert.doesNotMatch(await failureText(s, main("return 1 + "), "invalid_program"), /hint/);
  } finally {
    await s.close();
  }
});

Deno.test("a failing capability names itself, never its cause; texts do not repeat themselves", async () => {
  const s = await server("inline");
  try {
    assert.equal(
      await failureText(s, main("return data.broken()"), "capability_failure"),
      "capability failed: data.broken",
    );
    assert.equal(
      await failureText(s, main("return data.missing()"), "capability_failure"),
      "capability failed: data.missing: no such record",
    );
    const text = await failureText(s, main("return main"), "invalid_program");
    assert.doesNotMatch(text, /final value: .*final value/, text);
    assert.match(text, /^invalid program: unsupported final value: type function \(main\(\) returns None/);
  } finally {
    await s.close();
  }
});

Deno.test("onError receives the full cause with the execution, capability and subject", async () => {
  const events: import("../../mod.ts").ErrorEvent[] = [];
  const builder = new Builder({
    authorizer: allowAll(),
    executor: "inline",
    onError: (e) => {
      events.push(e);
      throw new Error("a broken hook changes nothing");
    },
  });
  const secret = new Error("db password is hunter2");
  builder.register({
    id: "demo.data.broken",
    name: "data.broken",
    summary: "Always fails",
    output: t.struct({}),
    handler: () => {
      throw secret;
    },
  });
  const s = await builder.build();
  try {
    const text = await failureText(s, main("return data.broken()"), "capability_failure");
    assert.equal(text, "capability failed: data.broken", "the model still sees no cause");
    assert.deepEqual(events.map((e) => [e.phase, e.code]), [
      ["handler", "capability_failure"],
      ["execute", "capability_failure"],
    ]);
    const [call, end] = events;
    assert.equal(call.error.cause, secret, "the host gets the handler's own error");
    assert.deepEqual(call.capability, { id: "demo.data.broken", name: "data.broken" });
    assert.deepEqual(call.subject, U);
    assert.equal(end.executionId, call.executionId);
    assert.equal(end.capability, undefined);
    // A program error is reported once, at the end of its execution, with a fresh execution id.
    await failureText(s, main("return 1 +"), "invalid_program");
    assert.equal(events.length, 3);
    assert.equal(events[2].phase, "execute");
    assert.notEqual(events[2].executionId, call.executionId);
  } finally {
    await s.close();
  }
  await assert.rejects(
    () => new Builder({ authorizer: allowAll(), onError: 1 as never }).build(),
    /options\.onError must be a function/,
  );
});

Deno.test("a resource_limit an executor raised without a detail still names its budget", async () => {
  const { sanitize } = await import("../../src/core/server.ts");
  const { resolveLimits } = await import("../../src/core/limits.ts");
  const limits = resolveLimits({ maxMemoryBytes: 32 * 1024 * 1024 });
  const text = (message: string) => {
    const e = sanitize(new CodeModeError("resource_limit", message), undefined, limits);
    assert.ok(isCodeModeError(e, "resource_limit"));
    return errorText(e);
  };
  // The process pool's out-of-memory end and the scheduler's full queue (host-written messages).
  assert.match(
    text("execution exceeded the sandbox heap limit (96 MiB)"),
    /maxMemoryBytes exceeded \(limit: 33,554,432 bytes\)/,
  );
  assert.match(text("more than 64 executions of this subject are waiting"), /already waiting: retry/);
  // Anything else keeps the bare text rather than guessing.
  assert.equal(text("something else"), "resource limit exceeded");
});
