import assert from "node:assert/strict";
import { bindArguments, convertOutput, safeQuote } from "./binding.ts";
import { type CodeModeError, isCodeModeError } from "./errors.ts";
import { type StructSchema, t } from "./types.ts";

const input = t.struct({
  key: t.str(),
  limit: t.optional(t.int()),
  ratio: t.optional(t.float()),
  on: t.optional(t.bool()),
});

function bindFails(
  args: unknown,
  code: string,
  pattern: RegExp,
  schema: StructSchema = input,
  depth = 32,
): CodeModeError {
  let caught: unknown;
  try {
    bindArguments("records.lookup", schema, args, depth);
  } catch (e) {
    caught = e;
  }
  assert.ok(isCodeModeError(caught, code as never), `expected ${code}, got ${caught}`);
  assert.match(caught.message, pattern);
  return caught;
}

Deno.test("binding builds a handler input and a separate frozen canonical map", () => {
  const args = { key: "a", limit: 2, ratio: 0.5, on: false };
  const { input: bound, canonical } = bindArguments("records.lookup", input, args, 32);
  assert.deepEqual(bound, args);
  assert.deepEqual(canonical, args);
  assert.notEqual(bound, canonical);
  assert.notEqual(bound, args);
  assert.ok(Object.isFrozen(canonical) && !Object.isFrozen(bound));
});

Deno.test("omitted optionals and explicit None are absent from both projections", () => {
  for (
    const args of [{ key: "a" }, { key: "a", limit: null, ratio: null, on: null }, {
      key: "a",
      limit: undefined,
    }]
  ) {
    const { input: bound, canonical } = bindArguments("records.lookup", input, args, 32);
    assert.deepEqual(Object.keys(bound), ["key"]);
    assert.deepEqual(Object.keys(canonical), ["key"]);
  }
});

Deno.test("positional, unknown and missing arguments are invalid_arguments with a model-safe detail", () => {
  const e = bindFails(["a"], "invalid_arguments", /positional arguments are not accepted/);
  assert.equal(e.detail, e.message);
  bindFails("a", "invalid_arguments", /must be keyword arguments/);
  bindFails(
    { key: "a", nope: 1 },
    "invalid_arguments",
    /^records\.lookup: unexpected keyword argument "nope"$/,
  );
  bindFails({}, "invalid_arguments", /^records\.lookup: missing required argument "key"$/);
  bindFails({ limit: 1 }, "invalid_arguments", /missing required argument "key"/);
  const hostile = bindFails(
    { key: "a", ["x\u202e\u0000" + "y".repeat(100)]: 1 },
    "invalid_arguments",
    /unexpected keyword/,
  );
  assert.ok(
    !hostile.detail!.includes("\u0000") && !hostile.detail!.includes("\u202e"),
    "unprintable text is escaped",
  );
  assert.ok(hostile.detail!.length < 120, "long names are shortened");
});

Deno.test("types are exact: no int→float coercion of bools, no strings for numbers", () => {
  bindFails({ key: 1 }, "invalid_arguments", /argument key must be str, not int/);
  bindFails({ key: null }, "invalid_arguments", /argument key must be str, not NoneType/);
  bindFails({ key: "a", limit: true }, "invalid_arguments", /argument limit must be int or None, not bool/);
  bindFails({ key: "a", limit: 1.5 }, "invalid_arguments", /argument limit must be int or None, not float/);
  bindFails({ key: "a", limit: "1" }, "invalid_arguments", /not str/);
  bindFails({ key: "a", ratio: true }, "invalid_arguments", /argument ratio must be float or None, not bool/);
  bindFails({ key: "a", ratio: "1.0" }, "invalid_arguments", /not str/);
  bindFails({ key: "a", on: 1 }, "invalid_arguments", /argument on must be bool or None, not int/);
  bindFails({ key: "a", ratio: Infinity }, "invalid_arguments", /must be a finite float/);
  bindFails({ key: "a", ratio: NaN }, "invalid_arguments", /must be a finite float/);
});

