/**
 * Tests of bounded quoting (quote_bounded.ts): a value whose text fits prints exactly as `repr`; a longer
 * one prints a prefix of that same text within the limit, then a marker whose count is right, and the
 * work done (steps charged, time) does not grow with the value.
 */
import assert from "node:assert/strict";
import { execFile } from "../mod.ts";
import {
  Bytes,
  Dict,
  intBounded,
  joinBounded,
  List,
  QUOTE_LIMIT,
  repr,
  reprBounded,
  StarSet,
  textBounded,
  Thread,
  Tuple,
  type Value,
} from "./mod.ts";

const MARKER = /^([\s\S]*)\.\.\. \((\d+) more (bytes?|digits?|elements?|entry|entries|characters?)\)$/;

/** Splits a bounded text into its shown prefix, count and unit; undefined when it is not cut. */
function cutOf(text: string): { shown: string; n: number; unit: string } | undefined {
  const m = MARKER.exec(text);
  return m === null ? undefined : { shown: m[1], n: Number(m[2]), unit: m[3] };
}

/** Small values of every kind, built by a program (so they are the engine's own values). */
function smallValues(): Value[] {
  const { globals } = execFile(
    [
      'texts = ["", "abc", "a\\"b\\\\c", "\\x00\\x01\\n\\t\\x7f", "h\\u00e9llo", "日本", "\\U0001F600"]',
      'byts = [b"", b"abc", b"\\xff\\x00", b"\\xe6\\x97\\xa5"]',
      "ints = [0, -1, 2147483647, -2147483648, 1 << 70, -(1 << 200), 9007199254740993]",
      'floats = [0.0, -1.5, 1e100, float("nan"), float("inf"), 123456.0]',
      'lists = [[], [1], [1, "a", [2, (3,)]], (), (1,), (1, 2), {}, {"a": 1, 2: [3]}, set([1, 2])]',
      "big = {i: str(i) for i in range(20)}",
      "cyc = [1]",
      "cyc.append(cyc)",
      'cd = {"k": 1}',
      'cd["self"] = cd',
      "misc = [None, True, False, range(5), range(1, 10, 2), len, [].append]",
    ].join("\n"),
    { dialect: { set: true } },
  );
  const out: Value[] = [];
  for (const name of ["texts", "byts", "ints", "floats", "lists", "misc"]) {
    out.push(...(globals.get(name) as List).elems);
  }
  out.push(globals.get("big")!, globals.get("cyc")!, globals.get("cd")!);
  out.push("\xff\xfe", "a\xe6\x97", new Bytes("\xc3")); // invalid UTF-8 (binary strings)
  return out;
}

Deno.test("reprBounded: a value whose text fits prints exactly as repr", () => {
  for (const v of smallValues()) {
    const full = repr(v);
    assert.ok(full.length <= QUOTE_LIMIT, full);
    assert.equal(reprBounded(v), full);
    assert.equal(reprBounded(v, new Thread()), full);
  }
});

Deno.test("reprBounded: the limit is exact (a text of exactly `limit` characters is whole)", () => {
  for (let n = 0; n < 40; n++) {
    const s = "x".repeat(n);
    const full = repr(s);
    assert.equal(reprBounded(s, undefined, full.length), full);
    const cut = cutOf(reprBounded(s, undefined, full.length - 1));
    assert.ok(cut !== undefined && cut.shown.length <= full.length - 1);
  }
});

/** Kinds of long string, with the text each repeats. */
const LONG_TEXTS: [string, string][] = [
  ["plain", "abc"],
  ["control bytes", "\x01"],
  ["quotes and backslashes", '"\\'],
  ["newlines", "\n"],
  ["two-byte runes", "\xc3\xa9"],
  ["three-byte runes", "\xe6\x97\xa5"],
  ["four-byte runes", "\xf0\x9f\x98\x80"],
  ["invalid bytes", "\xff"],
  ["mixed", 'a\x01\xc3\xa9\xff"\xe6\x97\xa5 '],
];

/** The number of bytes of `s` a cut quoted prefix `shown` covers (it is the quote of s[0:k], unclosed). */
function bytesShown(s: string, shown: string, bytes: boolean): number {
  for (let k = Math.min(s.length, shown.length); k >= 0; k--) {
    if (repr(bytes ? new Bytes(s.slice(0, k)) : s.slice(0, k)).slice(0, -1) === shown) return k;
  }
  throw new Error(`no prefix of the value quotes as ${shown}`);
}

