/** The CodeMode server's execute limits: reading them from the environment, and the checked service. */
import assert from "node:assert/strict";
import { isCodeModeError } from "../errors.ts";
import { Limits } from "../limits/mod.ts";
import { errorText } from "./errors.ts";
import { EXECUTE_LIMITS_ENV as ENV, executeLimitsFromEnv, limitedService } from "./limits.ts";
import type { Service } from "./service.ts";

const envOf = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("execute limits: the environment states rate, burst, quota, reset, store and store-error action", () => {
  assert.equal(executeLimitsFromEnv(envOf({})), undefined);
  assert.equal(
    executeLimitsFromEnv(envOf({ [ENV.store]: "memory" })),
    undefined,
    "a store alone limits nothing",
  );
  const full = executeLimitsFromEnv(envOf({
    [ENV.rate]: "30/min",
    [ENV.burst]: "5",
    [ENV.quota]: "1000/day",
    [ENV.quotaReset]: "06:00",
    [ENV.store]: "redis://127.0.0.1:6379/0",
    [ENV.onStoreError]: "allow",
  }));
  assert.deepEqual(full, {
    store: "redis://127.0.0.1:6379/0",
    onStoreError: "allow",
    rules: [
      {
        name: "execute rate",
        clients: ["*"],
        tools: ["*"],
        downstreams: ["*"],
        rate: { count: 30, periodMs: 60_000 },
        burst: 5,
      },
      {
        name: "execute quota",
        clients: ["*"],
        tools: ["*"],
        downstreams: ["*"],
        quota: { count: 1000, periodMs: 86_400_000 },
        quotaResetMs: 6 * 3_600_000,
      },
    ],
  });
  const bad: [Record<string, string>, RegExp][] = [
    [{ [ENV.rate]: "30/fortnight" }, /CODEMODE_EXECUTE_RATE: unit "fortnight"/],
    [{ [ENV.rate]: "lots" }, /CODEMODE_EXECUTE_RATE: must be/],
    [{ [ENV.rate]: "3/s", [ENV.burst]: "0" }, /CODEMODE_EXECUTE_BURST: must be a whole number/],
    [{ [ENV.burst]: "3" }, /CODEMODE_EXECUTE_BURST: needs CODEMODE_EXECUTE_RATE/],
    [{ [ENV.quota]: "5/s" }, /CODEMODE_EXECUTE_QUOTA: unit "s"/],
    [
      { [ENV.quota]: "5/day", [ENV.quotaReset]: "25:00" },
      /CODEMODE_EXECUTE_QUOTA_RESET: must be a UTC time/,
    ],
    [{ [ENV.quotaReset]: "01:00" }, /needs CODEMODE_EXECUTE_QUOTA/],
    [{ [ENV.rate]: "1/s", [ENV.store]: "mysql://x" }, /CODEMODE_LIMITS_STORE: must be "memory"/],
    [{ [ENV.rate]: "1/s", [ENV.onStoreError]: "maybe" }, /CODEMODE_LIMITS_ON_STORE_ERROR: must be/],
  ];
  for (const [vars, expected] of bad) assert.throws(() => executeLimitsFromEnv(envOf(vars)), expected);
});

Deno.test("execute limits: a refused program never starts; subjects count apart", async () => {
  const started: string[] = [];
  const inner: Service = {
    search: () => ({ results: [] }) as never,
    describe: () => ({}) as never,
    execute: (subject, source) => {
      started.push(`${subject.id}:${source}`);
      return Promise.resolve(source);
    },
  };
  const settings = executeLimitsFromEnv(envOf({ [ENV.rate]: "2/h", [ENV.quota]: "3/day" }))!;
  const limits = await Limits.open(settings);
  try {
    const service = limitedService(inner, limits);
    assert.equal(await service.execute({ id: "alice" }, "1"), "1");
    assert.equal(await service.execute({ id: "alice" }, "2"), "2");
    const err = await service.execute({ id: "alice" }, "3").then(() => undefined, (e) => e);
    assert.ok(isCodeModeError(err) && err.code === "resource_limit", String(err));
    assert.match(
      errorText(err),
      /^resource limit exceeded: rate limited: retry after (\d+) s \(rule "execute rate"\)$/,
    );
    assert.deepEqual(started, ["alice:1", "alice:2"], "the refused program did not run");
    assert.equal(await service.execute({ id: "bob" }, "b"), "b", "another subject has its own bucket");
  } finally {
    await limits.close();
  }
});