Deno.test("ints must be safe integers", () => {
  assert.equal(bindArguments("x.y", input, { key: "a", limit: 2 ** 53 - 1 }, 32).input.limit, 2 ** 53 - 1);
  assert.equal(
    bindArguments("x.y", input, { key: "a", limit: -(2 ** 53 - 1) }, 32).input.limit,
    -(2 ** 53 - 1),
  );
  bindFails({ key: "a", limit: 2 ** 53 }, "invalid_arguments", /limit is out of range/);
  bindFails({ key: "a", limit: 2n ** 63n }, "invalid_arguments", /limit is out of range/);
  assert.equal(bindArguments("x.y", input, { key: "a", limit: 5n }, 32).input.limit, 5);
});

Deno.test("composite inputs bind recursively", () => {
  const schema = t.struct({
    items: t.list(t.struct({ id: t.int(), note: t.optional(t.str()), tags: t.nullable(t.list(t.str())) })),
    meta: t.optional(t.dict(t.nullable(t.int()))),
  });
  const args = {
    items: [{ id: 1, note: null, tags: null }, { id: 2, note: "n", tags: ["x"] }],
    meta: { a: 1, b: null },
  };
  const { input: bound, canonical } = bindArguments("g.h", schema, args, 32);
  assert.deepEqual(bound, {
    items: [{ id: 1, tags: null }, { id: 2, note: "n", tags: ["x"] }],
    meta: { a: 1, b: null },
  });
  assert.deepEqual(canonical, bound);
  assert.ok(Object.isFrozen((canonical.items as object[])[0]));
  bindFails(
    { items: [{ id: 1, tags: null, extra: 1 }] },
    "invalid_arguments",
    /unexpected field items\[0\]\."extra"/,
    schema,
  );
  bindFails(
    { items: [{ tags: null }] },
    "invalid_arguments",
    /missing required field items\[0\]\.id/,
    schema,
  );
  bindFails({ items: [{ id: 1 }] }, "invalid_arguments", /missing required field items\[0\]\.tags/, schema);
  bindFails({ items: {} }, "invalid_arguments", /argument items must be list, not dict/, schema);
  bindFails(
    { items: [], meta: { a: "x" } },
    "invalid_arguments",
    /argument meta\["a"\] must be int or None, not str/,
    schema,
  );
});

Deno.test("a __proto__ key is data, never a prototype", () => {
  const schema = t.struct({ m: t.dict(t.int()) });
  const args = JSON.parse('{"m": {"__proto__": 1, "x": 2}}');
  const { input: bound } = bindArguments("g.h", schema, args, 32);
  const m = bound.m as Record<string, number>;
  assert.equal(Object.getPrototypeOf(m), Object.prototype);
  assert.deepEqual(Object.keys(m), ["__proto__", "x"]);
});

Deno.test("argument depth: the map is level 1, checked inclusively", () => {
  const schema = t.struct({ l: t.list(t.list(t.int())) });
  const args = { l: [[1]] }; // map 1, outer list 2, inner list 3, int 4
  bindArguments("g.h", schema, args, 4);
  bindFails(args, "resource_limit", /nested deeper than 3 levels/, schema, 3);
  bindArguments("g.h", t.struct({ a: t.int() }), { a: 1 }, 2);
  bindFails({ a: 1 }, "resource_limit", /deeper than 1/, t.struct({ a: t.int() }), 1);
  bindArguments("g.h", t.struct({}), {}, 1);
});

function convertFails(
  schema: Parameters<typeof convertOutput>[1],
  value: unknown,
  code: string,
  pattern: RegExp,
  depth = 32,
) {
  assert.throws(() => convertOutput("x.y", schema, value, depth), (e) => {
    assert.ok(isCodeModeError(e, code as never), String(e));
    assert.match(e.message, pattern);
    assert.equal(e.detail, undefined);
    return true;
  });
}

