import assert from "node:assert/strict";
import { StarlarkSyntaxError } from "../values/mod.ts";
import { Scanner } from "./scanner.ts";
import { EOF, FLOAT, IDENT, INT, STRING, TOKEN_NAMES } from "./tokens.ts";

/** All tokens of `src` as "name@line:col" (NEWLINE/INDENT/OUTDENT included, EOF last). */
function toks(src: string): string[] {
  const sc = new Scanner("t.star", src);
  const out: string[] = [];
  for (;;) {
    const t = sc.next();
    const name = t === IDENT ? `id:${sc.value}` : TOKEN_NAMES[t];
    out.push(`${name}@${sc.tokLine}:${sc.tokCol}`);
    if (t === EOF) return out;
  }
}

/** Token names only. */
function names(src: string): string {
  return toks(src).map((t) => t.slice(0, t.lastIndexOf("@"))).join(" ");
}

/** The value of the first token, which must be of kind `kind`. */
function first(src: string, kind: number): number | bigint | string {
  const sc = new Scanner("t.star", src);
  assert.equal(TOKEN_NAMES[sc.next()], TOKEN_NAMES[kind], src);
  return sc.value;
}

function scanError(src: string): string {
  const sc = new Scanner("t.star", src);
  try {
    while (sc.next() !== EOF);
  } catch (e) {
    if (!(e instanceof StarlarkSyntaxError)) throw e;
    return `${e.line}:${e.col}: ${e.msg}`;
  }
  return "no error";
}

Deno.test("scanner: punctuation and operators", () => {
  const ops = "+ - * / // % & | ^ << >> ~ . , = ; : ( ) [ ] { } < > >= <= == != " +
    "+= -= *= /= //= %= &= |= ^= <<= >>= **";
  assert.equal(names(ops), ops + " end of file");
  // Greedy matching without spaces.
  assert.equal(names("a//=b**c<<=d>>e!=f"), "id:a //= id:b ** id:c <<= id:d >> id:e != id:f end of file");
  assert.equal(names("x=-1"), "id:x = - int literal end of file");
});

Deno.test("scanner: keywords, reserved words and identifiers", () => {
  assert.equal(
    names("and break continue def elif else for if in lambda load not or pass return while"),
    "and break continue def elif else for if in lambda load not or pass return while end of file",
  );
  assert.equal(
    names("as async await class del except finally from global import is nonlocal raise try with yield"),
    "as async await class del except finally from global import is nonlocal raise try with yield end of file",
  );
  // `assert` is not reserved; keyword prefixes and suffixes are identifiers.
  assert.equal(
    names("assert iff ands _in in_ If"),
    "id:assert id:iff id:ands id:_in id:in_ id:If end of file",
  );
  assert.equal(names("_x1 X_9"), "id:_x1 id:X_9 end of file");
  // Unicode letters are identifier characters; the name is a binary (UTF-8) string.
  assert.equal(first("café", IDENT), "caf\xc3\xa9");
  assert.equal(first("日本 = 1", IDENT), "\xe6\x97\xa5\xe6\x9c\xac");
});

Deno.test("scanner: int literals", () => {
  const cases: [string, number | bigint][] = [
    ["0", 0],
    ["00", 0],
    ["000", 0],
    ["7", 7],
    ["123", 123],
    ["0x1F", 31],
    ["0XaB", 171],
    ["0o17", 15],
    ["0O7", 7],
    ["0b101", 5],
    ["0B1", 1],
    ["9007199254740991", 9007199254740991],
    ["9007199254740992", 9007199254740992n],
    ["123456789012345678901234567890", 123456789012345678901234567890n],
    ["0xffffffffffffffffffff", 0xffffffffffffffffffffn],
    ["0x1fffffffffffff", 0x1fffffffffffff],
    ["0x20000000000000", 0x20000000000000n],
    ["0o777777777777777777777", 0o777777777777777777777n],
    ["0b" + "1".repeat(63), (1n << 63n) - 1n],
    ["0000000000000000000000", 0],
    ["1000000000000000", 1000000000000000],
  ];
  for (const [src, want] of cases) assert.equal(first(src, INT), want, src);
  // An int followed by an identifier is two tokens.
  assert.equal(names("1_000"), "int literal id:_000 end of file");
});

