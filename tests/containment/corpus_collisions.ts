/**
 * Issue 22, class 1: hash-colliding keys. Programs whose dict keys V8 would put in one bucket of a `Map`
 * if the engine used them as its table keys unchanged: big ints sharing their lowest 64 bits (V8 hashes
 * a BigInt by that digit alone), floats of 2^64 and more (they are big-int keys), small ints inverted from
 * V8's fixed integer hash (computed by the program itself), strings that look like array indices (hashed
 * by their value), and strings, bytes and tuple keys of 16,384 characters or more (hashed by their length
 * alone). Each then copies, compares, looks up, sorts, encodes or formats with them in a loop. Every table
 * operation must stay bounded and charged: the step or memory budget ends each program, long before the
 * deadline, with the engine polling all along.
 *
 * Before table keys (src/starlark/values/table_key.ts), one `dict(d)` of 12,000 such keys walked a
 * 12,000-long chain per entry inside one native call: the inline host froze 0.3–1.3 s at a time and the
 * deadline was overrun by seconds.
 *
 * @module
 */
import { type HostileProgram, LIMIT, main } from "./corpus_kit.ts";

/** Keys per colliding table: a chain of 12,000 made one copy take about a second. */
const N = 12_000;

/** The inverse of odd `a` modulo 2^32. */
function inverse32(a: bigint): bigint {
  let x = 1n;
  for (let i = 0; i < 6; i++) x = (x * (2n - a * x)) & 0xffffffffn;
  return x;
}

/**
 * Lines defining `collide(n)`: `n` ints whose V8 integer hashes (`ComputeUnseededHash`, a fixed bijection
 * of 32-bit words) share their low 14 bits, obtained by inverting each step of that hash.
 */
function collidingIntsSource(): string[] {
  return [
    "M = 0xffffffff",
    "def unshift(h, s):",
    "    y = h",
    "    for _ in range(32 // s + 1):",
    "        y = h ^ (y >> s)",
    "    return y & M",
    "def unhash(h):",
    "    x = unshift(h, 16)",
    `    x = (x * ${inverse32(2057n)}) & M`,
    "    x = unshift(x, 4)",
    `    x = (x * ${inverse32(5n)}) & M`,
    "    x = unshift(x, 12)",
    `    x = ((x + 1) * ${inverse32(32767n)}) & M`,
    "    return x - 0x100000000 if x >= 0x80000000 else x",
    "def collide(n):",
    "    return [unhash(t << 14) for t in range(1, n + 1)]",
  ];
}

/** A body that copies, compares and looks up `d` (keys `keys`) until a budget ends it. */
const CHURN = [
  "n = 0",
  "for r in range(1000):",
  "    e = dict(d)",
  "    f = d | {}",
  "    n += len(e) + len(f) + int(e == d)",
  "    for k in keys:",
  "        n += d[k] + e.pop(k)",
  "return n",
];

