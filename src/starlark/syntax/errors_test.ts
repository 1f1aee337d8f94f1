// Syntax-error cases. Every expected message (with its line:col) was produced by the reference
// implementation: the `starlark` binary (go.starlark.net) run on the source as file "t.star".

import assert from "node:assert/strict";
import { StarlarkSyntaxError } from "../values/mod.ts";
import { parseFile } from "./mod.ts";

function errorOf(src: string): string {
  try {
    parseFile("t.star", src);
  } catch (e) {
    if (!(e instanceof StarlarkSyntaxError)) throw e;
    assert.equal(e.message, `${e.filename}:${e.line}:${e.col}: ${e.msg}`);
    return `${e.line}:${e.col}: ${e.msg}`;
  }
  return "no error";
}

const CASES: [string, string][] = [
  ["x = 1 +\n", "1:8: got newline, want primary expression"],
  ["f(1 2)\n", "1:6: got int literal, want ','"],
  ["x = (1, 2\n", "2:1: got end of file, want ')'"],
  ["x = [1, 2\ny = 3\n", "2:2: got identifier, want ']'"],
  ["def f(:\n  pass\n", "1:8: got ':', want ')'"],
  ["def f():\npass\n", "2:5: got pass, want indent"],
  ["if x:\n    a = 1\n  b = 2\n", "3:3: unindent does not match any outer indentation level"],
  ["x = 1\n  y = 2\n", "2:3: got indent, want primary expression"],
  ["x = a < b < c\n", "1:12: < does not associate with < (use parens)"],
  ["x = a == b in c\n", "1:14: == does not associate with in (use parens)"],
  ["x = a not b\n", "1:12: got identifier, want in"],
  ["f(a=1, 2)\n", "1:8: positional argument may not follow named"],
  ["f(**k, *a)\n", "1:8: *args may not follow **kwargs"],
  ["f(**k, a=1)\n", "1:8: keyword argument may not follow **kwargs"],
  ["f(*a, b=1)\n", "1:7: keyword argument may not follow *args"],
  ["f(*a, *b)\n", "1:7: multiple *args not allowed"],
  ["f(**a, **b)\n", "1:8: multiple **kwargs not allowed"],
  ["f(*a, 1)\n", "1:7: positional argument may not follow *args"],
  ["f(**a, 1)\n", "1:8: positional argument may not follow **kwargs"],
  ["f(a=1, a=2)\n", '1:8: keyword argument "a" is repeated'],
  ["f(1+2=3)\n", "1:7: keyword argument must have form name=expr"],
  ["def f(a=1, b):\n  pass\n", "1:12: required parameter may not follow optional"],
  ["def f(**k, a):\n  pass\n", "1:12: required parameter may not follow **k"],
  ["def f(**k, a=1):\n  pass\n", "1:13: optional parameter may not follow **k"],
  ["def f(**k, *a):\n  pass\n", "1:12: * parameter may not follow **k"],
  ["def f(*a, *b):\n  pass\n", "1:11: multiple * parameters not allowed"],
  ["def f(**a, **b):\n  pass\n", "1:12: multiple ** parameters not allowed"],
  ["def f(a, a):\n  pass\n", "1:10: duplicate parameter: a"],
  ["def f(a, a=1):\n  pass\n", "1:11: duplicate parameter: a"],
  ["def f(a, *a):\n  pass\n", "1:11: duplicate parameter: a"],
  ["def f(a, **a):\n  pass\n", "1:12: duplicate parameter: a"],
  ["def f(*):\n  pass\n", "1:7: bare * must be followed by keyword-only parameters"],
  ["def f(*, **k):\n  pass\n", "1:7: bare * must be followed by keyword-only parameters"],
  ["f() = 1\n", "1:1: can't assign to callexpr"],
  ["1 = x\n", "1:1: can't assign to literal"],
  ["(a, b) += 1\n", "1:2: can't use tuple expression in augmented assignment"],
  ["[a, b] += 1\n", "1:1: can't use list expression in augmented assignment"],
  ["a, b += 1\n", "1:1: can't use tuple expression in augmented assignment"],
  ['"s" = 1\n', "1:1: can't assign to literal"],
  ["x = [1 for f() in y]\n", "1:12: can't assign to callexpr"],
  ['load("m")\n', "1:5: load statement must import at least 1 symbol"],
  ["load(x)\n", "1:7: first operand of load statement must be a string literal"],
  ['load("m", x)\n', '1:13: load operand must be "x" or x="originalname" (want \'=\' after x)'],
  ['load("m", x=y)\n', '1:14: original name of loaded symbol must be quoted: x="originalname"'],
  ['load("m", 1)\n', '1:12: load operand must be "name" or localname="name" (got int literal)'],
  ['load("m", "a" "b")\n', "1:18: got string literal, want ','"],
  ["x = 1 if y\n", "1:7: conditional expression without else clause"],
  ["x = 1,\n", "1:6: unparenthesized tuple with trailing comma"],
  ["return 1,\n", "1:9: unparenthesized tuple with trailing comma"],
  ["x = 017\n", "1:8: obsolete form of octal literal; use 0o17"],
  ["x = 0x\n", "1:5: invalid hex literal"],
  ["x = 09\n", "1:5: invalid int literal"],
  ["x = 1e+\n", "1:8: invalid float literal"],
  ['x = "abc\n', "1:5: unexpected newline in string"],
  ['x = """abc\n', "1:5: unexpected EOF in string"],
  ['x = "\\q"\n', "1:5: invalid escape sequence \\q"],
  ['x = b"\\xzz"\n', "1:6: invalid escape sequence \\xzz"],
  ["x = 1 $\n", "1:7: unexpected input character '$'"],
  ["x = ) \n", "1:5: unexpected ')'"],
  ["x = 1 \\ 2\n", "1:8: stray backslash in program"],
  ["x = !1\n", "1:5: unexpected input character '!'"],
  ["lambda: (yield)\n", "1:10: got yield, want primary expression"],
  ["x = {1, 2}\n", "1:8: got ',', want ':'"],
  ["x = {a for a in c}\n", "1:11: got for, want ':'"],
  ["x = [a for a in c,]\n", "1:19: got ',', want ']', for, or if"],
  ["x = [a for a in b if c else d]\n", "1:28: got else, want ']', for, or if"],
  ["x = a.1\n", "1:8: got float literal, want newline"],
  ["x = a[1:2:3:4]\n", "1:13: got ':', want ']'"],
  ["def f():\n    x = 1\n\ty = 2\n", "3:2: got indent, want primary expression"],
  ["x = 1; y = 2;; z = 3\n", "1:14: got ';', want primary expression"],
  ["class A: pass\n", "1:1: got class, want primary expression"],
  ["x = a is b\n", "1:9: got is, want newline"],
  ["x = not\n", "1:8: got newline, want primary expression"],
  ["x = -not y\n", "1:6: got not, want primary expression"],
  ["x = lambda x, x: 1\n", "1:15: duplicate parameter: x"],
  ["x = lambda *: 1\n", "1:12: bare * must be followed by keyword-only parameters"],
  ["x = f(x for x in y)\n", "1:12: got for, want ','"],
  ["del x\n", "1:1: got del, want primary expression"],
  ["x = [1,,2]\n", "1:8: got ',', want primary expression"],
  ["def f(a,,b): pass\n", "1:10: not an identifier"],
  ["x = 1 if 2 else\n", "1:16: got newline, want primary expression"],
  ["for x in 1, 2,: pass\n", "1:15: got ':', want primary expression"],
  ["x = a not in b not in c\n", "1:22: not in does not associate with not in (use parens)"],
  [
    'x = b"\\u00e9" + "\\777"\n',
    "1:17: non-ASCII octal escape \\777 (use \\u01FF for the UTF-8 encoding of U+01FF)",
  ],
  ['x = "\\400"\n', "1:5: non-ASCII octal escape \\400 (use \\u0100 for the UTF-8 encoding of U+0100)"],
  ["x.y += 1\nx[0] -= 1\nx = 1 < 2 == 3\n", "3:13: < does not associate with == (use parens)"],
  ["def f(a, *, b): return a\nx = y = 1\n", "2:8: got '=', want newline"],
  ["x = - 1 < 2 -\n", "1:14: got newline, want primary expression"],
  ["x = (1 for a in b)\n", "1:11: got for, want ')'"],
  ["x = 0b\n", "1:7: invalid binary literal"],
  ["x = 0o8\n", "1:7: invalid octal literal"],
  ["x = a in b in c\n", "1:14: in does not associate with in (use parens)"],
  [
    "x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
    "1:82: excessive nesting",
  ],
  ['x = "é😀" +\n', "1:11: got newline, want primary expression"],
  ['x = "é😀" $\n', "1:10: unexpected input character '$'"],
  ["# 😀😀\nx = (1 # 😀\n  2)\n", "3:4: got int literal, want ')'"],
  ["def f():\n  x = 1\n    y = 2\n", "3:5: got indent, want primary expression"],
  ["if x:", "1:6: got end of file, want primary expression"],
  ["if x:\n", "2:1: got end of file, want indent"],
  ["x = [1,\n", "2:1: got end of file, want ']'"],
  ['x = "\\x4"\n', "1:5: truncated escape sequence \\x4"],
  ['x = 1 b"x"\n', "1:11: got , want newline"],
  ["x = 1 😀\n", "1:7: unexpected input character '😀'"],
  ["x = 1 \\", "1:8: stray backslash in program"],
  ["x = 1 if 2 else 3 if 4\n", "1:19: conditional expression without else clause"],
  ["f(x=1)(y) = 2\n", "1:1: can't assign to callexpr"],
  ["x = {**a}\n", "1:6: got '**', want primary expression"],
  ["x = [*a]\n", "1:6: got '*', want primary expression"],
  ["print(*)\n", "1:8: got ')', want primary expression"],
  ["a[]\n", "1:3: got ']', want primary expression"],
  ["def (): pass\n", "1:6: not an identifier"],
  ["x.if\n", "1:5: not an identifier"],
  ["if x pass\n", "1:10: got pass, want ':'"],
  ["for x y: pass\n", "1:8: got identifier, want in"],
  ["return return\n", "1:8: got return, want primary expression"],
  ["else: pass\n", "1:1: got else, want primary expression"],
  ["x = 1e999\n", "1:10: invalid float literal"],
  ["x = 0o777777777777777777777777\n", "1:5: invalid int literal"],
  ["x = 1 = 2\n", "1:8: got '=', want newline"],
  ["a, b = c, = 1\n", "1:9: unparenthesized tuple with trailing comma"],
  ['x = "abc', "1:5: unexpected EOF in string"],
  ["x = 'a\\", "1:5: unexpected EOF in string"],
  ["if 1:\n    x = 1\n   \ty = 2\n", "3:5: got indent, want primary expression"],
  ["x = 1\n\n  \n# c\n   # c2\ny = $\n", "6:5: unexpected input character '$'"],
  ["x = (\n  1\n    +\n 2) $\n", "4:5: unexpected input character '$'"],
  ["def f(a, b=1, *, c, d=2, **e): pass\nf(1, 2, c=3, *x, **y) $\n", "2:23: unexpected input character '$'"],
  ['x = "abc\\\n', "1:5: unexpected EOF in string"],
  ['"""\n\n\n', "1:1: unexpected EOF in string"],
  ["x = 1\n\ny = [1 for]\n", "3:11: got ']', want primary expression"],
  ["lambda x=1, y: 0\n", "1:13: required parameter may not follow optional"],
  ["x = lambda: 1 if 2\n", "1:15: conditional expression without else clause"],
  ["x = [1 for x in lambda: y]\n", "1:17: got lambda, want primary expression"],
  ["x = [1 for x in y if lambda: 1 if 2 else 3]\n", "1:41: got else, want ']', for, or if"],
  ["x = [1 for x in a if b, c]\n", "1:24: got ',', want ']', for, or if"],
  ["x = [1 for x in a, b]\n", "1:19: got ',', want ']', for, or if"],
  ["x = {1: 2 for x in a if b else c}\n", "1:31: got else, want '}', for, or if"],
  ["x = 1 not in\n", "1:13: got newline, want primary expression"],
  ["x = 1 < not 2\n", "1:9: got not, want primary expression"],
  ["x = not 1 < 2 < 3\n", "1:16: < does not associate with < (use parens)"],
  ["x = a if b else c = 3\n", "1:20: got '=', want newline"],
  ["x = a.b.c = 3\nx[1][2] = 3\ny = x = z == 1\n", "1:12: got '=', want newline"],
  ['x = "\\777"\n', "1:5: non-ASCII octal escape \\777 (use \\u01FF for the UTF-8 encoding of U+01FF)"],
  ['x = b"\\777"\n', "1:6: invalid escape sequence \\777"],
  ['x = "\\ud83d"\n', "1:5: invalid Unicode code point U+D83D"],
  ['x = "\\U0010FFFF" + "\\U00110000"\n', "1:20: code point out of range: \\U00110000 (max \\U00110000)"],
  ['x = "\\N{DASH}"\n', "1:5: invalid escape sequence \\N"],
  ['x = r"\\q" + "\\q"\n', "1:13: invalid escape sequence \\q"],
  ['x = b"\\é"\n', "1:6: invalid escape sequence \\Ã"],
  ["x = 1.e5 + 1.5e + 2\n", "1:16: invalid float literal"],
  ["x = 0.e\n", "1:8: invalid float literal"],
  ["x = 08.5 + 09\n", "1:12: invalid int literal"],
  ["x = 00 + 0 + 007\n", "1:17: obsolete form of octal literal; use 0o07"],
  ["x = 1__0\n", "1:9: got identifier, want newline"],
  ["x = 0x_1\n", "1:5: invalid hex literal"],
  ["def f(a, b):\n  return a\n def g(): pass\n", "3:2: unindent does not match any outer indentation level"],
  ["x = 1\n)\n", "2:1: unexpected ')'"],
  ["x = 1 }\n", "1:7: unexpected '}'"],
  ["x = (1 ]\n", "1:9: got ']', want ')'"],
  [
    'load("a", "b")\nload("a", b="c", "d",)\nload("a" , )\n',
    "3:5: load statement must import at least 1 symbol",
  ],
  ['load("a", b="c", 1)\n', '1:19: load operand must be "name" or localname="name" (got int literal)'],
  ['load(\n"a",\n"b"\n\n\n', "6:1: got end of file, want ')'"],
  ['load("a", "b"; x = 1\n', "1:15: got ';', want ','"],
  ["x = f(a, b c)\n", "1:13: got identifier, want ','"],
  ["x = f(a b=1)\n", "1:10: got identifier, want ','"],
  ["x = f(a=1 b=2)\n", "1:12: got identifier, want ','"],
  ["x = f(a=)\n", "1:9: got ')', want primary expression"],
  ["x = f(=1)\n", "1:7: got '=', want primary expression"],
  ["x = f(*)\n", "1:8: got ')', want primary expression"],
  ["x = f(**)\n", "1:9: got ')', want primary expression"],
  ["def f(*a=1): pass\n", "1:10: got '=', want ','"],
  ["def f(**a=1): pass\n", "1:11: got '=', want ','"],
  ["def f(a b): pass\n", "1:10: got identifier, want ','"],
  ["def f(a=1 b): pass\n", "1:12: got identifier, want ','"],
  ["def f(1): pass\n", "1:8: not an identifier"],
  ["def f(*, *): pass\n", "1:10: multiple * parameters not allowed"],
  ["def f(*, a, *): pass\n", "1:13: multiple * parameters not allowed"],
  ["def f(a, *b, *, c): pass\n", "1:14: multiple * parameters not allowed"],
  ["def f(a, **b, c=1): pass\n", "1:16: optional parameter may not follow **b"],
  ["def f(**): pass\n", "1:10: not an identifier"],
  ["def f(a, b=1, *c, d, e=2, **f): pass\n$\n", "2:1: unexpected input character '$'"],
];

