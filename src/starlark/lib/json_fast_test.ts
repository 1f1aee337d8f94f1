/**
 * Tests of the fast paths of json.encode/decode: the switch from recursion to the explicit stack, the
 * reuse of a previous dict's key order, the reuse of a previous object's key strings, and the per-value
 * charging of both directions.
 */
import assert from "node:assert/strict";
import {
  type Builtin,
  Dict,
  EvalError,
  Float,
  List,
  repr,
  Thread,
  Tuple,
  type Value,
} from "../values/mod.ts";
import { encodeJSON, json } from "./json.ts";
import { seededRandom } from "../seeded_random_test.ts";

const decode = (s: string, thread = new Thread()): Value => {
  const b = json.members.get("decode") as Builtin;
  return b.fn(thread, [s], [], b);
};
const D = (...kvs: [Value, Value][]): Dict => {
  const d = new Dict();
  for (const [k, v] of kvs) d.setUnchecked(k, v);
  return d;
};

function nest(depth: number, leaf: Value): Value {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? new List([1, v]) : D(["k", v]);
  return v;
}

Deno.test("json fast: nesting across the recursion limit encodes the same text", () => {
  for (const depth of [1, 63, 64, 65, 200]) {
    const text = encodeJSON(new Thread(), nest(depth, "x"));
    let want = '"x"';
    for (let i = 0; i < depth; i++) want = i % 2 === 0 ? `[1,${want}]` : `{"k":${want}}`;
    assert.equal(text, want);
  }
});

Deno.test("json fast: an error deep inside reports the whole path, outermost first", () => {
  const builtin = json.members.get("decode")!;
  for (const depth of [3, 64, 65, 150]) {
    const bad = nest(depth, new Tuple([1, builtin]));
    let want = "";
    for (let i = depth - 1; i >= 0; i--) want += i % 2 === 0 ? "at list index 1: " : 'in dict key "k": ';
    assert.throws(() => encodeJSON(new Thread(), bad), (e: unknown) => {
      assert.ok(e instanceof EvalError);
      assert.equal(
        e.message,
        `json.encode: ${want}at tuple index 1: cannot encode builtin_function_or_method as JSON`,
      );
      return true;
    });
  }
});

Deno.test("json fast: dicts with the same or different key orders are all sorted", () => {
  const a = D(["b", 1], ["a", 2], ["c", 3]);
  const b = D(["b", 4], ["a", 5], ["c", 6]); // same insertion order: the sorted order is reused
  const c = D(["c", 7], ["a", 8], ["b", 9]); // different order
  const d = D(["b", 1], ["a", 2], ["d", 3]); // same length, different key
  const text = encodeJSON(new Thread(), new List([a, b, c, d, a]));
  assert.equal(
    text,
    '[{"a":2,"b":1,"c":3},{"a":5,"b":4,"c":6},{"a":8,"b":9,"c":7},{"a":2,"b":1,"d":3},{"a":2,"b":1,"c":3}]',
  );
  assert.throws(
    () => encodeJSON(new Thread(), new List([a, D(["b", 1], [2, 2], ["c", 3])])),
    /dict has int key/,
  );
});

Deno.test("json fast: decoded keys are reused only when the text is identical", () => {
  const v = decode(
    '[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"nam":"c"},{"i\\u0064":4,"name":"d"},' +
      '{"name":5,"id":6},{"id":7,"name":8,"x":{"id":9}},{"id\\n":10}]',
  );
  assert.equal(
    repr(v),
    '[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "nam": "c"}, {"id": 4, "name": "d"}, ' +
      '{"name": 5, "id": 6}, {"id": 7, "name": 8, "x": {"id": 9}}, {"id\\n": 10}]',
  );
  // A key that merely starts like the previous one is not taken for it.
  assert.equal(repr(decode('[{"abc":1},{"ab":2},{"abcd":3}]')), '[{"abc": 1}, {"ab": 2}, {"abcd": 3}]');
  // Keys with escapes or control characters are never reused, only decoded again (to the same text).
  assert.equal(repr(decode('[{"a\\tb":1},{"a\tb":2}]')), '[{"a\\tb": 1}, {"a\\tb": 2}]');
  // Repeated keys keep their first position and their last value.
  assert.equal(repr(decode('{"a":1,"b":2,"a":3}')), '{"a": 3, "b": 2}');
});

