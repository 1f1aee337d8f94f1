import assert from "node:assert/strict";
import { StarlarkSyntaxError } from "../values/mod.ts";
import type { Arg, DictEntry, Expr, ForClause, IfClause, Param, Stmt } from "./mod.ts";
import { checkAssign, checkCallArgs, checkParams, parseExpr, parseFile } from "./mod.ts";

/** A compact, fully parenthesized rendering of an expression, to check structure and precedence. */
function sx(e: Expr | DictEntry | ForClause | IfClause): string {
  switch (e.kind) {
    case "Ident":
      return e.name;
    case "Literal":
      return e.type === "string"
        ? JSON.stringify(e.value)
        : e.type === "bytes"
        ? `b${JSON.stringify(e.value)}`
        : `${e.value}`;
    case "ParenExpr":
      return `(paren ${sx(e.x)})`;
    case "ListExpr":
      return `[${e.list.map(sx).join(" ")}]`;
    case "TupleExpr":
      return `(tuple${e.list.map((x) => " " + sx(x)).join("")})`;
    case "DictExpr":
      return `{${e.list.map(sx).join(" ")}}`;
    case "DictEntry":
      return `${sx(e.key)}:${sx(e.value)}`;
    case "UnaryExpr":
      return `(${e.op} ${sx(e.x)})`;
    case "BinaryExpr":
      return `(${e.op} ${sx(e.x)} ${sx(e.y)})`;
    case "CondExpr":
      return `(if ${sx(e.cond)} ${sx(e.then)} ${sx(e.else)})`;
    case "IndexExpr":
      return `(index ${sx(e.x)} ${sx(e.index)})`;
    case "SliceExpr":
      return `(slice ${sx(e.x)} ${e.lo ? sx(e.lo) : "_"} ${e.hi ? sx(e.hi) : "_"} ${
        e.step ? sx(e.step) : "_"
      })`;
    case "DotExpr":
      return `(. ${sx(e.x)} ${e.name})`;
    case "CallExpr":
      return `(call ${sx(e.fn)}${e.args.map((a) => " " + arg(a)).join("")})`;
    case "LambdaExpr":
      return `(lambda (${e.params.map(param).join(" ")}) ${sx(e.body)})`;
    case "Comprehension":
      return `(${e.curly ? "dictcomp" : "listcomp"} ${sx(e.body)}${
        e.clauses.map((c) => " " + sx(c)).join("")
      })`;
    case "ForClause":
      return `(for ${sx(e.vars)} ${sx(e.x)})`;
    case "IfClause":
      return `(if ${sx(e.cond)})`;
  }
}

function arg(a: Arg): string {
  switch (a.kind) {
    case "positional":
      return sx(a.value);
    case "named":
      return `${a.name}=${sx(a.value)}`;
    case "star":
      return `*${sx(a.value)}`;
    case "starstar":
      return `**${sx(a.value)}`;
  }
}

function param(p: Param): string {
  switch (p.kind) {
    case "normal":
      return p.name.name;
    case "default":
      return `${p.name.name}=${sx(p.default)}`;
    case "star":
      return p.name ? `*${p.name.name}` : "*";
    case "starstar":
      return `**${p.name.name}`;
  }
}

const ex = (src: string) => sx(parseExpr("t.star", src));
const stmts = (src: string): Stmt[] => parseFile("t.star", src).stmts;

Deno.test("parser: binary operator precedence and associativity", () => {
  const cases: [string, string][] = [
    ["a or b and c", "(or a (and b c))"],
    ["a and b or c", "(or (and a b) c)"],
    ["not a or b", "(or (not a) b)"],
    ["not a == b", "(not (== a b))"],
    ["not not a", "(not (not a))"],
    ["a == b | c", "(== a (| b c))"],
    ["a | b ^ c & d", "(| a (^ b (& c d)))"],
    ["a & b << c", "(& a (<< b c))"],
    ["a << b + c", "(<< a (+ b c))"],
    ["a + b * c", "(+ a (* b c))"],
    ["a - b - c", "(- (- a b) c)"],
    ["a / b // c % d * e", "(* (% (// (/ a b) c) d) e)"],
    ["-a * b", "(* (- a) b)"],
    ["-a.b(c)[d]", "(- (index (call (. a b) c) d))"],
    ["~-+a", "(~ (- (+ a)))"],
    ["a in b", "(in a b)"],
    ["a not in b", "(not in a b)"],
    ["a < b and b <= c or e >= f", "(or (and (< a b) (<= b c)) (>= e f))"],
    ["(c > d) != e", "(!= (paren (> c d)) e)"],
    ["(a < b) < c", "(< (paren (< a b)) c)"],
    ["a if b else c if d else e", "(if b a (if d c e))"],
    ["a or b if c and d else e", "(if (and c d) (or a b) e)"],
    ["lambda: a if b else c", "(lambda () (if b a c))"],
    ["lambda x, *y, z=1, **k: x", "(lambda (x *y z=1 **k) x)"],
    ["1, 2", "(tuple 1 2)"],
    ["a >> b << c", "(<< (>> a b) c)"],
  ];
  for (const [src, want] of cases) assert.equal(ex(src), want, src);
});