Deno.test("syntax errors match the reference's messages and positions", () => {
  const failures: string[] = [];
  for (const [src, want] of CASES) {
    const got = errorOf(src);
    if (got !== want) failures.push(`${JSON.stringify(src)}\n  want ${want}\n  got  ${got}`);
  }
  assert.equal(failures.join("\n"), "");
  assert.ok(CASES.length >= 150);
});

Deno.test("deep nesting is rejected like the reference", () => {
  const paren = "x = " + "(".repeat(1001) + "1" + ")".repeat(1001) + "\n";
  assert.equal(errorOf(paren), "1:82: excessive nesting");
  const list = "x = " + "[".repeat(80) + "]".repeat(80) + "\n";
  assert.equal(errorOf(list), "1:82: excessive nesting");
  const neg = "x = " + "-".repeat(1001) + "1\n";
  assert.equal(errorOf(neg), "1:994: excessive nesting");
  const mixed = "x = " + "(-".repeat(100) + "1" + ")".repeat(100) + "\n";
  assert.equal(errorOf(mixed), "1:147: excessive nesting");
  const nest = (open: string, close: string, n = 80) =>
    "x = " + open.repeat(n) + "1" + close.repeat(n) + "\n";
  assert.equal(errorOf(nest("1+(", ")")), "1:234: excessive nesting");
  assert.equal(errorOf(nest("a < (", ")")), "1:386: excessive nesting");
  assert.equal(errorOf(nest("1 * (", ")")), "1:386: excessive nesting");
  assert.equal(errorOf(nest("not (", ")")), "1:365: excessive nesting");
  assert.equal(errorOf(nest("a or (b and (", "))")), "1:500: excessive nesting");
  assert.equal(errorOf(nest("a if b else (", ")")), "1:929: excessive nesting");
  assert.equal(errorOf(nest("lambda: (", ")")), "1:608: excessive nesting");
  assert.equal(errorOf(nest("f(a, b=[", "])")), "1:326: excessive nesting");
  assert.equal(errorOf(nest("[x for x in (", ")]")), "1:514: excessive nesting");
  assert.equal(errorOf(nest("{1: -(", ")}")), "1:228: excessive nesting");
  assert.equal(errorOf(nest("a[(", ")]")), "1:126: excessive nesting");
  assert.equal(errorOf("x = " + "not ".repeat(400) + "y\n"), "no error");
  assert.equal(errorOf(nest("1+(", ")", 75)), "no error");
  // Just under the limit parses.
  assert.equal(errorOf("x = " + "[".repeat(70) + "]".repeat(70) + "\n"), "no error");
});

Deno.test("errors are StarlarkSyntaxError with file, line, column", () => {
  try {
    parseFile("dir/prog.star", "x = 1\ny = (\n");
    assert.fail("expected an error");
  } catch (e) {
    if (!(e instanceof StarlarkSyntaxError)) throw e;
    assert.equal(e.filename, "dir/prog.star");
    assert.equal(e.line, 3);
    assert.equal(e.col, 1);
    assert.equal(e.msg, "got end of file, want primary expression");
    assert.equal(e.message, "dir/prog.star:3:1: got end of file, want primary expression");
  }
});
