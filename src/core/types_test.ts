import assert from "node:assert/strict";
import { type Infer, type InferOutput, t } from "./types.ts";

Deno.test("t builds frozen descriptors in declaration order", () => {
  const s = t.struct({
    key: t.str(),
    limit: t.optional(t.int()),
    tags: t.list(t.nullable(t.float())),
    m: t.dict(t.bool()),
  });
  assert.deepEqual(JSON.parse(JSON.stringify(s)), {
    kind: "struct",
    fields: [
      { name: "key", type: { kind: "str" } },
      { name: "limit", type: { kind: "optional", of: { kind: "int" } } },
      { name: "tags", type: { kind: "list", of: { kind: "nullable", of: { kind: "float" } } } },
      { name: "m", type: { kind: "dict", of: { kind: "bool" } } },
    ],
  });
  assert.ok(Object.isFrozen(s) && Object.isFrozen(s.fields) && Object.isFrozen(s.fields[0]));
  assert.ok(Object.isFrozen(t.str()) && Object.isFrozen(t.list(t.int())));
  assert.equal(t.struct({}).fields.length, 0);
  assert.equal("~shape" in s, false);
});

Deno.test("t.struct rejects non-objects", () => {
  assert.throws(() => t.struct(null as never), TypeError);
  assert.throws(() => t.struct([] as never), TypeError);
});

Deno.test("static inference (compile-time checks)", () => {
  const input = t.struct({ key: t.str(), limit: t.optional(t.int()), tags: t.list(t.nullable(t.str())) });
  const a: Infer<typeof input> = { key: "a", tags: ["x", null] };
  const b: Infer<typeof input> = { key: "a", limit: 2, tags: [] };
  // @ts-expect-error key is required
  const c: Infer<typeof input> = { tags: [] };
  const output = t.struct({ items: t.list(t.int()), detail: t.optional(t.str()), m: t.dict(t.int()) });
  const d: InferOutput<typeof output> = { items: null, m: new Map([["a", 1]]) };
  // @ts-expect-error items must be ints
  const e: InferOutput<typeof output> = { items: ["x"], m: {} };
  assert.ok(a && b && c && d && e);
});
