import assert from "node:assert/strict";
import {
  decodeUtf8,
  invalidUtf8Index,
  quoteBytes,
  TAG_DICT,
  TAG_FLOAT,
  TAG_INT,
  TAG_LIST,
  TAG_NEG_INT,
  TAG_STR,
  utf8Length,
  varintLength,
  WireFormatError,
  WireLimitError,
  WireTypeError,
  WireWriter,
} from "./codec.ts";
import { decodeArguments, decodeHostValue, encodeHostValue } from "./host_codec.ts";
import type { TypeSchema } from "../schema.ts";
import { decodeRune, runeOf, sizeOf } from "../starlark/values/utf8.ts";

const BIG = { maxBytes: 1 << 20, maxDepth: 64 };

function roundTrip(v: unknown, schema?: TypeSchema): unknown {
  return decodeHostValue(encodeHostValue(v, BIG, schema), BIG);
}

Deno.test("codec: plain values round-trip", () => {
  const values: unknown[] = [
    null,
    true,
    false,
    0,
    1,
    -1,
    127,
    128,
    -128,
    300,
    2 ** 31,
    -(2 ** 31) - 7,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    1.5,
    -0.25,
    1e300,
    5e-324,
    "",
    "hello",
    "héllo wörld ✓ 𝄞",
    "x".repeat(70_000),
    [],
    [1, [2, [3, []]]],
    {},
    { a: 1, b: [true, null], "ключ": { nested: "yes" } },
  ];
  for (const v of values) assert.deepEqual(roundTrip(v), v);
});

Deno.test("codec: ints and floats keep their kind on the wire", () => {
  const asInt = encodeHostValue(2, BIG);
  const asFloat = encodeHostValue(2, BIG, { kind: "float" });
  assert.deepEqual([...asInt], [TAG_INT, 2]);
  assert.equal(asFloat[0], TAG_FLOAT);
  assert.equal(asFloat.length, 9);
  assert.equal(encodeHostValue(-5, BIG)[0], TAG_NEG_INT);
  // Without a schema a non-integral number is a float and an integral one an int.
  assert.equal(encodeHostValue(2.5, BIG)[0], TAG_FLOAT);
  // -0 as an int is 0; as a float it keeps its sign.
  assert.deepEqual([...encodeHostValue(-0, BIG)], [TAG_INT, 0]);
  assert.ok(Object.is(roundTrip(-0, { kind: "float" }), -0));
});

Deno.test("codec: sizes are exact", () => {
  assert.equal(encodeHostValue(null, BIG).length, 1);
  assert.equal(encodeHostValue(127, BIG).length, 2);
  assert.equal(encodeHostValue(128, BIG).length, 3);
  assert.equal(encodeHostValue(Number.MAX_SAFE_INTEGER, BIG).length, 1 + 8);
  assert.equal(encodeHostValue("abc", BIG).length, 1 + 1 + 3);
  assert.equal(encodeHostValue("é", BIG).length, 1 + 1 + 2);
  assert.equal(encodeHostValue([1, 2], BIG).length, 1 + 1 + 2 + 2);
  assert.equal(encodeHostValue({ ab: true }, BIG).length, 1 + 1 + 1 + 2 + 1);
  assert.equal(varintLength(0), 1);
  assert.equal(varintLength(0x3fff), 2);
  assert.equal(varintLength(0x4000), 3);
  assert.equal(utf8Length("a\u00e9\u20ac\u{1d11e}"), 1 + 2 + 3 + 4);
  assert.equal(utf8Length("\ud800"), 3, "a lone surrogate encodes as U+FFFD");
});

Deno.test("codec: the byte limit is exact", () => {
  const v = "x".repeat(100); // 1 tag + 1 length + 100 bytes
  assert.equal(encodeHostValue(v, { maxBytes: 102, maxDepth: 1 }).length, 102);
  assert.throws(() => encodeHostValue(v, { maxBytes: 101, maxDepth: 1 }), WireLimitError);
  const bytes = encodeHostValue(v, BIG);
  assert.throws(() => decodeHostValue(bytes, { maxBytes: 101, maxDepth: 1 }), WireLimitError);
  // The writer refuses to grow past the limit instead of allocating a huge buffer first.
  assert.throws(
    () => encodeHostValue(["y".repeat(1 << 20)], { maxBytes: 1000, maxDepth: 4 }),
    WireLimitError,
  );
});

