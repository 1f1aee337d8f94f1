/**
 * A generated document of 2,000 operations builds into 2,000 capabilities and searches like the demo:
 * a few task words find the operation they describe first. (Its build time is measured by
 * bench/openapi_bench.ts, not here.)
 */
import assert from "node:assert/strict";
import { allowAll, Builder, type Executor } from "../../mod.ts";
import { fromOpenAPI } from "../../openapi.ts";
import { AREAS, generatedDocument, NOUNS } from "../../bench/_openapi_doc.ts";

const noExecutor: Executor = { run: () => Promise.resolve(null), close: () => Promise.resolve() };

Deno.test("openapi large: 2,000 operations register and search finds each task's operation first", async () => {
  const builder = new Builder({ authorizer: allowAll(), executor: noExecutor });
  const registered = await fromOpenAPI(generatedDocument(), { builder, baseUrl: "http://127.0.0.1:9" });
  assert.equal(registered.capabilities.length, AREAS.length * NOUNS.length * 5);
  assert.equal(registered.capabilities.length, 2_000);
  const server = await builder.build();
  try {
    const top = (query: string) => server.search(query).results[0]?.name;
    assert.equal(top("delete shipping invoice"), "shipping_invoices.delete_shipping_invoice");
    assert.equal(top("list support tickets"), "support_tickets.list_support_tickets");
    assert.equal(top("create travel booking"), "travel_bookings.create_travel_booking");
    // Every tag is a search term too: one word from a tag finds that resource's operations.
    const fleet = server.search("fleet vehicles").results.map((r) => r.name);
    assert.ok(fleet.slice(0, 5).every((n) => n.startsWith("fleet_vehicles.")), fleet.join(", "));
    const d = server.describe("billing_orders.update_billing_order");
    assert.equal(
      d.signature,
      "billing_orders.update_billing_order(*, orderId: str, name: str | None, status: str | None)",
    );
  } finally {
    await server.close();
  }
});
