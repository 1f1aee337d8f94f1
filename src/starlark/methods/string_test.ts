import assert from "node:assert/strict";
import { Bytes, Dict, List, ResourceError, Thread, Tuple, type Value } from "../values/mod.ts";
import { meth, registerCases, src } from "../builtins/harness_test.ts";
import type { Case } from "../builtins/harness_test.ts";
import { lookupMethod, methodNames } from "./mod.ts";

const L = (...xs: Value[]): List => new List(xs);
const T = (...xs: Value[]): Tuple => new Tuple(xs);
// A string holding the invalid UTF-8 byte 0xC3 (made by slicing, as the reference's literals cannot).
const BAD = src('"é"[0:1]', () => "\xc3");
const badPlus = (before: string, after: string) =>
  src(`${JSON.stringify(before)} + "é"[0:1] + ${JSON.stringify(after)}`, () => before + "\xc3" + after);

const SEARCH: Case[] = [
  meth("hello", "find", ["l"], "2"),
  meth("hello", "rfind", ["l"], "3"),
  meth("hello", "find", ["z"], "-1"),
  meth("hello", "find", [""], "0"),
  meth("hello", "rfind", [""], "5"),
  meth("hello", "find", ["l", 3], "3"),
  meth("hello", "find", ["l", -2], "3"),
  meth("hello", "find", ["l", 0, 2], "-1"),
  meth("hello", "find", ["l", null, null], "2"),
  meth("hello", "find", ["", 10], "5"),
  meth("hello", "rfind", ["", 2, 4], "4"),
  meth("hello", "find", ["l", "x"], "ERR: find: invalid start index: got string, want int"),
  meth("hello", "find", ["l", 0, "x"], "ERR: find: invalid end index: got string, want int"),
  meth("hello", "find", [1], "ERR: find: for parameter 1: got int, want string"),
  meth("hello", "find", [], "ERR: find: got 0 arguments, want at least 1"),
  meth("hello", "find", ["a", 1, 2, 3], "ERR: find: got 4 arguments, want at most 3"),
  meth("hello", "find", ["a"], "ERR: find: unexpected keyword arguments", { kwargs: { start: 1 } }),
  meth("héllo", "find", ["l"], "3"),
  meth("hello", "index", ["e"], "1"),
  meth("hello", "index", ["z"], "ERR: index: substring not found"),
  meth("hello", "rindex", ["l"], "3"),
  meth("hello", "rindex", ["z"], "ERR: rindex: substring not found"),
  meth("banana", "count", ["a"], "3"),
  meth("banana", "count", ["ana"], "1"),
  meth("banana", "count", [""], "7"),
  meth("héllo", "count", [""], "6"),
  meth("banana", "count", ["a", 2], "2"),
  meth("banana", "count", ["a", 2, -1], "1"),
  meth("banana", "count", ["a", 5, 2], "0"),
  meth("banana", "count", ["a", 2 ** 31], "ERR: count: invalid start index: 2147483648 out of range"),
  meth("hello", "startswith", ["he"], "True"),
  meth("hello", "startswith", [T("x", "he")], "True"),
  meth("hello", "startswith", [T()], "False"),
  meth("hello", "startswith", ["el", 1], "True"),
  meth("hello", "startswith", ["", 6], "True"),
  meth("hello", "endswith", ["lo"], "True"),
  meth("hello", "endswith", ["ll", 0, 4], "True"),
  meth("hello", "endswith", ["ll", 0, -1], "True"),
  meth("hello", "endswith", ["x", 4, 2], "False"),
  meth("hello", "endswith", ["", 4, 2], "True"),
  meth("hello", "startswith", [1], "ERR: startswith: got int, want string or tuple of string"),
  meth("hello", "startswith", [L("h")], "ERR: startswith: got list, want string or tuple of string"),
  meth("hello", "endswith", [T("o", 1)], "True"),
  meth("hello", "endswith", [T("x", 1)], "ERR: endswith: want string, got int, for element 1"),
  meth("hello", "startswith", ["h", "x"], "ERR: startswith: invalid start index: got string, want int"),
  meth("a,b,c", "partition", [","], '("a", ",", "b,c")'),
  meth("a,b,c", "rpartition", [","], '("a,b", ",", "c")'),
  meth("abc", "partition", [","], '("abc", "", "")'),
  meth("abc", "rpartition", [","], '("", "", "abc")'),
  meth("abc", "partition", [""], "ERR: partition: empty separator"),
  meth("abc", "rpartition", [""], "ERR: rpartition: empty separator"),
  meth("abc", "partition", [], "ERR: partition: got 0 arguments, want 1"),
  meth("abc", "partition", [1], "ERR: partition: for parameter 1: got int, want string"),
  meth("prefix-x", "removeprefix", ["prefix-"], '"x"'),
  meth("prefix-x", "removeprefix", ["x"], '"prefix-x"'),
  meth("x.txt", "removesuffix", [".txt"], '"x"'),
  meth("x.txt", "removesuffix", [""], '"x.txt"'),
  meth("x", "removesuffix", [1], "ERR: removesuffix: for parameter 1: got int, want string"),
];

