/**
 * Tool calls a model needs to finish the demo tasks, before and after the catalog is listed in the
 * `execute` description. A scripted "model" drives the real serve CLI (`deno task serve`, stdio) with the
 * official SDK client: for each task it reads the execute description, and only for a capability whose
 * signature is not listed there it calls `search_api` (once per capability) and `describe_api`, then it
 * runs the task's program with one `execute`. Each program must succeed, so the count is of finished tasks.
 *
 * ```sh
 * deno run -A bench/round_trips.ts          # listing off (--no-catalog-listing) vs on (the default)
 * ```
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connectStdio } from "../tests/mcp/cli_helpers.ts";

/** One demo task: what it needs, how the model would search for each, and the program it runs. */
interface Task {
  readonly task: string;
  /** Capability name → the words a model searches with to find it. */
  readonly needs: Readonly<Record<string, string>>;
  readonly program: string;
}

const TASKS: readonly Task[] = [
  {
    task: "open orders over 100 EUR",
    needs: { "shop.orders.list": "open orders" },
    program: `def main():
    orders = shop.orders.list(status="open")["orders"]
    return sorted([o["id"] for o in orders if o["total_eur"] > 100])`,
  },
  {
    task: "available units of TENT-2P",
    needs: { "inventory.stock": "stock available" },
    program: `def main():
    return inventory.stock(sku="TENT-2P")["available_total"]`,
  },
  {
    task: "where is c-101's latest shipped order",
    needs: { "shop.orders.list": "customer orders", "shipping.track": "track shipment" },
    program: `def main():
    latest = shop.orders.list(customer_id="c-101", status="shipped", limit=1)["orders"][0]
    t = shipping.track(order_id=latest["id"])
    return {"order": latest["id"], "status": t["status"], "carrier": t["carrier"]}`,
  },
  {
    task: "3-day forecast for the city of customer c-102",
    needs: { "crm.customer": "customer profile", "weather.forecast": "weather forecast" },
    program: `def main():
    city = crm.customer(id="c-102")["city"]
    days = weather.forecast(city=city, days=3)["days"]
    return [[d["date"], d["high_c"]] for d in days]`,
  },
  {
    task: "total of order o-5001 in USD",
    needs: { "shop.orders.get": "order lines", "fx.convert": "convert currency" },
    program: `def main():
    total = shop.orders.get(id="o-5001")["total_eur"]
    return fx.convert(amount=total, from_currency="EUR", to_currency="USD")["amount"]`,
  },
  {
    task: "open a ticket for c-103 about their latest order",
    needs: { "shop.orders.list": "customer orders", "support.tickets.open": "open support ticket" },
    program: `def main():
    order = shop.orders.list(customer_id="c-103", limit=1)["orders"][0]["id"]
    return support.tickets.open(customer_id="c-103", subject="Where is my order?", order_id=order)`,
  },
];

/** The capability names whose signatures the execute description lists. */
function listedNames(description: string): Set<string> {
  const section = description.split("Capabilities (the whole catalog you may call")[1] ?? "";
  return new Set(
    section.split("\n").filter((l) => l.startsWith("- ")).map((l) => l.slice(2).split("(")[0]),
  );
}

interface Count {
  search: number;
  describe: number;
  execute: number;
}

async function call(client: Client, name: string, args: Record<string, string>): Promise<void> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${JSON.stringify(r.content)}`);
}

/** Runs every task as the scripted model would, over a fresh server started with `flags`. */
async function run(flags: readonly string[]): Promise<{ perTask: Count[]; descriptionBytes: number }> {
  const client = await connectStdio(["--executor", "inline", ...flags]);
  try {
    const tools = (await client.listTools()).tools;
    const description = tools.find((x) => x.name === "execute")!.description!;
    const listed = listedNames(description);
    const perTask: Count[] = [];
    for (const task of TASKS) {
      const count: Count = { search: 0, describe: 0, execute: 0 };
      for (const [name, words] of Object.entries(task.needs)) {
        if (listed.has(name)) continue;
        count.search++;
        await call(client, "search_api", { query: words });
        count.describe++;
        await call(client, "describe_api", { name });
      }
      count.execute++;
      await call(client, "execute", { source: task.program });
      perTask.push(count);
    }
    return { perTask, descriptionBytes: new TextEncoder().encode(description).length };
  } finally {
    await client.close();
  }
}

function total(counts: readonly Count[]): number {
  return counts.reduce((n, c) => n + c.search + c.describe + c.execute, 0);
}

/** The tool calls the scripted model makes for all the demo tasks, without and with the listing. */
export async function roundTrips(): Promise<{ tasks: number; before: number; after: number }> {
  const before = await run(["--no-catalog-listing"]);
  const after = await run([]);
  return { tasks: TASKS.length, before: total(before.perTask), after: total(after.perTask) };
}

if (import.meta.main) {
  const before = await run(["--no-catalog-listing"]);
  const after = await run([]);
  console.log(`${TASKS.length} demo tasks, tool calls per task (search + describe + execute):`);
  console.log("task                                              before  after");
  TASKS.forEach((t, i) => {
    const b = before.perTask[i], a = after.perTask[i];
    console.log(
      `${t.task.padEnd(50)}${String(b.search + b.describe + b.execute).padStart(6)}` +
        `${String(a.search + a.describe + a.execute).padStart(7)}`,
    );
  });
  console.log(
    `${"total".padEnd(50)}${String(total(before.perTask)).padStart(6)}${
      String(total(after.perTask)).padStart(7)
    }`,
  );
  console.log(
    `execute description: ${before.descriptionBytes} bytes before, ${after.descriptionBytes} bytes after`,
  );
}