Deno.test("json fast: keys remembered from one document are reused in the next only when identical", () => {
  // Seeded: documents of one shape with keys that sometimes change by one character, grow, shrink or
  // gain an escape; each decodes exactly like the same document decoded first (nothing remembered).
  const next = seededRandom(12345);
  const rand = (n: number) => Math.floor(next() * n);
  const fresh = (text: string) => {
    // Replaces every remembered key these documents can meet by one none of them has.
    decode("{" + [0, 1, 2, 3, 4].map((j) => `"#${j}":{"#":0}`).join(",") + "}");
    return repr(decode(text));
  };
  for (let i = 0; i < 300; i++) {
    const keys = ["id", "name", "price", "tags", "pos"].map((k) => {
      switch (rand(6)) {
        case 0:
          return k.slice(0, -1) + String.fromCharCode(97 + rand(26));
        case 1:
          return k + "x";
        case 2:
          return k.slice(1);
        case 3:
          return k.slice(0, 1) + "\\u00" + k.charCodeAt(1).toString(16) + k.slice(2);
        default:
          return k;
      }
    });
    const text = "{" + keys.map((k, j) => `"${k}":{"${keys[(j + 1) % 5]}":${j}}`).join(",") + "}";
    const reused = repr(decode(text));
    assert.equal(reused, fresh(text), text);
  }
  // Deeper than the remembered levels and wider than the remembered positions: decoded as usual.
  const deep = `${"[".repeat(40)}{"k":1}${"]".repeat(40)}`;
  assert.equal(repr(decode(deep)), repr(decode(deep)));
  const wide = "{" + Array.from({ length: 100 }, (_, j) => `"k${j}":${j}`).join(",") + "}";
  assert.equal((decode(wide) as Dict).size, 100);
  assert.equal(repr(decode(wide)), repr(decode(wide.replace('"k99"', '"k9x"'))).replace('"k9x"', '"k99"'));
});

Deno.test("json fast: both directions charge per value, and a deep list per level", () => {
  const records = new List(
    Array.from({ length: 1000 }, (_, i) => D(["id", i], ["tags", new List(["x", "y"])])),
  );
  const t = new Thread();
  const text = encodeJSON(t, records);
  // Each record is a dozen pieces: several steps each, not one step per 32 bytes (~600 steps in all).
  assert.ok(t.steps >= 10_000, `encode: ${t.steps} steps`);
  const u = new Thread();
  decode(text, u);
  assert.ok(u.steps >= 10_000, `decode: ${u.steps} steps`);
  let deep: Value = new List([]);
  for (let i = 0; i < 100_000; i++) deep = new List([deep]);
  const w = new Thread();
  encodeJSON(w, deep);
  assert.ok(w.steps >= 400_000, `deep: ${w.steps} steps`);
});

Deno.test("json fast: short string literals (one pass) decode as long ones (validate, then unescape)", () => {
  const pieces = [
    "a",
    "Z ",
    "\\\\",
    '\\"',
    "\\/",
    "\\b\\f\\n\\r\\t",
    "\\u00e9",
    "\\uD83D\\uDE00",
    "\\ude00",
    "\\ud83d",
    "\\ud800\\u0041",
    "\xc3\xa9",
    "\xe4\xb8\xad",
    "\xe4\xb8",
    "\xff",
    "\x80",
    "\x7f",
    "\\x",
    "\\u12",
    "\x01",
    "\\uzzzz",
    "\\",
  ];
  let seed = 7;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const run = (lit: string): string => {
    try {
      return "ok:" + (decode(lit) as string);
    } catch (e) {
      return "error:" + (e as Error).message.replace(/at offset \d+, /, "");
    }
  };
  // A long plain prefix sends the same body down the two-pass path; what follows the body is the same.
  const pad = "p".repeat(5000);
  for (let i = 0; i < 3000; i++) {
    let body = "";
    for (let k = rnd(6); k >= 0; k--) body += pieces[rnd(pieces.length)];
    // The decoder never hands over a literal whose closing quote is escaped.
    if (/(^|[^\\])(\\\\)*\\$/.test(body)) continue;
    const short = run('"' + body + '"');
    const long = run('"' + pad + body + '"');
    assert.equal(long, short.startsWith("ok:") ? "ok:" + pad + short.slice(3) : short, JSON.stringify(body));
  }
});