const TRANSFORM: Case[] = [
  meth("aaa", "replace", ["a", "b"], '"bbb"'),
  meth("aaa", "replace", ["a", "b", 2], '"bba"'),
  meth("aaa", "replace", ["a", "b", 0], '"aaa"'),
  meth("aaa", "replace", ["a", "b", -1], '"bbb"'),
  meth("abc", "replace", ["", "-"], '"-a-b-c-"'),
  meth("abc", "replace", ["", "-", 2], '"-a-bc"'),
  meth("héllo", "replace", ["", "."], '".h.é.l.l.o."'),
  meth("abcabc", "replace", ["bc", ""], '"aa"'),
  meth("abc", "replace", ["x", "y"], '"abc"'),
  meth("abc", "replace", ["a"], "ERR: replace: got 1 arguments, want at least 2"),
  meth("abc", "replace", ["a", "b", "c"], "ERR: replace: for parameter 3: got string, want int"),
  meth("abc", "replace", ["a", 1], "ERR: replace: for parameter 2: got int, want string"),
  meth("-", "join", [L("a", "b", "c")], '"a-b-c"'),
  meth("-", "join", [L()], '""'),
  meth("", "join", [T("x", "y")], '"xy"'),
  meth(", ", "join", [src('{"k": 1, "v": 2}', () => {
    const d = new Dict();
    d.setUnchecked("k", 1);
    d.setUnchecked("v", 2);
    return d;
  })], '"k, v"'),
  meth("-", "join", [L("a", 1)], "ERR: join: in list, want string, got int"),
  meth("-", "join", ["abc"], "ERR: join: for parameter 1: got string, want iterable"),
  meth("-", "join", [], "ERR: join: got 0 arguments, want 1"),
  meth("Hello World", "lower", [], '"hello world"'),
  meth("Hello World", "upper", [], '"HELLO WORLD"'),
  meth("ÉCOLE ß İ", "lower", [], '"école ß i"'),
  meth("straße ǆ ᾀ", "upper", [], '"STRAßE Ǆ ᾈ"'),
  meth(badPlus("a", ""), "upper", [], '"A�"'),
  meth(badPlus("", "B"), "lower", [], '"�b"'),
  meth("a", "upper", [1], "ERR: upper: got 1 arguments, want 0"),
  meth("a", "lower", [], "ERR: lower: unexpected keyword arguments", { kwargs: { x: 1 } }),
  meth("hello wORLD", "capitalize", [], '"Hello world"'),
  meth("ǆemal", "capitalize", [], '"ǅemal"'),
  meth("", "capitalize", [], '""'),
  meth(badPlus("", "ab"), "capitalize", [], '"�ab"'),
  meth("hello wORLD", "title", [], '"Hello World"'),
  meth("they're bill's friends", "title", [], "\"They'Re Bill'S Friends\""),
  meth("ǆa ǆA", "title", [], '"ǅa ǅa"'),
  meth("123abc xyz", "title", [], '"123Abc Xyz"'),
  meth(badPlus("", "Ab"), "title", [], '"�Ab"'),
  meth("  a b  ", "strip", [], '"a b"'),
  meth("  a b  ", "lstrip", [], '"a b  "'),
  meth("  a b  ", "rstrip", [], '"  a b"'),
  meth("\t\n\v\f\r \u0085\u00a0\u3000x\u2000", "strip", [], '"x"'),
  meth("xxaxx", "strip", ["x"], '"a"'),
  meth("xyaxy", "lstrip", ["yx"], '"axy"'),
  meth("xyaxy", "rstrip", ["yx"], '"xya"'),
  meth("éaé", "strip", ["é"], '"a"'),
  meth("xxéaxx", "strip", ["x"], '"éa"'),
  meth("xéaéx", "rstrip", ["é"], '"xéaéx"'),
  meth("  a  ", "strip", [""], '"a"'),
  meth(badPlus(" ", " x "), "strip", [], '"\\xc3 x"'),
  meth(badPlus("", "a"), "strip", [badPlus("a", "")], '""'),
  meth(badPlus("", "a"), "strip", ["\ufffd"], '"a"'),
  meth("a", "strip", [null], "ERR: strip: for parameter 1: got NoneType, want string"),
  meth("a", "strip", ["a", "b"], "ERR: strip: got 2 arguments, want at most 1"),
  meth("{} and {}", "format", ["a", 1], '"a and 1"'),
  meth("{1}{0}{1}", "format", ["a", "b"], '"bab"'),
  meth("{x}-{y}", "format", [], '"1-[]"', { kwargs: { x: 1, y: L() } }),
  meth("{!r} {!s} {}", "format", ["a", "b", "c"], '"\\"a\\" b c"'),
  meth("{0!r}", "format", [L("a")], '"[\\"a\\"]"'),
  meth("{{}} {{{}}}", "format", [1], '"{} {1}"'),
  meth("}}", "format", [], '"}"'),
  meth("{", "format", [], "ERR: format: unmatched '{' in format"),
  meth("}", "format", [], "ERR: format: single '}' in format"),
  meth("a}b", "format", [], "ERR: format: single '}' in format"),
  meth(
    "{} {0}",
    "format",
    [1],
    "ERR: format: cannot switch from automatic field numbering to manual field specification",
  ),
  meth(
    "{0} {}",
    "format",
    [1],
    "ERR: format: cannot switch from manual field specification to automatic field numbering",
  ),
  meth("{} {}", "format", [1], "ERR: format: tuple index out of range"),
  meth("{2}", "format", [1], "ERR: format: tuple index out of range"),
  meth("{x}", "format", [], "ERR: format: keyword x not found"),
  meth(
    "{x.y}",
    "format",
    [],
    "ERR: format: attribute syntax x.y is not supported in replacement fields: x.y",
  ),
  meth(
    "{a[0]}",
    "format",
    [],
    "ERR: format: element syntax a[i] is not supported in replacement fields: a[0]",
  ),
  meth("{a{b}", "format", [], "ERR: format: nested replacement fields not supported"),
  meth("{:d}", "format", [1], "ERR: format spec features not supported in replacement fields: d"),
  meth("{!r:x}", "format", [1], "ERR: format spec features not supported in replacement fields: x"),
  meth("{!x}", "format", [1], 'ERR: format: unknown conversion "x"'),
  meth("{!}", "format", [1], 'ERR: format: unknown conversion ""'),
  meth("{99999999999999999999}", "format", [1], "ERR: format: keyword 99999999999999999999 not found"),
  meth(
    "{} {!s}",
    "format",
    [src('b"x"', () => new Bytes("x")), src('b"y"', () => new Bytes("y"))],
    '"b\\"x\\" b\\"y\\""',
  ),
  meth("{x}{x}", "format", [], '"11"', { kwargs: { x: 1 } }),
];

