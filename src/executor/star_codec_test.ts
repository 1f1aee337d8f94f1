import assert from "node:assert/strict";
import type { TypeSchema } from "../schema.ts";
import {
  Builtin,
  Dict,
  Float,
  fromJSString,
  type Kwargs,
  List,
  StarSet,
  Thread,
  Tuple,
  type Value,
} from "../starlark/mod.ts";
import { WireFormatError, WireLimitError, WireTypeError } from "./codec.ts";
import { decodeArguments, decodeHostValue, encodeHostValue } from "./host_codec.ts";
import { bindArguments, BindError, decodeStarValue, displayText, encodeFinalValue } from "./star_codec.ts";

const BIG = { maxBytes: 1 << 20, maxDepth: 64 };

type Struct = TypeSchema & { readonly kind: "struct" };

const INPUT: Struct = {
  kind: "struct",
  fields: [
    { name: "key", type: { kind: "str" } },
    { name: "limit", type: { kind: "optional", of: { kind: "int" } } },
    { name: "ratio", type: { kind: "optional", of: { kind: "float" } } },
    { name: "on", type: { kind: "optional", of: { kind: "bool" } } },
    { name: "maybe", type: { kind: "optional", of: { kind: "nullable", of: { kind: "str" } } } },
  ],
};

function dict(entries: [Value, Value][]): Dict {
  const d = new Dict();
  for (const [k, v] of entries) d.setUnchecked(k, v);
  return d;
}

function bind(kwargs: Kwargs, schema: Struct = INPUT, args: Value[] = []): Record<string, unknown> {
  return decodeArguments(bindArguments(schema, args, kwargs, BIG), schema, BIG);
}

function bindError(kwargs: Kwargs, schema: Struct = INPUT, args: Value[] = []): string {
  try {
    bindArguments(schema, args, kwargs, BIG);
  } catch (e) {
    assert.ok(e instanceof BindError, String(e));
    return e.message;
  }
  throw new Error("expected a BindError");
}

Deno.test("star codec: binds exact keyword arguments", () => {
  assert.deepEqual(bind([["key", "a"]]), { key: "a" });
  assert.deepEqual(bind([["limit", 3], ["key", "a"], ["ratio", new Float(0.5)], ["on", false]]), {
    key: "a",
    limit: 3,
    ratio: 0.5,
    on: false,
  });
  // An explicit None for an optional is the same as leaving it out.
  assert.deepEqual(bind([["key", "a"], ["limit", null]]), { key: "a" });
  assert.deepEqual(bind([["key", fromJSString("é✓")]]), { key: "é✓" });
});

Deno.test("star codec: binding failures are model-safe messages", () => {
  assert.match(bindError([["key", "a"]], INPUT, ["x"]), /positional arguments are not accepted/);
  assert.match(bindError([["kee", "a"]]), /unexpected keyword argument "kee"/);
  assert.match(bindError([]), /missing required argument "key"/);
  assert.match(bindError([["key", 1]]), /argument key must be str, not int/);
  assert.match(bindError([["key", "a"], ["limit", true]]), /argument limit must be int or None, not bool/);
  assert.match(bindError([["key", "a"], ["limit", new Float(3)]]), /must be int or None, not float/);
  assert.match(
    bindError([["key", "a"], ["ratio", 2n ** 53n + 1n]]),
    /ratio must be a float; the int 9007199254740993 has no exact float value/,
  );
  assert.match(bindError([["key", "a"], ["ratio", "3"]]), /argument ratio must be float or None, not string/);
  assert.match(bindError([["key", "a"], ["on", 1]]), /must be bool or None, not int/);
  assert.match(bindError([["key", "a"], ["limit", 2n ** 60n]]), /out of range/);
  assert.match(bindError([["key", "a"], ["ratio", new Float(Infinity)]]), /finite float/);
  assert.match(bindError([["key", "a"], ["key", "b"]]), /multiple values/);
  assert.match(bindError([["key", null]]), /must be str, not NoneType/);
});

Deno.test("star codec: composite inputs", () => {
  const schema: Struct = {
    kind: "struct",
    fields: [
      {
        name: "tags",
        type: {
          kind: "list",
          of: {
            kind: "struct",
            fields: [{ name: "name", type: { kind: "str" } }, {
              name: "w",
              type: { kind: "optional", of: { kind: "float" } },
            }],
          },
        },
      },
      { name: "attrs", type: { kind: "dict", of: { kind: "int" } } },
    ],
  };
  const tags = new Tuple([
    dict([["name", "a"]]),
    dict([["w", new Float(1)], ["name", "b"]]),
    dict([["name", "c"], ["w", null]]),
  ]);
  assert.deepEqual(bind([["tags", tags], ["attrs", dict([["x", 1]])]], schema), {
    tags: [{ name: "a" }, { name: "b", w: 1 }, { name: "c" }],
    attrs: { x: 1 },
  });
  assert.match(
    bindError([["tags", new List([dict([["nam", "a"]])])], ["attrs", new Dict()]], schema),
    /unexpected field tags\[0\]\.nam/,
  );
  assert.match(
    bindError([["tags", new List([new Dict()])], ["attrs", new Dict()]], schema),
    /missing required field tags\[0\]\.name/,
  );
  assert.match(bindError([["tags", new List()], ["attrs", dict([[1, 1]])]], schema), /string keys/);
  assert.match(
    bindError([["tags", new List()], ["attrs", dict([["x", "y"]])]], schema),
    /argument attrs\["x"\] must be int/,
  );
  assert.match(
    bindError([["tags", "abc"], ["attrs", new Dict()]], schema),
    /argument tags must be list, not string/,
  );
});

