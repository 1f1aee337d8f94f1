/**
 * The demo catalog behind `deno task serve` and `deno task demo`: eleven capabilities of a small
 * outdoor-gear shop over in-memory data (customers, orders, products, stock, shipments, support tickets,
 * weather and currency conversion), so a new user can try search, describe and execute at once. It is
 * also the reference for registering capabilities with good summaries and search terms.
 *
 * @module
 */
// Only the public API, as a host application would write it.
import {
  allowAll,
  type Authorizer,
  Builder,
  CapabilityError,
  type ErrorHook,
  type ExecutorChoice,
  type Limits,
  type Server,
  t,
} from "../../mod.ts";
import {
  type Customer,
  CUSTOMERS,
  EUR_RATES,
  type Order,
  ORDERS,
  PRODUCTS,
  SHIPMENTS,
  STOCK,
} from "./data.ts";

function fail(message: string): never {
  // Demo messages name only what the program asked for, so they are safe to show the model.
  throw new CapabilityError(message, { safeForModel: true });
}

function customerById(id: string): Customer {
  return CUSTOMERS.find((c) => c.id === id) ?? fail(`no customer with id "${id}"`);
}

function priceOf(sku: string): number {
  return PRODUCTS.find((p) => p.sku === sku)?.price ?? 0;
}

function orderTotal(order: Order): number {
  const cents = order.lines.reduce((sum, l) => sum + Math.round(priceOf(l.sku) * 100) * l.quantity, 0);
  return cents / 100;
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w !== "");
}

function matches(query: string, ...fields: string[]): boolean {
  const hay = fields.join(" ").toLowerCase();
  return words(query).every((w) => hay.includes(w));
}

function clampLimit(limit: number | null | undefined, fallback: number): number {
  if (limit === null || limit === undefined) return fallback;
  if (limit < 1 || limit > 100) fail("limit must be between 1 and 100");
  return limit;
}