Deno.test("codec: depth is inclusive (a scalar is 1, each container adds one)", () => {
  const lim = (d: number) => ({ maxBytes: 1 << 20, maxDepth: d });
  assert.doesNotThrow(() => encodeHostValue(1, lim(1)));
  assert.doesNotThrow(() => encodeHostValue([1], lim(2)));
  assert.doesNotThrow(() => encodeHostValue([], lim(1)));
  assert.throws(
    () => encodeHostValue([[1]], lim(2)),
    (e: unknown) => e instanceof WireLimitError && e.limit === "depth",
  );
  assert.throws(() => encodeHostValue({ a: { b: 1 } }, lim(2)), WireLimitError);
  const deep = encodeHostValue([[[[1]]]], BIG);
  assert.doesNotThrow(() => decodeHostValue(deep, lim(5)));
  assert.throws(() => decodeHostValue(deep, lim(4)), WireLimitError);
  // A cyclic value is caught by the depth limit.
  const cyclic: unknown[] = [];
  cyclic.push(cyclic);
  assert.throws(() => encodeHostValue(cyclic, lim(32)), WireLimitError);
});

Deno.test("codec: unsupported and invalid values", () => {
  for (const v of [NaN, Infinity, 1n, Symbol("s"), () => 1, new Map(), new Date()]) {
    assert.throws(() => encodeHostValue(v, BIG), WireTypeError, String(v));
  }
  assert.throws(() => encodeHostValue(1.5, BIG, { kind: "int" }), WireTypeError);
  assert.throws(() => encodeHostValue(2 ** 60, BIG, { kind: "int" }), WireTypeError);
  assert.equal(encodeHostValue(2 ** 60, BIG)[0], TAG_FLOAT, "without a schema it can only be a float");
  assert.throws(() => encodeHostValue(1, BIG, { kind: "str" }), WireTypeError);
  assert.throws(() => encodeHostValue(Infinity, BIG, { kind: "float" }), WireTypeError);
});

Deno.test("codec: schema-guided struct encoding", () => {
  const schema: TypeSchema = {
    kind: "struct",
    fields: [
      { name: "score", type: { kind: "float" } },
      { name: "note", type: { kind: "optional", of: { kind: "str" } } },
      { name: "tags", type: { kind: "nullable", of: { kind: "list", of: { kind: "str" } } } },
      { name: "n", type: { kind: "int" } },
    ],
  };
  // Fields in schema order, absent optional omitted, missing nullable becomes None.
  const out = decodeHostValue(encodeHostValue({ n: 3, score: 1 }, BIG, schema), BIG);
  assert.deepEqual(Object.keys(out as object), ["score", "tags", "n"]);
  assert.deepEqual(out, { score: 1, tags: null, n: 3 });
  assert.throws(() => encodeHostValue({ score: 1 }, BIG, schema), /n is missing/);
});