Deno.test("scanner: float literals", () => {
  const cases: [string, number][] = [
    ["1.0", 1],
    ["1.", 1],
    [".5", 0.5],
    ["1e3", 1000],
    ["1E-3", 0.001],
    ["1.5e+2", 150],
    [".5e1", 5],
    ["0.0", 0],
    ["0e0", 0],
    ["00.5", 0.5],
    ["08.5", 8.5],
    ["017e1", 170],
    ["1e-400", 0],
    ["1.7976931348623157e308", 1.7976931348623157e308],
  ];
  for (const [src, want] of cases) assert.equal(first(src, FLOAT), want, src);
  assert.equal(names("x.y"), "id:x . id:y end of file");
  assert.equal(names("x .5"), "id:x float literal end of file");
});

Deno.test("scanner: string literal forms", () => {
  const cases: [string, string][] = [
    [`"abc"`, "abc"],
    [`'abc'`, "abc"],
    [`""`, ""],
    [`''`, ""],
    [`"""a "b" ""c"" d"""`, `a "b" ""c"" d`],
    [`'''it's'''`, "it's"],
    [`""""x"""`, '"x'],
    [`"""a\nb"""`, "a\nb"],
    [`"it's"`, "it's"],
    [`'say "hi"'`, 'say "hi"'],
    [`"a\\\nb"`, "ab"], // escaped newline is removed
    [`"""a\\\nb"""`, "ab"],
    [`r"a\\nb"`, "a\\nb"],
    [`r'\\''`, "\\'"],
    [`r"a\\\nb"`, "a\\\nb"], // raw: backslash-newline kept
    [`r"""\\d+"""`, "\\d+"],
  ];
  for (const [src, want] of cases) assert.equal(first(src, STRING), want, src);
});

