/**
 * Discovery through the public API: the seed's example capability, static filtering, search limits and
 * result packing with real sizes.
 */
import assert from "node:assert/strict";
import { allowAll, Builder, isCodeModeError, type Server, t } from "../../mod.ts";
import { ScriptedExecutor } from "./fake_executor.ts";

async function seedServer(options: { disabled?: string[]; maxSearchResults?: number } = {}): Promise<Server> {
  const builder = new Builder({
    authorizer: allowAll(),
    executor: new ScriptedExecutor(),
    disabledCapabilities: options.disabled,
    limits: { maxSearchResults: options.maxSearchResults },
  });
  builder.register({
    id: "records.entry.lookup",
    name: "records.lookup",
    summary: "Look up one stored record by key",
    searchTerms: ["fetch entry", "find stored item"],
    input: t.struct({ key: t.str(), limit: t.optional(t.int()) }),
    output: t.struct({ key: t.str(), count: t.int() }),
    handler: ({ key, limit }) => ({ key, count: limit ?? 1 }),
  });
  builder.register({
    name: "records.status",
    summary: "Report the record store status",
    output: t.struct({
      healthy: t.bool(),
      detail: t.optional(t.str()),
      shards: t.list(t.struct({ title: t.str(), score: t.float() })),
      flags: t.dict(t.bool()),
      value: t.struct({ value: t.str(), detail: t.optional(t.str()) }),
      names: t.nullable(t.list(t.nullable(t.str()))),
    }),
    handler: () => ({ healthy: true, shards: [], flags: {}, value: { value: "v" }, names: null }),
  });
  builder.register({
    name: "stats.sum",
    summary: "Sum the stored counters",
    description: "Adds every stored counter of the record store and returns the total.",
    input: t.struct({ prefix: t.optional(t.str()) }),
    output: t.struct({ total: t.int() }),
    handler: () => ({ total: 0 }),
  });
  return await builder.build();
}

Deno.test("search finds the seed example by its search terms", async () => {
  const server = await seedServer();
  assert.deepEqual(server.search("find a stored record"), {
    results: [
      {
        name: "records.lookup",
        signature: "records.lookup(*, key: str, limit: int | None)",
        summary: "Look up one stored record by key",
      },
      {
        name: "stats.sum",
        signature: "stats.sum(*, prefix: str | None)",
        summary: "Sum the stored counters",
      },
    ],
    truncated: false,
  });
  assert.equal(server.search("records.status").results[0].name, "records.status");
  assert.equal(server.search("RECORDS.STATUS").results[0].name, "records.status");
});

Deno.test("describe returns the exact contract", async () => {
  const server = await seedServer();
  assert.deepEqual(server.describe("records.lookup"), {
    name: "records.lookup",
    signature: "records.lookup(*, key: str, limit: int | None)",
    summary: "Look up one stored record by key",
    description: "Look up one stored record by key",
    input: [
      { name: "key", type: "str", required: true },
      { name: "limit", type: "int | None", required: false },
    ],
    output: [
      { name: "key", type: "str", required: true },
      { name: "count", type: "int", required: true },
    ],
  });
  assert.deepEqual(server.describe("records.status").output, [
    { name: "healthy", type: "bool", required: true },
    { name: "detail", type: "str", required: false },
    { name: "shards", type: "list[{title: str, score: float}]", required: true },
    { name: "flags", type: "dict[str, bool]", required: true },
    { name: "value", type: "{value: str, detail?: str}", required: true },
    { name: "names", type: "list[str | None] | None", required: true },
  ]);
  assert.equal(server.describe("records.status").signature, "records.status()");
  for (const bad of ["records.lookup ", "Records.lookup", "records", "records.entry.lookup", "fetch entry"]) {
    assert.throws(() => server.describe(bad), (e) => isCodeModeError(e, "not_found"), bad);
  }
});

Deno.test("a disabled capability is absent from search, describe and the executor's namespace", async () => {
  const executor = new ScriptedExecutor((req) => req.capabilities.map((c) => c.name));
  const server = await new Builder({
    authorizer: allowAll(),
    executor,
    disabledCapabilities: ["records.entry.lookup"],
  }).register({
    id: "records.entry.lookup",
    name: "records.lookup",
    summary: "Look up one stored record by key",
    output: t.struct({}),
    handler: () => ({}),
  }).register({
    name: "records.other",
    summary: "Another record tool",
    output: t.struct({}),
    handler: () => ({}),
  })
    .build();
  assert.deepEqual(server.search("records.lookup").results.map((r) => r.name), []);
  assert.deepEqual(server.search("record").results.map((r) => r.name), ["records.other"]);
  assert.throws(() => server.describe("records.lookup"), (e) => isCodeModeError(e, "not_found"));
  assert.deepEqual(await server.execute({ id: "u" }, "def main():\n    pass\n"), ["records.other"]);
});

Deno.test("search limits through the server", async () => {
  const server = await seedServer({ maxSearchResults: 1 });
  assert.deepEqual(server.search("stored"), {
    results: [{
      name: "records.lookup",
      signature: "records.lookup(*, key: str, limit: int | None)",
      summary: "Look up one stored record by key",
    }],
    truncated: true,
  });
  assert.deepEqual(server.search(" the  of "), { results: [], truncated: false });
  assert.throws(() => server.search("x".repeat(257)), (e) => isCodeModeError(e, "resource_limit"));
  assert.throws(
    () => server.search(Array.from({ length: 17 }, (_, i) => `t${i}x`).join(" ")),
    (e) => isCodeModeError(e, "resource_limit"),
  );
  assert.throws(() => server.search(42 as never), (e) => isCodeModeError(e, "internal"));
});

Deno.test("the byte cap truncates a response of large results", async () => {
  const builder = new Builder({ authorizer: allowAll(), executor: new ScriptedExecutor() });
  for (let i = 0; i < 6; i++) {
    builder.register({
      name: `big.op${i}`,
      summary: `widget ${"w".repeat(15_000)}`,
      output: t.struct({}),
      handler: () => ({}),
    });
  }
  const server = await builder.build();
  const response = server.search("widget");
  assert.equal(response.truncated, true);
  assert.deepEqual(response.results.map((r) => r.name), ["big.op0", "big.op1", "big.op2", "big.op3"]);
  assert.ok(new TextEncoder().encode(JSON.stringify(response)).length <= 65_536);
});
