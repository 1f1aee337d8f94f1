/**
 * `Server.execute` through the public API with a scripted executor: the host half of the native-call
 * order (re-bind → canonical map → authorizer → handler → output conversion), classification of every
 * failure, cancellation, and what reaches the executor.
 */
import assert from "node:assert/strict";
import {
  allowAll,
  type AuthorizationInput,
  type Authorizer,
  Builder,
  CapabilityError,
  CodeModeError,
  DeniedError,
  isCodeModeError,
  type Limits,
  type Server,
  t,
} from "../../mod.ts";
import { type Script, ScriptedExecutor } from "./fake_executor.ts";

interface Harness {
  server: Server;
  executor: ScriptedExecutor;
  events: string[];
  authInputs: AuthorizationInput[];
}

async function harness(
  options: { authorizer?: Authorizer; limits?: Partial<Limits>; handler?: (input: unknown) => unknown } = {},
): Promise<Harness> {
  const events: string[] = [];
  const authInputs: AuthorizationInput[] = [];
  const base = options.authorizer ?? allowAll();
  const authorizer: Authorizer = {
    async authorize(input, ctx) {
      events.push(`authorize ${input.capabilityName}`);
      authInputs.push(input);
      return await base.authorize(input, ctx);
    },
  };
  const executor = new ScriptedExecutor();
  const server = await new Builder({
    authorizer,
    executor,
    limits: options.limits,
    disabledCapabilities: ["off"],
  })
    .register({
      id: "records.entry.lookup",
      name: "records.lookup",
      summary: "Look up one stored record by key",
      input: t.struct({ key: t.str(), limit: t.optional(t.int()) }),
      output: t.struct({ key: t.str(), count: t.int() }),
      handler: (input, ctx) => {
        events.push(`handler ${ctx.capability.id} ${ctx.subject.id}`);
        return options.handler
          ? options.handler(input) as never
          : { key: input.key, count: input.limit ?? 1 };
      },
    })
    .register({
      name: "records.status",
      summary: "Report status",
      output: t.struct({ ok: t.bool(), tags: t.list(t.str()), note: t.optional(t.str()) }),
      handler: () => ({ ok: true, tags: null }),
    })
    .register({
      id: "off",
      name: "records.hidden",
      summary: "Hidden",
      output: t.struct({}),
      handler: () => ({}),
    })
    .build();
  return { server, executor, events, authInputs };
}

const SUBJECT = { id: "user-1" };
const PROGRAM = 'def main():\n    return records.lookup(key="a")\n';

async function run(h: Harness, script: Script, options = {}): Promise<unknown> {
  h.executor.script = script;
  return await h.server.execute(SUBJECT, PROGRAM, options);
}

async function rejectsWith(
  p: Promise<unknown>,
  code: string,
  check?: (e: CodeModeError) => void,
): Promise<void> {
  await assert.rejects(p, (e) => {
    assert.ok(isCodeModeError(e), `expected CodeModeError(${code}), got ${e}`);
    assert.equal(e.code, code, e.message);
    check?.(e);
    return true;
  });
}

Deno.test("the executor receives the request: subject, source, budgets, enabled capabilities, start time", async () => {
  const h = await harness({ limits: { maxExecutionTime: 2_000 } });
  const before = performance.now();
  const result = await run(h, () => ({ ok: 1 }));
  assert.deepEqual(result, { ok: 1 });
  const req = h.executor.requests[0];
  assert.equal(req.subjectId, "user-1");
  assert.equal(req.source, PROGRAM);
  assert.ok(req.startedAt >= before && req.startedAt <= performance.now());
  assert.deepEqual(req.budgets, {
    maxSourceBytes: 65_536,
    maxExecutionSteps: 1_000_000,
    maxExecutionTime: 2_000,
    maxNativeCalls: 100,
    maxValueDepth: 32,
    maxValueBytes: 1_048_576,
    maxIntermediateValueBytes: 8_388_608,
    maxMemoryBytes: 67_108_864,
    maxIntBits: 262_144,
  });
  assert.deepEqual(req.capabilities.map((c) => c.name), ["records.lookup", "records.status"]);
  assert.deepEqual(req.capabilities[0].input.fields.map((f) => f.name), ["key", "limit"]);
  assert.equal((req.capabilities[0] as unknown as { output: { kind: string } }).output.kind, "struct");
});