Deno.test("star codec: argument size and depth limits", () => {
  const schema: Struct = {
    kind: "struct",
    fields: [{ name: "xs", type: { kind: "list", of: { kind: "list", of: { kind: "int" } } } }],
  };
  const v = new List([new List([1])]);
  assert.doesNotThrow(() => bindArguments(schema, [], [["xs", v]], { maxBytes: 100, maxDepth: 4 }));
  assert.throws(() => bindArguments(schema, [], [["xs", v]], { maxBytes: 100, maxDepth: 3 }), WireLimitError);
  const size = bindArguments(schema, [], [["xs", v]], BIG).length;
  assert.doesNotThrow(() => bindArguments(schema, [], [["xs", v]], { maxBytes: size, maxDepth: 8 }));
  assert.throws(
    () => bindArguments(schema, [], [["xs", v]], { maxBytes: size - 1, maxDepth: 8 }),
    WireLimitError,
  );
});

Deno.test("star codec: final values", () => {
  const value = new Tuple([
    null,
    true,
    3,
    -4,
    new Float(2),
    fromJSString("ü"),
    new List([dict([["k", new Float(0.5)]])]),
  ]);
  assert.deepEqual(decodeHostValue(encodeFinalValue(value, BIG), BIG), [null, true, 3, -4, 2, "ü", [{
    k: 0.5,
  }]]);
  const unsupported: Value[] = [
    new StarSet(),
    new Builtin("f", () => null),
    dict([[1, 2]]),
    new Float(NaN),
    2n ** 70n,
    new List([new Float(Infinity)]),
  ];
  for (const v of unsupported) assert.throws(() => encodeFinalValue(v, BIG), WireTypeError);
  const cyclic = new List([]);
  cyclic.elems.push(cyclic);
  assert.throws(() => encodeFinalValue(cyclic, { maxBytes: 1 << 20, maxDepth: 32 }), WireLimitError);
});

Deno.test("star codec: host results decode into fresh Starlark values", () => {
  const schema: TypeSchema = {
    kind: "struct",
    fields: [{ name: "n", type: { kind: "int" } }, { name: "x", type: { kind: "float" } }, {
      name: "s",
      type: { kind: "list", of: { kind: "str" } },
    }],
  };
  const bytes = encodeHostValue({ n: 2, x: 2, s: ["é"] }, BIG, schema);
  const thread = new Thread({ maxMemory: 1 << 20 });
  const v = decodeStarValue(bytes, BIG, thread) as Dict;
  assert.ok(v instanceof Dict);
  assert.equal(v.get("n"), 2);
  const x = v.get("x");
  assert.ok(x instanceof Float && x.value === 2, "a float stays a float even when integral");
  const s = v.get("s") as List;
  assert.ok(s instanceof List && !s.frozen);
  assert.equal(s.elems[0], fromJSString("é"));
  assert.ok(thread.memory >= bytes.length, "decoding is charged to the memory budget");
  const tiny = new Thread({ maxMemory: 4 });
  assert.throws(() => decodeStarValue(bytes, BIG, tiny), /memory/);
});

Deno.test("star codec: scalars and malformed tags decode as on the host", () => {
  const cases: [number[], Value][] = [
    [[0], null],
    [[1], false],
    [[2], true],
    [[3, 0x2a], 42],
    [[4, 0x2a], -42],
    [[4, 0], 0], // a negative-int tag with magnitude 0 is plain 0, never -0
  ];
  for (const [bytes, want] of cases) {
    const star = decodeStarValue(new Uint8Array(bytes), BIG);
    const host = decodeHostValue(new Uint8Array(bytes), BIG);
    assert.ok(Object.is(star, want), `star ${JSON.stringify(bytes)}`);
    assert.ok(Object.is(host, want), `host ${JSON.stringify(bytes)}`);
  }
  for (const bytes of [[9], [99], [7, 1, 42]]) {
    assert.throws(() => decodeStarValue(new Uint8Array(bytes), BIG), WireFormatError, JSON.stringify(bytes));
    assert.throws(() => decodeHostValue(new Uint8Array(bytes), BIG), WireFormatError, JSON.stringify(bytes));
  }
});

