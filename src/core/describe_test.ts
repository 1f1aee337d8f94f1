import assert from "node:assert/strict";
import { describeCapability, fieldShapes, notation, signature } from "./describe.ts";
import { t } from "./types.ts";

Deno.test("signatures: keyword-only marker, ordered fields, ends at )", () => {
  assert.equal(
    signature("records.lookup", t.struct({ key: t.str(), limit: t.optional(t.int()) })),
    "records.lookup(*, key: str, limit: int | None)",
  );
  assert.equal(signature("records.status", t.struct({})), "records.status()");
  assert.equal(
    signature(
      "x.y",
      t.struct({ a: t.float(), b: t.bool(), c: t.nullable(t.str()), d: t.optional(t.bool()) }),
    ),
    "x.y(*, a: float, b: bool, c: str | None, d: bool | None)",
  );
  assert.equal(
    signature(
      "g.h",
      t.struct({ items: t.list(t.struct({ id: t.int(), note: t.optional(t.str()) })), m: t.dict(t.int()) }),
    ),
    "g.h(*, items: list[{id: int, note?: str | None}], m: dict[str, int])",
  );
});

Deno.test("input field shapes: optional → | None and required false; nullable stays required", () => {
  assert.deepEqual(
    fieldShapes(t.struct({ key: t.str(), limit: t.optional(t.int()), n: t.nullable(t.float()) }), "input"),
    [
      { name: "key", type: "str", required: true },
      { name: "limit", type: "int | None", required: false },
      { name: "n", type: "float | None", required: true },
    ],
  );
});

Deno.test("output notation, character for character", () => {
  assert.equal(
    notation(t.list(t.struct({ title: t.str(), score: t.float() })), "output"),
    "list[{title: str, score: float}]",
  );
  assert.equal(notation(t.dict(t.bool()), "output"), "dict[str, bool]");
  assert.equal(
    notation(t.struct({ value: t.str(), detail: t.optional(t.str()) }), "output"),
    "{value: str, detail?: str}",
  );
  assert.equal(notation(t.nullable(t.list(t.nullable(t.str()))), "output"), "list[str | None] | None");
  assert.equal(
    notation(t.nullable(t.nullable(t.int())), "output"),
    "int | None",
    "repeated layers append | None once",
  );
  assert.equal(notation(t.optional(t.nullable(t.int())), "output"), "int | None");
  assert.equal(
    notation(t.list(t.optional(t.str())), "output"),
    "list[str | None]",
    "optional outside a field = nullable",
  );
  assert.equal(notation(t.struct({}), "output"), "{}");
  assert.equal(
    notation(
      t.struct({ a: t.optional(t.nullable(t.str())), b: t.nullable(t.dict(t.list(t.int()))) }),
      "output",
    ),
    "{a?: str | None, b: dict[str, list[int]] | None}",
  );
});

Deno.test("root output shapes: optional → required false without | None; nullable → | None", () => {
  const out = t.struct({
    key: t.str(),
    count: t.int(),
    detail: t.optional(t.str()),
    maybe: t.nullable(t.str()),
    both: t.optional(t.nullable(t.int())),
    tags: t.nullable(t.list(t.nullable(t.str()))),
    nested: t.struct({ value: t.str(), detail: t.optional(t.str()) }),
  });
  assert.deepEqual(fieldShapes(out, "output"), [
    { name: "key", type: "str", required: true },
    { name: "count", type: "int", required: true },
    { name: "detail", type: "str", required: false },
    { name: "maybe", type: "str | None", required: true },
    { name: "both", type: "int | None", required: false },
    { name: "tags", type: "list[str | None] | None", required: true },
    { name: "nested", type: "{value: str, detail?: str}", required: true },
  ]);
});

Deno.test("describeCapability is frozen and complete", () => {
  const d = describeCapability({
    name: "records.lookup",
    summary: "Look up",
    description: "Look up one record.",
    input: t.struct({ key: t.str(), limit: t.optional(t.int()) }),
    output: t.struct({ key: t.str(), count: t.int() }),
  });
  assert.deepEqual(d, {
    name: "records.lookup",
    signature: "records.lookup(*, key: str, limit: int | None)",
    summary: "Look up",
    description: "Look up one record.",
    input: [{ name: "key", type: "str", required: true }, {
      name: "limit",
      type: "int | None",
      required: false,
    }],
    output: [{ name: "key", type: "str", required: true }, { name: "count", type: "int", required: true }],
  });
  assert.ok(Object.isFrozen(d) && Object.isFrozen(d.input) && Object.isFrozen(d.output[0]));
  assert.equal(
    JSON.stringify(Object.keys(d)),
    '["name","signature","summary","description","input","output"]',
  );
});
