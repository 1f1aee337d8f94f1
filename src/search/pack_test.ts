import assert from "node:assert/strict";
import {
  fitsAlone,
  pack,
  RESPONSE_BYTE_CAP,
  RESPONSE_CLOSE_BYTES,
  RESPONSE_OPEN_BYTES,
  resultJSONBytes,
  type SearchResult,
} from "./pack.ts";

const r = (name: string, summary = "s"): SearchResult => ({ name, signature: `${name}()`, summary });

Deno.test("envelope constants match the compact JSON", () => {
  assert.equal(RESPONSE_OPEN_BYTES, '{"results":['.length);
  assert.equal(RESPONSE_CLOSE_BYTES, '],"truncated":false}'.length);
  assert.equal(RESPONSE_BYTE_CAP, 65_536);
  const one = r("a.b", "é");
  assert.equal(resultJSONBytes(one), new TextEncoder().encode(JSON.stringify(one)).length);
  const body = JSON.stringify({ results: [one, one], truncated: false });
  assert.equal(
    new TextEncoder().encode(body).length,
    RESPONSE_OPEN_BYTES + 2 * resultJSONBytes(one) + 1 + RESPONSE_CLOSE_BYTES,
  );
});

Deno.test("packing stops at maxResults", () => {
  const ranked = [r("a.a"), r("b.b"), r("c.c")];
  const bytes = (i: number) => resultJSONBytes(ranked[i]);
  assert.deepEqual(pack(ranked, bytes, 3, 3), { results: ranked, truncated: false });
  assert.deepEqual(pack(ranked, bytes, 3, 2), { results: ranked.slice(0, 2), truncated: true });
  assert.deepEqual(
    pack(ranked.slice(0, 2), bytes, 3, 2),
    { results: ranked.slice(0, 2), truncated: true },
    "more eligible than ranked",
  );
  assert.deepEqual(pack([], bytes, 0, 2), { results: [], truncated: false });
});

Deno.test("packing counts 12 + results + commas + 20 bytes against the cap, exactly", () => {
  const sizes = [100, 50, 10];
  const ranked = sizes.map((_, i) => r(`x.n${i}`));
  const bytes = (i: number) => sizes[i];
  const exact = 12 + 100 + 1 + 50 + 20;
  assert.equal(pack(ranked, bytes, 3, 20, exact).results.length, 2);
  assert.equal(pack(ranked, bytes, 3, 20, exact).truncated, true);
  assert.equal(pack(ranked, bytes, 3, 20, exact - 1).results.length, 1, "one byte short: the comma counts");
  assert.equal(pack(ranked, bytes, 3, 20, exact + 11).results.length, 3, "12 + 100 + 1 + 50 + 1 + 10 + 20");
  assert.equal(pack(ranked, bytes, 3, 20, exact + 10).results.length, 2);
});

Deno.test("packing never skips ahead to a smaller result", () => {
  const sizes = [10, 1000, 5];
  const ranked = sizes.map((_, i) => r(`x.n${i}`));
  const res = pack(ranked, (i) => sizes[i], 3, 20, 12 + 10 + 1 + 999 + 20);
  assert.deepEqual(res.results.map((x) => x.name), ["x.n0"]);
  assert.equal(res.truncated, true);
});

Deno.test("fitsAlone", () => {
  assert.equal(fitsAlone(65_536 - 32), true);
  assert.equal(fitsAlone(65_536 - 31), false);
});

Deno.test("real-size packing against the 64 KiB cap", () => {
  // Each result: {"name":"p.nNN","signature":"p.nNN()","summary":"sss..."}.
  const summary = "s".repeat(20_000);
  const ranked = [0, 1, 2, 3].map((i) => r(`p.n${i}`, summary));
  const each = resultJSONBytes(ranked[0]);
  const res = pack(ranked, () => each, 4, 20);
  assert.equal(res.results.length, 3);
  assert.ok(12 + 3 * each + 2 + 20 <= RESPONSE_BYTE_CAP);
  assert.ok(12 + 4 * each + 3 + 20 > RESPONSE_BYTE_CAP);
  const json = JSON.stringify({ results: res.results, truncated: res.truncated });
  assert.ok(new TextEncoder().encode(json).length <= RESPONSE_BYTE_CAP);
});
