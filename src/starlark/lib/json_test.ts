// Unit tests of the json module, calling the built-ins directly. Expected values and messages were
// checked against the reference implementation (starlark-go); see also golden_test.ts.
import assert from "node:assert/strict";
import {
  Builtin,
  Bytes,
  Dict,
  ENTRY_BYTES,
  equals,
  EvalError,
  Float,
  fromJSString,
  type Kwargs,
  List,
  Range,
  repr,
  ResourceError,
  StarSet,
  Thread,
  toJSString,
  Tuple,
  type Value,
} from "../values/mod.ts";
import { encodeJSON, json } from "./json.ts";
import { math } from "./math.ts";
import { seededRandom } from "../seeded_random_test.ts";

const fn = (name: string): Builtin => json.members.get(name) as Builtin;
const call = (name: string, args: Value[], kwargs: Kwargs = [], thread = new Thread()): Value =>
  fn(name).fn(thread, args, kwargs, fn(name));
const f = (x: number): Float => new Float(x);
const L = (...xs: Value[]): List => new List(xs);
const T = (...xs: Value[]): Tuple => new Tuple(xs);
const D = (...kvs: [Value, Value][]): Dict => {
  const d = new Dict();
  for (const [k, v] of kvs) d.setUnchecked(k, v);
  return d;
};
const u = fromJSString; // JS text → Starlark binary string

function throwsEval(f: () => unknown, message: string): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof EvalError, `expected EvalError, got ${e}`);
    assert.equal(toJSString((e as Error).message), toJSString(message));
    return true;
  });
}

Deno.test("json.encode: scalars, numbers and containers", () => {
  const cases: [Value, string][] = [
    [null, "null"],
    [true, "true"],
    [false, "false"],
    [0, "0"],
    [-5, "-5"],
    [2n ** 100n, "1267650600228229401496703205376"],
    [-(2n ** 70n), "-1180591620717411303424"],
    [f(1), "1.0"],
    [f(-0), "-0.0"],
    [f(2.5), "2.5"],
    [f(1e20), "1e+20"],
    [f(1e21), "1e+21"],
    [f(1e-7), "1e-07"],
    [f(123456.0), "123456.0"],
    [f(1234567.0), "1.234567e+06"],
    [f(0.1 + 0.2), "0.30000000000000004"],
    [f(5e-324), "5e-324"],
    [f(1.7976931348623157e308), "1.7976931348623157e+308"],
    [L(), "[]"],
    [T(), "[]"],
    [new Dict(), "{}"],
    [L(1, T(2, 3), L()), "[1,[2,3],[]]"],
    [L(L(L(L(1)))), "[[[[1]]]]"],
    [new Range(0, 10, 3), "[0,3,6,9]"],
    [new Range(5, 0, -2), "[5,3,1]"],
    [new Range(0, 0, 1), "[]"],
    [D(["a", L(true, null, false)]), '{"a":[true,null,false]}'],
    [T(L(), new Dict(), T(), "", 0, f(0)), '[[],{},[],"",0,0.0]'],
  ];
  for (const [v, want] of cases) assert.equal(call("encode", [v]), want, want);
  const set = new StarSet();
  for (const x of ["b", "a", 2]) set.addUnchecked(x);
  assert.equal(call("encode", [set]), '["b","a",2]'); // sets keep insertion order
});