Deno.test("native-call order: bind → canonical map → authorize → handler → convert", async () => {
  const h = await harness();
  const out = await run(h, async (_req, call) => [
    await call("records.lookup", { key: "a" }),
    await call("records.lookup", { key: "b", limit: 3 }),
    await call("records.lookup", { key: "c", limit: null }),
  ]);
  assert.deepEqual(out, [{ key: "a", count: 1 }, { key: "b", count: 3 }, { key: "c", count: 1 }]);
  assert.deepEqual(h.events, [
    "authorize records.lookup",
    "handler records.entry.lookup user-1",
    "authorize records.lookup",
    "handler records.entry.lookup user-1",
    "authorize records.lookup",
    "handler records.entry.lookup user-1",
  ]);
  const first = h.authInputs[0];
  assert.deepEqual(first, {
    subject: { id: "user-1" },
    capabilityId: "records.entry.lookup",
    capabilityName: "records.lookup",
    arguments: Object.assign(Object.create(null), { key: "a" }), // argument maps have no prototype
  });
  assert.equal(Object.hasOwn(first.arguments, "limit"), false, "absent optional is absent");
  assert.deepEqual({ ...h.authInputs[1].arguments }, { key: "b", limit: 3 });
  assert.deepEqual(Object.keys(h.authInputs[2].arguments), ["key"], "explicit None is absent");
  assert.ok(Object.isFrozen(first.arguments) && Object.isFrozen(first.subject));
});

Deno.test("the canonical map is separate from the handler input", async () => {
  let seen: unknown;
  const h = await harness({
    authorizer: {
      authorize(input) {
        assert.throws(() => ((input.arguments as Record<string, unknown>).key = "evil"));
      },
    },
    handler: (input) => {
      seen = input;
      (input as Record<string, unknown>).key = "mutated";
      return { key: "k", count: 1 };
    },
  });
  await run(h, (_r, call) => call("records.lookup", { key: "a" }));
  assert.deepEqual({ ...seen as object }, { key: "mutated" });
  assert.deepEqual({ ...h.authInputs[0].arguments }, { key: "a" });
});

Deno.test("bad arguments are invalid_arguments before authorization", async () => {
  const h = await harness();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{}, /missing required argument "key"/],
    [{ key: "a", nope: 1 }, /unexpected keyword argument "nope"/],
    [{ key: 1 }, /argument key must be str, not int/],
    [{ key: "a", limit: true }, /argument limit must be int or None, not bool/],
    [{ key: "a", limit: 0.5 }, /not float/],
    [{ key: "a", limit: 2 ** 53 }, /out of range/],
  ];
  for (const [args, pattern] of cases) {
    await rejectsWith(run(h, (_r, call) => call("records.lookup", args)), "invalid_arguments", (e) => {
      assert.match(e.message, pattern);
      assert.match(e.detail ?? "", pattern, "the binding message is approved for the model");
    });
  }
  assert.deepEqual(h.events, [], "neither authorizer nor handler ran");
});

Deno.test("denial is permission_denied, without calling the handler or leaking the reason", async () => {
  for (
    const thrown of [
      new DeniedError("secret policy fact"),
      new Error("wrapped", { cause: new DeniedError("secret policy fact") }),
      new CodeModeError("permission_denied", "secret policy fact"),
    ]
  ) {
    const h = await harness({
      authorizer: {
        authorize() {
          throw thrown;
        },
      },
    });
    await rejectsWith(
      run(h, (_r, call) => call("records.lookup", { key: "a" })),
      "permission_denied",
      (e) => {
        assert.doesNotMatch(e.message, /secret/);
        assert.equal(e.cause, undefined, "trusted cause removed");
        assert.equal(e.detail, undefined);
      },
    );
    assert.deepEqual(h.events, ["authorize records.lookup"]);
  }
});

Deno.test("other authorizer failures are policy_failure", async () => {
  const failures: (() => unknown)[] = [
    () => {
      throw new Error("opa exploded: secret");
    },
    () => Promise.reject("a string"),
    () => false, // a policy that returns false meant to deny; it must never allow
    () => ({ allow: true }),
  ];
  for (const authorize of failures) {
    const h = await harness({ authorizer: { authorize: authorize as Authorizer["authorize"] } });
    await rejectsWith(run(h, (_r, call) => call("records.lookup", { key: "a" })), "policy_failure", (e) => {
      assert.doesNotMatch(e.message, /secret/);
      assert.equal(e.cause, undefined);
    });
    assert.deepEqual(h.events, ["authorize records.lookup"]);
  }
  const ok = await harness({ authorizer: { authorize: () => true as never } });
  assert.deepEqual(await run(ok, (_r, call) => call("records.lookup", { key: "a" })), { key: "a", count: 1 });
});

