import assert from "node:assert/strict";
import { bindArguments, safeQuote } from "./binding.ts";
import { convertOutput } from "./output.ts";
import { type CodeModeError, isCodeModeError } from "../errors.ts";
import { encodeHostValue } from "../executor/host_codec.ts";
import { type StructSchema, t } from "./types.ts";

/** A deep copy of `v` whose objects have a null prototype, as bound inputs are. */
function np(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(np);
  const out = Object.create(null);
  for (const [k, x] of Object.entries(v)) out[k] = np(x);
  return out;
}

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
  assert.deepEqual(bound, np(args));
  assert.deepEqual(canonical, np(args));
  assert.equal(Object.getPrototypeOf(bound), null);
  assert.equal(Object.getPrototypeOf(canonical), null);
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
    /^records\.lookup: unexpected keyword argument "nope"; accepted keyword arguments: key, limit, ratio, on$/,
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
  assert.ok(hostile.detail!.split(";")[0].length < 120, "long names are shortened");
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
  assert.deepEqual(
    bound,
    np({
      items: [{ id: 1, tags: null }, { id: 2, note: "n", tags: ["x"] }],
      meta: { a: 1, b: null },
    }),
  );
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

Deno.test("prototype-named keys are data in both projections, never a prototype", () => {
  const schema = t.struct({
    m: t.dict(t.int()),
    s: t.struct({ ["__proto__"]: t.int(), constructor: t.str() }),
  });
  const args = JSON.parse(
    '{"m": {"__proto__": 1, "constructor": 2, "toString": 3, "hasOwnProperty": 4}, ' +
      '"s": {"__proto__": 5, "constructor": "c"}}',
  );
  const { input: bound, canonical } = bindArguments("g.h", schema, args, 32);
  for (const view of [bound, canonical]) {
    const m = view.m as Record<string, number>;
    assert.equal(Object.getPrototypeOf(m), null);
    assert.deepEqual(Object.keys(m), ["__proto__", "constructor", "toString", "hasOwnProperty"]);
    assert.equal(m.toString, 3, "a program's toString key is a number, not a function");
    assert.equal(m.__proto__, 1);
    const st = view.s as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(st), null);
    assert.deepEqual(Object.entries(st), [["__proto__", 5], ["constructor", "c"]]);
  }
  assert.equal(
    ({} as Record<string, unknown>).toString,
    Object.prototype.toString,
    "no prototype was touched",
  );
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
  bytes?: number,
) {
  assert.throws(() => convertOutput("x.y", schema, value, depth, bytes), (e) => {
    assert.ok(isCodeModeError(e, code as never), String(e));
    assert.match(e.message, pattern);
    // The model learns which capability failed, or which budget its request exceeded, never the value.
    if (code === "capability_failure") assert.equal(e.detail, "x.y: invalid result");
    else {assert.match(
        e.detail ?? "",
        /^x\.y result: maxValue(Bytes|Depth) exceeded \(limit: [\d,]+ (bytes|levels)\)/,
      );}
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

Deno.test("output conversion: typed arrays, Maps and class instances (own fields only)", () => {
  const out = t.struct({ bytes: t.list(t.int()), m: t.dict(t.bool()), p: t.struct({ x: t.int() }) });
  class Point {
    constructor(readonly x: number) {}
  }
  class Getter {
    get x() {
      return 4;
    }
  }
  assert.deepEqual(
    convertOutput(
      "x.y",
      out,
      { bytes: new Uint8Array([0, 255]), m: new Map([["a", true]]), p: new Point(4) },
      32,
    ),
    {
      bytes: [0, 255],
      m: { a: true },
      p: { x: 4 },
    },
  );
  // A prototype getter is not an own property: the field is missing.
  convertFails(out, { bytes: [], m: {}, p: new Getter() }, "capability_failure", /result\.p\.x is missing/);
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

Deno.test("output conversion reads own enumerable properties only", () => {
  const out = t.struct({ key: t.str(), n: t.optional(t.int()) });
  // Inherited and non-enumerable fields are not data.
  convertFails(out, Object.create({ key: "inherited" }), "capability_failure", /result\.key is missing/);
  const hidden = Object.defineProperty({}, "key", { value: "h", enumerable: false });
  convertFails(out, hidden, "capability_failure", /result\.key is missing/);
  const withProto = Object.assign(Object.create({ n: 5 }), { key: "k" });
  assert.deepEqual(convertOutput("x.y", out, withProto, 32), { key: "k" }, "an inherited optional is absent");
  // An own enumerable getter is data and runs once.
  let reads = 0;
  const getter = {
    get key() {
      reads++;
      return "g";
    },
  };
  assert.deepEqual(convertOutput("x.y", out, getter, 32), { key: "g" });
  assert.equal(reads, 1);
  // A dict takes own enumerable string keys: symbols and inherited keys are ignored.
  const dictOut = t.struct({ m: t.dict(t.int()) });
  const m = Object.assign(Object.create({ inherited: 1 }), { a: 1, [Symbol("s")]: 2 });
  assert.deepEqual(convertOutput("x.y", dictOut, { m }, 32), { m: { a: 1 } });
  // Prototype-named keys stay data.
  const parsed = JSON.parse('{"m": {"__proto__": 1, "constructor": 2}}');
  const converted = convertOutput("x.y", dictOut, parsed, 32).m as Record<string, number>;
  assert.deepEqual(Object.keys(converted), ["__proto__", "constructor"]);
  assert.equal(Object.getPrototypeOf(converted), Object.prototype, "the prototype was not replaced");
});

Deno.test("output conversion: what throws while read is capability_failure and keeps the cause", () => {
  const out = t.struct({ key: t.str(), items: t.list(t.int()), m: t.dict(t.int()) });
  const secret = new Error("db password is hunter2");
  const cases: [unknown, RegExp][] = [
    [{
      get key() {
        throw secret;
      },
      items: [],
      m: {},
    }, /result\.key could not be read/],
    [{
      key: "k",
      items: Object.defineProperty([1, 2], 1, {
        get() {
          throw secret;
        },
      }),
      m: {},
    }, /items\[1\]/],
    [{
      key: "k",
      items: [],
      m: {
        get a() {
          throw secret;
        },
      },
    }, /result\.m\["a"\] could not be read/],
  ];
  for (const [value, pattern] of cases) {
    assert.throws(() => convertOutput("x.y", out, value, 32), (e) => {
      assert.ok(isCodeModeError(e, "capability_failure"), String(e));
      assert.match(e.message, pattern);
      assert.doesNotMatch(e.message, /hunter2/);
      assert.equal(e.detail, "x.y: invalid result");
      assert.ok(e.cause !== undefined);
      return true;
    });
  }
  // A Proxy is refused before any of its traps runs (see opaque.ts), revoked or not.
  const revocable = Proxy.revocable({}, {});
  revocable.revoke();
  let traps = 0;
  const trapping = new Proxy({}, {
    getOwnPropertyDescriptor() {
      traps++;
      throw secret;
    },
  });
  for (const value of [trapping, revocable.proxy, { key: "k", items: [], m: trapping }]) {
    assert.throws(() => convertOutput("x.y", out, value, 32), (e) => {
      assert.ok(isCodeModeError(e, "capability_failure"), String(e));
      assert.match(e.message, /result(\.m)? is a Proxy/);
      assert.equal(e.detail, "x.y: invalid result");
      return true;
    });
  }
  assert.equal(traps, 0);
});

Deno.test("output conversion: Proxies, Sets, Maps and class instances get one defined outcome", () => {
  const out = t.struct({ items: t.list(t.int()), p: t.optional(t.struct({ x: t.int() })) });
  // Even a transparent Proxy is code, not data: refused, as its traps could do anything (see opaque.ts).
  convertFails(out, new Proxy({ items: [1, 2] }, {}), "capability_failure", /result is a Proxy/);
  convertFails(out, { items: new Proxy([1, 2], {}) }, "capability_failure", /result\.items is a Proxy/);
  convertFails(out, { items: new Set([1]) }, "capability_failure", /items must be a list, got Set/);
  convertFails(
    out,
    { items: [], p: new Map([["x", 1]]) },
    "capability_failure",
    /p must be an object, got Map/,
  );
  convertFails(
    t.struct({ m: t.dict(t.int()) }),
    { m: new Set() },
    "capability_failure",
    /m must be a dict, got Set/,
  );
  class Box {
    x = 3;
    hidden() {
      return 1;
    }
  }
  assert.deepEqual(convertOutput("x.y", out, { items: [], p: new Box() }, 32), { items: [], p: { x: 3 } });
});

Deno.test("output conversion: cycles are refused, shared values are fine", () => {
  const out = t.struct({
    l: t.list(t.nullable(t.list(t.int()))),
    s: t.optional(t.struct({ s: t.optional(t.struct({ s: t.optional(t.int()) })) })),
  });
  const cyclic: unknown[] = [];
  cyclic.push(cyclic);
  convertFails(
    t.struct({ l: t.list(t.list(t.list(t.int()))) }),
    { l: cyclic },
    "capability_failure",
    /result\.l\[0\] contains itself/,
  );
  const self: Record<string, unknown> = {};
  self.s = self;
  convertFails(out, { l: [], s: self }, "capability_failure", /result\.s\.s contains itself/);
  const shared = [1];
  assert.deepEqual(convertOutput("x.y", out, { l: [shared, shared] }, 32), { l: [[1], [1]] });
});

Deno.test("output conversion charges the exact wire size and refuses past maxBytes", () => {
  const out = t.struct({
    s: t.str(),
    n: t.int(),
    x: t.float(),
    b: t.bool(),
    o: t.optional(t.str()),
    z: t.nullable(t.int()),
    l: t.list(t.nullable(t.str())),
    d: t.dict(t.list(t.int())),
    st: t.list(t.struct({ k: t.str(), v: t.optional(t.int()) })),
  });
  // A seeded generator: the same cases on every run.
  let seed = 12345;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const word = () => ["", "a", "é", "€uro", "😀", "x".repeat(130), "\ud800"][rnd(7)];
  const num = () => [0, 1, -1, 127, 128, -300, 2 ** 40, Number.MAX_SAFE_INTEGER][rnd(8)];
  for (let i = 0; i < 200; i++) {
    const value = {
      s: word(),
      n: num(),
      x: rnd(2) ? 1.5 : 2,
      b: rnd(2) === 1,
      o: rnd(2) ? word() : undefined,
      z: rnd(2) ? num() : null,
      l: Array.from({ length: rnd(5) }, () => (rnd(3) ? word() : null)),
      d: Object.fromEntries(Array.from({ length: rnd(4) }, (_, j) => [`k${j}${word()}`, [num()]])),
      st: Array.from({ length: rnd(4) }, () => ({ k: word(), v: rnd(2) ? num() : null, extra: 1 })),
    };
    const converted = convertOutput("x.y", out, value, 32);
    const size = encodeHostValue(converted, { maxBytes: 1 << 20, maxDepth: 32 }, out).length;
    assert.deepEqual(convertOutput("x.y", out, value, 32, size), converted, `fits in exactly ${size}`);
    convertFails(out, value, "resource_limit", /encodes to more than/, 32, size - 1);
  }
});

Deno.test("output conversion refuses a huge result before walking it", () => {
  const out = t.struct({ items: t.list(t.int()) });
  const items = Array.from({ length: 2_000_000 }, (_, i) => i & 0x7f);
  const MIB = 1 << 20;
  // The refusal reads no item: a getter on the first item would notice.
  const watched = [...items.slice(0, 10)];
  Object.defineProperty(watched, 0, { get: () => assert.fail("item read"), enumerable: true });
  watched.length = 2_000_000;
  convertFails(out, { items: watched }, "resource_limit", /encodes to more than 1048576 bytes/, 32, MIB);
  convertFails(
    t.struct({ s: t.str() }),
    { s: "x".repeat(50_000_000) },
    "resource_limit",
    /more than/,
    32,
    MIB,
  );

  // Time: the refusal (best of 5) against one full conversion of the same list with room for it. The
  // refusal is O(1) and the walk O(n), so even a loaded machine keeps them orders of magnitude apart.
  let refusal = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    convertFails(out, { items }, "resource_limit", /more than/, 32, MIB);
    refusal = Math.min(refusal, performance.now() - t0);
  }
  const t0 = performance.now();
  convertOutput("x.y", out, { items }, 32, 1 << 30);
  const walk = performance.now() - t0;
  assert.ok(refusal * 50 < walk, `refusal ${refusal.toFixed(3)} ms vs full walk ${walk.toFixed(1)} ms`);
});

Deno.test("well-formedness never merges two keys silently", () => {
  const out = t.struct({ m: t.dict(t.int()) });
  convertFails(
    out,
    { m: Object.fromEntries([["a\ud800", 1], ["a\udbff", 2]]) },
    "capability_failure",
    /two keys that are the same/,
  );
  convertFails(
    out,
    { m: new Map([["\udc00", 1], ["\ufffd", 2]]) },
    "capability_failure",
    /two keys that are the same/,
  );
  assert.deepEqual(convertOutput("x.y", out, { m: { "a\ud800": 1 } }, 32), { m: { "a\ufffd": 1 } });
  const e = bindFails(
    { m: Object.fromEntries([["\ud800", 1], ["\udfff", 2]]) },
    "invalid_arguments",
    /two keys/,
    out,
  );
  assert.equal(e.detail, e.message);
});