Deno.test("json.encode: strings are escaped like Go (strconv.Quote for printable ASCII, else json.Marshal)", () => {
  const cases: [string, string][] = [
    ["", '""'],
    ["abc", '"abc"'],
    ['a\\b"c', '"a\\\\b\\"c"'],
    ["<a&b>", '"<a&b>"'], // printable ASCII: no HTML escaping
    ["<a&b>\n", '"\\u003ca\\u0026b\\u003e\\n"'], // Marshal path: HTML escaping
    ["\x7f", '"\\x7f"'], // the reference's quirk: DEL goes through strconv.Quote
    ["\x7f\n", '"\x7f\\n"'],
    ['\t\b\f\x01\x1f"\\/', '"\\t\\b\\f\\u0001\\u001f\\"\\\\/"'],
    ["\x00", '"\\u0000"'],
    [u("é<"), u('"é\\u003c"')],
    [u("😀"), u('"😀"')],
    [u("\u2028x\u2029"), '"\\u2028x\\u2029"'],
    ["\xc3", '"\\ufffd"'], // invalid UTF-8: one U+FFFD per bad byte
    ["a\xc3\xa9b\xc3", u('"aéb\\ufffd"')],
    ["\xf0\x9f\x98", '"\\ufffd\\ufffd\\ufffd"'],
    ["\x9f\x98\x80", '"\\ufffd\\ufffd\\ufffd"'],
    ["\xed\xa0\x80", '"\\ufffd\\ufffd\\ufffd"'], // an encoded surrogate is invalid
    ["\xef\xbf\xbd", '"\xef\xbf\xbd"'], // a real U+FFFD passes through
    ["\xc0\x80", '"\\ufffd\\ufffd"'], // overlong
  ];
  for (const [s, want] of cases) assert.equal(call("encode", [s]), want, JSON.stringify(s));
});

Deno.test("json.encode: dict keys must be strings and are sorted bytewise", () => {
  const d = D([u("é"), 1], ["e", 2], ["E", 3], [u("😀"), 4], ["\x7f", 5], ["~", 6], ["ab", 7], ["a", 8], [
    "",
    9,
  ]);
  assert.equal(
    call("encode", [d]),
    '{"":9,"E":3,"a":8,"ab":7,"e":2,"~":6,"\\x7f":5,"é":1,"😀":4}'.replace(/é|😀/g, u),
  );
  const reversed = new Dict();
  for (let i = 19; i >= 0; i--) reversed.setUnchecked(`k${String(i).padStart(2, "0")}`, i);
  const out = call("encode", [reversed]) as string;
  assert.equal(
    out,
    "{" + Array.from({ length: 20 }, (_, i) => `"k${String(i).padStart(2, "0")}":${i}`).join(",") + "}",
  );
  throwsEval(() => call("encode", [D([1, 2])]), "json.encode: dict has int key, want string");
  throwsEval(() => call("encode", [D(["a", 1], [2, 3])]), "json.encode: dict has int key, want string");
  throwsEval(() => call("encode", [D([null, 1])]), "json.encode: dict has NoneType key, want string");
  throwsEval(() => call("encode", [D([T(1, 2), 1])]), "json.encode: dict has tuple key, want string");
  throwsEval(
    () => call("encode", [D(["a", D([1, 2])])]),
    'json.encode: in dict key "a": dict has int key, want string',
  );
});

Deno.test("json.encode: unsupported values and error paths", () => {
  const lenFn = new Builtin("len", () => null);
  throwsEval(() => call("encode", [f(NaN)]), "json.encode: cannot encode non-finite float nan");
  throwsEval(() => call("encode", [f(Infinity)]), "json.encode: cannot encode non-finite float +inf");
  throwsEval(
    () => call("encode", [L(f(-Infinity))]),
    "json.encode: at list index 0: cannot encode non-finite float -inf",
  );
  throwsEval(
    () => call("encode", [D(["a", D(["b", L(f(Infinity))])])]),
    'json.encode: in dict key "a": in dict key "b": at list index 0: cannot encode non-finite float +inf',
  );
  throwsEval(
    () => call("encode", [D(["a", L(1, D(["b", lenFn]))])]),
    'json.encode: in dict key "a": at list index 1: in dict key "b": cannot encode builtin_function_or_method as JSON',
  );
  throwsEval(
    () => call("encode", [T(1, T(2, lenFn))]),
    "json.encode: at tuple index 1: at tuple index 1: cannot encode builtin_function_or_method as JSON",
  );
  throwsEval(() => call("encode", [lenFn]), "json.encode: cannot encode builtin_function_or_method as JSON");
  // bytes and modules have attributes, so they encode as objects of their (method) attributes.
  throwsEval(
    () => call("encode", [new Bytes("x")]),
    "json.encode: in field .elems: cannot encode builtin_function_or_method as JSON",
  );
  throwsEval(
    () => call("encode", [L(math)]),
    "json.encode: at list index 0: in field .acos: cannot encode builtin_function_or_method as JSON",
  );
  throwsEval(() => call("encode", []), "json.encode: got 0 arguments, want 1");
  throwsEval(() => call("encode", [1, 2]), "json.encode: got 2 arguments, want 1");
  throwsEval(() => call("encode", [], [["x", 1]]), "json.encode: unexpected keyword arguments");
});