Deno.test("handler failures are capability_failure; only approved text reaches the model", async () => {
  const cases: [unknown, string, string | undefined][] = [
    [new Error("db password is hunter2"), "capability_failure", "records.lookup"],
    [
      new CapabilityError("record not found", { safeForModel: true }),
      "capability_failure",
      "records.lookup: record not found",
    ],
    [new CapabilityError("internal hunter2"), "capability_failure", "records.lookup"],
    [new CapabilityError("x".repeat(257), { safeForModel: true }), "capability_failure", "records.lookup"],
    [new CapabilityError("line\nbreak", { safeForModel: true }), "capability_failure", "records.lookup"],
    ["thrown string", "capability_failure", "records.lookup"],
    [new TypeError("cannot read properties of undefined"), "internal", undefined],
    [new RangeError("index out of range"), "internal", undefined],
    [new DeniedError("nope"), "permission_denied", undefined],
    [new CodeModeError("resource_limit", "quota", { detail: "x" }), "resource_limit", undefined],
    [
      new CodeModeError("capability_failure", "x", { detail: "upstream timed out" }),
      "capability_failure",
      "records.lookup: upstream timed out",
    ],
  ];
  for (const [thrown, code, detail] of cases) {
    const h = await harness({
      handler: () => {
        throw thrown;
      },
    });
    await rejectsWith(run(h, (_r, call) => call("records.lookup", { key: "a" })), code, (e) => {
      assert.equal(e.detail, detail, String(thrown));
      assert.doesNotMatch(e.message, /hunter2|cannot read|nope|quota/);
      assert.equal(e.cause, undefined);
    });
  }
  const asyncFail = await harness({ handler: () => Promise.reject(new Error("later")) });
  await rejectsWith(run(asyncFail, (_r, call) => call("records.lookup", { key: "a" })), "capability_failure");
});

Deno.test("output conversion failures are capability_failure; nil lists become None", async () => {
  for (
    const bad of [{ key: "a", count: NaN }, { key: "a", count: 2 ** 53 }, { key: "a", count: 1.5 }, {
      key: 3,
      count: 1,
    }, null]
  ) {
    const h = await harness({ handler: () => bad });
    await rejectsWith(run(h, (_r, call) => call("records.lookup", { key: "a" })), "capability_failure");
  }
  const h = await harness();
  assert.deepEqual(await run(h, (_r, call) => call("records.status", {})), { ok: true, tags: null });
});

Deno.test("the host counts native calls itself", async () => {
  const h = await harness({ limits: { maxNativeCalls: 2 } });
  await rejectsWith(
    run(h, async (_r, call) => {
      await call("records.lookup", { key: "a" });
      await call("records.lookup", { key: "b" });
      await call("records.lookup", { key: "c" });
    }),
    "resource_limit",
    (e) => assert.match(e.message, /more than 2 native calls/),
  );
  assert.equal(h.events.filter((e) => e.startsWith("handler")).length, 2);
  // Each execution has its own count.
  assert.deepEqual(await run(h, (_r, call) => call("records.lookup", { key: "d" })), { key: "d", count: 1 });
});

Deno.test("a failed call still counts as attempted", async () => {
  const h = await harness({ limits: { maxNativeCalls: 1 } });
  await rejectsWith(
    run(h, async (_r, call) => {
      await call("records.lookup", {}).catch(() => {});
      await call("records.lookup", { key: "b" });
    }),
    "resource_limit",
  );
});

Deno.test("a lying worker: unknown capability index or disabled capability is internal", async () => {
  const h = await harness();
  await rejectsWith(run(h, (req) => req.dispatch(7, {}, new AbortController().signal)), "internal");
  await rejectsWith(run(h, (req) => req.dispatch(-1, {}, new AbortController().signal)), "internal");
  await rejectsWith(run(h, (_r, call) => call("records.hidden", {})), "internal");
});

Deno.test("subjects: empty or missing id is unauthenticated and nothing runs", async () => {
  const h = await harness();
  for (const subject of [{ id: "" }, {}, null, undefined, { id: 3 }]) {
    await rejectsWith(h.server.execute(subject as never, PROGRAM), "unauthenticated");
  }
  assert.equal(h.executor.requests.length, 0);
});