Deno.test("json fast: compact dicts are written as their hash-table form is, and charged the same", () => {
  const records = (n: number, asMap: boolean): List =>
    new List(Array.from({ length: n }, (_, i) => {
      const r = D(["name", `r${i}`], ["id", i], ["tags", new List(["x"])], [
        "meta",
        D(["z", null], ["a", i % 2 === 0]),
      ]);
      const one = D(["only", i]);
      const none = new Dict();
      if (asMap) { for (const d of [r, one, none, r.get("meta") as Dict]) void d.map; }
      return new List([r, one, none]);
    }));
  for (const n of [1, 50]) {
    const t1 = new Thread(), t2 = new Thread();
    const a = encodeJSON(t1, records(n, false)), b = encodeJSON(t2, records(n, true));
    assert.equal(a, b);
    assert.ok(
      a.startsWith('[[{"id":0,"meta":{"a":true,"z":null},"name":"r0","tags":["x"]},{"only":0},{}]'),
      a,
    );
    assert.equal(t1.steps, t2.steps, `n=${n}`);
  }
  // Over many batches the pieces are the same; only where batches end may differ by a piece.
  const t1 = new Thread(), t2 = new Thread();
  assert.equal(encodeJSON(t1, records(3000, false)), encodeJSON(t2, records(3000, true)));
  assert.ok(Math.abs(t1.steps - t2.steps) <= 50, `${t1.steps} vs ${t2.steps}`);
  // Key errors and error paths, from the compact form.
  assert.throws(() => encodeJSON(new Thread(), D([1, 2])), /dict has int key, want string/);
  assert.throws(() => encodeJSON(new Thread(), D(["a", 1], [2, 2])), /dict has int key, want string/);
  assert.throws(
    () => encodeJSON(new Thread(), D(["b", 1], ["a", D(["x", new List([1, json.members.get("decode")!])])])),
    (e: unknown) =>
      e instanceof EvalError &&
      e.message ===
        'json.encode: in dict key "a": in dict key "x": at list index 1: cannot encode builtin_function_or_method as JSON',
  );
});

Deno.test("json fast: a dict changed by host code while it is written is written as it was", () => {
  const outer = D(["c", 3], ["b", 2]);
  let calls = 0;
  const host = {
    typeName: "hostiter",
    starlarkIterate: () => ({
      next: (): Value | undefined => {
        calls++;
        // Sorted, "a" (this value) comes first: the rest of the dict is read after these changes.
        outer.deleteUnchecked("c");
        outer.setUnchecked("b", 20);
        outer.setUnchecked("d", 4);
        return calls === 1 ? 1 : undefined;
      },
      done: () => {},
    }),
  } as unknown as Value;
  outer.setUnchecked("a", host);
  const inner = D(["y", outer], ["x", 0]);
  assert.equal(encodeJSON(new Thread(), new List([inner])), '[{"x":0,"y":{"a":[1],"b":2,"c":3}}]');
  assert.equal(calls, 2);
  assert.equal(outer.size, 3);
});

Deno.test("json fast: plain decimals decode to the double Number gives, at every length", () => {
  const next = seededRandom(12);
  const rand = (n: number): number => Math.floor(next() * n);
  const digits = (n: number): string => Array.from({ length: n }, () => String(rand(10))).join("");
  const texts = [
    "0.0",
    "-0.0",
    "0.1",
    "0.30000000000000004",
    "9007199254740.991",
    "9007199254740.993",
    "1.7976931348623157",
  ];
  for (let i = 0; i < 20000; i++) {
    const intPart = rand(4) === 0 ? "0" : String(1 + rand(9)) + digits(rand(12));
    const frac = rand(8) === 0 ? "0".repeat(rand(6)) + digits(1 + rand(3)) : digits(1 + rand(24));
    texts.push((rand(3) === 0 ? "-" : "") + intPart + "." + frac);
  }
  for (const text of texts) {
    const v = decode(`[${text}]`) as List;
    const f = v.elems[0] as Float;
    assert.ok(f instanceof Float, text);
    assert.ok(Object.is(f.value, Number(text)), `${text}: ${f.value} vs ${Number(text)}`);
  }
});