const SPLIT: Case[] = [
  meth("a b  c", "split", [], '["a", "b", "c"]'),
  meth("  a b  c  ", "split", [], '["a", "b", "c"]'),
  meth("  a b  c  ", "split", [null, 1], '["a", "b  c  "]'),
  meth("  a b  c  ", "rsplit", [null, 1], '["  a b", "c"]'),
  meth("  a b  c  ", "split", [null, 0], '["a b  c  "]'),
  meth("  a b  c  ", "rsplit", [null, 0], '["  a b  c"]'),
  meth("", "split", [], "[]"),
  meth("   ", "split", [], "[]"),
  meth("", "split", [","], '[""]'),
  meth("a\u00a0b\u3000c", "split", [], '["a", "b", "c"]'),
  meth("a,b,,c", "split", [","], '["a", "b", "", "c"]'),
  meth("a,b,,c", "split", [",", 1], '["a", "b,,c"]'),
  meth("a,b,,c", "rsplit", [",", 1], '["a,b,", "c"]'),
  meth("a,b,,c", "rsplit", [",", 2], '["a,b", "", "c"]'),
  meth("a,b,,c", "rsplit", [",", 10], '["a", "b", "", "c"]'),
  meth("a,b,,c", "split", [",", 0], '["a,b,,c"]'),
  meth("a,b,,c", "rsplit", [",", 0], '["a,b,,c"]'),
  meth("a::b::c", "split", ["::"], '["a", "b", "c"]'),
  meth("abc", "split", [""], "ERR: split: empty separator"),
  meth("abc", "rsplit", [""], "ERR: split: empty separator"),
  meth("abc", "rsplit", [1], "ERR: split: got int for separator, want string"),
  meth("abc", "split", [",", "x"], "ERR: split: for parameter 2: got string, want int"),
  meth("abc", "split", [","], "ERR: split: unexpected keyword arguments", { kwargs: { maxsplit: 1 } }),
  meth("a\nb\n", "splitlines", [], '["a", "b"]'),
  meth("a\nb\n", "splitlines", [true], '["a\\n", "b\\n"]'),
  meth("a\n\nb", "splitlines", [], '["a", "", "b"]'),
  meth("a\r\nb", "splitlines", [], '["a\\r", "b"]'),
  meth("", "splitlines", [], "[]"),
  meth("\n", "splitlines", [], '[""]'),
  meth("a", "splitlines", [1], "ERR: splitlines: for parameter 1: got int, want bool"),
];