Deno.test("json.encode: cycles are detected, shared values are not cycles", () => {
  const x = L();
  x.elems.push(x);
  throwsEval(() => call("encode", [x]), "json.encode: at list index 0: cycle in JSON structure");
  const d = new Dict();
  d.setUnchecked("k", d);
  throwsEval(() => call("encode", [d]), 'json.encode: in dict key "k": cycle in JSON structure');
  const y = L();
  y.elems.push(T(1, y));
  throwsEval(
    () => call("encode", [L(y)]),
    "json.encode: at list index 0: at list index 0: at tuple index 1: cycle in JSON structure",
  );
  const shared = L(1);
  assert.equal(call("encode", [L(shared, shared, L(shared, T(shared)))]), "[[1],[1],[[1],[[1]]]]");
});

Deno.test("json.encode: deep nesting does not use the JS stack", () => {
  let x: Value = L();
  for (let i = 0; i < 200000; i++) x = L(x);
  const s = encodeJSON(new Thread(), x);
  assert.equal(s.length, 2 * 200001);
  assert.equal(s.slice(0, 3), "[[[");
});

Deno.test("json.decode: values, numbers and errors", () => {
  const ok: [string, string][] = [
    ["1", "1"],
    ["-0", "0"],
    ["1.0", "1.0"],
    ["1e3", "1000.0"],
    ["1E+2", "100.0"],
    ["-1.5e-3", "-0.0015"],
    ["0e5", "0.0"],
    ["1.", "1.0"],
    ["-.5", "-0.5"],
    ["1.e5", "100000.0"],
    ["-0.0", "-0.0"],
    ["1e-400", "0.0"],
    ["5e-324", "5e-324"],
    ["1.7976931348623157e308", "1.7976931348623157e+308"],
    ["12345678901234567890123", "12345678901234567890123"],
    ["-9007199254740993", "-9007199254740993"],
    ["9007199254740991", "9007199254740991"],
    ["123456789012345678901234567890.0", "1.2345678901234568e+29"],
    [" [1 , 2 ] ", "[1, 2]"],
    ["\t\r\n 1 \t", "1"],
    ['{"a":1,"b":[true,false,null]}', '{"a": 1, "b": [True, False, None]}'],
    ['{"b":1,"a":2}', '{"b": 1, "a": 2}'],
    ['{"a":1,"a":2,"b":3}', '{"a": 2, "b": 3}'], // a repeated key keeps its place and takes the last value
    ['{"":1}', '{"": 1}'],
    ['"a\\"b"', '"a\\"b"'],
    ['"a\\u00e9b"', u('"aéb"')],
    ['"\\ud83d\\ude00"', u('"😀"')],
    ['"\\ud83d"', u('"�"')],
    ['"\\ud83dx"', u('"�x"')],
    ['"\\ud83d\\u0041"', u('"�A"')],
    ['"\\ude00\\ud83d"', u('"��"')],
    ['"\\/\\b\\f\\n\\r\\t"', '"/\\b\\f\\n\\r\\t"'],
    ['"a\nb"', '"a\\nb"'], // raw control characters pass in "safe" (escape-free ASCII) strings
    ['"\xc3"', u('"�"')], // invalid UTF-8 → U+FFFD
    ['"\xc3x"', u('"�x"')],
    ['"\xf0\x9f"', u('"��"')],
    ['"\\u0000"', '"\\x00"'],
  ];
  for (const [src, want] of ok) assert.equal(toJSString(repr(call("decode", [src]))), toJSString(want), src);
  assert.ok(call("decode", ["[]"]) instanceof List);
  assert.ok(call("decode", ["{}"]) instanceof Dict);
  assert.equal(call("decode", ["9007199254740993"]), 9007199254740993n);

  const bad: [string, string][] = [
    ["01", "at offset 2, invalid number: 01"],
    ["-01", "at offset 3, invalid number: -01"],
    ["00.5", "at offset 4, invalid number: 00.5"],
    ["-", "at offset 1, invalid number: -"],
    ["--1", "at offset 3, invalid number: --1"],
    ["1-2", "at offset 3, invalid number: 1-2"],
    [".5", "at offset 0, unexpected character '.'"],
    ["1e", "at offset 2, invalid number: 1e"],
    ["1e+", "at offset 3, invalid number: 1e+"],
    ["1e400", "at offset 5, invalid number: 1e400"],
    ["-1e400", "at offset 6, invalid number: -1e400"],
    ["1.0.0", "at offset 5, invalid number: 1.0.0"],
    ["+1", "at offset 0, unexpected character '+'"],
    ["1 2", "at offset 2, unexpected character '2' after value"],
    ["[", "at offset 1, unexpected end of file"],
    ["[1", "at offset 2, unexpected end of file"],
    ["[1,]", "at offset 3, unexpected character ']'"],
    ["[,1]", "at offset 1, unexpected character ','"],
    ["[1 2]", "at offset 3, got '2', want ',' or ']'"],
    ["{1:2}", "at offset 2, got int for object key, want string"],
    ["{[1]:2}", "at offset 4, got list for object key, want string"],
    ['{"a" 1}', "at offset 5, after object key, got '1', want ':' "],
    ['{"a":1 "b":2}', "at offset 7, in object, got '\"', want ',' or '}'"],
    ['{"a":1,}', "at offset 7, unexpected character '}'"],
    ['{"a"', "at offset 4, unexpected end of file"],
    ["", "at offset 0, unexpected end of file"],
    ["   ", "at offset 3, unexpected end of file"],
    ["nul", "at offset 0, unexpected character 'n'"],
    ["nulls", "at offset 4, unexpected character 's' after value"],
    ["True", "at offset 0, unexpected character 'T'"],
    ['"abc', "at offset 0, unclosed string literal"],
    ['"abc\\"', "at offset 0, unclosed string literal"],
    ['"\\x41"', "at offset 6, invalid character 'x' in string escape code"],
    ['"\\u00g1"', "at offset 8, invalid character 'g' in \\u hexadecimal character escape"],
    ['"\\u00"', "at offset 6, invalid character '\"' in \\u hexadecimal character escape"],
    ['"a\\n\nb"', "at offset 7, invalid character '\\n' in string literal"],
    ['"\xc3\nb"', "at offset 5, invalid character '\\n' in string literal"],
    ['"\\\'"', "at offset 4, invalid character '\\'' in string escape code"],
    ["'a'", "at offset 0, unexpected character '\\''"],
    ["[1]x", "at offset 3, unexpected character 'x' after value"],
    ["\x0b1", "at offset 0, unexpected character '\\v'"],
    ["\x01", "at offset 0, unexpected character '\\x01'"],
    ["\x7f", "at offset 0, unexpected character '\\x7f'"],
    ["\x80", "at offset 0, unexpected character '\\u0080'"],
    ["\xa0", "at offset 0, unexpected character '\\u00a0'"],
    ["\xc3\xa9", "at offset 0, unexpected character 'Ã'"],
    ["\\", "at offset 0, unexpected character '\\\\'"],
  ];
  for (const [src, msg] of bad) throwsEval(() => call("decode", [src]), "json.decode: " + u(msg));
});

