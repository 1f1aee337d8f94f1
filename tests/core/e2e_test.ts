/**
 * End-to-end through `Server.execute` with the real engine, on both built-in executors: the program
 * contract, every error code, the native-call order, output conversion as Starlark sees it, limits at and
 * one past their bounds, cancellation and hostile programs.
 */
import assert from "node:assert/strict";
import {
  type Authorizer,
  Builder,
  CapabilityError,
  type CodeModeError,
  DeniedError,
  type Executor,
  isCodeModeError,
  type Limits,
  type Server,
  t,
  WorkerPool,
} from "../../mod.ts";
import { slack, timed } from "../timing.ts";

type Kind = "inline" | "worker" | "process";

const KINDS: readonly Kind[] = ["inline", "worker", "process"];

interface World {
  server: Server;
  events: string[];
  canonical: Record<string, unknown>[];
}

async function world(
  kind: Kind | Executor,
  options: { limits?: Partial<Limits>; authorizer?: Authorizer; handler?: () => unknown } = {},
): Promise<World> {
  const events: string[] = [];
  const canonical: Record<string, unknown>[] = [];
  const inner = options.authorizer;
  const builder = new Builder({
    executor: kind,
    limits: options.limits,
    authorizer: {
      async authorize(input, ctx) {
        events.push(`authorize ${input.capabilityId}`);
        canonical.push({ ...input.arguments });
        await inner?.authorize(input, ctx);
      },
    },
  });
  builder.register({
    id: "records.entry.lookup",
    name: "records.lookup",
    summary: "Look up one stored record by key",
    input: t.struct({ key: t.str(), limit: t.optional(t.int()) }),
    output: t.struct({ key: t.str(), count: t.int() }),
    handler: ({ key, limit }) => {
      events.push(`handler ${key}`);
      if (options.handler) return options.handler() as never;
      return { key, count: limit ?? 1 };
    },
  });
  builder.register({
    name: "math2.scale",
    summary: "Scale a float",
    input: t.struct({ x: t.float(), by: t.float() }),
    output: t.struct({ value: t.float() }),
    handler: ({ x, by }) => ({ value: x * by }),
  });
  builder.register({
    name: "records.meta",
    summary: "Record metadata",
    output: t.struct({ tags: t.list(t.str()), detail: t.optional(t.str()), ratio: t.float() }),
    handler: () => ({ tags: null, ratio: 1 }),
  });
  return { server: await builder.build(), events, canonical };
}

const U = { id: "user-1" };
const main = (body: string) => `def main():\n${body.split("\n").map((l) => "    " + l).join("\n")}\n`;

async function fails(p: Promise<unknown>, code: string, check?: (e: CodeModeError) => void): Promise<void> {
  await assert.rejects(p, (e) => {
    assert.ok(isCodeModeError(e), `expected ${code}, got ${e}`);
    assert.equal(e.code, code, `${e.code}: ${e.message}`);
    check?.(e);
    return true;
  });
}