Deno.test("reprBounded: long strings and bytes show a quoted prefix and the exact number of bytes left", () => {
  for (const [name, unit] of LONG_TEXTS) {
    for (const size of [QUOTE_LIMIT, 1000, 100_000]) {
      const s = unit.repeat(Math.ceil(size / unit.length));
      for (const bytes of [false, true]) {
        const v: Value = bytes ? new Bytes(s) : s;
        const text = reprBounded(v);
        const cut = cutOf(text);
        assert.ok(cut !== undefined, `${name} ${size}: not cut: ${text.slice(0, 80)}`);
        assert.ok(cut.shown.length <= QUOTE_LIMIT, `${name}: ${cut.shown.length} characters shown`);
        assert.ok(cut.shown.length >= QUOTE_LIMIT - 10, `${name}: only ${cut.shown.length} characters shown`);
        assert.ok(repr(v).startsWith(cut.shown), `${name}: not a prefix of repr`);
        assert.equal(cut.unit, "bytes");
        assert.equal(cut.n, s.length - bytesShown(s, cut.shown, bytes), `${name} ${size} bytes=${bytes}`);
      }
    }
  }
});

Deno.test("textBounded: raw text keeps whole runes and counts the bytes left", () => {
  assert.equal(textBounded("abc"), "abc");
  const s = "\xe6\x97\xa5".repeat(1000); // 3-byte runes: 256 is not a rune boundary
  const text = textBounded(s);
  const cut = cutOf(text)!;
  assert.equal(cut.shown.length % 3, 0);
  assert.equal(cut.shown.length, 255);
  assert.equal(cut.n, s.length - 255);
  assert.equal(textBounded("x".repeat(QUOTE_LIMIT)), "x".repeat(QUOTE_LIMIT));
  assert.equal(textBounded("x".repeat(QUOTE_LIMIT + 1)), "x".repeat(QUOTE_LIMIT) + "... (1 more byte)");
});

/** Positions in `repr(x)` where each top-level element's text ends (x a list, tuple, dict or set). */
function elementEnds(x: List | Tuple | Dict | StarSet): number[] {
  let pos = x instanceof StarSet ? 5 : 1;
  const ends: number[] = [];
  const parts: string[] = x instanceof Dict
    ? x.keys().map((k) => `${repr(k)}: ${repr(x.get(k)!)}`)
    : (x instanceof StarSet ? x.elems() : x.elems).map((e) => repr(e));
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) pos += 2;
    pos += parts[i].length;
    ends.push(pos);
  }
  return ends;
}

/** Containers too long to print whole, of every kind and shape. */
function longContainers(): [string, List | Tuple | Dict | StarSet][] {
  const { globals } = execFile(
    [
      "ints = list(range(1000))",
      "tup = tuple(range(1000))",
      'strs = ["s" * 100] * 10',
      'first_long = ["\\x01" * 1000, 1, 2]',
      "bigints = [(1 << 500) * (1 << 500)] * 5",
      "d = {i: [i] for i in range(500)}",
      'small_d = {"k": "v" * 1000}',
      "s = set(range(1000))",
      "nested = [[[[i] for i in range(50)]]]",
      "deep = []",
      "for i in range(2000):",
      "    deep = [deep]",
      "deep_d = {}",
      "for i in range(2000):",
      '    deep_d = {"k": deep_d}',
      "cyc = list(range(100))",
      "cyc.append(cyc)",
      'views = [1, ("\\x01" * 1000).elems(), 2]',
    ].join("\n"),
    { dialect: { set: true, topLevelControl: true, globalReassign: true } },
  );
  const names = [
    "ints",
    "tup",
    "strs",
    "first_long",
    "bigints",
    "d",
    "small_d",
    "s",
    "nested",
    "deep",
    "deep_d",
    "cyc",
    "views",
  ];
  return names.map((n) => [n, globals.get(n) as List]);
}

Deno.test("reprBounded: long containers show a prefix of repr and how many top-level elements are left", () => {
  for (const [name, x] of longContainers()) {
    const full = repr(x);
    const text = reprBounded(x);
    const cut = cutOf(text);
    assert.ok(cut !== undefined, `${name}: not cut`);
    assert.ok(cut.shown.length <= QUOTE_LIMIT, `${name}: ${cut.shown.length}`);
    assert.ok(full.startsWith(cut.shown), `${name}: ${cut.shown.slice(-40)} is not a prefix of repr`);
    const done = elementEnds(x).filter((end) => end <= cut.shown.length).length;
    const size = x instanceof List || x instanceof Tuple ? x.elems.length : x.size;
    assert.equal(cut.n, size - done, name);
    assert.equal(
      cut.unit,
      x instanceof Dict ? (cut.n === 1 ? "entry" : "entries") : cut.n === 1 ? "element" : "elements",
    );
  }
});