Deno.test("json.decode: arguments and default", () => {
  assert.equal(call("decode", ["[", null]), null);
  assert.equal(call("decode", ["[", 5]), 5);
  assert.equal(call("decode", ["[", L()], [])!.constructor, List);
  assert.equal(call("decode", ["["], [["default", 7]]), 7);
  assert.equal(call("decode", ["1"], [["default", 7]]), 1);
  throwsEval(() => call("decode", [1]), "json.decode: for parameter x: got int, want string");
  throwsEval(
    () => call("decode", [1], [["default", 2]]),
    "json.decode: for parameter x: got int, want string",
  );
  throwsEval(() => call("decode", [], [["x", "1"]]), "json.decode: unexpected keyword argument x");
  throwsEval(() => call("decode", []), "json.decode: missing argument for x");
  throwsEval(() => call("decode", ["1", "2", "3"]), "json.decode: got 3 arguments, want at most 2");
  throwsEval(() => call("decode", ["1"], [["foo", 3]]), 'json.decode: unexpected keyword argument "foo"');
  // Decoded containers are new and mutable.
  const l = call("decode", ["[1,2]"]) as List;
  assert.equal(l.frozen, false);
  const d = call("decode", ['{"a":{"b":[]}}']) as Dict;
  assert.equal(d.frozen, false);
});

