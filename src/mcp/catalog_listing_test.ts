/**
 * Unit tests of the catalog listing: what fits a budget is listed whole (with outputs, else without),
 * what does not is not listed at all, and the budget option's rules.
 */
import assert from "node:assert/strict";
import {
  catalogListing,
  DEFAULT_CATALOG_LISTING_BYTES,
  type ListedCapability,
  listingBudget,
  listingSection,
  MAX_LISTED_CAPABILITIES,
} from "./catalog_listing.ts";

function cap(name: string, summary = `Does ${name}`): ListedCapability {
  return {
    name,
    signature: `${name}(*, id: str, limit: int | None)`,
    summary,
    output: [{ name: "id", type: "str", required: true }, { name: "note", type: "str", required: false }],
  };
}

const bytes = (s: string) => new TextEncoder().encode(s).length;

Deno.test("catalog listing: a small catalog is listed whole, sorted, with outputs and summaries", () => {
  const listing = catalogListing([cap("b.two"), cap("a.one", "Gets\n  one   thing")], 4096)!;
  assert.equal(listing.outputs, true);
  assert.equal(
    listing.lines,
    "- a.one(*, id: str, limit: int | None) -> {id: str, note?: str}: Gets one thing\n" +
      "- b.two(*, id: str, limit: int | None) -> {id: str, note?: str}: Does b.two",
  );
  const section = listingSection(listing);
  assert.match(section, /no search_api or describe_api needed/);
  assert.ok(section.endsWith(`${listing.lines}\n`));
});

Deno.test("catalog listing: the budget decides between full lines, signatures only and nothing", () => {
  for (let n = 1; n <= 40; n += 3) {
    const caps = Array.from({ length: n }, (_, i) => cap(`ns${i}.get_item_${i}`));
    const full = catalogListing(caps, 1_000_000)!;
    const fullBytes = bytes(full.lines) + 1;
    // Exactly at the budget it fits; one byte less falls back to the shorter form.
    assert.equal(catalogListing(caps, fullBytes)?.outputs, true, `n=${n}`);
    const short = catalogListing(caps, fullBytes - 1)!;
    assert.equal(short.outputs, false, `n=${n}`);
    assert.doesNotMatch(short.lines, /->/);
    assert.match(listingSection(short), /describe_api shows the fields/);
    const shortBytes = bytes(short.lines) + 1;
    assert.equal(catalogListing(caps, shortBytes)?.outputs, false);
    assert.equal(catalogListing(caps, shortBytes - 1), undefined, `n=${n}`);
    // Every capability is on its own line, never part of the catalog.
    assert.equal(full.lines.split("\n").length, n);
  }
});

Deno.test("catalog listing: empty, switched off or too many capabilities list nothing", () => {
  assert.equal(catalogListing([], 4096), undefined);
  assert.equal(catalogListing([cap("a.b")], 0), undefined);
  const many = Array.from({ length: MAX_LISTED_CAPABILITIES + 1 }, (_, i) => cap(`n.c${i}`, ""));
  assert.equal(catalogListing(many, 1_000_000), undefined);
  assert.ok(catalogListing(many.slice(1), 1_000_000) !== undefined);
});

Deno.test("catalog listing: the budget option (absent or 0: default, false or negative: off)", () => {
  assert.equal(listingBudget(undefined), DEFAULT_CATALOG_LISTING_BYTES);
  assert.equal(listingBudget(0), DEFAULT_CATALOG_LISTING_BYTES);
  assert.equal(listingBudget(false), 0);
  assert.equal(listingBudget(-1), 0);
  assert.equal(listingBudget(10_000.7), 10_000);
  assert.equal(listingBudget(Number.NaN), DEFAULT_CATALOG_LISTING_BYTES);
});
