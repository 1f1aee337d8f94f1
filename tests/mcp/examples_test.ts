/**
 * Every example the tool descriptions show a model works against the demo catalog (issue 11): the
 * quoted searches find something, the quoted name describes, the quoted call and program run, and the
 * descriptions quote exactly these examples. A search that finds nothing says what the catalog holds.
 */
import assert from "node:assert/strict";
import { executeDescription, TOOL_EXAMPLES, toolDefinitions } from "../../src/mcp/tools.ts";
import { buildDemoServer } from "../../src/demo/mod.ts";

Deno.test("the tool descriptions quote the tested examples", () => {
  const [search, describe, execute] = toolDefinitions();
  for (const q of TOOL_EXAMPLES.searches) assert.ok(search.description!.includes(`"${q}"`), q);
  assert.ok(JSON.stringify(describe.inputSchema).includes(`"${TOOL_EXAMPLES.describe}`));
  assert.ok(execute.description!.includes(TOOL_EXAMPLES.call));
  assert.ok(executeDescription().endsWith(`Example:\n${TOOL_EXAMPLES.program}`));
});

Deno.test("every example works against the demo catalog", async () => {
  const server = await buildDemoServer({ executor: "inline" });
  try {
    for (const q of TOOL_EXAMPLES.searches) {
      assert.ok(server.search(q).results.length > 0, `search "${q}" finds something`);
    }
    assert.equal(server.describe(TOOL_EXAMPLES.describe).name, TOOL_EXAMPLES.describe);
    const customer = await server.execute({ id: "u" }, `def main():\n    return ${TOOL_EXAMPLES.call}\n`);
    assert.equal((customer as { id: string }).id, "c-101");
    const ids = await server.execute({ id: "u" }, `${TOOL_EXAMPLES.program}\n`);
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
