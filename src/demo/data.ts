/**
 * The demo catalog's in-memory data: a small outdoor-gear shop with customers, products, stock in two
 * warehouses, orders and shipments. Fixed dates keep every answer reproducible.
 *
 * @module
 */

/** A customer record. */
export interface Customer {
  /** Customer id, `c-NNN`. */
  readonly id: string;
  /** Full name. */
  readonly name: string;
  /** Contact e-mail. */
  readonly email: string;
  /** Loyalty tier. */
  readonly tier: "standard" | "silver" | "gold";
  /** Home city. */
  readonly city: string;
  /** Customer since (ISO date). */
  readonly since: string;
}

/** A product of the catalog. */
export interface Product {
  /** Stock keeping unit. */
  readonly sku: string;
  /** Display name. */
  readonly name: string;
  /** Category. */
  readonly category: string;
  /** Unit price in EUR. */
  readonly price: number;
}

/** One order line. */
export interface OrderLine {
  /** Product SKU. */
  readonly sku: string;
  /** Units ordered. */
  readonly quantity: number;
}

/** An order. */
export interface Order {
  /** Order id, `o-NNNN`. */
  readonly id: string;
  /** Ordering customer. */
  readonly customerId: string;
  /** Lifecycle status. */
  readonly status: "open" | "paid" | "shipped" | "delivered" | "cancelled";
  /** Placement date (ISO). */
  readonly placedOn: string;
  /** Lines. */
  readonly lines: readonly OrderLine[];
}

/** A shipment event. */
export interface TrackingEvent {
  /** ISO date-time. */
  readonly at: string;
  /** Where it happened. */
  readonly location: string;
  /** What happened. */
  readonly status: string;
}

/** A shipment of one order. */
export interface Shipment {
  /** The shipped order. */
  readonly orderId: string;
  /** Carrier name. */
  readonly carrier: string;
  /** Current status. */
  readonly status: "in_transit" | "delivered" | "delayed";
  /** Estimated delivery date, when known. */
  readonly eta: string | null;
  /** History, oldest first. */
  readonly events: readonly TrackingEvent[];
}

/** The customers. */
export const CUSTOMERS: readonly Customer[] = [
  {
    id: "c-101",
    name: "Ada Lindqvist",
    email: "ada@example.com",
    tier: "gold",
    city: "Stockholm",
    since: "2019-04-02",
  },
  {
    id: "c-102",
    name: "Bruno Martins",
    email: "bruno@example.com",
    tier: "silver",
    city: "Lisbon",
    since: "2021-09-14",
  },
  {
    id: "c-103",
    name: "Chiara Russo",
    email: "chiara@example.com",
    tier: "standard",
    city: "Milan",
    since: "2023-01-20",
  },
  {
    id: "c-104",
    name: "Deniz Kaya",
    email: "deniz@example.com",
    tier: "gold",
    city: "Berlin",
    since: "2018-11-30",
  },
  {
    id: "c-105",
    name: "Emeka Obi",
    email: "emeka@example.com",
    tier: "standard",
    city: "Dublin",
    since: "2024-03-08",
  },
  {
    id: "c-106",
    name: "Freya Nilsen",
    email: "freya@example.com",
    tier: "silver",
    city: "Oslo",
    since: "2022-06-17",
  },
];

/** The products. */
export const PRODUCTS: readonly Product[] = [
  { sku: "TENT-2P", name: "Ridge 2-person tent", category: "tents", price: 249.0 },
  { sku: "TENT-4P", name: "Basecamp 4-person tent", category: "tents", price: 399.0 },
  { sku: "BAG-M10", name: "Alpine sleeping bag -10C", category: "sleeping", price: 189.5 },
  { sku: "PAD-AIR", name: "Inflatable sleeping pad", category: "sleeping", price: 79.9 },
  { sku: "STOVE-G", name: "Compact gas stove", category: "cooking", price: 54.0 },
  { sku: "POT-SET", name: "Titanium pot set", category: "cooking", price: 69.0 },
  { sku: "LAMP-H", name: "Rechargeable head lamp", category: "lighting", price: 39.9 },
  { sku: "PACK-45", name: "Trail backpack 45 L", category: "packs", price: 159.0 },
  { sku: "JACK-RN", name: "Waterproof rain jacket", category: "clothing", price: 129.0 },
];