for (const kind of KINDS) {
  Deno.test(`${kind}: the seed example runs and keeps int vs float`, async () => {
    const w = await world(kind);
    try {
      assert.deepEqual(await w.server.execute(U, main('return records.lookup(key="a")')), {
        key: "a",
        count: 1,
      });
      assert.deepEqual(
        await w.server.execute(
          U,
          main('r = math2.scale(x=1.5, by=2.0)\nreturn [r["value"], type(r["value"])]'),
        ),
        [3, "float"],
      );
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: a nil list is None, an omitted optional is absent, a float stays a float`, async () => {
    const w = await world(kind);
    try {
      assert.deepEqual(
        await w.server.execute(
          U,
          main('m = records.meta()\nreturn [m["tags"] == None, "detail" in m, type(m["ratio"])]'),
        ),
        [true, false, "float"],
      );
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: native-call order and the canonical authorization map`, async () => {
    const w = await world(kind);
    try {
      await w.server.execute(
        U,
        main('records.lookup(key="a", limit=None)\nrecords.lookup(key="b", limit=2)'),
      );
      assert.deepEqual(w.events, [
        "authorize records.entry.lookup",
        "handler a",
        "authorize records.entry.lookup",
        "handler b",
      ]);
      assert.deepEqual(w.canonical, [{ key: "a" }, { key: "b", limit: 2 }]);
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: invalid programs`, async () => {
    const w = await world(kind);
    try {
      const programs = [
        "def main(:\n    pass\n", // syntax
        "x = 1\n", // no main
        "def main(a):\n    return a\n", // parameters
        "def main(*, a=1):\n    return a\n",
        "def main(*args):\n    return 1\n",
        "def main(**kw):\n    return 1\n",
        main("return 1 // 0"), // runtime error
        main('fail("boom")'),
        main("return nothing.here()"), // unknown name
        main("return main"), // unsupported final value
        'load("x.star", "y")\n' + main("return 1"), // load is disabled
        main('return records.lookup(key="a", key="b")'), // duplicate keyword syntax
      ];
      for (const source of programs) await fails(w.server.execute(U, source), "invalid_program");
      assert.deepEqual(w.events, [], "no duplicate-keyword call reached the host");
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: invalid arguments never reach the authorizer`, async () => {
    const w = await world(kind);
    try {
      for (
        const call of [
          'records.lookup("a")',
          'records.lookup(key="a", nope=1)',
          "records.lookup()",
          "records.lookup(key=1)",
          'records.lookup(key="a", limit=True)',
          'records.lookup(key="a", limit=1.0)',
          "math2.scale(x=(1 << 53) + 1, by=2.0)", // an int for a float only when the float holds it exactly
          "math2.scale(x=True, by=2.0)",
          'records.lookup(key="a", limit=9007199254740992)', // beyond the safe-integer range
        ]
      ) {
        await fails(w.server.execute(U, main(`return ${call}`)), "invalid_arguments", (e) => {
          assert.ok(e.detail !== undefined && e.detail.length > 0, `${call}: a model-safe detail`);
        });
      }
      assert.deepEqual(w.events, []);
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: authorization outcomes`, async () => {
    const denied = await world(kind, {
      authorizer: {
        authorize: (input) => {
          if (input.arguments.key === "secret") throw new DeniedError("no");
        },
      },
    });
    try {
      await fails(denied.server.execute(U, main('return records.lookup(key="secret")')), "permission_denied");
      assert.deepEqual(denied.events, ["authorize records.entry.lookup"], "handler not called");
      assert.deepEqual(await denied.server.execute(U, main('return records.lookup(key="ok")["key"]')), "ok");
    } finally {
      await denied.server.close();
    }
    const broken = await world(kind, {
      authorizer: {
        authorize: () => {
          throw new Error("policy engine down");
        },
      },
    });
    try {
      await fails(broken.server.execute(U, main('return records.lookup(key="a")')), "policy_failure", (e) => {
        assert.doesNotMatch(`${e.message} ${e.detail ?? ""}`, /engine down/);
      });
      assert.deepEqual(broken.events, ["authorize records.entry.lookup"]);
    } finally {
      await broken.server.close();
    }
  });

  Deno.test(`${kind}: handler failures and invalid outputs`, async () => {
    const cases: [() => unknown, string, string | undefined][] = [
      [
        () => {
          throw new Error("db password hunter2");
        },
        "capability_failure",
        "records.lookup",
      ],
      [
        () => {
          throw new CapabilityError("record not found", { safeForModel: true });
        },
        "capability_failure",
        "records.lookup: record not found",
      ],
      [
        () => {
          throw new TypeError("x is undefined");
        },
        "internal",
        undefined,
      ],
      [() => ({ key: "a", count: NaN }), "capability_failure", "records.lookup: invalid result"],
      [() => ({ key: "a", count: 2 ** 53 }), "capability_failure", "records.lookup: invalid result"],
      [() => ({ key: "a", count: 0.5 }), "capability_failure", "records.lookup: invalid result"],
    ];
    for (const [handler, code, detail] of cases) {
      const w = await world(kind, { handler });
      try {
        await fails(w.server.execute(U, main('return records.lookup(key="a")')), code, (e) => {
          assert.equal(e.detail, detail);
          assert.doesNotMatch(e.message, /hunter2|undefined/);
          assert.equal(e.cause, undefined);
        });
      } finally {
        await w.server.close();
      }
    }
  });

  Deno.test(`${kind}: native calls and value depth, at and one past the bound`, async () => {
    const w = await world(kind, { limits: { maxNativeCalls: 3, maxValueDepth: 3 } });
    try {
      const calls = (n: number) => main(`for i in range(${n}):\n    records.lookup(key=str(i))\nreturn ${n}`);
      assert.equal(await w.server.execute(U, calls(3)), 3);
      await fails(w.server.execute(U, calls(4)), "resource_limit");
      assert.deepEqual(await w.server.execute(U, main("return [[1]]")), [[1]]);
      await fails(w.server.execute(U, main("return [[[1]]]")), "resource_limit");
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: source bytes, steps and memory`, async () => {
    const w = await world(kind, { limits: { maxSourceBytes: 64, maxExecutionSteps: 10_000 } });
    try {
      const fits = main("return 1");
      const padded = fits + "#".repeat(64 - fits.length);
      assert.equal(await w.server.execute(U, padded), 1);
      await fails(w.server.execute(U, padded + "#"), "resource_limit");
      await fails(w.server.execute(U, main("for i in range(100000):\n    pass")), "resource_limit");
      await fails(
        w.server.execute(U, main("l = [1]\nfor i in range(60):\n    l = l + l\nreturn len(l)")),
        "resource_limit",
      );
      await fails(w.server.execute(U, main('return len("x" * (1 << 29))')), "resource_limit");
      await fails(w.server.execute({ id: "" }, fits), "unauthenticated");
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: the integer-size cap, at and one past the bound, stops a squaring tower at once`, async () => {
    const w = await world(kind, { limits: { maxIntBits: 2_048 } });
    try {
      // 2^2047 has 2,048 bits; 2^2048 has 2,049.
      const power = (k: number) => main(`x = 1 << 511\nreturn len(str(x * x * x * x * ${k}))`);
      assert.equal(await w.server.execute(U, power(8)), 617);
      await fails(w.server.execute(U, power(16)), "resource_limit");
      const tower = main(
        "x = 3\nfor i in range(25):\n    x = x * x\nreturn len([x + i for i in range(750)])",
      );
      const { ms, factor } = await timed(() => fails(w.server.execute(U, tower), "resource_limit"));
      assert.ok(ms < slack(500, factor), `took ${ms.toFixed(0)} ms`);
    } finally {
      await w.server.close();
    }
  });
}

Deno.test("default executor (worker): cancellation mid-native-call through the server", async () => {
  let handlerSignal: AbortSignal | undefined;
  const server = await new Builder({ authorizer: { authorize() {} } })
    .register({
      name: "slow.op",
      summary: "Wait forever",
      output: t.struct({}),
      handler: (_input, ctx) => {
        handlerSignal = ctx.signal;
        return new Promise(() => {});
      },
    })
    .build();
  try {
    const controller = new AbortController();
    const running = server.execute(U, main("return slow.op()"), { signal: controller.signal });
    for (let i = 0; i < 200 && !handlerSignal; i++) await new Promise((r) => setTimeout(r, 10));
    const reason = new DOMException("user left", "AbortError");
    controller.abort(reason);
    await assert.rejects(running, (e) => e === reason);
    assert.equal(handlerSignal?.aborted, true);
  } finally {
    await server.close();
  }
});

Deno.test("worker: a busy loop ends at the deadline while another execution completes", async () => {
  // The other execution must also finish within the deadline: on a saturated machine give it room.
  const limit = Math.round(slack(400));
  const w = await world("worker", { limits: { maxExecutionTime: limit, maxExecutionSteps: 2 ** 50 } });
  try {
    // Keep spawn time out of the measurement: both subjects find a warm worker.
    await w.server.execute(U, main("return 1"));
    await w.server.execute({ id: "other" }, main("return 1"));
    // Both settle before any assertion, so a failure never leaves the other promise unawaited.
    const { value: [busy, other], ms, factor } = await timed(() =>
      Promise.allSettled([
        w.server.execute(U, main("x = 0\nfor i in range(1 << 50):\n    x += i\nreturn x")),
        w.server.execute({ id: "other" }, main('return records.lookup(key="a")["count"]')),
      ])
    );
    assert.deepEqual(other, { status: "fulfilled", value: 1 });
    assert.equal(busy.status, "rejected");
    const e = (busy as PromiseRejectedResult).reason;
    assert.ok(isCodeModeError(e, "resource_limit"), String(e));
    assert.equal((e.cause as Error).name, "TimeoutError");
    assert.ok(ms < limit + slack(50, factor), `ended after ${ms.toFixed(0)} ms (load ×${factor.toFixed(1)})`);
  } finally {
    await w.server.close();
  }
});

Deno.test("worker: 50 parallel executes hold the concurrency bound", async () => {
  const pool = new WorkerPool({ maxConcurrentExecutions: 3 });
  const w = await world(pool, { limits: { maxExecutionTime: 60_000 } });
  try {
    const results = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => w.server.execute({ id: `s${i % 5}` }, main(`return records.lookup(key="${i}")["key"]`)),
      ),
    );
    assert.deepEqual(results, Array.from({ length: 50 }, (_, i) => `${i}`));
    assert.ok(pool.stats().peakLive <= 3, `peak ${pool.stats().peakLive}`);
  } finally {
    await w.server.close();
  }
});

Deno.test("a worker probe failure fails the build with a wiring diagnostic", async () => {
  const pool = new WorkerPool({ workerUrl: new URL("./does_not_exist_worker.js", import.meta.url) });
  const builder = new Builder({ executor: pool, authorizer: { authorize() {} } });
  await assert.rejects(builder.build(), (e) => {
    assert.ok(isCodeModeError(e, "invalid_registration"));
    assert.match(e.message, /sandbox worker probe failed/);
    return true;
  });
  assert.equal(pool.stats().live, 0);
});