Deno.test("star codec: engine text in messages follows the one invalid-UTF-8 rule", () => {
  assert.equal(displayText("plain"), "plain");
  assert.equal(displayText("\xc3\xa9"), "é");
  assert.equal(displayText("a\xe2\x82b"), "a\ufffd\ufffdb", "one U+FFFD per invalid byte, as in Go");
  assert.equal(displayText("already € é"), "already € é", "a JS string with chars above U+00FF passes");
  // A kwarg name holding invalid UTF-8 is named readably, with the same replacement.
  assert.match(bindError([["k\xff", "v"]]), /unexpected keyword argument "k\ufffd"/);
});

Deno.test("star codec: a long keyword or key is named by a bounded prefix and how many bytes are left", () => {
  const JSON_INPUT: Struct = { kind: "struct", fields: [{ name: "value", type: { kind: "json" } }] };
  for (const [unit, shown] of [["x", 255], ["\x01", 42], ["\xe6\x97\xa5", 255]] as const) {
    const name = unit.repeat(1_000_000);
    const m =
      /^unexpected keyword argument "(.*)\.\.\. \((\d+) more bytes\)(; accepted keyword arguments: [^"]*)?$/s
        .exec(bindError([[name, 1]]));
    assert.ok(m !== null, unit);
    // The quoted prefix is the quoting of the name's first bytes, at most 256 characters.
    assert.equal(m[1], JSON.stringify(displayText(name.slice(0, shown))).slice(1, -1), unit);
    assert.ok(m[1].length < 256);
    assert.equal(Number(m[2]), name.length - shown, unit);
    const path = bindError([["value", dict([[name, new Float(NaN)]])]], JSON_INPUT);
    assert.ok(path.length < 400 && path.endsWith(" more bytes)] must be a finite float"), path.slice(-60));
  }
  // Short names are quoted whole, as before.
  assert.match(
    bindError([["k".repeat(256), "v"]]),
    new RegExp(`argument "${"k".repeat(256)}"(; accepted keyword arguments: [^"]*)?$`),
  );
  assert.match(
    bindError([["key", "a"], ["ratio", 3n ** 1000n]]),
    /the int 1322070819\d{246}\.\.\. \(222 more digits\) has/,
  );
});

Deno.test("star codec: an int binds to a float exactly, and crosses as a float", () => {
  // decodeArguments refuses an int tag for a float field, so passing proves the wire carries a float.
  assert.deepEqual(bind([["key", "a"], ["ratio", 100]]), { key: "a", ratio: 100 });
  assert.deepEqual(bind([["key", "a"], ["ratio", 0]]), { key: "a", ratio: 0 });
  assert.deepEqual(bind([["key", "a"], ["ratio", -7]]), { key: "a", ratio: -7 });
  assert.deepEqual(bind([["key", "a"], ["ratio", 2n ** 60n]]), { key: "a", ratio: 2 ** 60 });
  assert.deepEqual(bind([["key", "a"], ["ratio", -(2n ** 1000n)]]), { key: "a", ratio: -(2 ** 1000) });
  // Too big for a double at all, and odd past 2^53: no exact float, so refused rather than rounded.
  assert.match(bindError([["key", "a"], ["ratio", 2n ** 1024n]]), /has no exact float value/);
  assert.match(bindError([["key", "a"], ["ratio", 2n ** 60n + 1n]]), /has no exact float value/);
  // The widening is for floats only: a float is still not an int, a bool still not a float.
  assert.match(bindError([["key", "a"], ["limit", new Float(3)]]), /must be int or None, not float/);
  assert.match(bindError([["key", "a"], ["ratio", true]]), /must be float or None, not bool/);
});

Deno.test("star codec: arguments that share their parts are checked against the byte limit as they are walked", () => {
  // 40 levels of [x, x] (2^40 values when walked) under a json and a nested-list schema: the check must
  // stop at the byte limit, not walk every path first.
  const cases: [TypeSchema, (x: Value) => Value][] = [
    [{ kind: "json" }, (x) => new List([x, x])],
    [{ kind: "json" }, (x) => new Tuple([x, x])],
    [{ kind: "json" }, (x) => dict([["a", x], ["b", x]])],
  ];
  for (const [type, wrap] of cases) {
    let x: Value = new List([]);
    for (let i = 0; i < 40; i++) x = wrap(x);
    const schema: Struct = { kind: "struct", fields: [{ name: "v", type }] };
    assert.throws(
      () => bindArguments(schema, [], [["v", x]], { maxBytes: 1 << 16, maxDepth: 64 }),
      (e: unknown) => e instanceof WireLimitError && e.limit === "bytes",
    );
  }
  let nested: Value = new List([1]);
  for (let i = 0; i < 40; i++) nested = new List([nested, nested]);
  let type: TypeSchema = { kind: "int" };
  for (let i = 0; i <= 40; i++) type = { kind: "list", of: type };
  assert.throws(
    () => bindArguments({ kind: "struct", fields: [{ name: "v", type }] }, [], [["v", nested]], BIG),
    (e: unknown) => e instanceof WireLimitError && e.limit === "bytes",
  );
});
