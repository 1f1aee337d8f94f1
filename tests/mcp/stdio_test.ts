/**
 * End to end over stdio: a real SDK client spawns the real serve CLI (demo catalog, worker executor)
 * and runs Starlark programs through it.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEMO_PROGRAM, runDemo } from "../../examples/demo.ts";
import { BAD_ARGUMENT_TEXTS, ERROR_TEXTS, UNKNOWN_TOOL_TEXT } from "../../mcp.ts";
import { childEnv, cliArgs, connectStdio, jsonLines, openingMessages, spawnStdioCli } from "./cli_helpers.ts";

type CallResult = Awaited<ReturnType<Client["callTool"]>>;

function textOf(r: CallResult): string {
  const content = r.content as { type: string; text: string }[];
  assert.equal(content.length, 1);
  return content[0].text;
}

async function execute(client: Client, source: string): Promise<CallResult> {
  return await client.callTool({ name: "execute", arguments: { source } });
}

Deno.test("stdio: tools, search, describe and a composed program against the demo catalog", async () => {
  const client = await connectStdio();
  try {
    assert.equal(client.getServerVersion()?.name, "codemode");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["search_api", "describe_api", "execute"]);
    for (const t of tools) {
      assert.equal(t.inputSchema.additionalProperties, false);
      assert.equal((t.inputSchema.required ?? []).length, 1);
      assert.ok(t.outputSchema);
    }

    const search = await client.callTool({ name: "search_api", arguments: { query: "where is my order" } });
    const results = (search.structuredContent as { results: { name: string }[] }).results;
    assert.equal(results[0].name, "shipping.track");
    assert.deepEqual(JSON.parse(textOf(search)), search.structuredContent);

    const exact = await client.callTool({ name: "search_api", arguments: { query: "fx.convert" } });
    assert.equal((exact.structuredContent as { results: { name: string }[] }).results[0].name, "fx.convert");

    const d = await client.callTool({ name: "describe_api", arguments: { name: "inventory.stock" } });
    assert.deepEqual(d.structuredContent, {
      name: "inventory.stock",
      signature: "inventory.stock(*, sku: str)",
      summary: "Check stock on hand, reserved and available units of a product per warehouse",
      description: "Check stock on hand, reserved and available units of a product per warehouse",
      input: [{ name: "sku", type: "str", required: true }],
      output: [
        { name: "sku", type: "str", required: true },
        { name: "available_total", type: "int", required: true },
        {
          name: "warehouses",
          type: "list[{warehouse: str, on_hand: int, reserved: int, available: int}]",
          required: true,
        },
      ],
    });

    const run = await execute(client, DEMO_PROGRAM);
    assert.equal(run.isError, undefined, textOf(run));
    const report =
      (run.structuredContent as { result: { customer: string; late_shipments: unknown[] }[] }).result;
    assert.deepEqual(report.map((r) => r.customer), ["Deniz Kaya", "Ada Lindqvist"]);
    assert.deepEqual(report[1].late_shipments, [{
      order: "o-5003",
      eta: "2025-06-24",
      last: "held: weather",
    }]);

    const restock = await execute(
      client,
      `def main():
    low = []
    for p in shop.products.search(query="")["products"]:
        s = inventory.stock(sku=p["sku"])
        if s["available_total"] < 5:
            low.append((p["sku"], s["available_total"]))
    return {"low": low, "n": len(low), "pi": math.floor(math.pi * 100), "j": json.encode({"b": 1, "a": [2]})}
`,
    );
    assert.deepEqual(restock.structuredContent, {
      result: {
        low: [["TENT-4P", 0], ["STOVE-G", 2], ["PACK-45", 0]],
        n: 3,
        pi: 314,
        j: '{"a":[2],"b":1}',
      },
    });

    // Tickets persist in the server between executions.
    const open = await execute(
      client,
      'def main():\n    return support.tickets.open(customer_id="c-103", subject="Jacket leaks", priority="high")\n',
    );
    assert.deepEqual(open.structuredContent, {
      result: { ticket_id: "t-9001", status: "open", priority: "high" },
    });
    const list = await execute(client, 'def main():\n    return support.tickets.list(customer_id="c-103")\n');
    assert.equal((list.structuredContent as { result: { tickets: unknown[] } }).result.tickets.length, 1);
  } finally {
    await client.close();
  }
});

Deno.test("stdio: classified errors from the real engine are fixed texts", async () => {
  const client = await connectStdio();
  try {
    const cases: [string, RegExp][] = [
      ["def main(:\n    return 1\n", /^invalid program: .+/],
      ["x = 1\n", /^invalid program: .*main/],
      ["def main():\n    return undefined_name\n", /^invalid program: .*undefined_name/],
      ['def main():\n    return crm.customer("c-101")\n', /^invalid arguments: .+/],
      ["def main():\n    return crm.customer(id=101)\n", /^invalid arguments: .+/],
      [
        'def main():\n    return crm.customer(id="c-999")\n',
        /^capability failed: crm\.customer: no customer with id "c-999"$/,
      ],
      [
        "def main():\n    return [x for x in range(10000000)]\n",
        /^resource limit exceeded: max(ExecutionSteps|MemoryBytes) exceeded \(limit: [\d,]+ (steps|bytes)\)/,
      ],
      [
        "def main():\n    return " + "1 + ".repeat(20_000) + "1\n",
        /^resource limit exceeded: the program is 80,025 bytes: maxSourceBytes exceeded/,
      ],
    ];
    for (const [source, expected] of cases) {
      const r = await execute(client, source);
      assert.equal(r.isError, true, source.slice(0, 60));
      assert.match(textOf(r), expected, source.slice(0, 60));
    }
    const missing = await client.callTool({ name: "describe_api", arguments: { name: "crm.Customer" } });
    assert.equal(textOf(missing), ERROR_TEXTS.not_found);
    const bad = await client.callTool({ name: "execute", arguments: { source: 1 } });
    assert.equal(textOf(bad), BAD_ARGUMENT_TEXTS.execute);
    await assert.rejects(
      () => client.callTool({ name: "exec", arguments: { source: "x" } }),
      (e: Error) => e.message.includes(UNKNOWN_TOOL_TEXT),
    );
    // The server still works after every failure.
    const ok = await execute(client, "def main():\n    return 1 + 1\n");
    assert.deepEqual(ok.structuredContent, { result: 2 });
  } finally {
    await client.close();
  }
});

Deno.test("deno task demo runs the whole session", async () => {
  const lines: string[] = [];
  const result = await runDemo((line) => lines.push(line));
  const out = lines.join("\n");
  for (
    const step of ["== tools/list", "== search_api", "== describe_api", "== execute", "== classified errors"]
  ) {
    assert.ok(out.includes(step), `demo prints ${step}`);
  }
  assert.match(out, /capability failed: shipping\.track: order "o-5005" has no shipment/);
  assert.match(out, /invalid arguments: /);
  assert.match(out, /capability not found/);
  assert.equal((result as unknown[]).length, 2);
});

Deno.test("stdio: closing stdin still answers the calls already sent, then the server exits 0", async () => {
  const child = spawnStdioCli();
  const lines = jsonLines([
    ...openingMessages("pipe"),
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "execute",
        arguments: { source: 'def main():\n    return crm.customer(id="c-105")["city"]\n' },
      },
    },
  ]);
  const writer = child.stdin.getWriter();
  await writer.write(lines);
  await writer.close();
  const out = await new Response(child.stdout).text();
  const status = await child.status;
  assert.equal(status.code, 0);
  const answers = out.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(answers.map((a) => a.id), [1, 2]);
  assert.deepEqual(answers[1].result.structuredContent, { result: "Dublin" });
});

Deno.test("stdio: a failing capability leaves a structured log line with its cause on stderr", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(["--executor", "inline"]),
    env: childEnv(),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const call = {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: {
      name: "execute",
      arguments: { source: 'def main():\n    return shipping.track(order_id="o-5005")\n' },
    },
  };
  const writer = child.stdin.getWriter();
  await writer.write(jsonLines([...openingMessages("log-test"), call]));
  await writer.close(); // the session ends once the call is answered
  const out = await child.output();
  assert.equal(out.code, 0);
  const records = new TextDecoder().decode(out.stderr).split("\n").filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  const failure = records.find((r) => r.phase === "handler");
  assert.ok(failure, JSON.stringify(records));
  assert.equal(failure.code, "capability_failure");
  assert.equal(failure.capability, "shipping.track");
  assert.equal(failure.subject, "local");
  assert.match(failure.cause, /o-5005/, "the operator sees the handler's own message");
  assert.ok(!Number.isNaN(Date.parse(failure.ts)));
  const end = records.find((r) => r.phase === "execute");
  assert.equal(end?.execution_id, failure.execution_id);
});