Deno.test("source bytes: exactly at the limit runs, one byte past is resource_limit", async () => {
  const h = await harness({ limits: { maxSourceBytes: 10 } });
  await h.server.execute(SUBJECT, "é".repeat(5));
  await rejectsWith(h.server.execute(SUBJECT, "é".repeat(5) + " "), "resource_limit", (e) => {
    assert.match(e.message, /11 bytes; the limit is 10/);
  });
  await rejectsWith(h.server.execute(SUBJECT, 42 as never), "invalid_program");
  assert.equal(h.executor.requests.length, 1);
});

Deno.test("cancellation mid-native-call rejects with the signal's reason and aborts the handler's signal", async () => {
  let handlerSignal: AbortSignal | undefined;
  let release!: () => void;
  const h = await harness();
  const controller = new AbortController();
  const slow = await new Builder({ authorizer: allowAll(), executor: h.executor })
    .register({
      name: "slow.op",
      summary: "Slow",
      output: t.struct({}),
      handler: (_i, ctx) => {
        handlerSignal = ctx.signal;
        return new Promise((resolve) => (release = () => resolve({})));
      },
    })
    .build();
  h.executor.script = (_r, call) => call("slow.op", {});
  const pending = slow.execute(SUBJECT, PROGRAM, { signal: controller.signal });
  await new Promise((r) => setTimeout(r, 5));
  const reason = new DOMException("stop", "AbortError");
  controller.abort(reason);
  await assert.rejects(pending, (e) => e === reason);
  assert.equal(handlerSignal?.aborted, true);
  release();
});

Deno.test("an already-aborted signal rejects before anything runs", async () => {
  const h = await harness();
  const reason = new Error("gone");
  await assert.rejects(
    h.server.execute(SUBJECT, PROGRAM, { signal: AbortSignal.abort(reason) }),
    (e) => e === reason,
  );
  assert.equal(h.executor.requests.length, 0);
});

Deno.test("a caller deadline is resource_limit with a TimeoutError cause", async () => {
  const h = await harness();
  const signal = AbortSignal.timeout(1);
  await new Promise((r) => setTimeout(r, 10));
  await rejectsWith(h.server.execute(SUBJECT, PROGRAM, { signal }), "resource_limit", (e) => {
    assert.equal((e.cause as Error).name, "TimeoutError");
  });
});

Deno.test("executor errors are projected: causes dropped, details only where approved, timeouts kept", async () => {
  const h = await harness();
  await rejectsWith(
    run(h, () => {
      throw new CodeModeError("invalid_program", "bad", {
        detail: "line 1: undefined: x",
        cause: new Error("trusted"),
      });
    }),
    "invalid_program",
    (e) => {
      assert.equal(e.detail, "line 1: undefined: x");
      assert.equal(e.cause, undefined);
    },
  );
  await rejectsWith(
    run(h, () => {
      throw new CodeModeError("policy_failure", "p", { detail: "leak" });
    }),
    "policy_failure",
    (e) => assert.equal(e.detail, undefined),
  );
  const timeout = new DOMException("deadline", "TimeoutError");
  await rejectsWith(
    run(h, () => {
      throw new CodeModeError("resource_limit", "time", { cause: timeout });
    }),
    "resource_limit",
    (e) => assert.equal(e.cause, timeout),
  );
  await rejectsWith(
    run(h, () => {
      throw new Error("executor bug");
    }),
    "internal",
    (e) => assert.doesNotMatch(e.message, /executor bug/),
  );
});

Deno.test("execute after close is internal; search and describe keep working", async () => {
  const h = await harness();
  await h.server.close();
  await rejectsWith(h.server.execute(SUBJECT, PROGRAM), "internal");
  assert.equal(h.server.search("records lookup").results[0].name, "records.lookup");
  assert.equal(h.executor.closeCalls, 1);
});

Deno.test("concurrent executions have separate subjects and call budgets", async () => {
  const h = await harness({ limits: { maxNativeCalls: 3 } });
  h.executor.script = async (req, call) => {
    const out = [];
    for (let i = 0; i < 3; i++) out.push(await call("records.lookup", { key: `${req.subjectId}-${i}` }));
    return out.map((o) => (o as { key: string }).key);
  };
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => h.server.execute({ id: `s${i}` }, PROGRAM)),
  );
  results.forEach((r, i) => assert.deepEqual(r, [`s${i}-0`, `s${i}-1`, `s${i}-2`]));
  assert.equal(h.events.filter((e) => e.startsWith("handler")).length, 60);
});