Deno.test("output conversion: scalars are checked; extra properties are dropped", () => {
  const out = t.struct({ key: t.str(), count: t.int(), score: t.float(), ok: t.bool() });
  assert.deepEqual(convertOutput("x.y", out, { key: "k", count: 3, score: 1, ok: true, secret: "s" }, 32), {
    key: "k",
    count: 3,
    score: 1,
    ok: true,
  });
  convertFails(
    out,
    { key: "k", count: 1.5, score: 1, ok: true },
    "capability_failure",
    /result\.count must be a safe integer, got non-integer number/,
  );
  convertFails(out, { key: "k", count: 2 ** 53, score: 1, ok: true }, "capability_failure", /unsafe integer/);
  convertFails(
    out,
    { key: "k", count: 1, score: NaN, ok: true },
    "capability_failure",
    /score must be a finite float, got NaN/,
  );
  convertFails(out, { key: "k", count: 1, score: -Infinity, ok: true }, "capability_failure", /got infinity/);
  convertFails(out, { key: "k", count: 1, score: 1, ok: 1 }, "capability_failure", /ok must be bool/);
  convertFails(out, { count: 1, score: 1, ok: true }, "capability_failure", /result\.key is missing/);
  convertFails(out, null, "capability_failure", /result must be an object, got null/);
  convertFails(out, [1], "capability_failure", /got array/);
  assert.equal(convertOutput("x.y", t.struct({ n: t.int() }), { n: 7n }, 32).n, 7);
  convertFails(
    t.struct({ n: t.int() }),
    { n: 2n ** 63n },
    "capability_failure",
    /outside the safe integer range/,
  );
});

Deno.test("output conversion: nil lists and maps become None; optional fields are omitted", () => {
  const out = t.struct({
    items: t.list(t.str()),
    m: t.dict(t.int()),
    detail: t.optional(t.str()),
    maybe: t.nullable(t.str()),
    nested: t.list(t.nullable(t.str())),
    inner: t.struct({ v: t.str(), d: t.optional(t.int()) }),
  });
  assert.deepEqual(
    convertOutput("x.y", out, {
      items: null,
      m: undefined,
      detail: null,
      nested: ["a", null, undefined],
      inner: { v: "v" },
    }, 32),
    { items: null, m: null, maybe: null, nested: ["a", null, null], inner: { v: "v" } },
  );
  assert.deepEqual(
    convertOutput("x.y", out, {
      items: [],
      m: {},
      detail: "d",
      maybe: "m",
      nested: [],
      inner: { v: "v", d: 1 },
    }, 32),
    {
      items: [],
      m: {},
      detail: "d",
      maybe: "m",
      nested: [],
      inner: { v: "v", d: 1 },
    },
  );
});

Deno.test("output conversion: typed arrays, Maps and class instances", () => {
  const out = t.struct({ bytes: t.list(t.int()), m: t.dict(t.bool()), p: t.struct({ x: t.int() }) });
  class Point {
    get x() {
      return 4;
    }
  }
  assert.deepEqual(
    convertOutput(
      "x.y",
      out,
      { bytes: new Uint8Array([0, 255]), m: new Map([["a", true]]), p: new Point() },
      32,
    ),
    {
      bytes: [0, 255],
      m: { a: true },
      p: { x: 4 },
    },
  );
  convertFails(
    out,
    { bytes: [], m: new Map([[1, true]]), p: { x: 1 } },
    "capability_failure",
    /non-string key/,
  );
  convertFails(
    out,
    { bytes: "ab", m: {}, p: { x: 1 } },
    "capability_failure",
    /bytes must be a list, got string/,
  );
  convertFails(out, { bytes: [], m: [], p: { x: 1 } }, "capability_failure", /m must be a dict, got array/);
});

Deno.test("output depth is checked inclusively (the result struct is level 1)", () => {
  const out = t.struct({ l: t.list(t.list(t.int())) });
  convertOutput("x.y", out, { l: [[1]] }, 4);
  convertFails(out, { l: [[1]] }, "resource_limit", /nested deeper than 3 levels/, 3);
  convertOutput("x.y", out, { l: [[]] }, 3);
  convertOutput("x.y", out, { l: null }, 2);
});

Deno.test("strings are made well-formed", () => {
  assert.equal(convertOutput("x.y", t.struct({ s: t.str() }), { s: "a\ud800" }, 32).s, "a\ufffd");
  assert.equal(bindArguments("x.y", t.struct({ s: t.str() }), { s: "\udc00" }, 32).input.s, "\ufffd");
});

Deno.test("safeQuote escapes and shortens", () => {
  assert.equal(safeQuote("abc"), '"abc"');
  assert.equal(safeQuote("a\u202eb"), '"a\\u202eb"');
  assert.equal(safeQuote("x".repeat(50), 4), '"xxxx..."');
});