/** The hash-colliding family. */
export const COLLISIONS: readonly HostileProgram[] = [
  {
    name: "collide-bigint-copies",
    kind: "dict",
    source: main(
      `d = {i << 64: 0 for i in range(1, ${N + 1})}`,
      "n = 0",
      "for r in range(1000):",
      "    n += len(dict(d))",
      "return n",
    ),
    expect: LIMIT,
    why: "12,000 big ints sharing their low 64 bits: each copy walked a 12,000-long chain per entry",
  },
  {
    name: "collide-bigint-churn",
    kind: "dict",
    source: main(`keys = [i << 64 for i in range(1, ${N + 1})]`, "d = {k: 1 for k in keys}", ...CHURN),
    expect: LIMIT,
    why: "`dict(d)`, `d | {}`, `==`, lookups and `pop` on colliding big-int keys",
  },
  {
    name: "collide-bigint-inserts",
    kind: "dict",
    source: main("d = {}", "for i in range(1000000):", "    d[(i % 60000 + 1) << 64] = i", "return len(d)"),
    expect: LIMIT,
    why: "insertions and updates in a chain of 60,000 until a budget ends them: each walked the chain",
  },
  {
    name: "collide-small-ints-inverted-hash",
    kind: "dict",
    source: collidingIntsSource().join("\n") + "\n\n" +
      main(`keys = collide(${N})`, "d = {k: 1 for k in keys}", ...CHURN),
    expect: LIMIT,
    why: "ordinary ints inverted from V8's fixed integer hash: one bucket, as for big ints",
  },
  {
    name: "collide-floats-and-ints-2p64",
    kind: "dict",
    source: main(
      `keys = [float(i << 64) if i % 2 else i << 64 for i in range(1, ${N + 1})]`,
      "d = {k: 1 for k in keys}",
      ...CHURN,
    ),
    expect: LIMIT,
    why: "floats ≥ 2^64 are big-int keys with a zero low digit, mixed with the ints they equal",
  },
  {
    name: "collide-index-strings",
    kind: "dict",
    source: main(`keys = [str(i << 14) for i in range(1, ${N + 1})]`, "d = {k: 1 for k in keys}", ...CHURN),
    expect: LIMIT,
    why: 'strings like "16384" are hashed by their value: multiples of 2^14 share a bucket',
  },
  {
    name: "collide-long-strings-one-length",
    kind: "dict",
    source: main(
      'pad = "x" * 16400',
      "keys = [pad + str(100000 + i) for i in range(1500)]",
      "d = {k: 1 for k in keys}",
      ...CHURN,
    ),
    expect: LIMIT,
    why:
      "strings of 16,384 chars or more are hashed by their length: equal lengths, one chain, long compares",
  },
  {
    name: "collide-long-bytes-one-length",
    kind: "bytes",
    source: main(
      'pad = b"x" * 16400',
      "keys = [pad + bytes(str(100000 + i)) for i in range(1500)]",
      "d = {k: 1 for k in keys}",
      ...CHURN,
    ),
    expect: LIMIT,
    why: "a long bytes key is a long string key: one chain when the lengths are equal",
  },
  {
    name: "collide-long-tuple-keys",
    kind: "tuple",
    source: main(
      'pad = "x" * 16400',
      "keys = [(pad, str(100000 + i)) for i in range(1000)]",
      "d = {k: 1 for k in keys}",
      ...CHURN,
    ),
    expect: LIMIT,
    why: "a tuple's key is a string of its content: past 16,384 chars, hashed by its length",
  },
  {
    name: "collide-sorted-index-strings",
    kind: "list",
    source: main(
      "l = [(str(i << 14), i) for i in range(1, 8001)]",
      "n = 0",
      "for r in range(100):",
      "    n += len(sorted(l))",
      "return n",
    ),
    expect: LIMIT,
    why: "`sorted` ranks a column of strings in a table: index-like strings all fell in one bucket",
  },
  {
    name: "collide-json-encode-index-keys",
    kind: "json",
    source: main(
      `d = {str(i << 14): 1 for i in range(1, ${N + 1})}`,
      "n = 0",
      "for r in range(100):",
      "    n += len(json.encode(d))",
      "return n",
    ),
    expect: LIMIT,
    why: "json.encode's shared cache of quoted keys: filled with colliding keys, every lookup walked it",
  },
  {
    name: "collide-format-kwargs",
    kind: "string",
    source: main(
      "kw = {str(i << 14): 1 for i in range(1, 8001)}",
      'kw["a"] = 5',
      "n = 0",
      "for r in range(1000):",
      '    n += len("{a}".format(**kw))',
      "return n",
    ),
    expect: LIMIT,
    why: "`str.format` indexed its keyword arguments in a table: index-like names all fell in one bucket",
  },
  {
    name: "collide-mixed-kinds",
    kind: "dict",
    source: main(
      `keys = [i << 64 for i in range(1, ${N / 2})] + [float((2 * i + 1) << 80) for i in range(1, ${N / 4})]`,
      `keys += [(i << 64, (None, True, i << 65)) for i in range(1, ${N / 4})] + [None, True, False]`,
      "d = {k: 1 for k in keys}",
      ...CHURN,
    ),
    expect: LIMIT,
    why: "every kind in one table: colliding ints, floats and tuples of them, None and bools",
  },
];