Deno.test("json.decode: nesting of any depth, like the reference, bounded by the budgets", () => {
  const n = 100_000;
  const deep = "[".repeat(n) + "]".repeat(n);
  assert.equal(encodeJSON(new Thread(), call("decode", [deep])), deep);
  const objs = '{"a":'.repeat(n) + "1" + "}".repeat(n);
  assert.equal(encodeJSON(new Thread(), call("decode", [objs])), objs);
  // Unterminated: an ordinary decoding failure, which `default` catches.
  assert.equal(call("decode", ["[".repeat(n)], [["default", null]]), null);
  throwsEval(
    () => call("decode", [deep.slice(0, -1)]),
    `json.decode: at offset ${2 * n - 1}, unexpected end of file`,
  );
  // Open containers are charged as they open.
  const th = new Thread({ maxMemory: 1 << 20 });
  assert.throws(
    () => call("decode", ["[".repeat(1 << 20)], [], th),
    (e: unknown) => e instanceof ResourceError && e.resource === "memory",
  );
  // A big object is charged per entry as its table grows, at a table entry's size (ENTRY_BYTES), on top of
  // its keys and values: a budget stops it part way, and a complete one has paid for its table.
  const keys = Array.from({ length: 200_000 }, (_, i) => `"k${i}":${i}`).join(",");
  const budget = new Thread({ maxMemory: 8 << 20 });
  assert.throws(
    () => call("decode", [`{${keys}}`], [], budget),
    (e: unknown) => e instanceof ResourceError && e.resource === "memory",
  );
  assert.ok(budget.memory < (8 << 20) + (1 << 20), `charged ${budget.memory} bytes before stopping`);
  const roomy = new Thread({ maxMemory: 64 << 20 });
  assert.equal((call("decode", [`{${keys}}`], [], roomy) as Dict).size, 200_000);
  assert.ok(roomy.memory >= 200_000 * ENTRY_BYTES, `charged ${roomy.memory} bytes for 200,000 entries`);
});

