/**
 * A small catalog is listed up front: through the official SDK client, the `execute` description of a
 * library server and of `deno task serve` lists every enabled capability with the signature
 * `describe_api` gives, and a program written from that listing alone runs; a catalog past the budget,
 * or a server with the listing turned off, lists none.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Builder, type Server, t } from "../../mod.ts";
import { allowAll } from "../../authz.ts";
import { createMcpServer, type McpServerOptions, staticSubject } from "../../mcp.ts";
import { connectStdio } from "./cli_helpers.ts";
import { roundTrips } from "../../bench/round_trips.ts";

function catalog(n: number, disabled: readonly string[] = []): Builder {
  const builder = new Builder({ authorizer: allowAll(), executor: "inline", disabledCapabilities: disabled });
  for (let i = 0; i < n; i++) {
    builder.register({
      id: `notes.get_${i}`,
      name: `notes.get_${i}`,
      summary: `Get note number ${i} by its key`,
      input: t.struct({ key: t.str(), limit: t.optional(t.int()) }),
      output: t.struct({ key: t.str(), index: t.int(), words: t.list(t.str()) }),
      handler: ({ key }) => ({ key, index: i, words: [key, String(i)] }),
    });
  }
  return builder;
}

async function executeDescription(server: Server, options: McpServerOptions = {}): Promise<string> {
  const mcp = createMcpServer(server, staticSubject({ id: "u" }), options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "listing", version: "1.0.0" });
  try {
    await mcp.connect(serverSide);
    await client.connect(clientSide);
    return (await client.listTools()).tools.find((x) => x.name === "execute")!.description!;
  } finally {
    await client.close();
  }
}

/** The listed lines of a description (`- signature ...`), by capability name. */
function listed(description: string): Map<string, string> {
  const section = description.split("Capabilities (the whole catalog you may call")[1];
  if (section === undefined) return new Map();
  const lines = section.split("\n").slice(1).filter((l) => l.startsWith("- "));
  return new Map(lines.map((l) => [l.slice(2).split("(")[0], l]));
}

Deno.test("listing: every enabled capability is listed with describe's signature, and a program from it runs", async () => {
  const server = await catalog(6, ["notes.get_5"]).build();
  try {
    const description = await executeDescription(server);
    const lines = listed(description);
    assert.deepEqual([...lines.keys()].sort(), server.capabilities().map((c) => c.name).sort());
    assert.ok(!lines.has("notes.get_5"), "a disabled capability is never listed");
    for (const [name, line] of lines) {
      const d = server.describe(name);
      assert.ok(line.startsWith(`- ${d.signature} -> {key: str, index: int, words: list[str]}`), line);
      assert.ok(line.endsWith(`: ${d.summary}`), line);
    }
    // A "model" that read only the listing: call by signature, read the listed output fields.
    const r = await server.execute(
      { id: "u" },
      'def main():\n    r = notes.get_3(key="k")\n    return [r["index"], r["words"]]\n',
    );
    assert.deepEqual(r, [3, ["k", "3"]]);
  } finally {
    await server.close();
  }
});

Deno.test("listing: off by option, and a catalog past the budget is not listed", async () => {
  const small = await catalog(3).build();
  const large = await catalog(60).build();
  try {
    assert.equal(listed(await executeDescription(small)).size, 3);
    assert.equal(listed(await executeDescription(small, { catalogListingBytes: false })).size, 0);
    assert.equal(listed(await executeDescription(small, { catalogListingBytes: -1 })).size, 0);
    // 60 capabilities do not fit 4 KiB, not even as signatures: none is listed (never a part).
    assert.equal(listed(await executeDescription(large)).size, 0);
    // A larger budget lists them all, signatures only when the outputs do not fit.
    const wide = await executeDescription(large, { catalogListingBytes: 6000 });
    assert.equal(listed(wide).size, 60);
    assert.match(wide, /describe_api shows the fields a call returns/);
    assert.equal(listed(await executeDescription(large, { catalogListingBytes: 100_000 })).size, 60);
  } finally {
    await small.close();
    await large.close();
  }
});

Deno.test("listing: deno task serve lists the demo catalog; --no-catalog-listing turns it off", async () => {
  for (const [flags, expected] of [[[], 11], [["--no-catalog-listing"], 0]] as const) {
    const client = await connectStdio(["--executor", "inline", ...flags]);
    try {
      const tools = (await client.listTools()).tools;
      const description = tools.find((x) => x.name === "execute")!.description!;
      const lines = listed(description);
      assert.equal(lines.size, expected, description);
      if (expected > 0) {
        assert.match(lines.get("crm.customer")!, /^- crm\.customer\(\*, id: str\) -> \{id: str, name: str/);
        const d = await client.callTool({ name: "describe_api", arguments: { name: "inventory.stock" } });
        const signature = (d.structuredContent as { signature: string }).signature;
        assert.ok(lines.get("inventory.stock")!.startsWith(`- ${signature} -> `));
      }
    } finally {
      await client.close();
    }
  }
});

Deno.test("listing: the round-trip figures docs/mcp.md states are what bench/round_trips.ts measures", async () => {
  const doc = Deno.readTextFileSync(new URL("../../docs/mcp.md", import.meta.url)).replace(/\s+/g, " ");
  const m = /(\w+) tasks take (\d+) tool calls without the listing and (\d+) with it/.exec(doc);
  assert.ok(m !== null, "docs/mcp.md states the figures");
  const words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
  const measured = await roundTrips();
  assert.deepEqual(
    { tasks: words.indexOf(m[1]), before: Number(m[2]), after: Number(m[3]) },
    measured,
  );
  // One execute per task with the listing: no discovery call is left.
  assert.equal(measured.after, measured.tasks);
});