Deno.test("intBounded: huge ints show their leading digits and the exact number of others", () => {
  const { globals } = execFile(
    "x = (7 << 500) * (3 << 400) + 12345\ny = x * x * x * x\nz = -(y * y * y)\n",
  );
  for (const v of [globals.get("x")!, globals.get("y")!, globals.get("z")!] as bigint[]) {
    for (const limit of [10, 100, QUOTE_LIMIT]) {
      const full = v.toString();
      const neg = v < 0n ? 1 : 0;
      const text = intBounded(v, limit);
      const cut = cutOf(text)!;
      assert.equal(cut.shown, full.slice(0, neg + limit));
      assert.equal(cut.n, full.length - neg - limit);
      assert.equal(cut.unit, "digits");
    }
    assert.equal(intBounded(v, 100_000), v.toString());
  }
  assert.equal(intBounded(-12), "-12");
  assert.equal(intBounded(10n ** 255n), "1" + "0".repeat(255));
  assert.equal(intBounded(10n ** 256n), "1" + "0".repeat(255) + "... (1 more digit)");
});

Deno.test("intBounded: a huge int is not converted to decimal (a 4-million-digit int costs a division)", () => {
  const x = 7n ** 4_700_000n; // ~13 million bits, ~4 million digits
  const thread = new Thread();
  // Every decimal conversion made meanwhile, by the size of the int converted.
  const original = BigInt.prototype.toString;
  let largest = 0;
  BigInt.prototype.toString = function (this: bigint, radix?: number) {
    const text = original.call(this, radix);
    if (radix === undefined || radix === 10) largest = Math.max(largest, text.length);
    return text;
  };
  let text: string;
  try {
    text = intBounded(x, QUOTE_LIMIT, thread);
  } finally {
    BigInt.prototype.toString = original;
  }
  const cut = cutOf(text)!;
  assert.equal(cut.shown.length, QUOTE_LIMIT);
  // The digit count from the bit length: log10(7) * 4,700,000 + 1.
  assert.equal(cut.n + QUOTE_LIMIT, Math.floor(4_700_000 * Math.log10(7)) + 1);
  assert.equal(cut.shown, original.call(x / 10n ** BigInt(cut.n)));
  assert.ok(largest < 300, `a ${largest}-digit decimal conversion`);
  assert.ok(thread.steps > 0, "the division is charged");
});

Deno.test("reprBounded: the work and the steps charged do not grow with the value", () => {
  const sizes = [1_000, 10_000_000];
  const steps: number[][] = [];
  for (const n of sizes) {
    const row: number[] = [];
    const list = new List(Array.from({ length: Math.min(n, 1_000_000) }, (_, i) => i));
    for (const v of ["\x01".repeat(n), new Bytes("\xff".repeat(n)), list]) {
      const thread = new Thread({ maxSteps: 10_000, maxMemory: 100_000 });
      const text = reprBounded(v, thread);
      assert.ok(text.length < QUOTE_LIMIT + 40);
      row.push(thread.steps);
    }
    steps.push(row);
  }
  assert.deepEqual(steps[0], steps[1], "steps charged depend on the size of the value");
  assert.ok(steps[0].every((s) => s > 0), "bounded quoting is charged");
});

Deno.test("joinBounded: fail's text keeps small messages and cuts long ones with counts", () => {
  assert.equal(joinBounded(["a", 1, null, true], " ", undefined), "a 1 None True");
  const l = new List([1, "x"]);
  assert.equal(joinBounded(["got", l, new Bytes("b")], ", ", undefined), 'got, [1, "x"], b"b"');
  const long = "y".repeat(100_000);
  assert.equal(joinBounded([long], " ", undefined, 100), "y".repeat(100) + "... (99900 more bytes)");
  assert.equal(
    joinBounded(["ab", long, "c", "d"], " ", undefined, 100),
    "ab " + "y".repeat(97) + "... (99903 more bytes) and 2 more arguments",
  );
  const big = new List(Array.from({ length: 1000 }, (_, i) => i));
  const text = joinBounded(["x", big], "-", undefined, 50);
  const cut = cutOf(text)!;
  assert.ok(cut.shown.startsWith("x-[0, 1, 2"));
  assert.equal(cut.unit, "elements");
  assert.ok(text.length <= 50 + 30);
});

Deno.test("reprBounded: string views print their call when short, a quoted prefix when long", () => {
  const { globals } = execFile(
    'short = "ab".elems()\nlong = ("\\x01" * 100000).codepoints()\nlong_bytes = (b"\\xff" * 1000).elems()\n',
  );
  assert.equal(reprBounded(globals.get("short")!), '"ab".elems()');
  for (const [name, size] of [["long", 100_000], ["long_bytes", 1000]] as const) {
    const v = globals.get(name)!;
    const cut = cutOf(reprBounded(v, new Thread({ maxMemory: 10_000 })))!;
    assert.ok(repr(v).startsWith(cut.shown) && cut.shown.length <= QUOTE_LIMIT, name);
    assert.equal(cut.n, size - (cut.shown.length - (name === "long" ? 1 : 2)) / 4, name);
  }
});