Deno.test("json fast: reused encoders and decoders charge each call as a fresh one, after failures too", () => {
  const value = new List([D(["b", 1.5], ["a", new List(["x", 2])]), D(["b", 2.5], ["a", new List([])])]);
  const steps: number[] = [];
  const texts: string[] = [];
  for (let i = 0; i < 3; i++) {
    const t = new Thread();
    texts.push(encodeJSON(t, value));
    steps.push(t.steps);
    // A failing call in between leaves nothing behind for the next.
    assert.throws(() => encodeJSON(new Thread(), D(["k", new List([1, D([2, 3])])])), /dict has int key/);
    assert.throws(() => decode('[{"a": [1, 2}]'), /got '}', want ',' or ']'/);
  }
  assert.deepEqual(texts, Array(3).fill('[{"a":["x",2],"b":1.5},{"a":[],"b":2.5}]'));
  assert.equal(new Set(steps).size, 1, String(steps));
  const decoded: string[] = [];
  const dsteps: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = new Thread();
    decoded.push(repr(decode(texts[0], t)));
    dsteps.push(t.steps);
  }
  assert.deepEqual(decoded, Array(3).fill('[{"a": ["x", 2], "b": 1.5}, {"a": [], "b": 2.5}]'));
  assert.equal(new Set(dsteps).size, 1, String(dsteps));
});

Deno.test("json fast: short valid UTF-8 strings are escaped as the byte-by-byte path escapes them", () => {
  const pieces = [
    "a",
    "Z ",
    '"',
    "\\",
    "<>&",
    "\t\n\r\b\f",
    "\x00",
    "\x1f",
    "\x7f",
    "\xc3\xa9",
    "\xe4\xb8\xad",
    "\xf0\x9f\x98\x80",
    "\xe2\x80\xa8",
    "\xe2\x80\xa9",
    "\xff",
    "\x80",
    "\xc3",
    "\xc0\xaf",
    "\xed\xa0\x80",
    "\xf4\x90\x80\x80",
    "\xe0\x80\xaf",
    "\xe4\xb8",
    "\xf0\x9f\x98",
    "\xf5\x80\x80\x80",
  ];
  const next = seededRandom(21);
  const pad = "p".repeat(5000); // past the regex path's length limit: the byte-by-byte path
  for (let i = 0; i < 4000; i++) {
    let s = "";
    for (let k = Math.floor(next() * 6); k >= 0; k--) s += pieces[Math.floor(next() * pieces.length)];
    const short = encodeJSON(new Thread(), new List([s]));
    const long = encodeJSON(new Thread(), new List([pad + s]));
    assert.equal(long, '["' + pad + short.slice(2), JSON.stringify(s));
  }
});

/**
 * What decoding the number token `t` gives, by the rules written out plainly: JSON's leading-zero rule,
 * a short int's value, Go's float syntax and the correctly rounded double `Number` gives, a long int's
 * exact value. "error" for a refused token.
 */
function numberOracle(t: string): Value | "error" {
  if (!/^[-0-9]/.test(t)) return "error"; // a value starting otherwise is not a number
  const body = t.startsWith("-") ? t.slice(1) : t;
  if (body === "" || (body.length > 1 && body[0] === "0" && /[0-9]/.test(body[1]))) return "error";
  if (!/[.eE+-]/.test(body)) {
    if (!/^[0-9]+$/.test(body)) return "error";
    if (t.length <= 15) return Number(t) === 0 ? 0 : Number(t);
    const n = BigInt(t);
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
  }
  if (!/^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(t)) return "error";
  const x = Number(t);
  return Number.isFinite(x) ? new Float(x) : "error";
}

