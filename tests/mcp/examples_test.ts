/**
 * Every example the demo's tool descriptions show a model works against the demo catalog (issue 11): the
 * quoted searches find something, the quoted name describes, the quoted call and program run, and the
 * descriptions quote exactly these examples. A search that finds nothing says what the catalog holds.
 */
import assert from "node:assert/strict";
import { DEMO_EXAMPLES, executeDescription, toolDefinitions } from "../../src/mcp/tools.ts";
import { buildDemoServer } from "../../src/demo/mod.ts";

Deno.test("the tool descriptions quote the tested examples", () => {
  const [search, describe, execute] = toolDefinitions({ examples: DEMO_EXAMPLES });
  for (const q of DEMO_EXAMPLES.searches) assert.ok(search.description!.includes(`"${q}"`), q);
  assert.ok(JSON.stringify(describe.inputSchema).includes(`"${DEMO_EXAMPLES.describe}`));
  assert.ok(execute.description!.includes(DEMO_EXAMPLES.call));
  assert.ok(executeDescription(undefined, DEMO_EXAMPLES).endsWith(`Example:\n${DEMO_EXAMPLES.program}`));
});

Deno.test("every example works against the demo catalog", async () => {
  const server = await buildDemoServer({ executor: "inline" });
  try {
    for (const q of DEMO_EXAMPLES.searches) {
      assert.ok(server.search(q).results.length > 0, `search "${q}" finds something`);
    }
    assert.equal(server.describe(DEMO_EXAMPLES.describe).name, DEMO_EXAMPLES.describe);
    const customer = await server.execute({ id: "u" }, `def main():\n    return ${DEMO_EXAMPLES.call}\n`);
    assert.equal((customer as { id: string }).id, "c-101");
    const ids = await server.execute({ id: "u" }, `${DEMO_EXAMPLES.program}\n`);
    assert.ok(Array.isArray(ids) && ids.length > 0, JSON.stringify(ids));
    assert.ok(ids.every((id) => typeof id === "string"));
  } finally {
    await server.close();
  }
});

Deno.test("a demo search that finds nothing names the catalog's namespaces", async () => {
  const server = await buildDemoServer({ executor: "inline" });
  try {
    const r = server.search("weather currency");
    assert.deepEqual(r.results, []);
    for (const ns of ["crm", "fx", "inventory", "shipping", "shop", "support", "weather"]) {
      assert.ok(r.hint?.includes(ns), `${ns} in ${r.hint}`);
    }
  } finally {
    await server.close();
  }
});