const CLASSIFY: Case[] = [
  meth("abc123", "isalnum", [], "True"),
  meth("abc 123", "isalnum", [], "False"),
  meth("", "isalnum", [], "False"),
  meth("héllo", "isalpha", [], "True"),
  meth("abc1", "isalpha", [], "False"),
  meth("0123", "isdigit", [], "True"),
  meth("٣", "isdigit", [], "True"),
  meth("½", "isdigit", [], "False"),
  meth("", "isdigit", [], "False"),
  meth(" \t\n", "isspace", [], "True"),
  meth("", "isspace", [], "False"),
  meth(" a", "isspace", [], "False"),
  meth("abc", "islower", [], "True"),
  meth("abc1 !", "islower", [], "True"),
  meth("aBc", "islower", [], "False"),
  meth("123", "islower", [], "False"),
  meth("ß", "islower", [], "True"),
  meth("ß", "isupper", [], "True"),
  meth("ﬃ", "islower", [], "False"),
  meth("ABC1", "isupper", [], "True"),
  meth("AbC", "isupper", [], "False"),
  meth(badPlus("A", ""), "isupper", [], "False"),
  meth("Hello World", "istitle", [], "True"),
  meth("Hello world", "istitle", [], "False"),
  meth("HEllo", "istitle", [], "False"),
  meth("ǅ", "istitle", [], "True"),
  meth("Ǆ", "istitle", [], "False"),
  meth("123 Abc", "istitle", [], "True"),
  meth("", "istitle", [], "False"),
  meth("a", "isalpha", [1], "ERR: isalpha: got 1 arguments, want 0"),
  meth(BAD, "isalpha", [], "False"),
  meth(BAD, "islower", [], "False"),
  meth(BAD, "upper", [], '"�"'),
  meth(BAD, "split", [], '["\\xc3"]'),
  meth(BAD, "count", [""], "2"),
];