Deno.test("json fast: number tokens decode as their plain rules say (one-pass scan), generated", () => {
  const next = seededRandom(27);
  const rand = (n: number): number => Math.floor(next() * n);
  const digits = (n: number): string => Array.from({ length: n }, () => String(rand(10))).join("");
  const lead = (n: number): string => (n === 0 ? "" : String(1 + rand(9)) + digits(n - 1));
  const tokens = [
    "0",
    "-0",
    "7",
    "-",
    "1.",
    ".5",
    "-.5",
    "1..2",
    "1.2.3",
    "01",
    "-01.5",
    "00",
    "1-2",
    "1e",
    "1e+",
  ];
  tokens.push("1" + "0".repeat(400) + ".5", "9".repeat(309) + ".0", "0." + "0".repeat(400) + "1");
  for (let i = 0; i < 30000; i++) {
    const sign = rand(3) === 0 ? "-" : "";
    const int = rand(5) === 0 ? "0" : lead(1 + rand(rand(4) === 0 ? 30 : 12));
    switch (rand(6)) {
      case 0: // an int, short or long
        tokens.push(sign + int);
        break;
      case 1: // a plain decimal whose digits fit one exact division, or not
      case 2:
        tokens.push(sign + int + "." + digits(1 + rand(rand(3) === 0 ? 40 : 20)));
        break;
      case 3: // an exponent
        tokens.push(
          sign + int + (rand(2) ? "." + digits(1 + rand(6)) : "") + "eE"[rand(2)] +
            ["", "+", "-"][rand(3)] + String(rand(400)),
        );
        break;
      default: { // a decimal broken by one character of the scanned set
        const good = sign + int + "." + digits(1 + rand(8));
        const at = 1 + rand(good.length - 1);
        tokens.push(good.slice(0, at) + ".eE+-"[rand(5)] + good.slice(at));
      }
    }
  }
  for (const t of tokens) {
    const want = numberOracle(t);
    const thread = new Thread();
    let got: Value | "error";
    try {
      got = (decode(`[${t}]`, thread) as List).elems[0];
    } catch (e) {
      if (!(e instanceof EvalError)) throw e;
      assert.match(e.message, /invalid number|unexpected character|want ',' or '\]'/, t);
      got = "error";
    }
    if (want instanceof Float) {
      assert.ok(got instanceof Float, `${t}: ${String(got)}`);
      assert.ok(Object.is(got.value, want.value), `${t}: ${got.value} vs ${want.value}`);
    } else assert.equal(got, want, t);
  }
});

Deno.test("json fast: the decoder kept after a big document decodes and charges small ones as before", () => {
  const next = seededRandom(31);
  const rand = (n: number): number => Math.floor(next() * n);
  // Generated small documents: nested objects and arrays, every kind of scalar.
  const scalar = (): string =>
    ['"s' + rand(9) + '"', String(rand(1000)), (rand(1e6) / 64).toFixed(3), "null", "true"][rand(5)];
  const doc = (depth: number): string => {
    if (depth === 0 || rand(3) === 0) return scalar();
    const n = rand(4);
    return rand(2)
      ? "[" + Array.from({ length: n }, () => doc(depth - 1)).join(",") + "]"
      : "{" + Array.from({ length: n }, (_, i) => `"k${i}":` + doc(depth - 1)).join(",") + "}";
  };
  const smalls = Array.from({ length: 60 }, () => doc(4));
  const run = () =>
    smalls.map((s) => {
      const t = new Thread();
      // Memory charges are left out: a key reused from the previous document (any decoder's) costs less.
      return `${repr(decode(s, t))} ${t.steps}`;
    });
  const before = run();
  // Stacks far past what a spare decoder keeps as they are: a long array, a wide object, deep nesting.
  const wide = "{" + Array.from({ length: 9000 }, (_, i) => `"w${i}":${i}`).join(",") + "}";
  for (const big of ["[" + "1.5,".repeat(9000) + "0]", wide, "[".repeat(6000) + "]".repeat(6000)]) {
    const t = new Thread();
    decode(big, t);
    assert.deepEqual(run(), before);
  }
});
