/**
 * The charting library the console serves is the pinned one: the files in `assets/vendor/` are byte
 * for byte those of the `uplot` package deno.json pins (run `deno run -A src/console/vendor.ts` after
 * changing the pin).
 */
import assert from "node:assert/strict";
import { differences, VENDORED } from "./vendor.ts";

Deno.test("vendor: the served uPlot files are the pinned package's", async () => {
  assert.equal(VENDORED.length, 3);
  assert.deepEqual(await differences(), []);
});
