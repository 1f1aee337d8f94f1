/**
 * Hostile objects from handlers and authorizers (issue 22, class 4), through `Server.execute` on every
 * executor: whatever a handler throws or returns — a Proxy whose traps throw, an Error wrapped in one,
 * a revoked Proxy, an object whose getters, `toString` and `Symbol.toPrimitive` throw, a Proxy that
 * lists two million keys — is the capability's failure (`capability_failure`; an authorizer's is
 * `policy_failure`), classified without running a single trap, and a result whose getters take their
 * time ends at the deadline, not seconds after it.
 */
import assert from "node:assert/strict";
import { Builder, type ExecutorChoice, isCodeModeError, t } from "../../mod.ts";
import { slack } from "../timing.ts";

const EXECUTORS = ["inline", "worker", "process"] as const;
const U = { id: "user-1" };

/** Traps that count every call and throw. */
function countingTraps(counter: { n: number }): ProxyHandler<object> {
  const trap = () => {
    counter.n++;
    throw new Error("trap ran: hunter2");
  };
  return {
    get: trap,
    has: trap,
    ownKeys: trap,
    getOwnPropertyDescriptor: trap,
    getPrototypeOf: trap,
    apply: trap,
    construct: trap,
    defineProperty: trap,
    set: trap,
    isExtensible: trap,
    preventExtensions: trap,
  };
}

type Maker = (counter: { n: number }) => unknown;

/** The hostile values, each counting the traps it runs. */
const HOSTILE: Record<string, Maker> = {
  "a Proxy whose traps throw": (c) => new Proxy({}, countingTraps(c)),
  "an Error wrapped in a Proxy": (c) => new Proxy(new Error("secret"), countingTraps(c)),
  "a TypeError wrapped in a transparent Proxy": () => new Proxy(new TypeError("x"), {}),
  "a revoked Proxy": () => {
    const r = Proxy.revocable({}, {});
    r.revoke();
    return r.proxy;
  },
  "a function Proxy": (c) => new Proxy(() => {}, countingTraps(c)),
  "an object inheriting from a Proxy": (c) => Object.create(new Proxy({}, countingTraps(c))),
  "an object whose getters, toString and toPrimitive throw": (c) => {
    const boom = () => {
      c.n++;
      throw new Error("read");
    };
    return Object.defineProperties({}, {
      a: { get: boom, enumerable: true },
      message: { get: boom, enumerable: true },
      name: { get: boom },
      code: { get: boom },
      cause: { get: boom },
      toString: { get: boom },
      [Symbol.toPrimitive]: { get: boom },
    });
  },
};

/** How a handler hands the value over. */
const HOW = {
  "throws": (v: unknown) => () => {
    throw v;
  },
  "rejects with": (v: unknown) => () => Promise.reject(v),
  "returns": (v: unknown) => () => v,
  "resolves to": (v: unknown) => async () => await Promise.resolve().then(() => v),
  "returns in a field": (v: unknown) => () => ({ a: v }),
  "returns in a list": (v: unknown) => () => ({ a: [1, v] }),
  "resolves to a result holding": (v: unknown) => () => Promise.resolve({ a: [v] }),
} as const;

interface HostileCase {
  readonly name: string;
  readonly label: string;
  readonly make: Maker;
  readonly how: keyof typeof HOW;
}

/** Every hostile value crossed with every way to hand it over. */
const CASES: HostileCase[] = Object.entries(HOSTILE).flatMap(([label, make], i) =>
  (Object.keys(HOW) as (keyof typeof HOW)[]).map((how, j) => ({ name: `h.c${i}_${j}`, label, make, how }))
);

async function hostileServer(executor: ExecutorChoice, counter: { n: number }) {
  const builder = new Builder({ executor, authorizer: { authorize() {} } });
  for (const c of CASES) {
    builder.register({
      name: c.name,
      summary: `${c.label}, ${c.how}`,
      output: t.struct({ a: t.optional(t.list(t.int())) }),
      handler: (() => HOW[c.how](c.make(counter))()) as never,
    });
  }
  builder.register({
    name: "h.keys",
    summary: "A dict Proxy listing two million keys",
    output: t.struct({ a: t.dict(t.int()) }),
    handler: () => {
      const keys = Array.from({ length: 2_000_000 }, (_, i) => `k${i}`);
      return {
        a: new Proxy({}, {
          ownKeys: () => {
            counter.n++;
            return keys;
          },
          getOwnPropertyDescriptor: () => {
            counter.n++;
            return { value: 1, enumerable: true, configurable: true };
          },
        }),
      };
    },
  });
  return await builder.build();
}

