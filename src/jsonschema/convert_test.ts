import assert from "node:assert/strict";
import { type JsonObject, type JsonValue, mapSchema, SchemaContext } from "./mod.ts";
import { notation } from "../core/describe.ts";

const components: JsonObject = {
  Pet: {
    type: "object",
    required: ["id"],
    properties: { id: { type: "integer" }, "pet-tag": { type: "string" } },
  },
  Named: { type: "object", properties: { name: { type: "string" } } },
  Both: { allOf: [{ $ref: "#/components/Pet" }, { $ref: "#/components/Named" }] },
  Clash: { allOf: [{ $ref: "#/components/Pet" }, { $ref: "#/components/Pet" }] },
  Tree: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/components/Tree" } } } },
  Maybe: { type: "string", nullable: true },
};

function ctx(): SchemaContext {
  return new SchemaContext((ref) =>
    ref.startsWith("#/components/") ? components[ref.slice("#/components/".length)] : undefined
  );
}

function typeOf(schema: JsonValue, context?: SchemaContext): string {
  return notation(mapSchema(schema, 0, context).type, "input");
}

Deno.test("jsonschema: without a context $ref and allOf stay json (the gateway's behaviour)", () => {
  assert.equal(typeOf({ $ref: "#/components/Pet" }), "json");
  assert.equal(typeOf({ allOf: [{ type: "object", properties: { a: { type: "string" } } }] }), "json");
  assert.equal(typeOf({ type: "string", nullable: true }), "str");
});

Deno.test("jsonschema: with a context, refs resolve, allOf merges, nullable and cycles are typed", () => {
  assert.equal(typeOf({ $ref: "#/components/Pet" }, ctx()), "{id: int, pet_tag?: str | None}");
  assert.equal(
    typeOf({ $ref: "#/components/Both" }, ctx()),
    "{id: int, pet_tag?: str | None, name?: str | None}",
  );
  // Two branches declaring one property cannot merge into one struct.
  assert.equal(typeOf({ $ref: "#/components/Clash" }, ctx()), "json");
  assert.equal(typeOf({ $ref: "#/components/Maybe" }, ctx()), "str | None");
  assert.equal(typeOf({ $ref: "#/components/Tree" }, ctx()), "{kids?: list[json] | None}");
  assert.equal(typeOf({ $ref: "#/components/Missing" }, ctx()), "json");
  assert.equal(typeOf({ $ref: "https://elsewhere.example/x.json" }, ctx()), "json");
  assert.equal(typeOf({ oneOf: [{ $ref: "#/components/Maybe" }, { type: "null" }] }, ctx()), "str | None");
});

Deno.test("jsonschema: a resolved target is mapped once and its renames kept", () => {
  const c = ctx();
  const a = mapSchema({ $ref: "#/components/Pet" }, 0, c);
  const b = mapSchema({ $ref: "#/components/Pet" }, 3, c);
  assert.equal(a, b);
  assert.equal(a.rename?.fields?.get("pet_tag")?.key, "pet-tag");
});