/** Units on hand and reserved per SKU and warehouse. */
export const STOCK: Readonly<Record<string, Readonly<Record<string, readonly [number, number]>>>> = {
  "TENT-2P": { "Hamburg": [14, 3], "Lyon": [6, 1] },
  "TENT-4P": { "Hamburg": [2, 2], "Lyon": [0, 0] },
  "BAG-M10": { "Hamburg": [22, 4], "Lyon": [9, 0] },
  "PAD-AIR": { "Hamburg": [40, 6], "Lyon": [31, 2] },
  "STOVE-G": { "Hamburg": [3, 1], "Lyon": [1, 1] },
  "POT-SET": { "Hamburg": [18, 0], "Lyon": [12, 2] },
  "LAMP-H": { "Hamburg": [55, 5], "Lyon": [47, 3] },
  "PACK-45": { "Hamburg": [0, 0], "Lyon": [4, 4] },
  "JACK-RN": { "Hamburg": [11, 2], "Lyon": [7, 0] },
};

/** The orders. */
export const ORDERS: readonly Order[] = [
  {
    id: "o-5001",
    customerId: "c-101",
    status: "delivered",
    placedOn: "2025-05-03",
    lines: [{ sku: "TENT-2P", quantity: 1 }, { sku: "PAD-AIR", quantity: 2 }],
  },
  {
    id: "o-5002",
    customerId: "c-102",
    status: "shipped",
    placedOn: "2025-06-11",
    lines: [{ sku: "BAG-M10", quantity: 1 }],
  },
  {
    id: "o-5003",
    customerId: "c-101",
    status: "shipped",
    placedOn: "2025-06-14",
    lines: [{ sku: "STOVE-G", quantity: 1 }, { sku: "POT-SET", quantity: 1 }],
  },
  {
    id: "o-5004",
    customerId: "c-104",
    status: "paid",
    placedOn: "2025-06-15",
    lines: [{ sku: "TENT-4P", quantity: 1 }, { sku: "LAMP-H", quantity: 4 }],
  },
  {
    id: "o-5005",
    customerId: "c-103",
    status: "open",
    placedOn: "2025-06-16",
    lines: [{ sku: "JACK-RN", quantity: 2 }],
  },
  {
    id: "o-5006",
    customerId: "c-104",
    status: "open",
    placedOn: "2025-06-17",
    lines: [{ sku: "PACK-45", quantity: 1 }, { sku: "BAG-M10", quantity: 2 }],
  },
  {
    id: "o-5007",
    customerId: "c-106",
    status: "cancelled",
    placedOn: "2025-06-02",
    lines: [{ sku: "LAMP-H", quantity: 1 }],
  },
  {
    id: "o-5008",
    customerId: "c-105",
    status: "paid",
    placedOn: "2025-06-18",
    lines: [{ sku: "STOVE-G", quantity: 2 }],
  },
  {
    id: "o-5009",
    customerId: "c-101",
    status: "open",
    placedOn: "2025-06-19",
    lines: [{ sku: "TENT-4P", quantity: 1 }],
  },
];

/** The shipments. */
export const SHIPMENTS: readonly Shipment[] = [
  {
    orderId: "o-5001",
    carrier: "NordPost",
    status: "delivered",
    eta: null,
    events: [
      { at: "2025-05-04T09:12:00Z", location: "Hamburg", status: "picked up" },
      { at: "2025-05-06T15:40:00Z", location: "Stockholm", status: "delivered" },
    ],
  },
  {
    orderId: "o-5002",
    carrier: "IberFast",
    status: "in_transit",
    eta: "2025-06-21",
    events: [
      { at: "2025-06-12T08:05:00Z", location: "Lyon", status: "picked up" },
      { at: "2025-06-14T19:30:00Z", location: "Madrid", status: "at hub" },
    ],
  },
  {
    orderId: "o-5003",
    carrier: "NordPost",
    status: "delayed",
    eta: "2025-06-24",
    events: [
      { at: "2025-06-15T10:00:00Z", location: "Hamburg", status: "picked up" },
      { at: "2025-06-17T07:45:00Z", location: "Malmo", status: "held: weather" },
    ],
  },
];

/** Euro exchange rates (units of the currency per EUR). */
export const EUR_RATES: Readonly<Record<string, number>> = {
  EUR: 1,
  USD: 1.08,
  GBP: 0.85,
  SEK: 11.42,
  NOK: 11.61,
  CHF: 0.96,
  JPY: 168.9,
};