Deno.test("scanner: escapes decode to binary strings", () => {
  const cases: [string, string][] = [
    [`"\\a\\b\\f\\n\\r\\t\\v"`, "\x07\x08\x0c\n\r\t\x0b"],
    [`"\\\\ \\' \\""`, `\\ ' "`],
    [`"\\0\\12\\101\\177"`, "\x00\n\x41\x7f"],
    [`"\\1234"`, "S4"], // at most three octal digits
    [`"\\x41\\x7f"`, "A\x7f"],
    [`"\\u00e9"`, "\xc3\xa9"],
    [`"\\u20AC"`, "\xe2\x82\xac"],
    [`"\\U0001F600"`, "\xf0\x9f\x98\x80"],
    [`"\\U0010FFFF"`, "\xf4\x8f\xbf\xbf"],
    [`"é€😀"`, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"],
    [`r"é\\n"`, "\xc3\xa9\\n"],
  ];
  for (const [src, want] of cases) assert.equal(first(src, STRING), want, src);
  const sc = new Scanner("t.star", `b"\\xff\\377\\u00e9é" rb"\\x" b'\\0'`);
  assert.equal(TOKEN_NAMES[sc.next()], ""); // BYTES has no printed name in the reference
  assert.equal(sc.value, "\xff\xff\xc3\xa9\xc3\xa9");
  sc.next();
  assert.equal(sc.value, "\\x");
  sc.next();
  assert.equal(sc.value, "\x00");
  assert.equal(sc.next(), EOF);
});

Deno.test("scanner: carriage returns", () => {
  assert.equal(first(`"""a\r\nb\rc"""`, STRING), "a\nb\nc");
  assert.equal(first(`r"""a\r\nb"""`, STRING), "a\nb");
  assert.deepEqual(toks("x\r\ny\rz"), [
    "id:x@1:1",
    "newline@1:2",
    "id:y@2:1",
    "newline@2:2",
    "id:z@3:1",
    "end of file@3:2",
  ]);
});

Deno.test("scanner: indentation, blank lines, comments and line joining", () => {
  const src = "if x:\n    a\n\n  # comment\n    b\n        c\n\td\ne\n";
  assert.deepEqual(toks(src), [
    "if@1:1",
    "id:x@1:4",
    ":@1:5",
    "newline@1:6",
    "indent@2:5",
    "id:a@2:5",
    "newline@2:6",
    "id:b@5:5",
    "newline@5:6",
    "indent@6:9",
    "id:c@6:9",
    "newline@6:10",
    "id:d@7:2", // a tab indents to column 8, matching the 8-space level
    "newline@7:3",
    "outdent@8:1",
    "outdent@8:1",
    "id:e@8:1",
    "newline@8:2",
    "end of file@9:1",
  ]);
  // Newlines inside brackets and after a backslash are not tokens; indentation there is ignored.
  assert.equal(
    names("f(1,\n      2)\nx = 1 + \\\n  2\n"),
    "id:f ( int literal , int literal ) newline id:x = int literal + int literal newline end of file",
  );
  // At EOF without a final newline, a NEWLINE is synthesized before the OUTDENTs.
  assert.deepEqual(toks("def f():\n  pass"), [
    "def@1:1",
    "id:f@1:5",
    "(@1:6",
    ")@1:7",
    ":@1:8",
    "newline@1:9",
    "indent@2:3",
    "pass@2:3",
    "newline@2:7",
    "outdent@2:7",
    "end of file@2:7",
  ]);
  assert.equal(names("x # trailing comment\n# only comment\n"), "id:x newline end of file");
});

Deno.test("scanner: columns count code points", () => {
  assert.deepEqual(toks(`"😀é" + x # 😀\ny`), [
    "string literal@1:1",
    "+@1:6",
    "id:x@1:8",
    "newline@1:13",
    "id:y@2:1",
    "end of file@2:2",
  ]);
  assert.deepEqual(toks(`"""😀\n😀""" x`).slice(0, 2), ["string literal@1:1", "id:x@2:6"]);
  assert.equal(scanError("é😀"), "1:2: unexpected input character '😀'");
});

Deno.test("scanner: scanner position after a token", () => {
  const sc = new Scanner("t.star", "abc  = 12\n");
  sc.next();
  assert.deepEqual([sc.posLine(), sc.posCol()], [1, 4]);
  sc.next();
  assert.deepEqual([sc.posLine(), sc.posCol()], [1, 7]);
  sc.next();
  sc.next(); // NEWLINE: the position moves to the next line
  assert.deepEqual([sc.posLine(), sc.posCol()], [2, 1]);
});

Deno.test("scanner: errors", () => {
  const cases: [string, string][] = [
    ["x = 017", "1:8: obsolete form of octal literal; use 0o17"],
    ["x = 0x", "1:5: invalid hex literal"],
    ["x = 0o", "1:7: invalid octal literal"],
    ["x = 0b2", "1:7: invalid binary literal"],
    ["x = 09", "1:5: invalid int literal"],
    ["x = 0o1000000000000000000000", "1:5: invalid int literal"],
    ["x = 1e", "1:7: invalid float literal"],
    ["x = 1e+", "1:8: invalid float literal"],
    ["x = 1e999", "1:10: invalid float literal"],
    ['x = "abc\n', "1:5: unexpected newline in string"],
    ['x = "abc', "1:5: unexpected EOF in string"],
    ["x = b'abc\\", "1:5: unexpected EOF in string"],
    ['x = """abc\n\n', "1:5: unexpected EOF in string"],
    ['x = "\\q"', "1:5: invalid escape sequence \\q"],
    ['x = b"\\q"', "1:6: invalid escape sequence \\q"],
    ['x = "\\é"', "1:5: invalid escape sequence \\Ã"],
    ['x = "\\x4"', "1:5: truncated escape sequence \\x4"],
    ['x = "\\xg1"', "1:5: invalid escape sequence \\xg1"],
    ['x = "\\x80"', "1:5: non-ASCII hex escape \\x80 (use \\u0080 for the UTF-8 encoding of U+0080)"],
    ['x = "\\200"', "1:5: non-ASCII octal escape \\200 (use \\u0080 for the UTF-8 encoding of U+0080)"],
    ['x = b"\\400"', "1:6: invalid escape sequence \\400"],
    ['x = "\\u12"', "1:5: truncated escape sequence \\u12"],
    ['x = "\\U0011ffff"', "1:5: code point out of range: \\U0011ffff (max \\U0011ffff)"],
    ['x = "\\udfff"', "1:5: invalid Unicode code point U+DFFF"],
    ["x = 1 $", "1:7: unexpected input character '$'"],
    ["x = 1 !", "1:7: unexpected input character '!'"],
    ["x = 1 \x01", "1:7: unexpected input character '\\x01'"],
    ["x = 1 \u00a0", "1:7: unexpected input character '\\u00a0'"],
    ["x = 1 😀", "1:7: unexpected input character '😀'"],
    ["x = ]", "1:5: unexpected ']'"],
    ["x = 1 \\ y", "1:8: stray backslash in program"],
    ["if x:\n    a\n  b\n", "3:3: unindent does not match any outer indentation level"],
    ["x = " + "(".repeat(1001), "1:1005: excessive nesting"],
  ];
  for (const [src, want] of cases) assert.equal(scanError(src), want, src);
});