Deno.test("parser: primary expressions and displays", () => {
  const cases: [string, string][] = [
    ["()", "(tuple)"],
    ["(1)", "(paren 1)"],
    ["(1,)", "(paren (tuple 1))"],
    ["(1, 2,)", "(paren (tuple 1 2))"],
    ["[]", "[]"],
    ["[1, 2,]", "[1 2]"],
    ["[(1, 2)]", "[(paren (tuple 1 2))]"],
    ["{}", "{}"],
    ['{"a": 1, "b": 2,}', '{"a":1 "b":2}'],
    ["a[1]", "(index a 1)"],
    ["a[1, 2]", "(index a (tuple 1 2))"],
    ["a[:]", "(slice a _ _ _)"],
    ["a[::]", "(slice a _ _ _)"],
    ["a[1:]", "(slice a 1 _ _)"],
    ["a[:2]", "(slice a _ 2 _)"],
    ["a[::3]", "(slice a _ _ 3)"],
    ["a[1:2:3]", "(slice a 1 2 3)"],
    ["a[-1:]", "(slice a (- 1) _ _)"],
    ["a.b.c", "(. (. a b) c)"],
    ["f()", "(call f)"],
    ["f(1,)", "(call f 1)"],
    ["f(a, b=1, *c, **d)", "(call f a b=1 *c **d)"],
    ["f(*a, *b)".replace("*b", "**b"), "(call f *a **b)"],
    ["f(x)(y)", "(call (call f x) y)"],
    ["[x for x in y]", "(listcomp x (for x y))"],
    [
      "[x for x, y in z if x for w in x if w if y]",
      "(listcomp x (for (tuple x y) z) (if x) (for w x) (if w) (if y))",
    ],
    ["[x for (a, b) in c]", "(listcomp x (for (paren (tuple a b)) c))"],
    ["[x for x in a or b]", "(listcomp x (for x (or a b)))"],
    ["[x for x in y if lambda: 1]", "(listcomp x (for x y) (if (lambda () 1)))"],
    ["{k: v for k, v in d}", "(dictcomp k:v (for (tuple k v) d))"],
    ["[lambda: 1 if a else 2 for x in y]", "(listcomp (lambda () (if a 1 2)) (for x y))"],
  ];
  for (const [src, want] of cases) assert.equal(ex(src), want, src);
});

Deno.test("parser: literal values", () => {
  assert.equal(ex(`"a\\n" 'b'`.split(" ")[0]), JSON.stringify("a\n"));
  const lit = (src: string) => {
    const e = parseExpr("t.star", src);
    assert.equal(e.kind, "Literal");
    return e.kind === "Literal" ? [e.type, e.value, e.raw] : [];
  };
  assert.deepEqual(lit("42"), ["int", 42, "42"]);
  assert.deepEqual(lit("0x10"), ["int", 16, "0x10"]);
  assert.deepEqual(lit("99999999999999999999"), ["int", 99999999999999999999n, "99999999999999999999"]);
  assert.deepEqual(lit("2.5"), ["float", 2.5, "2.5"]);
  assert.deepEqual(lit("1e3"), ["float", 1000, "1e3"]);
  assert.deepEqual(lit('"é"'), ["string", "\xc3\xa9", '"é"']);
  assert.deepEqual(lit("b'\\xff'"), ["bytes", "\xff", "b'\\xff'"]);
  assert.deepEqual(lit('r"\\n"'), ["string", "\\n", 'r"\\n"']);
  // Unary minus is an operator, not part of the literal.
  assert.equal(ex("-9223372036854775808"), "(- 9223372036854775808)");
});