const VIEWS: Case[] = [
  meth("abc", "elems", [], '"abc".elems()'),
  meth("abc", "elem_ords", [], '"abc".elem_ords()'),
  meth("abc", "codepoints", [], '"abc".codepoints()'),
  meth("abc", "codepoint_ords", [], '"abc".codepoint_ords()'),
  meth("abc", "elems", [1], "ERR: elems: got 1 arguments, want 0"),
  meth("abc", "codepoints", [], "ERR: codepoints: unexpected keyword arguments", { kwargs: { x: 1 } }),
  meth(src('b"ab"', () => new Bytes("ab")), "elems", [], 'b"ab".elems()'),
  meth(src('b"ab"', () => new Bytes("ab")), "elems", [1], "ERR: elems: got 1 arguments, want 0"),
];

registerCases("string search methods", SEARCH);
registerCases("string transforming methods", TRANSFORM);
registerCases("string split methods", SPLIT);
registerCases("string classification methods", CLASSIFY);
registerCases("string views", VIEWS);

Deno.test("string method names are the reference's, sorted", () => {
  const names = methodNames("");
  assert.equal(names.length, 35);
  assert.deepEqual(names, [...names].sort());
  assert.equal(lookupMethod("", "isdisjoint"), undefined);
  assert.equal(lookupMethod(1, "upper"), undefined);
});

Deno.test("replace charges the result size to the memory budget before building it", () => {
  const th = new Thread({ maxMemory: 1000 });
  const replace = lookupMethod("", "replace")!;
  assert.throws(() => replace(th, "a".repeat(100), ["a", "x".repeat(100)], []), ResourceError);
});

Deno.test("join charges its output to the memory budget", () => {
  const th = new Thread({ maxMemory: 1000 });
  const join = lookupMethod("", "join")!;
  const parts = new List(Array.from({ length: 100 }, () => "x".repeat(50)));
  assert.throws(() => join(th, ",", [parts], []), ResourceError);
});

Deno.test("strip, lstrip and rstrip with generated ASCII cutsets match a rune-by-rune model", () => {
  // Every ASCII code, with the 32-code word boundaries of the cutset bitmap (31/32, 63/64, 95/96, 127)
  // and non-ASCII runes that must never match an ASCII cutset.
  const pool = [...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)), "\xc3\xa9", "\xc2\x80"];
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return (seed >> 8) % n;
  };
  const model = (s: string, cut: Set<string>, left: boolean, right: boolean): string => {
    const runes = s.match(/\xc3\xa9|\xc2\x80|[\s\S]/g) ?? [];
    let i = 0, j = runes.length;
    if (left) { while (i < j && cut.has(runes[i])) i++; }
    if (right) { while (j > i && cut.has(runes[j - 1])) j--; }
    return runes.slice(i, j).join("");
  };
  for (let n = 0; n < 600; n++) {
    const cutChars = Array.from({ length: 1 + next(6) }, () => String.fromCharCode(next(128)));
    const cut = new Set(cutChars);
    // Strings mostly made of cutset members, so stripping goes some way before it stops.
    const s = Array.from(
      { length: next(12) },
      () => next(3) > 0 ? cutChars[next(cutChars.length)] : pool[next(130)],
    )
      .join("");
    const th = new Thread();
    for (
      const [name, left, right] of [["strip", true, true], ["lstrip", true, false], [
        "rstrip",
        false,
        true,
      ]] as const
    ) {
      const got = lookupMethod("", name)!(th, s, [cutChars.join("")], []);
      assert.equal(
        got,
        model(s, cut, left, right),
        `${JSON.stringify(s)}.${name}(${JSON.stringify(cutChars.join(""))})`,
      );
    }
  }
});
