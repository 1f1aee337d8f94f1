/**
 * What a program prints comes back (issue 26): with the value (`Server.run`, `ExecuteOptions.onOutput`)
 * and with every failure (`CodeModeError.output`), bounded to the last 8 KiB with how much was dropped,
 * charged to the memory budget, on every executor — the output crosses the worker's and the sandbox
 * process's protocol. Also: a program's own `fail()` reads as a failure, not as an invalid program.
 */
import assert from "node:assert/strict";
import {
  allowAll,
  Builder,
  CodeModeError,
  type ExecutorChoice,
  type Limits,
  type Server,
  t,
} from "../../mod.ts";
import { createMcpServer, errorText, staticSubject } from "../../mcp.ts";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";

const U = { id: "user-1" };
const EXECUTORS: readonly ExecutorChoice[] = ["inline", "worker", "process"];

async function server(executor: ExecutorChoice, limits: Partial<Limits> = {}): Promise<Server> {
  const builder = new Builder({ authorizer: allowAll(), executor, limits });
  builder.register({
    name: "crm.customer",
    summary: "A customer",
    input: t.struct({ id: t.str() }),
    output: t.struct({ name: t.str() }),
    handler: ({ id }) => ({ name: `name of ${id}` }),
  });
  builder.register({
    name: "crm.broken",
    summary: "Always fails",
    output: t.struct({}),
    handler: () => {
      throw new Error("down");
    },
  });
  return await builder.build();
}

async function rejection(p: Promise<unknown>): Promise<CodeModeError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof CodeModeError, `expected a CodeModeError, got ${e}`);
    return e;
  }
  assert.fail("expected the execution to fail");
}

