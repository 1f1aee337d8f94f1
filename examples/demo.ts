/**
 * `deno task demo`: a realistic MCP session against the demo server. It starts `deno task serve` as a
 * subprocess over stdio, connects the official SDK client and prints each step: the tool list, a search,
 * two descriptions, one program that composes several capabilities, and classified errors.
 *
 * ```sh
 * deno task demo
 * ```
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** The program the demo sends: gold customers' spending, open orders and late shipments, in USD. */
export const DEMO_PROGRAM = `def main():
    report = []
    gold = crm.customers.search(query="gold")["customers"]
    for customer in gold:
        orders = shop.orders.list(customer_id=customer["id"])["orders"]
        spent = sum([o["total_eur"] for o in orders if o["status"] != "cancelled"])
        late = []
        for o in orders:
            if o["status"] == "shipped":
                track = shipping.track(order_id=o["id"])
                if track["status"] == "delayed":
                    late.append({"order": o["id"], "eta": track["eta"], "last": track["events"][-1]["status"]})
        usd = fx.convert(amount=spent, from_currency="EUR", to_currency="USD")
        report.append({
            "customer": customer["name"],
            "orders": len(orders),
            "open": [o["id"] for o in orders if o["status"] == "open"],
            "spent_usd": usd["amount"],
            "late_shipments": late,
        })
    return sorted(report, key=lambda r: -r["spent_usd"])
`;

/** A program that fails: the order has not shipped, so the capability reports a failure. */
export const FAILING_PROGRAM = `def main():
    return shipping.track(order_id="o-5005")
`;

/** A program that calls a capability with a positional argument. */
export const POSITIONAL_PROGRAM = `def main():
    return crm.customer("c-101")
`;

/** How to start the demo server: the current Deno running the serve CLI on stdio. */
export function serverCommand(): { command: string; args: string[]; cwd: string } {
  const root = new URL("..", import.meta.url);
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--config",
      new URL("deno.json", root).pathname,
      "--allow-read",
      "--allow-env",
      new URL("src/mcp/serve_cli.ts", root).pathname,
    ],
    cwd: root.pathname,
  };
}

type Print = (line: string) => void;

function show(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function resultText(result: Record<string, unknown>): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

/** Runs the whole session, printing each step with `print`. Returns the result of the composed program. */
export async function runDemo(print: Print = console.log): Promise<unknown> {
  const { command, args, cwd } = serverCommand();
  const env: Record<string, string> = { ...getDefaultEnvironment(), NO_COLOR: "1" };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir !== undefined) env.DENO_DIR = denoDir;
  const transport = new StdioClientTransport({ command, args, cwd, env, stderr: "pipe" });
  const client = new Client({ name: "codemode-demo", version: "1.0.0" });
  const started = performance.now();
  await client.connect(transport);
  try {
    const info = client.getServerVersion();
    print(`== connected to ${info?.name} ${info?.version} over stdio`);

    const { tools } = await client.listTools();
    print(`\n== tools/list (${(performance.now() - started).toFixed(0)} ms after start)`);
    for (const tool of tools) {
      const arg = Object.keys(tool.inputSchema.properties ?? {})[0];
      print(`  ${tool.name}(${arg}: string) — ${tool.title}`);
    }

    const query = "customer orders shipment";
    print(`\n== search_api {query: "${query}"}`);
    const search = await client.callTool({ name: "search_api", arguments: { query } });
    for (
      const r of (search.structuredContent as { results: { signature: string; summary: string }[] }).results
    ) {
      print(`  ${r.signature}\n      ${r.summary}`);
    }

    for (const name of ["shop.orders.list", "shipping.track"]) {
      print(`\n== describe_api {name: "${name}"}`);
      const d = await client.callTool({ name: "describe_api", arguments: { name } });
      const desc = d.structuredContent as { signature: string; output: { name: string; type: string }[] };
      print(`  ${desc.signature}`);
      print(`  returns {${desc.output.map((f) => `${f.name}: ${f.type}`).join(", ")}}`);
    }

    print("\n== execute: one program composing crm, shop, shipping and fx");
    print(DEMO_PROGRAM.trimEnd().replace(/^/gm, "  | "));
    const t0 = performance.now();
    const run = await client.callTool({ name: "execute", arguments: { source: DEMO_PROGRAM } });
    if (run.isError) throw new Error(`the demo program failed: ${resultText(run)}`);
    const result = (run.structuredContent as { result: unknown }).result;
    print(`  result (${(performance.now() - t0).toFixed(0)} ms):`);
    print(show(result).replace(/^/gm, "  "));

    print("\n== classified errors (isError: true, one fixed text per error code)");
    for (const source of [FAILING_PROGRAM, POSITIONAL_PROGRAM]) {
      const r = await client.callTool({ name: "execute", arguments: { source } });
      print(`  ${source.split("\n")[1].trim()}\n    -> ${resultText(r)}`);
    }
    const missing = await client.callTool({
      name: "describe_api",
      arguments: { name: "crm.delete_everything" },
    });
    print(`  describe_api {name: "crm.delete_everything"}\n    -> ${resultText(missing)}`);
    return result;
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  try {
    await runDemo();
  } catch (err) {
    console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(1);
  }
}