Deno.test("parser: statements", () => {
  const s = stmts(
    "x = 1\nx += 2; y -= 3;\nf()\npass\n" +
      "def g(a, b=1, *args, c, d=2, **kw):\n  return\n" +
      "def h(*, k): return k\n" +
      "for i in range(3):\n  break\n  continue\n" +
      "while x: x -= 1\n" +
      "if a:\n  pass\nelif b:\n  pass\nelif c: pass\nelse:\n  pass\n" +
      'load("m.star", "p", q = "r")\n',
  );
  assert.deepEqual(
    s.map((x) => x.kind),
    [
      "AssignStmt",
      "AssignStmt",
      "AssignStmt",
      "ExprStmt",
      "BranchStmt",
      "DefStmt",
      "DefStmt",
      "ForStmt",
      "WhileStmt",
      "IfStmt",
      "LoadStmt",
    ],
  );
  const [a0, a1, a2] = s;
  assert.ok(a0.kind === "AssignStmt" && a0.op === "=" && a1.kind === "AssignStmt" && a1.op === "+=");
  assert.ok(a2.kind === "AssignStmt" && a2.op === "-=" && a2.line === 2 && a2.col === 9);
  const g = s[5];
  assert.ok(g.kind === "DefStmt");
  assert.equal(g.name.name, "g");
  assert.equal(g.params.map(param).join(" "), "a b=1 *args c d=2 **kw");
  assert.deepEqual(g.body, [{ kind: "ReturnStmt", line: 6, col: 3 }]);
  const h = s[6];
  assert.ok(h.kind === "DefStmt" && h.params.map(param).join(" ") === "* k");
  assert.equal(h.body[0].kind, "ReturnStmt");
  const f = s[7];
  assert.ok(f.kind === "ForStmt");
  assert.deepEqual(f.body.map((b) => b.kind === "BranchStmt" && b.token), ["break", "continue"]);
  const w = s[8];
  assert.ok(w.kind === "WhileStmt" && w.body.length === 1);
  // elif chains nest in `else`.
  const i = s[9];
  assert.ok(i.kind === "IfStmt");
  const e1 = i.else[0];
  assert.ok(e1.kind === "IfStmt" && sx(e1.cond) === "b" && e1.line === 14 && e1.col === 1);
  const e2 = e1.else[0];
  assert.ok(e2.kind === "IfStmt" && sx(e2.cond) === "c");
  assert.equal(e2.else[0].kind, "BranchStmt");
  const l = s[10];
  assert.ok(l.kind === "LoadStmt");
  assert.equal(l.module, "m.star");
  assert.deepEqual(l.to.map((t) => [t.name, t.line, t.col]), [["p", 19, 17], ["q", 19, 21]]);
  assert.deepEqual(l.from, ["p", "r"]);
  assert.deepEqual(l.fromPos, [{ line: 19, col: 17 }, { line: 19, col: 26 }]);
});

Deno.test("parser: assignment targets and tuples", () => {
  const s = stmts("a, b = 1, 2\n(a, [b, c]) = x\na.b, c[0] = y\nx = y = 1\n".replace("x = y = 1\n", ""));
  assert.equal(s.length, 3);
  const [s0, s1] = s;
  assert.ok(s0.kind === "AssignStmt" && sx(s0.lhs) === "(tuple a b)" && sx(s0.rhs) === "(tuple 1 2)");
  assert.ok(s1.kind === "AssignStmt" && sx(s1.lhs) === "(paren (tuple a [b c]))");
  // A parenthesized tuple is positioned at its first element, inside the ParenExpr.
  assert.ok(s1.lhs.kind === "ParenExpr" && s1.lhs.x.line === 2 && s1.lhs.x.col === 2);
  const r = stmts("def f():\n  return 1, 2\n")[0];
  assert.ok(r.kind === "DefStmt" && r.body[0].kind === "ReturnStmt");
  assert.equal(sx((r.body[0] as { result: Expr }).result), "(tuple 1 2)");
  const fl = stmts("for a, b in c: pass\nfor x, in y: pass\n".replace("for x, in y: pass\n", ""))[0];
  assert.ok(fl.kind === "ForStmt" && sx(fl.vars) === "(tuple a b)");
});