for (const executor of EXECUTORS) {
  Deno.test(`${executor}: print output comes back with the value, in order, across native calls`, async () => {
    await using s = await server(executor);
    const src = `
print("top level")
def main():
    c = crm.customer(id = "c-1")
    print("got", c["name"], 3, [1, "é"])
    for i in range(3):
        print("step %d" % i, sep = "-")
    return c["name"]
`;
    const seen: string[] = [];
    const r = await s.run(U, src, { onOutput: (o) => seen.push(o) });
    const want = 'top level\ngot name of c-1 3 [1, "é"]\nstep 0\nstep 1\nstep 2\n';
    assert.deepEqual(r, { value: "name of c-1", output: want });
    assert.deepEqual(seen, [want]);
    // Nothing printed: no output at all.
    assert.deepEqual(await s.run(U, "def main():\n    return 1\n"), { value: 1 });
    assert.equal(await s.execute(U, 'def main():\n    print("x")\n    return 2\n'), 2);
  });

  Deno.test(`${executor}: every kind of failure carries what was printed before it`, async () => {
    await using s = await server(executor, { maxExecutionSteps: 20_000, maxNativeCalls: 2 });
    const cases: [string, string, string][] = [
      ['def main():\n    print("before")\n    return 1 // 0\n', "invalid_program", "before\n"],
      ['def main():\n    print("a")\n    fail("customer missing")\n', "invalid_program", "a\n"],
      ['def main():\n    print("b")\n    crm.customer(idd = "x")\n', "invalid_arguments", "b\n"],
      ['def main():\n    print("c")\n    crm.broken()\n', "capability_failure", "c\n"],
      [
        'def main():\n    print("d")\n    for i in range(3):\n        crm.customer(id = "x")\n',
        "resource_limit",
        "d\n",
      ],
      ['def main():\n    print("e")\n    for i in range(100000):\n        pass\n', "resource_limit", "e\n"],
      ['def main():\n    print("f")\n    return print\n', "invalid_program", "f\n"],
    ];
    for (const [src, code, output] of cases) {
      const e = await rejection(s.execute(U, src));
      assert.equal(e.code, code, src);
      assert.equal(e.output, output, src);
    }
    // A failure before the program ran prints nothing.
    const syntax = await rejection(s.execute(U, "def main(:\n"));
    assert.equal(syntax.output, undefined);
  });

  Deno.test(`${executor}: printed output is bounded to the last 8 KiB with the count dropped`, async () => {
    await using s = await server(executor, { maxExecutionSteps: 10_000_000, maxMemoryBytes: 64 << 20 });
    // 2,000 lines of 100 bytes (with the newline): 200,000 bytes printed, 8,192 kept.
    const src = `
def main():
    for i in range(2000):
        print(str(100000 + i) + "x" * 93)
    return "done"
`;
    const r = await s.run(U, src);
    assert.equal(r.value, "done");
    const dropped = 200_000 - 8_192;
    const [head, ...rest] = r.output!.split("\n");
    assert.equal(head, `[${dropped} bytes dropped]`);
    const kept = rest.join("\n");
    assert.equal(new TextEncoder().encode(kept).length, 8_192);
    assert.ok(kept.endsWith("101999" + "x".repeat(93) + "\n"));
    // A multi-byte character cut at the boundary is dropped whole.
    const wide = await s.run(U, 'def main():\n    print("é" * 5000)\n    return 0\n');
    const [h, body] = wide.output!.split("\n", 2);
    const n = Number(/^\[(\d+) bytes dropped\]$/.exec(h)![1]);
    assert.equal(n + new TextEncoder().encode(body + "\n").length, 10_001);
    assert.ok(/^é+$/.test(body));
  });

  Deno.test(`${executor}: printing in a loop is charged to the memory budget`, async () => {
    await using s = await server(executor, {
      maxExecutionSteps: 50_000_000,
      maxExecutionTime: 30_000,
      maxMemoryBytes: 8 << 20,
    });
    // 100 MB of printing: ends at the memory budget (8 MiB), long before 100 MB.
    const src =
      'def main():\n    s = "y" * 10000\n    for i in range(10000):\n        print(s)\n    return 1\n';
    const e = await rejection(s.execute(U, src));
    assert.equal(e.code, "resource_limit");
    assert.match(e.message + (e.detail ?? ""), /maxMemoryBytes/);
    assert.ok(e.output !== undefined && e.output.length <= 8_192 + 64);
    assert.match(e.output, /^\[\d+ bytes dropped\]\ny{10000}|^\[\d+ bytes dropped\]\ny+\n$/);
  });

  Deno.test(`${executor}: fail() reads as the program's failure`, async () => {
    await using s = await server(executor);
    const e = await rejection(
      s.execute(U, 'def check(c):\n    fail("customer", "missing")\ndef main():\n    check(1)\n'),
    );
    assert.equal(e.code, "invalid_program");
    assert.equal(e.message, "program failed: customer missing (main.star:2:9 in check)");
    assert.equal(errorText(e), "program failed: customer missing (main.star:2:9 in check)");
    // A misuse of fail is an ordinary mistake of the program.
    const misuse = await rejection(s.execute(U, 'def main():\n    fail("x", sep = 1)\n'));
    assert.match(errorText(misuse), /^invalid program: .*fail: for parameter "sep"/);
  });
}

Deno.test("MCP execute: output in structuredContent (declared by the output schema), its text mirror and errors", async () => {
  await using s = await server("worker");
  const mcp = createMcpServer(s, staticSubject({ id: "u" }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "print", version: "1.0.0" });
  try {
    await mcp.connect(serverSide);
    await client.connect(clientSide);
    const tool = (await client.listTools()).tools.find((x) => x.name === "execute")!;
    assert.equal((tool.outputSchema!.properties as Record<string, { type?: string }>).output.type, "string");
    const ok = await client.callTool({
      name: "execute",
      arguments: {
        source: 'def main():\n    print("checking", 1)\n    print("tab\\there\\x01")\n    return 7\n',
      },
    });
    // Control characters other than tab and newline do not reach a client.
    assert.deepEqual(ok.structuredContent, { result: 7, output: "checking 1\ntab\there\n" });
    const content = ok.content as { type: string; text: string }[];
    assert.deepEqual(JSON.parse(content[0].text), ok.structuredContent);
    const quiet = await client.callTool({
      name: "execute",
      arguments: { source: "def main():\n    return 1\n" },
    });
    assert.deepEqual(quiet.structuredContent, { result: 1 });
    const failed = await client.callTool({
      name: "execute",
      arguments: { source: 'def main():\n    print("c = 12")\n    fail("customer missing")\n' },
    });
    assert.equal(failed.isError, true);
    assert.equal(
      (failed.content as { text: string }[])[0].text,
      "program failed: customer missing (main.star:3:9 in main)\n\nprinted output:\nc = 12\n",
    );
  } finally {
    await client.close();
  }
});
