import assert from "node:assert/strict";
import { checkRegistration } from "./capability.ts";
import { buildCatalog, type CatalogResult, MAX_REGISTRATIONS, METADATA_BUDGET_BYTES } from "./catalog.ts";
import { isCodeModeError } from "../errors.ts";
import { t } from "./types.ts";

function cap(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, summary: `Summary of ${name}`, output: t.struct({}), handler: () => ({}), ...extra };
}

function build(defs: unknown[], disabled?: unknown): CatalogResult {
  return buildCatalog(defs.map((d, i) => checkRegistration(d, i)), disabled);
}

Deno.test("a clean catalog keeps registration order and stubs", () => {
  const r = build([cap("b.two", { input: t.struct({ x: t.int() }) }), cap("a.one")]);
  assert.deepEqual(r.diagnostics, []);
  const c = r.catalog!;
  assert.deepEqual(c.entries.map((e) => e.name), ["b.two", "a.one"]);
  assert.deepEqual(c.stubs.map((s) => s.name), ["b.two", "a.one"]);
  assert.deepEqual(c.stubs[0].input.fields.map((f) => f.name), ["x"]);
  assert.equal(c.stubs[0].output.kind, "struct");
  assert.equal(c.indexOf("a.one"), 1);
  assert.equal(c.describe("a.one").signature, "a.one()");
});

Deno.test("duplicate names and IDs name both registrations", () => {
  const d =
    build([cap("a.x"), cap("a.x"), cap("b.y", { id: "shared" }), cap("c.z", { id: "shared" })]).diagnostics;
  assert.deepEqual(d, [
    'capability "a.x" (registration 2): id "a.x" is already used by capability "a.x" (registration 1)',
    'capability "a.x" (registration 2): name is already registered by capability "a.x" (registration 1)',
    'capability "c.z" (registration 4): id "shared" is already used by capability "b.y" (registration 3)',
  ]);
});

Deno.test("an explicit ID may not equal another capability's defaulted ID", () => {
  const d = build([cap("a.x"), cap("b.y", { id: "a.x" })]).diagnostics;
  assert.equal(d.length, 1);
  assert.match(d[0], /registration 2\): id "a\.x" is already used by capability "a\.x" \(registration 1\)/);
});

Deno.test("a complete name cannot also be another capability's namespace", () => {
  const d = build([cap("a.b.c"), cap("a.b"), cap("a.bc"), cap("x.y.z.w"), cap("x.y")]).diagnostics;
  assert.deepEqual(d, [
    'capability "a.b" (registration 2): name is also the namespace of capability "a.b.c" (registration 1)',
    'capability "x.y" (registration 5): name is also the namespace of capability "x.y.z.w" (registration 4)',
  ]);
});

Deno.test("case-distinct names do not collide", () => {
  assert.deepEqual(build([cap("a.b"), cap("A.b")]).diagnostics, []);
});

Deno.test("registration ceiling: 4,096 pass, 4,097 fail", () => {
  const defs = Array.from({ length: MAX_REGISTRATIONS }, (_, i) => cap(`n${i}.op`));
  assert.deepEqual(build(defs).diagnostics, []);
  defs.push(cap("extra.op"));
  const d = build(defs).diagnostics;
  assert.equal(d.length, 1);
  assert.match(d[0], /4097 capabilities registered; at most 4096/);
});

Deno.test("aggregate metadata budget counts raw bytes before filtering", () => {
  const long = "d".repeat(900_000);
  const defs = [0, 1, 2, 3].map((i) => cap(`m${i}.op`, { description: long }));
  assert.deepEqual(build(defs).diagnostics, []);
  defs.push(cap("m4.op", { description: long }));
  const d = build(defs, ["m4.op", "m3.op"]).diagnostics; // disabling does not reduce the accounting
  assert.equal(d.length, 1);
  assert.match(d[0], new RegExp(`totals \\d+ bytes; the build budget is ${METADATA_BUDGET_BYTES}`));
});

Deno.test("disabled IDs: filtering, unknown and repeated IDs", () => {
  const r = build([cap("a.x", { id: "id-a" }), cap("b.y")], ["id-a"]);
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.catalog!.entries.map((e) => e.name), ["b.y"]);
  assert.throws(() => r.catalog!.describe("a.x"), (e) => isCodeModeError(e, "not_found"));
  assert.deepEqual(r.catalog!.search("x", { maxSearchQueryBytes: 256, maxSearchResults: 20 }).results, []);
  // The name is not the filter identity when an explicit ID exists.
  assert.deepEqual(build([cap("a.x", { id: "id-a" })], ["a.x"]).diagnostics, [
    'disabledCapabilities: "a.x" does not match a registered capability ID',
  ]);
  assert.deepEqual(build([cap("a.x")], ["a.x", "a.x"]).diagnostics, [
    'disabledCapabilities: "a.x" is listed more than once',
  ]);
  assert.deepEqual(build([cap("a.x")], "a.x").diagnostics, [
    "disabledCapabilities must be an array of capability IDs",
  ]);
  assert.deepEqual(build([cap("a.x")], [3]).diagnostics, ["disabledCapabilities: 3 is not a string"]);
  assert.deepEqual(build([cap("a.x")], ["a.x"]).catalog!.entries, []);
});

Deno.test("single-result fit check applies to enabled capabilities only", () => {
  // 12 + 20 bytes of envelope + {"name":"f.x","signature":"f.x()","summary":"..."}: 48 bytes of keys and name.
  const envelope = 32 + JSON.stringify({ name: "f.x", signature: "f.x()", summary: "" }).length;
  const fits = "s".repeat(65_536 - envelope);
  assert.deepEqual(build([cap("f.x", { summary: fits })]).diagnostics, []);
  const tooBig = fits + "s";
  const d = build([cap("f.x", { summary: tooBig })]).diagnostics;
  assert.equal(d.length, 1);
  assert.match(
    d[0],
    /capability "f\.x" \(registration 1\): its search result is 65505 bytes of JSON and cannot fit/,
  );
  assert.deepEqual(
    build([cap("f.x", { summary: tooBig })], ["f.x"]).diagnostics,
    [],
    "disabled: not checked",
  );
  // Input field names count through the signature.
  const fields = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`field_number_${i}`, t.str()]));
  assert.equal(build([cap("g.x", { input: t.struct(fields) })]).diagnostics.length, 1);
});

Deno.test("every problem is reported in one pass", () => {
  const d =
    build([cap("a.b"), cap("a.b.c"), cap("list.x"), cap("q.r", { summary: "" })], ["nope"]).diagnostics;
  assert.equal(d.length, 4);
});