Deno.test("json.indent and json.encode_indent", () => {
  assert.equal(
    call("indent", ['[1,2,{"a":3,"b":[]}]']),
    '[\n\t1,\n\t2,\n\t{\n\t\t"a": 3,\n\t\t"b": []\n\t}\n]',
  );
  assert.equal(
    call("indent", ['[1,2,{"a":3,"b":[]}]'], [["prefix", ">"], ["indent", "  "]]),
    '[\n>  1,\n>  2,\n>  {\n>    "a": 3,\n>    "b": []\n>  }\n>]',
  );
  assert.equal(call("indent", [' {"a" : [ ] , "b":{ }} ']), '{\n\t"a": [],\n\t"b": {}\n} ');
  assert.equal(
    call("indent", ['{"a":[1,{"b":2}]}\n']),
    '{\n\t"a": [\n\t\t1,\n\t\t{\n\t\t\t"b": 2\n\t\t}\n\t]\n}\n',
  );
  assert.equal(call("indent", ["[1, [2, [3]]]"], [["indent", ""]]), "[\n1,\n[\n2,\n[\n3\n]\n]\n]");
  assert.equal(
    call("indent", ['[1, "a b", {"c": "d:e,f"}]']),
    '[\n\t1,\n\t"a b",\n\t{\n\t\t"c": "d:e,f"\n\t}\n]',
  );
  assert.equal(call("indent", ['"<&>\\n"']), '"<&>\\n"');
  assert.equal(call("indent", ["1\t\n"]), "1\t\n");
  const errs: [string, string][] = [
    ["[1,2", "unexpected end of JSON input"],
    ["", "unexpected end of JSON input"],
    ["[1,2]x", "invalid character 'x' after top-level value"],
    ["[1,2]]", "invalid character ']' after top-level value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ["01", "invalid character '1' after top-level value"],
    ["1.", "invalid character ' ' after decimal point in numeric literal"],
    ["-", "invalid character ' ' in numeric literal"],
    ["1e", "invalid character ' ' in exponent of numeric literal"],
    ["tru", "invalid character ' ' in literal true (expecting 'e')"],
    ["trUe", "invalid character 'U' in literal true (expecting 'u')"],
    ["nulx", "invalid character 'x' in literal null (expecting 'l')"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"],
    ["[1}", "invalid character '}' after array element"],
    ['{"a":1]', "invalid character ']' after object key:value pair"],
    ["\xc3\xa9", u("invalid character 'Ã' looking for beginning of value")],
    ["[" + "[".repeat(10000), "invalid character '[' exceeded max depth"],
  ];
  for (const [src, msg] of errs) throwsEval(() => call("indent", [src]), "json.indent: " + msg);
  const deepIndented = call("indent", ["[".repeat(10000) + "]".repeat(10000)], [["indent", ""]]) as string;
  assert.equal(deepIndented, "[\n".repeat(9999) + "[]" + "\n]".repeat(9999));
  throwsEval(() => call("indent", [1]), "json.indent: for parameter 1: got int, want string");
  throwsEval(() => call("indent", ["1", "x"]), "json.indent: got 2 arguments, want 1");
  throwsEval(
    () => call("indent", ["1"], [["prefix", 1]]),
    'json.indent: for parameter "prefix": got int, want string',
  );
  throwsEval(
    () => call("indent", ["1"], [["prefx", ""]]),
    'json.indent: unexpected keyword argument "prefx" (did you mean prefix?)',
  );
  throwsEval(() => call("indent", [], [["x", "1"]]), 'json.indent: unexpected keyword argument "x"');

  assert.equal(
    call("encode_indent", [D(["b", L(1, 2)], ["a", new Dict()])]),
    '{\n\t"a": {},\n\t"b": [\n\t\t1,\n\t\t2\n\t]\n}',
  );
  assert.equal(
    call("encode_indent", [D(["b", L(1, 2)], ["a", new Dict()])], [["prefix", "//"], ["indent", "-"]]),
    '{\n//-"a": {},\n//-"b": [\n//--1,\n//--2\n//-]\n//}',
  );
  assert.equal(call("encode_indent", ["<&>"]), '"<&>"');
  throwsEval(() => call("encode_indent", [f(NaN)]), "json.encode_indent: cannot encode non-finite float nan");
  throwsEval(() => call("encode_indent", [1, 2]), "json.encode_indent: got 2 arguments, want 1");
  throwsEval(
    () => call("encode_indent", [1], [["indent", 3]]),
    'json.encode_indent: for parameter "indent": got int, want string',
  );
  let deep: Value = L();
  for (let i = 0; i < 10000; i++) deep = L(deep);
  throwsEval(
    () => call("encode_indent", [deep]),
    "json.encode_indent: invalid character '[' exceeded max depth",
  );
});

// A random JSON-compatible value (string keys; no tuples, which decode as lists).
function randomValue(rnd: () => number, depth: number): Value {
  const k = Math.floor(rnd() * (depth > 4 ? 6 : 8));
  switch (k) {
    case 0:
      return null;
    case 1:
      return rnd() < 0.5;
    case 2:
      return Math.floor((rnd() - 0.5) * 2e6);
    case 3:
      return rnd() < 0.2
        ? BigInt(Math.floor(rnd() * 1e9)) * 10n ** 20n
        : new Float((rnd() - 0.5) * 10 ** (rnd() * 40 - 20));
    case 4:
    case 5: {
      let s = "";
      const n = Math.floor(rnd() * 8);
      const alphabet = [
        "a",
        "Z",
        " ",
        '"',
        "\\",
        "\n",
        "\x01",
        "<",
        "\x7f",
        "\xc3\xa9",
        "\xf0\x9f\x98\x80",
        "\xe2\x80\xa8",
      ];
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
      // The reference encodes DEL in otherwise printable ASCII as `\x7f`, which is not JSON (tested below).
      return /^[\x20-\x7f]*\x7f[\x20-\x7f]*$/.test(s) ? s + "\n" : s;
    }
    case 6:
      return new List(Array.from({ length: Math.floor(rnd() * 5) }, () => randomValue(rnd, depth + 1)));
    default: {
      const d = new Dict();
      const n = Math.floor(rnd() * 5);
      for (let i = 0; i < n; i++) {
        d.setUnchecked(String(randomValue(rnd, 99)) + i, randomValue(rnd, depth + 1));
      }
      return d;
    }
  }
}

Deno.test("json round trips: decode(encode(x)) == x and encode is stable", () => {
  const rnd = seededRandom(12345);
  for (let i = 0; i < 500; i++) {
    const x = randomValue(rnd, 0);
    const s = call("encode", [x]) as string;
    const y = call("decode", [s]);
    assert.ok(equals(x, y), `round trip of ${s}`);
    assert.equal(call("encode", [y]), s);
    // indent keeps the content: decoding the indented text gives the same value.
    assert.ok(equals(call("decode", [call("indent", [s])]), x));
  }
});

Deno.test("json: like the reference, DEL in printable ASCII does not round-trip", () => {
  const s = call("encode", ["a\x7f"]) as string;
  assert.equal(s, '"a\\x7f"');
  throwsEval(
    () => call("decode", [s]),
    "json.decode: at offset 7, invalid character 'x' in string escape code",
  );
  assert.equal(call("decode", [call("encode", ["a\x7f\n"])]), "a\x7f\n");
});

Deno.test("json: 20k records encode/decode sanity", () => {
  const records = new List();
  for (let i = 0; i < 20000; i++) {
    records.elems.push(
      D(["id", i], ["name", `user${i}`], ["score", f(i * 0.5)], ["tags", L("a", "b")], [
        "active",
        i % 2 === 0,
      ]),
    );
  }
  const thread = new Thread({ maxSteps: 10_000_000 });
  const t0 = performance.now();
  const s = call("encode", [records], [], thread) as string;
  const back = call("decode", [s], [], thread) as List;
  const elapsed = performance.now() - t0;
  assert.equal(back.elems.length, 20000);
  const first = '[{"active":true,"id":0,"name":"user0","score":0.0,"tags":["a","b"]},';
  assert.equal(s.slice(0, first.length), first);
  assert.ok(equals(back, records));
  assert.equal(call("encode", [back], [], thread), s);
  assert.ok(thread.steps > s.length / 64, "encoding and decoding are charged");
  assert.ok(elapsed < 10000, `20k records took ${elapsed} ms`);
});

Deno.test("json: budgets are charged before large outputs are built", () => {
  // Steps: decoding a 1 MB document costs about 1 MB / 32 steps.
  const big = "[" + "1,".repeat(500000) + "1]";
  assert.throws(() => call("decode", [big], [], new Thread({ maxSteps: 10000 })), ResourceError);
  // Memory: many references to one large string, charged as the output grows, not once joined whole.
  const s = "x".repeat(100000);
  const many = new List(Array.from({ length: 1000 }, () => s));
  assert.throws(
    () => call("encode", [many], [], new Thread({ maxMemory: 1_000_000 })),
    (e: unknown) => e instanceof ResourceError && e.resource === "memory",
  );
  const mb = "x".repeat(1_000_000);
  const shared = new List(Array.from({ length: 100 }, () => mb));
  const budget = new Thread({ maxMemory: 8 << 20 });
  assert.throws(
    () => call("encode", [shared], [], budget),
    (e: unknown) => e instanceof ResourceError && e.resource === "memory",
  );
  assert.ok(budget.memory < (8 << 20) + (2 << 20), `charged ${budget.memory} bytes before stopping`);
  // A huge indent at depth fails on the budget, not on a JS string-length error.
  let deep: Value = L(1);
  for (let i = 0; i < 5000; i++) deep = L(deep);
  assert.throws(
    () =>
      call(
        "encode_indent",
        [deep],
        [["indent", "x".repeat(1_000_000)]],
        new Thread({ maxMemory: 50_000_000 }),
      ),
    (e: unknown) => e instanceof ResourceError && e.resource === "memory",
  );
  // Huge number literals are charged superlinearly (BigInt parsing is superlinear).
  assert.throws(
    () => call("decode", ["9".repeat(1_000_000)], [], new Thread({ maxSteps: 1_000_000 })),
    ResourceError,
  );
  assert.equal(typeof call("decode", ["9".repeat(2000)]), "bigint");
});