/** A tiny deterministic hash, so the same city always gets the same forecast. */
function seed(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

const CONDITIONS = ["sunny", "partly cloudy", "cloudy", "light rain", "showers", "windy"] as const;
const FORECAST_START = Date.UTC(2025, 5, 20);

const customerShape = t.struct({
  id: t.str(),
  name: t.str(),
  email: t.str(),
  tier: t.str(),
  city: t.str(),
});

const orderSummary = t.struct({
  id: t.str(),
  customer_id: t.str(),
  status: t.str(),
  placed_on: t.str(),
  total_eur: t.float(),
});

/** A support ticket opened through the demo (kept per server). */
interface Ticket {
  id: string;
  customerId: string;
  orderId: string | undefined;
  subject: string;
  priority: string;
  openedBy: string;
}

/**
 * Registers the demo capabilities on `builder`. Support tickets live in memory per call of this
 * function, so two servers never share them.
 */
export function registerDemoCapabilities(builder: Builder): Builder {
  const tickets: Ticket[] = [];

  builder.register({
    id: "demo.crm.customers.search",
    name: "crm.customers.search",
    summary: "Find customers by name, e-mail, city or loyalty tier",
    description: "Returns customers whose name, e-mail, city or tier contain every word of the query " +
      "(case-insensitive), in id order, at most `limit` (default 10).",
    searchTerms: ["find client", "look up buyer", "customer list", "account holder"],
    input: t.struct({ query: t.str(), limit: t.optional(t.int()) }),
    output: t.struct({ customers: t.list(customerShape) }),
    handler: ({ query, limit }) => ({
      customers: CUSTOMERS.filter((c) => matches(query, c.name, c.email, c.city, c.tier))
        .slice(0, clampLimit(limit, 10))
        .map(({ id, name, email, tier, city }) => ({ id, name, email, tier, city })),
    }),
  });

  builder.register({
    id: "demo.crm.customer",
    name: "crm.customer",
    summary: "Get one customer's profile by customer id",
    description: "Returns the profile of a customer (id like c-101): name, e-mail, tier, city and the date " +
      "they became a customer. Fails when the id is unknown.",
    searchTerms: ["client profile", "customer details", "account info"],
    input: t.struct({ id: t.str() }),
    output: t.struct({
      id: t.str(),
      name: t.str(),
      email: t.str(),
      tier: t.str(),
      city: t.str(),
      since: t.str(),
    }),
    handler: ({ id }) => ({ ...customerById(id) }),
  });

  builder.register({
    id: "demo.shop.orders.list",
    name: "shop.orders.list",
    summary: "List orders, optionally for one customer or with one status",
    description: "Lists orders newest first with their EUR totals. Filter by customer_id (c-101) and by " +
      "status: open, paid, shipped, delivered or cancelled. At most `limit` (default 20).",
    searchTerms: ["purchase history", "sales", "open orders", "order status"],
    input: t.struct({
      customer_id: t.optional(t.str()),
      status: t.optional(t.str()),
      limit: t.optional(t.int()),
    }),
    output: t.struct({ orders: t.list(orderSummary) }),
    handler: ({ customer_id, status, limit }) => {
      if (customer_id !== undefined && customer_id !== null) customerById(customer_id);
      const statuses = ["open", "paid", "shipped", "delivered", "cancelled"];
      if (status !== undefined && status !== null && !statuses.includes(status)) {
        fail(`unknown status "${status}"; use one of ${statuses.join(", ")}`);
      }
      const orders = ORDERS.filter((o) =>
        (customer_id == null || o.customerId === customer_id) && (status == null || o.status === status)
      ).toSorted((a, b) => b.placedOn.localeCompare(a.placedOn) || b.id.localeCompare(a.id));
      return {
        orders: orders.slice(0, clampLimit(limit, 20)).map((o) => ({
          id: o.id,
          customer_id: o.customerId,
          status: o.status,
          placed_on: o.placedOn,
          total_eur: orderTotal(o),
        })),
      };
    },
  });

  builder.register({
    id: "demo.shop.orders.get",
    name: "shop.orders.get",
    summary: "Get one order with its lines, unit prices and total",
    description: "Returns an order (id like o-5001) with each line's SKU, quantity and unit price in EUR, " +
      "and the order total. Fails when the id is unknown.",
    searchTerms: ["order details", "order lines", "invoice amount"],
    input: t.struct({ id: t.str() }),
    output: t.struct({
      id: t.str(),
      customer_id: t.str(),
      status: t.str(),
      placed_on: t.str(),
      lines: t.list(t.struct({ sku: t.str(), quantity: t.int(), unit_price_eur: t.float() })),
      total_eur: t.float(),
    }),
    handler: ({ id }) => {
      const o = ORDERS.find((x) => x.id === id) ?? fail(`no order with id "${id}"`);
      return {
        id: o.id,
        customer_id: o.customerId,
        status: o.status,
        placed_on: o.placedOn,
        lines: o.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, unit_price_eur: priceOf(l.sku) })),
        total_eur: orderTotal(o),
      };
    },
  });

  builder.register({
    id: "demo.shop.products.search",
    name: "shop.products.search",
    summary: "Search the product catalog by words and category",
    description: "Returns products whose name, SKU or category contain every word of the query; pass an " +
      "empty query to list a whole category. Categories: tents, sleeping, cooking, lighting, packs, clothing.",
    searchTerms: ["catalog", "item price", "merchandise", "sku lookup"],
    input: t.struct({ query: t.str(), category: t.optional(t.str()) }),
    output: t.struct({
      products: t.list(t.struct({ sku: t.str(), name: t.str(), category: t.str(), price_eur: t.float() })),
    }),
    handler: ({ query, category }) => ({
      products: PRODUCTS.filter((p) =>
        matches(query, p.name, p.sku, p.category) && (category == null || p.category === category)
      ).map((p) => ({ sku: p.sku, name: p.name, category: p.category, price_eur: p.price })),
    }),
  });

  builder.register({
    id: "demo.inventory.stock",
    name: "inventory.stock",
    summary: "Check stock on hand, reserved and available units of a product per warehouse",
    searchTerms: ["availability", "in stock", "warehouse levels", "units available"],
    input: t.struct({ sku: t.str() }),
    output: t.struct({
      sku: t.str(),
      available_total: t.int(),
      warehouses: t.list(
        t.struct({ warehouse: t.str(), on_hand: t.int(), reserved: t.int(), available: t.int() }),
      ),
    }),
    handler: ({ sku }) => {
      const levels = STOCK[sku] ?? fail(`unknown sku "${sku}"`);
      const warehouses = Object.entries(levels).map(([warehouse, [onHand, reserved]]) => ({
        warehouse,
        on_hand: onHand,
        reserved,
        available: onHand - reserved,
      }));
      return { sku, available_total: warehouses.reduce((s, w) => s + w.available, 0), warehouses };
    },
  });

  builder.register({
    id: "demo.shipping.track",
    name: "shipping.track",
    summary: "Track the shipment of an order: carrier, status, ETA and scan events",
    description: "Returns the carrier, the status (in_transit, delivered or delayed), the estimated " +
      "delivery date (None once delivered) and the scan history of an order's shipment. Fails when the " +
      "order has not shipped.",
    searchTerms: ["delivery status", "parcel tracking", "where is my order", "shipment eta"],
    input: t.struct({ order_id: t.str() }),
    output: t.struct({
      order_id: t.str(),
      carrier: t.str(),
      status: t.str(),
      eta: t.nullable(t.str()),
      events: t.list(t.struct({ at: t.str(), location: t.str(), status: t.str() })),
    }),
    handler: ({ order_id }) => {
      const s = SHIPMENTS.find((x) => x.orderId === order_id) ?? fail(`order "${order_id}" has no shipment`);
      return {
        order_id: s.orderId,
        carrier: s.carrier,
        status: s.status,
        eta: s.eta,
        events: s.events.map((e) => ({ ...e })),
      };
    },
  });

  builder.register({
    id: "demo.support.tickets.open",
    name: "support.tickets.open",
    summary: "Open a customer support ticket, optionally about one order",
    description:
      "Creates a ticket for a customer with a subject and priority (low, normal or high; default " +
      "normal) and returns its id. Tickets are kept in memory by this demo server.",
    searchTerms: ["create case", "complaint", "help desk", "escalate issue"],
    input: t.struct({
      customer_id: t.str(),
      subject: t.str(),
      order_id: t.optional(t.str()),
      priority: t.optional(t.str()),
    }),
    output: t.struct({ ticket_id: t.str(), status: t.str(), priority: t.str() }),
    handler: ({ customer_id, subject, order_id, priority }, { subject: caller }) => {
      customerById(customer_id);
      if (order_id != null && !ORDERS.some((o) => o.id === order_id)) fail(`no order with id "${order_id}"`);
      const p = priority ?? "normal";
      if (!["low", "normal", "high"].includes(p)) fail(`priority must be low, normal or high`);
      if (subject.trim() === "" || subject.length > 200) fail("subject must be 1 to 200 characters");
      const ticket: Ticket = {
        id: `t-${9001 + tickets.length}`,
        customerId: customer_id,
        orderId: order_id ?? undefined,
        subject,
        priority: p,
        openedBy: caller.id,
      };
      tickets.push(ticket);
      return { ticket_id: ticket.id, status: "open", priority: p };
    },
  });

  builder.register({
    id: "demo.weather.forecast",
    name: "weather.forecast",
    summary: "Daily weather forecast for a city: high, low, conditions and rain",
    description: "Returns a deterministic demo forecast for the next `days` days (1 to 7, default 3) " +
      "starting 2025-06-20, temperatures in Celsius and precipitation in millimetres.",
    searchTerms: ["temperature", "rain outlook", "climate conditions"],
    input: t.struct({ city: t.str(), days: t.optional(t.int()) }),
    output: t.struct({
      city: t.str(),
      days: t.list(t.struct({
        date: t.str(),
        high_c: t.float(),
        low_c: t.float(),
        condition: t.str(),
        precipitation_mm: t.float(),
      })),
    }),
    handler: ({ city, days }) => {
      const n = days ?? 3;
      if (n < 1 || n > 7) fail("days must be between 1 and 7");
      if (city.trim() === "") fail("city must not be empty");
      const base = seed(city.trim().toLowerCase());
      return {
        city: city.trim(),
        days: Array.from({ length: n }, (_, i) => {
          const r = seed(`${base}:${i}`);
          const high = 14 + (r % 140) / 10;
          const condition = CONDITIONS[(r >>> 8) % CONDITIONS.length];
          const wet = condition === "light rain" || condition === "showers";
          return {
            date: new Date(FORECAST_START + i * 86_400_000).toISOString().slice(0, 10),
            high_c: high,
            low_c: Math.round((high - 6 - ((r >>> 4) % 40) / 10) * 10) / 10,
            condition,
            precipitation_mm: wet ? ((r >>> 12) % 120) / 10 : 0,
          };
        }),
      };
    },
  });

  builder.register({
    id: "demo.fx.convert",
    name: "fx.convert",
    summary: "Convert an amount of money between currencies at fixed demo rates",
    description: "Converts `amount` from one ISO currency code to another (EUR, USD, GBP, SEK, NOK, CHF, " +
      "JPY) and returns the rounded amount and the rate used.",
    searchTerms: ["exchange rate", "currency conversion", "money in dollars"],
    input: t.struct({ amount: t.float(), from_currency: t.str(), to_currency: t.str() }),
    output: t.struct({ amount: t.float(), currency: t.str(), rate: t.float() }),
    handler: ({ amount, from_currency, to_currency }) => {
      const from = EUR_RATES[from_currency.toUpperCase()] ?? fail(`unknown currency "${from_currency}"`);
      const to = EUR_RATES[to_currency.toUpperCase()] ?? fail(`unknown currency "${to_currency}"`);
      const rate = to / from;
      return {
        amount: Math.round(amount * rate * 100) / 100,
        currency: to_currency.toUpperCase(),
        rate: Math.round(rate * 1e6) / 1e6,
      };
    },
  });

  builder.register({
    id: "demo.support.tickets.list",
    name: "support.tickets.list",
    summary: "List the support tickets opened on this server, optionally for one customer",
    searchTerms: ["open cases", "help desk queue"],
    input: t.struct({ customer_id: t.optional(t.str()) }),
    output: t.struct({
      tickets: t.list(t.struct({
        ticket_id: t.str(),
        customer_id: t.str(),
        order_id: t.nullable(t.str()),
        subject: t.str(),
        priority: t.str(),
      })),
    }),
    handler: ({ customer_id }) => ({
      tickets: tickets.filter((x) => customer_id == null || x.customerId === customer_id).map((x) => ({
        ticket_id: x.id,
        customer_id: x.customerId,
        order_id: x.orderId ?? null,
        subject: x.subject,
        priority: x.priority,
      })),
    }),
  });

  return builder;
}

/** Options of {@link buildDemoServer}. */
export interface DemoServerOptions {
  /** Which executor runs programs (default `"worker"`). */
  readonly executor?: ExecutorChoice;
  /** Budget overrides. */
  readonly limits?: Partial<Limits>;
  /** Decides every native call (default `allowAll()`). */
  readonly authorizer?: Authorizer;
  /** Receives every failure with its cause (the CLIs log them as JSON lines). */
  readonly onError?: ErrorHook;
}

/** Builds a server holding only the demo catalog. */
export async function buildDemoServer(options: DemoServerOptions = {}): Promise<Server> {
  const builder = new Builder({
    authorizer: options.authorizer ?? allowAll(),
    executor: options.executor,
    limits: options.limits,
    onError: options.onError,
  });
  registerDemoCapabilities(builder);
  return await builder.build();
}