Deno.test("codec: __proto__ keys stay own data", () => {
  const v = JSON.parse('{"__proto__": {"polluted": true}}');
  const out = roundTrip(v) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.keys(out), ["__proto__"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("codec: malformed bytes are rejected", () => {
  const bad: number[][] = [
    [],
    [99],
    [TAG_STR, 5, 65],
    [TAG_LIST, 200],
    [TAG_INT, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
    [TAG_INT, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
    [TAG_INT, 1, 0],
    [TAG_DICT, 2, 1, 97, TAG_INT, 1, 1, 97, TAG_INT, 2],
    [TAG_FLOAT, 0, 0],
  ];
  for (const b of bad) {
    assert.throws(() => decodeHostValue(new Uint8Array(b), BIG), WireFormatError, JSON.stringify(b));
  }
});

Deno.test("codec: argument maps are checked against the input schema", () => {
  const input = {
    kind: "struct",
    fields: [
      { name: "key", type: { kind: "str" } },
      { name: "ratio", type: { kind: "float" } },
      { name: "limit", type: { kind: "optional", of: { kind: "int" } } },
      { name: "flags", type: { kind: "list", of: { kind: "bool" } } },
    ],
  } as const;
  const enc = (v: unknown) => encodeHostValue(v, BIG);
  const ok = encodeHostValue({ key: "k", ratio: 2, flags: [true] }, BIG, input);
  assert.deepEqual(decodeArguments(ok, input, BIG), { key: "k", ratio: 2, flags: [true] });
  // An int where a float is declared (what a compromised worker might send) is refused.
  assert.throws(() => decodeArguments(enc({ key: "k", ratio: 2, flags: [] }), input, BIG), WireTypeError);
  assert.throws(
    () => decodeArguments(enc({ key: "k", flags: [] }), input, BIG),
    /missing required argument "ratio"/,
  );
  assert.throws(
    () => decodeArguments(encodeHostValue({ key: "k", ratio: 1.5, flags: [], extra: 1 }, BIG), input, BIG),
    /unexpected keyword argument "extra"/,
  );
  assert.throws(() => decodeArguments(enc([1]), input, BIG), WireFormatError);
  assert.throws(
    () => decodeArguments(encodeHostValue({ key: "k", ratio: 0.5, flags: [1] }, BIG), input, BIG),
    WireTypeError,
  );
  // Optional None is accepted and comes out as null (the core then treats it as absent).
  const withNone = encodeHostValue({ key: "k", ratio: 0.5, flags: [], limit: null }, BIG);
  assert.deepEqual(decodeArguments(withNone, input, BIG), { key: "k", ratio: 0.5, flags: [], limit: null });
  // Depth: the map itself is level 1.
  assert.throws(() => decodeArguments(ok, input, { maxBytes: 1000, maxDepth: 2 }), WireLimitError);
  assert.doesNotThrow(() => decodeArguments(ok, input, { maxBytes: 1000, maxDepth: 3 }));
});

Deno.test("codec: writer grows and finishes with a transferable copy", () => {
  const w = new WireWriter({ maxBytes: 1 << 16, maxDepth: 4 }, 16);
  for (let i = 0; i < 1000; i++) w.int(i);
  const out = w.finish();
  assert.equal(out.length, w.length);
  assert.equal(out.byteOffset, 0);
  assert.equal(out.buffer.byteLength, out.length);
  assert.equal(out[0], TAG_INT);
  assert.equal(TAG_LIST, 7);
});

/** The engine's own Go-rule decoder (src/starlark/values/utf8.ts), applied to bytes: the reference for decodeUtf8. */
function engineDecode(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  let out = "";
  for (let i = 0; i < bin.length;) {
    const packed = decodeRune(bin, i);
    out += String.fromCodePoint(runeOf(packed));
    i += sizeOf(packed);
  }
  return out;
}

Deno.test("codec: invalid UTF-8 decodes as one U+FFFD per invalid byte, as the engine and Go do", () => {
  const b = (...xs: number[]) => new Uint8Array(xs);
  assert.equal(decodeUtf8(b(0xe2, 0x82)), "\ufffd\ufffd", "a truncated € is two, not WHATWG's one");
  assert.equal(decodeUtf8(b(0x61, 0xe2, 0x82, 0x62, 0xff, 0x63)), "a\ufffd\ufffdb\ufffdc");
  assert.equal(decodeUtf8(b(0xed, 0xa0, 0x80)), "\ufffd\ufffd\ufffd", "an encoded surrogate");
  assert.equal(decodeUtf8(b(0xc0, 0xaf)), "\ufffd\ufffd", "an overlong form");
  assert.equal(decodeUtf8(b(0xf4, 0x90, 0x80, 0x80)), "\ufffd".repeat(4), "above U+10FFFF");
  assert.equal(decodeUtf8(b(0xf0, 0x9f, 0x98, 0x80)), "😀");
  // Random bytes, biased towards UTF-8 lead and continuation bytes: identical to the engine's decoder,
  // and identical to TextDecoder whenever the input is valid.
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const pool = [
    0x41,
    0x7f,
    0x80,
    0xbf,
    0xc2,
    0xdf,
    0xe0,
    0xa0,
    0xed,
    0x9f,
    0xef,
    0xf0,
    0x90,
    0xf4,
    0x8f,
    0xff,
  ];
  const strict = new TextDecoder("utf-8", { fatal: true });
  for (let i = 0; i < 3000; i++) {
    const bytes = new Uint8Array(rnd(12)).map(() => rnd(3) ? pool[rnd(pool.length)] : rnd(256));
    const got = decodeUtf8(bytes);
    assert.equal(got, engineDecode(bytes), JSON.stringify([...bytes]));
    const valid = invalidUtf8Index(bytes) === bytes.length;
    let strictText: string | undefined;
    try {
      strictText = strict.decode(bytes);
    } catch {
      strictText = undefined;
    }
    assert.equal(valid, strictText !== undefined, JSON.stringify([...bytes]));
    if (strictText !== undefined) assert.equal(got, strictText);
  }
});

Deno.test("codec: quoteBytes shows invalid bytes as \\x escapes, so distinct keys read differently", () => {
  const b = (...xs: number[]) => new Uint8Array(xs);
  assert.equal(quoteBytes(b(0xa9)), '"\\xa9"');
  assert.equal(quoteBytes(b(0x61, 0x22, 0x5c, 0xc3, 0xa9, 0xff)), '"a\\"\\\\é\\xff"');
  assert.equal(quoteBytes(new TextEncoder().encode("\ufffd")), '"\ufffd"', "a real U+FFFD stays itself");
});

/** A wire dict whose keys are the given binary strings (one char per byte), each mapped to int 1. */
function rawDict(keys: string[], wrap?: string): Uint8Array {
  const w = new WireWriter(BIG);
  w.byte(TAG_DICT);
  if (wrap !== undefined) {
    w.varint(1);
    w.binaryString(wrap);
    w.byte(TAG_DICT);
  }
  w.varint(keys.length);
  for (const k of keys) {
    w.binaryString(k);
    w.int(1);
  }
  return w.finish();
}

Deno.test("codec: keys that only invalid UTF-8 told apart are a type error naming both, never merged", () => {
  const input = {
    kind: "struct",
    fields: [{ name: "m", type: { kind: "dict", of: { kind: "int" } } }],
  } as const;
  // "é"[1:] and "ü"[1:] in Starlark: two distinct one-byte strings, both U+FFFD as text.
  assert.throws(
    () => decodeArguments(rawDict(["\xa9", "\xbc"], "m"), input, BIG),
    (e) =>
      e instanceof WireTypeError && e.message.includes("argument m has two keys") &&
      e.message.includes('"\\xa9" and "\\xbc"'),
  );
  // A real U+FFFD and an invalid byte collide too.
  assert.throws(() => decodeArguments(rawDict(["\xef\xbf\xbd", "\xff"], "m"), input, BIG), WireTypeError);
  // The same bytes twice are a protocol violation, as before.
  assert.throws(() => decodeArguments(rawDict(["\xff", "\xff"], "m"), input, BIG), WireFormatError);
  assert.throws(() => decodeArguments(rawDict(["a", "a"], "m"), input, BIG), WireFormatError);
  // One invalid key alone decodes with U+FFFD.
  assert.deepEqual(decodeArguments(rawDict(["\xa9x", "\xe2\x82"], "m"), input, BIG), {
    m: { "\ufffdx": 1, "\ufffd\ufffd": 1 },
  });
  // The final value: the same rule, and a type error rather than a format error.
  assert.throws(() => decodeHostValue(rawDict(["\xa9", "\xbc"]), BIG), WireTypeError);
  assert.throws(() => decodeHostValue(rawDict(["k", "k"]), BIG), WireFormatError);
  assert.deepEqual(decodeHostValue(rawDict(["\xa9"]), BIG), { "\ufffd": 1 });
});

Deno.test("codec: host keys with lone surrogates that become equal are a type error", () => {
  assert.throws(
    () => encodeHostValue({ m: Object.fromEntries([["\ud800", 1], ["\udfff", 2]]) }, BIG),
    (e) => e instanceof WireTypeError && /value\["m"\] has two keys/.test(e.message),
  );
  assert.deepEqual(roundTrip({ "\ud800": 1 }), { "\ufffd": 1 });
});

Deno.test("codec: oversized lists and strings are refused before they are walked", () => {
  const limits = { maxBytes: 1 << 20, maxDepth: 8 };
  const items = new Array(2_000_000).fill(1);
  // A getter on the first item proves nothing was read.
  Object.defineProperty(items, 0, { get: () => assert.fail("item read") });
  assert.throws(() => encodeHostValue(items, limits), WireLimitError);
  assert.throws(() => encodeHostValue({ s: "x".repeat(5_000_000) }, limits), WireLimitError);
  const w = new WireWriter({ maxBytes: 10, maxDepth: 1 });
  w.reserve(10);
  assert.throws(() => w.reserve(11), WireLimitError);
  assert.equal(w.length, 0, "reserve writes nothing");
});

Deno.test("codec: type errors name the path of the failing value", () => {
  const schema: TypeSchema = {
    kind: "struct",
    fields: [{ name: "l", type: { kind: "list", of: { kind: "dict", of: { kind: "int" } } } }],
  };
  assert.throws(
    () => encodeHostValue({ l: [{}, { k: "x" }] }, BIG, schema, "result"),
    /result\.l\[1\]\["k"\] must be int/,
  );
  const bytes = encodeHostValue({ l: [{ a: 1 }, { k: 1.5 }] }, BIG);
  assert.throws(
    () => decodeArguments(bytes, schema as TypeSchema & { kind: "struct" }, BIG),
    /argument l\[1\]\["k"\] does not match its declared type int/,
  );
});
