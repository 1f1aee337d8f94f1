/**
 * The demo catalog: it builds, every capability is found by a natural query, and the handlers answer
 * realistic programs (run with the inline executor for speed; the MCP tests use workers).
 */
import assert from "node:assert/strict";
import { isCodeModeError, type Server } from "../../mod.ts";
import { buildDemoServer } from "./catalog.ts";

async function withServer(fn: (server: Server) => Promise<void>): Promise<void> {
  const server = await buildDemoServer({ executor: "inline" });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

const run = (server: Server, body: string) =>
  server.execute({ id: "tester" }, `def main():\n${body.replace(/^/gm, "    ")}\n`);

Deno.test("every demo capability is found first by a natural query", async () => {
  await withServer((server) => {
    const expectations: [string, string][] = [
      ["find a customer by email", "crm.customers.search"],
      ["customer profile", "crm.customer"],
      ["purchase history", "shop.orders.list"],
      ["order lines", "shop.orders.get"],
      ["product price catalog", "shop.products.search"],
      ["units in stock", "inventory.stock"],
      ["where is my order", "shipping.track"],
      ["create a complaint ticket", "support.tickets.open"],
      ["help desk queue", "support.tickets.list"],
      ["rain forecast", "weather.forecast"],
      ["exchange rate dollars", "fx.convert"],
    ];
    for (const [query, name] of expectations) {
      const { results } = server.search(query);
      assert.equal(results[0]?.name, name, `"${query}" -> ${JSON.stringify(results.map((r) => r.name))}`);
    }
    assert.equal(server.search("customer").results.length >= 2, true);
    return Promise.resolve();
  });
});

Deno.test("demo handlers answer programs", async () => {
  await withServer(async (server) => {
    assert.deepEqual(
      await run(server, 'return [c["id"] for c in crm.customers.search(query="silver")["customers"]]'),
      ["c-102", "c-106"],
    );
    assert.deepEqual(
      await run(server, 'return crm.customers.search(query="a", limit=2)["customers"][1]["id"]'),
      "c-102",
    );
    const order = await run(server, 'return shop.orders.get(id="o-5004")') as Record<string, unknown>;
    assert.equal(order.total_eur, 399 + 4 * 39.9);
    assert.deepEqual(
      await run(server, 'return [o["id"] for o in shop.orders.list(status="open")["orders"]]'),
      ["o-5009", "o-5006", "o-5005"],
    );
    assert.deepEqual(
      await run(
        server,
        'return [p["sku"] for p in shop.products.search(query="", category="sleeping")["products"]]',
      ),
      ["BAG-M10", "PAD-AIR"],
    );
    assert.deepEqual(await run(server, 'return inventory.stock(sku="PACK-45")["available_total"]'), 0);
    assert.deepEqual(await run(server, 'return shipping.track(order_id="o-5001")["eta"]'), null);
    const forecast = await run(server, 'return weather.forecast(city="Oslo", days=2)') as {
      days: { date: string; high_c: number; low_c: number }[];
    };
    assert.deepEqual(forecast.days.map((d) => d.date), ["2025-06-20", "2025-06-21"]);
    assert.ok(forecast.days.every((d) => d.low_c < d.high_c));
    assert.deepEqual(
      await run(server, 'return weather.forecast(city="Oslo", days=2)'),
      forecast,
      "deterministic",
    );
    assert.deepEqual(
      await run(server, 'return fx.convert(amount=100.0, from_currency="usd", to_currency="EUR")'),
      {
        amount: 92.59,
        currency: "EUR",
        rate: 0.925926,
      },
    );
    const ticket = await run(
      server,
      't = support.tickets.open(customer_id="c-101", subject="Late parcel", order_id="o-5003")\n' +
        'return [t, support.tickets.list()["tickets"]]',
    );
    assert.deepEqual(ticket, [
      { ticket_id: "t-9001", status: "open", priority: "normal" },
      [{
        ticket_id: "t-9001",
        customer_id: "c-101",
        order_id: "o-5003",
        subject: "Late parcel",
        priority: "normal",
      }],
    ]);
  });
});

Deno.test("demo failures are capability failures with a model-safe detail", async () => {
  await withServer(async (server) => {
    const cases: [string, string][] = [
      ['return crm.customer(id="c-1")', 'no customer with id "c-1"'],
      [
        'return shop.orders.list(status="lost")',
        'unknown status "lost"; use one of open, paid, shipped, delivered, cancelled',
      ],
      ['return inventory.stock(sku="NOPE")', 'unknown sku "NOPE"'],
      ['return weather.forecast(city="Rome", days=30)', "days must be between 1 and 7"],
      ['return fx.convert(amount=1.0, from_currency="EUR", to_currency="XYZ")', 'unknown currency "XYZ"'],
      [
        'return support.tickets.open(customer_id="c-101", subject="x", priority="urgent")',
        "priority must be low, normal or high",
      ],
    ];
    for (const [body, detail] of cases) {
      await assert.rejects(() => run(server, body), (err) => {
        assert.ok(isCodeModeError(err, "capability_failure"), String(err));
        // The detail names the failing capability first (the call's own dotted name).
        const name = /return ([\w.]+)\(/.exec(body)![1];
        assert.equal(err.detail, `${name}: ${detail}`);
        return true;
      });
    }
  });
});

Deno.test("two demo servers keep separate tickets", async () => {
  const a = await buildDemoServer({ executor: "inline" });
  const b = await buildDemoServer({ executor: "inline" });
  try {
    await run(a, 'return support.tickets.open(customer_id="c-102", subject="Zip broken")');
    assert.deepEqual(await run(b, 'return len(support.tickets.list()["tickets"])'), 0);
    assert.deepEqual(await run(a, 'return len(support.tickets.list()["tickets"])'), 1);
  } finally {
    await a.close();
    await b.close();
  }
});