Deno.test("parser: positions of operators, brackets and names", () => {
  const e = parseExpr("t.star", "a.b [ 1 ] + f  (x, k=2) [1:2]\n");
  assert.ok(e.kind === "BinaryExpr");
  assert.deepEqual([e.line, e.col, e.opLine, e.opCol], [1, 1, 1, 11]);
  assert.ok(e.x.kind === "IndexExpr" && e.x.lbrackLine === 1 && e.x.lbrackCol === 5);
  assert.ok(e.x.x.kind === "DotExpr");
  assert.deepEqual([e.x.x.dotCol, e.x.x.nameCol], [2, 3]);
  assert.ok(e.y.kind === "SliceExpr" && e.y.lbrackCol === 25);
  const call = e.y.x;
  assert.ok(call.kind === "CallExpr");
  assert.deepEqual([call.col, call.lparenCol, call.rparenCol], [13, 16, 23]);
  assert.deepEqual(call.args[1], {
    kind: "named",
    name: "k",
    value: { kind: "Literal", line: 1, col: 22, type: "int", value: 2, raw: "2" },
    line: 1,
    col: 20,
  });
  const d = parseExpr("t.star", '{\n  "k" :\n    1}');
  assert.ok(d.kind === "DictExpr");
  assert.deepEqual([d.list[0].line, d.list[0].col, d.list[0].colonLine, d.list[0].colonCol], [2, 3, 2, 7]);
  // `not in` is positioned at `in`, like the reference.
  const ni = parseExpr("t.star", "a not  in b");
  assert.ok(ni.kind === "BinaryExpr" && ni.op === "not in" && ni.opCol === 8);
  const st = parseExpr("t.star", "f(*a, ** b)");
  assert.ok(st.kind === "CallExpr");
  assert.deepEqual(st.args.map((a) => a.kind !== "positional" && [a.line, a.col]), [[1, 3], [1, 7]]);
  const lam = parseExpr("t.star", "lambda a, b=1, *c, **d: 0");
  assert.ok(lam.kind === "LambdaExpr");
  assert.deepEqual(lam.params.map((p) => p.kind === "default" ? [p.eqLine, p.eqCol] : p.kind), [
    "normal",
    [1, 12],
    "star",
    "starstar",
  ]);
  const [p2, p3] = [lam.params[2], lam.params[3]];
  assert.ok(p2.kind === "star" && p2.col === 16 && p2.name?.col === 17);
  assert.ok(p3.kind === "starstar" && p3.col === 20 && p3.name.col === 22);
});

Deno.test("parser: parseExpr", () => {
  assert.equal(ex("f(x)\n"), "(call f x)");
  assert.equal(ex("1, 2"), "(tuple 1 2)");
  assert.throws(() => parseExpr("e.star", "1, 2,"), /e\.star:1:5: unparenthesized tuple with trailing comma/);
  assert.throws(
    () => parseExpr("e.star", "1 2"),
    /^StarlarkSyntaxError: e\.star:1:4: got int literal after expression, want EOF$/,
  );
  assert.throws(() => parseExpr("e.star", "x = 1"), /e\.star:1:4: got '=' after expression, want EOF/);
});

Deno.test("parser: static checks can be deferred to the resolver", () => {
  const src = "f(a=1, 2)\ndef g(a=1, b): pass\n(a, b) += 1\nfor f() in x: pass\n";
  assert.throws(() => parseFile("t.star", src), StarlarkSyntaxError);
  const file = parseFile("t.star", src, { staticChecks: false });
  const [call, def, aug, loop] = file.stmts;
  assert.ok(call.kind === "ExprStmt" && call.x.kind === "CallExpr");
  assert.throws(
    () => checkCallArgs("t.star", call.x as never),
    /t\.star:1:8: positional argument may not follow named/,
  );
  assert.ok(def.kind === "DefStmt");
  assert.throws(
    () => checkParams("t.star", def.params),
    /t\.star:2:12: required parameter may not follow optional/,
  );
  assert.ok(aug.kind === "AssignStmt");
  assert.throws(
    () => checkAssign("t.star", aug.lhs, true),
    /t\.star:3:2: can't use tuple expression in augmented/,
  );
  checkAssign("t.star", aug.lhs, false);
  assert.ok(loop.kind === "ForStmt");
  assert.throws(() => checkAssign("t.star", loop.vars, false), /t\.star:4:5: can't assign to callexpr/);
});

Deno.test("parser: call argument limits", () => {
  const many = (n: number, named: boolean) =>
    `f(${Array.from({ length: n }, (_, i) => (named ? `k${i}=${i}` : `${i}`)).join(", ")})\n`;
  parseFile("t.star", many(255, false));
  parseFile("t.star", many(255, true));
  assert.throws(
    () => parseFile("t.star", many(256, false)),
    /t\.star:1:1: 256 positional arguments in call, limit is 255/,
  );
  assert.throws(
    () => parseFile("t.star", many(256, true)),
    /t\.star:1:1: 256 keyword arguments in call, limit is 255/,
  );
});

Deno.test("parser: top-level control flow and while always parse", () => {
  const s = stmts("while True:\n  break\nif x:\n  pass\nfor y in z:\n  pass\n");
  assert.deepEqual(s.map((x) => x.kind), ["WhileStmt", "IfStmt", "ForStmt"]);
});

Deno.test("parser: the benchmark program parses", async () => {
  const src = await Deno.readTextFile(new URL("../../../bench/programs/parse300.star", import.meta.url));
  const file = parseFile("parse300.star", src);
  assert.equal(file.filename, "parse300.star");
  assert.equal(file.stmts[0].kind, "LoadStmt");
  assert.equal(file.stmts.filter((s) => s.kind === "DefStmt").length, 38);
  assert.equal(file.stmts[file.stmts.length - 1].line, src.trimEnd().split("\n").length);
});