async function codeOf(p: Promise<unknown>): Promise<{ code: string; message: string; detail?: string }> {
  try {
    await p;
  } catch (e) {
    assert.ok(isCodeModeError(e), `unclassified: ${e}`);
    return { code: e.code, message: e.message, detail: e.detail };
  }
  return { code: "ok", message: "" };
}

for (const executor of EXECUTORS) {
  Deno.test(`${executor}: hostile objects a handler throws or returns are capability failures, no trap run`, async () => {
    const counter = { n: 0 };
    const server = await hostileServer(executor, counter);
    try {
      const wrong: string[] = [];
      for (const c of CASES) {
        const before = counter.n;
        const r = await codeOf(server.execute(U, `def main():\n    return ${c.name}()\n`));
        if (
          r.code !== "capability_failure" ||
          r.detail !== `${c.name}` && r.detail !== `${c.name}: invalid result`
        ) {
          wrong.push(`${c.label}, ${c.how}: ${r.code} ${r.message} (${r.detail})`);
        }
        // A result's own getters are its data and are read; nothing else of a hostile value ever runs.
        // Resolving the handler's own promise with a Proxy reads its `then` there, before the host sees it.
        const read = c.label.includes("getters") && !c.how.includes("throws") && !c.how.includes("rejects") ||
          c.how === "resolves to";
        if (counter.n !== before && !read) {
          wrong.push(`${c.label}, ${c.how}: ran ${counter.n - before} traps or getters`);
        }
        assert.doesNotMatch(r.message, /hunter2|secret/);
      }
      assert.deepEqual(wrong, []);
      // The sandbox was not blamed: the next execution of the subject runs normally.
      assert.deepEqual(await server.execute(U, "def main():\n    return 1\n"), 1);
    } finally {
      await server.close();
    }
  });

  Deno.test(`${executor}: a result Proxy listing two million keys is refused unread`, async () => {
    const counter = { n: 0 };
    const server = await hostileServer(executor, counter);
    try {
      const r = await codeOf(server.execute(U, "def main():\n    return h.keys()\n"));
      assert.equal(r.code, "capability_failure", r.message);
      assert.match(r.message, /result\.a is a Proxy/);
      assert.equal(counter.n, 0, "neither ownKeys nor getOwnPropertyDescriptor ran");
    } finally {
      await server.close();
    }
  });
}

Deno.test("authorizer: hostile objects it throws are policy failures, no trap run", async () => {
  for (const [label, make] of Object.entries(HOSTILE)) {
    const counter = { n: 0 };
    const builder = new Builder({
      executor: "inline",
      authorizer: {
        authorize() {
          throw make(counter);
        },
      },
    });
    builder.register({
      name: "a.b",
      summary: "x",
      output: t.struct({ n: t.int() }),
      handler: () => ({ n: 1 }),
    });
    const server = await builder.build();
    try {
      const r = await codeOf(server.execute(U, "def main():\n    return a.b()\n"));
      assert.equal(r.code, "policy_failure", `${label}: ${r.message}`);
      assert.equal(counter.n, 0, `${label}: ran ${counter.n} traps or getters`);
    } finally {
      await server.close();
    }
  }
});

for (const executor of ["inline", "process"] as const) {
  Deno.test(`${executor}: converting a result whose getters take their time ends at the deadline`, async () => {
    const deadline = 600;
    const builder = new Builder({
      executor,
      authorizer: { authorize() {} },
      limits: { maxExecutionTime: deadline },
    });
    builder.register({
      name: "slow.result",
      summary: "A result of 5,000 getters of 2 ms each (10 s to read)",
      output: t.struct({ a: t.dict(t.int()) }),
      handler: () => {
        const a: Record<string, number> = {};
        for (let i = 0; i < 5_000; i++) {
          Object.defineProperty(a, `k${i}`, {
            enumerable: true,
            get() {
              const end = performance.now() + 2;
              while (performance.now() < end) { /* a slow getter */ }
              return 1;
            },
          });
        }
        return { a };
      },
    });
    const server = await builder.build();
    try {
      const t0 = performance.now();
      const r = await codeOf(server.execute(U, "def main():\n    return slow.result()\n"));
      const elapsed = performance.now() - t0;
      assert.equal(r.code, "resource_limit", r.message);
      assert.match(r.detail ?? r.message, /maxExecutionTime/);
      assert.ok(elapsed < deadline + slack(200), `answered after ${elapsed.toFixed(0)} ms`);
    } finally {
      await server.close();
    }
  });
}
