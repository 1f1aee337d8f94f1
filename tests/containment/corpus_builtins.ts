/**
 * Hostile programs that make one built-in run long on a big input: sorting millions of values, `%` and
 * `str.format` with millions of pieces, `json.encode` of long escaped keys and printable text full of
 * quotes, `str()` of bytes that are mostly invalid UTF-8, `json.decode` of an object of many keys, and a
 * dict key made of tuples that share their halves.
 * Each built-in must charge as it goes and poll inside, so the deadline or a budget stops the program on
 * time even when it falls in the middle of one call.
 *
 * @module
 */
import { type HostileProgram, main } from "./corpus_kit.ts";

const OK_OR_LIMIT: readonly ["ok", "resource_limit"] = ["ok", "resource_limit"];

/** One long built-in call per program, repeated until a budget or the deadline ends it. */
export const LONG_BUILTINS: readonly HostileProgram[] = [
  {
    name: "sorted-millions",
    kind: "list",
    source: main(
      "l = [(i * 7919) % 1000003 * 0.5 for i in range(1500000)]",
      "n = 0",
      "for i in range(100):",
      "    n += int(sorted(l, reverse = True)[i])",
      "return n",
    ),
    expect: OK_OR_LIMIT,
    why: "a native sort of 1.5 million floats is one uninterruptible call (~700 ms)",
  },
  {
    name: "percent-million-conversions",
    kind: "string",
    source: main(
      'f = "%d," * 1000000',
      "t = tuple(range(1000000))",
      "n = 0",
      "for i in range(100):",
      "    n += len(f % t)",
      "return n",
    ),
    expect: OK_OR_LIMIT,
    why: "`%` with a million conversions built a million-node rope, flattened unpolled",
  },
  {
    name: "format-escaped-braces",
    kind: "string",
    source: main(
      'f = "{{}}" * 2000000',
      "n = 0",
      "for i in range(100):",
      "    n += len(f.format())",
      "return n",
    ),
    expect: OK_OR_LIMIT,
    why: "`str.format` joined four million literal pieces in one native call",
  },
  {
    name: "json-encode-escaped-keys",
    kind: "json",
    source: main(
      'k = "\\x01" * 1000000',
      'q = "\\\\\\"" * 1000000',
      "n = 0",
      "for i in range(100):",
      "    n += len(json.encode({k + str(i): q}))",
      "return n",
    ),
    expect: OK_OR_LIMIT,
    why: "a long dict key was escaped uncharged and unpolled; printable text full of quotes in one replace",
  },
  {
    name: "str-of-invalid-bytes",
    kind: "bytes",
    source: main(
      "b = bytes(range(128, 256)) * 40000",
      "n = 0",
      "for i in range(100):",
      "    n += len(str(b))",
      "return n",
    ),
    expect: OK_OR_LIMIT,
    why: "each invalid byte became a rope node, a 5-million-node rope flattened unpolled",
  },
  {
    name: "dict-key-shared-tuple-dag",
    kind: "tuple",
    source: main("x = ()", "for i in range(30):", "    x = (x, x)", "return {x: 1}"),
    expect: ["resource_limit"],
    why: "30 tuples sharing their halves are a key of 2^31 elements: counting them froze the thread for 12 s",
  },
  {
    name: "freeze-shared-tuple-dag",
    kind: "tuple",
    source: "def f():\n    x = ()\n    for i in range(40):\n        x = (x, x)\n    return x\n\ny = f()\n\n" +
      main("return len(y)"),
    expect: ["ok"],
    why: "the module's globals are frozen when it ends: freezing walked every path through the shared tuples",
  },
  {
    name: "native-json-shared-dag",
    kind: "native",
    source: main("x = []", "for i in range(40):", "    x = [x, x]", "return data.size(value = x)"),
    expect: ["resource_limit"],
    why: "a JSON argument of 40 lists sharing their halves: its check walked 2^41 values before any limit",
    harnessOnly: true,
  },
  {
    name: "json-decode-big-object",
    kind: "json",
    source: main(
      'text = "{" + ",".join([\'"k%d":%d\' % (i, i) for i in range(400000)]) + "}"',
      "n = 0",
      "for i in range(100):",
      "    n += len(json.decode(text))",
      "return n",
    ),
    expect: OK_OR_LIMIT,
    why: "the entries of a decoded object were charged a sixth of their size",
  },
];
