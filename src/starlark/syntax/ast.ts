/**
 * The Starlark syntax tree produced by the parser and annotated by the resolver.
 *
 * Every node carries the 1-based `line` and `col` of its first token, where `col` counts Unicode code
 * points (runes) from the start of the line, like the reference implementation (a surrogate pair in the
 * JS source is one column; a tab is one column). The resolver fills the optional
 * annotation fields (`binding` on identifiers, `scope` on functions and the file);
 * the parser leaves them undefined.
 *
 * @module
 */
import type { BinaryOp, UnaryOp } from "../values/mod.ts";

// The operator sets are defined with the operations that apply them (the value layer, which the syntax
// already stands on for its errors); the tree names them from there.
export type { BinaryOp, UnaryOp };

/** A source position: 1-based line and 1-based column (counted in Unicode code points, like the reference). */
export interface Position {
  /** 1-based line number. */
  line: number;
  /** 1-based column number. */
  col: number;
}

/** Fields shared by every node. */
export interface NodeBase extends Position {
  /** Discriminant. */
  kind: string;
}

// ---------------------------------------------------------------------------
// Expressions

/** How the resolver bound an identifier. */
export type BindingScope = "local" | "cell" | "free" | "global" | "predeclared" | "universal" | "undefined";

/** A resolved binding: the scope and the slot index within that scope. */
export interface Binding {
  /** Scope of the binding. */
  scope: BindingScope;
  /** Slot index (locals/cells: frame slot; free: closure index; global: module slot). */
  index: number;
  /** The name (kept for error messages and for predeclared/universal lookups). */
  name: string;
}

/** An identifier. */
export interface Ident extends NodeBase {
  /** Node kind (discriminant). */
  kind: "Ident";
  /** Identifier text, as a binary string (UTF-8 bytes) like every Starlark string; ASCII in practice. */
  name: string;
  /** Filled by the resolver. */
  binding?: Binding;
}

/** A literal token: int, float, string or bytes. */
export interface Literal extends NodeBase {
  /** Node kind (discriminant). */
  kind: "Literal";
  /** Which kind of literal. */
  type: "int" | "float" | "string" | "bytes";
  /**
   * The decoded value: `number | bigint` for int (bigint only beyond ±(2^53−1)), `number` for float,
   * and for string/bytes a binary string whose char codes (0..255) are the UTF-8 bytes of the value.
   */
  value: number | bigint | string;
  /** The literal's source text as written (a JS string, prefix and quotes included). */
  raw: string;
}

/** A parenthesized expression (kept so that `(x)` is not a tuple and for positions). */
export interface ParenExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "ParenExpr";
  /** Inner expression. */
  x: Expr;
}

/** A list display `[a, b]`. */
export interface ListExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "ListExpr";
  /** Elements. */
  list: Expr[];
}

/**
 * A tuple `a, b`. As in the reference, `(a, b)` is a {@link ParenExpr} around a tuple positioned at its
 * first element, and only the empty tuple `()` is a bare TupleExpr (positioned at its `(`).
 */
export interface TupleExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "TupleExpr";
  /** Elements. */
  list: Expr[];
}

/** One `key: value` entry of a dict display or dict comprehension. */
export interface DictEntry extends NodeBase {
  /** Node kind (discriminant). */
  kind: "DictEntry";
  /** Line of the `:` (the reference reports hashing errors there). */
  colonLine: number;
  /** Column of the `:`. */
  colonCol: number;
  /** Key expression. */
  key: Expr;
  /** Value expression. */
  value: Expr;
}

/** A dict display `{k: v, ...}`. */
export interface DictExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "DictExpr";
  /** Entries. */
  list: DictEntry[];
}

/** A unary expression. */
export interface UnaryExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "UnaryExpr";
  /** Operator. */
  op: UnaryOp;
  /** Operand. */
  x: Expr;
}

/** A binary expression. */
export interface BinaryExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "BinaryExpr";
  /** Operator. */
  op: BinaryOp;
  /** Line of the operator token (errors point at the operator, like the reference). */
  opLine: number;
  /** Column of the operator token. */
  opCol: number;
  /** Left operand. */
  x: Expr;
  /** Right operand. */
  y: Expr;
}

/** `a if cond else b`. */
export interface CondExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "CondExpr";
  /** Condition. */
  cond: Expr;
  /** Value when true. */
  then: Expr;
  /** Value when false. */
  else: Expr;
}

/** `x[i]`. */
export interface IndexExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "IndexExpr";
  /** Line of the `[` (the reference reports index errors there). */
  lbrackLine: number;
  /** Column of the `[`. */
  lbrackCol: number;
  /** Operand. */
  x: Expr;
  /** Index. */
  index: Expr;
}

/** `x[lo:hi:step]`, any part optional. */
export interface SliceExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "SliceExpr";
  /** Line of the `[` (the reference reports slice errors there). */
  lbrackLine: number;
  /** Column of the `[`. */
  lbrackCol: number;
  /** Operand. */
  x: Expr;
  /** Lower bound or undefined. */
  lo?: Expr;
  /** Upper bound or undefined. */
  hi?: Expr;
  /** Step or undefined. */
  step?: Expr;
}

/** `x.name`. */
export interface DotExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "DotExpr";
  /** Operand. */
  x: Expr;
  /** Attribute name (binary string, like {@link Ident.name}). */
  name: string;
  /** Line of the `.` (the reference reports attribute errors there). */
  dotLine: number;
  /** Column of the `.`. */
  dotCol: number;
  /** Position of the attribute name. */
  nameLine: number;
  /** Column of the attribute name. */
  nameCol: number;
}

/**
 * One argument of a call. `line`/`col` of a named argument are those of its name; of `*args`/`**kwargs`,
 * those of the operator. A named argument's `name` is a binary string like {@link Ident.name}.
 */
export type Arg =
  | { kind: "positional"; value: Expr }
  | { kind: "named"; name: string; value: Expr; line: number; col: number }
  | { kind: "star"; value: Expr; line: number; col: number }
  | { kind: "starstar"; value: Expr; line: number; col: number };

/** `f(args)`. */
export interface CallExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "CallExpr";
  /** Callee. */
  fn: Expr;
  /** Arguments in source order (the parser enforces the reference's ordering rules). */
  args: Arg[];
  /** Line of the opening parenthesis (the reference reports call errors there). */
  lparenLine: number;
  /** Column of the opening parenthesis. */
  lparenCol: number;
  /** Line of the closing parenthesis. */
  rparenLine: number;
  /** Column of the closing parenthesis. */
  rparenCol: number;
}

/**
 * A function parameter. `eqLine`/`eqCol` locate the `=` of a default; `line`/`col` of `*`/`**` params
 * locate the operator (the reference reports parameter errors at these positions).
 */
export type Param =
  | { kind: "normal"; name: Ident }
  | { kind: "default"; name: Ident; default: Expr; eqLine: number; eqCol: number }
  | { kind: "star"; name?: Ident; line: number; col: number } // `*args`, or bare `*` when name is undefined
  | { kind: "starstar"; name: Ident; line: number; col: number };

/** Resolver information about one function (or the module's top level). */
export interface FunctionScope {
  /** Names of all local slots, parameters first, in slot order. */
  locals: Ident[];
  /** Indices into `locals` of the locals captured by nested functions (cells). */
  cells: number[];
  /** Free variables: bindings of the enclosing function captured by this one. */
  freevars: Binding[];
  /** Number of parameters (including `*args`/`**kwargs`). */
  numParams: number;
  /** Number of keyword-only parameters. */
  numKwonlyParams: number;
  /** Whether there is a `*args` parameter. */
  hasVarargs: boolean;
  /** Whether there is a `**kwargs` parameter. */
  hasKwargs: boolean;
}

/** `lambda params: body`. */
export interface LambdaExpr extends NodeBase {
  /** Node kind (discriminant). */
  kind: "LambdaExpr";
  /** Parameters. */
  params: Param[];
  /** Body expression. */
  body: Expr;
  /** Filled by the resolver. */
  scope?: FunctionScope;
}

/** A `for` clause of a comprehension. */
export interface ForClause extends NodeBase {
  /** Node kind (discriminant). */
  kind: "ForClause";
  /** Loop variables (an identifier, tuple or list of targets). */
  vars: Expr;
  /** Iterable. */
  x: Expr;
}

/** An `if` clause of a comprehension. */
export interface IfClause extends NodeBase {
  /** Node kind (discriminant). */
  kind: "IfClause";
  /** Condition. */
  cond: Expr;
}

/** `[body for ... if ...]` or `{k: v for ...}`. */
export interface Comprehension extends NodeBase {
  /** Node kind (discriminant). */
  kind: "Comprehension";
  /** True for a dict comprehension (body is a DictEntry). */
  curly: boolean;
  /** Element expression, or a DictEntry when `curly`. */
  body: Expr | DictEntry;
  /** Clauses; the first is always a ForClause. */
  clauses: (ForClause | IfClause)[];
}

/** Any expression. */
export type Expr =
  | Ident
  | Literal
  | ParenExpr
  | ListExpr
  | TupleExpr
  | DictExpr
  | UnaryExpr
  | BinaryExpr
  | CondExpr
  | IndexExpr
  | SliceExpr
  | DotExpr
  | CallExpr
  | LambdaExpr
  | Comprehension;

// ---------------------------------------------------------------------------
// Statements

/** An expression statement. */
export interface ExprStmt extends NodeBase {
  /** Node kind (discriminant). */
  kind: "ExprStmt";
  /** The expression. */
  x: Expr;
}

/** `lhs = rhs` or an augmented assignment `lhs op= rhs`. */
export interface AssignStmt extends NodeBase {
  /** Node kind (discriminant). */
  kind: "AssignStmt";
  /** "=" or an augmented operator such as "+=". */
  op: "=" | "+=" | "-=" | "*=" | "/=" | "//=" | "%=" | "&=" | "|=" | "^=" | "<<=" | ">>=";
  /** Line of the operator token. */
  opLine: number;
  /** Column of the operator token. */
  opCol: number;
  /** Target(s). */
  lhs: Expr;
  /** Value. */
  rhs: Expr;
}

/** `def name(params): body`. */
export interface DefStmt extends NodeBase {
  /** Node kind (discriminant). */
  kind: "DefStmt";
  /** Function name. */
  name: Ident;
  /** Parameters. */
  params: Param[];
  /** Body statements. */
  body: Stmt[];
  /** Filled by the resolver. */
  scope?: FunctionScope;
}

/** `if cond: ... elif ...: ... else: ...` (an `elif` is a nested IfStmt in `else`). */
export interface IfStmt extends NodeBase {
  /** Node kind (discriminant). */
  kind: "IfStmt";
  /** Condition. */
  cond: Expr;
  /** Statements when true. */
  then: Stmt[];
  /** Statements when false (possibly empty). */
  else: Stmt[];
}

/** `for vars in x: body`. */
export interface ForStmt extends NodeBase {
  /** Node kind (discriminant). */
  kind: "ForStmt";
  /** Loop variables. */
  vars: Expr;
  /** Iterable. */
  x: Expr;
  /** Body. */
  body: Stmt[];
}

/** `while cond: body` (only with the `while` dialect option). */
export interface WhileStmt extends NodeBase {
  /** Node kind (discriminant). */
  kind: "WhileStmt";
  /** Condition. */
  cond: Expr;
  /** Body. */
  body: Stmt[];
}

/** `return [x]`. */
export interface ReturnStmt extends NodeBase {
  /** Node kind (discriminant). */
  kind: "ReturnStmt";
  /** Returned value, or undefined for a bare return. */
  result?: Expr;
}

/** `break`, `continue` or `pass`. */
export interface BranchStmt extends NodeBase {
  /** Node kind (discriminant). */
  kind: "BranchStmt";
  /** Which keyword. */
  token: "break" | "continue" | "pass";
}

/** `load("module", "a", b="c")`. */
export interface LoadStmt extends NodeBase {
  /** Node kind (discriminant). */
  kind: "LoadStmt";
  /** Module string (decoded binary string). */
  module: string;
  /** Local names bound by the statement. */
  to: Ident[];
  /** Names exported by the module (binary strings), parallel to `to`. */
  from: string[];
  /** Positions of the `from` names (inside their string literals), parallel to `from`. */
  fromPos: Position[];
}

/** Any statement. */
export type Stmt =
  | ExprStmt
  | AssignStmt
  | DefStmt
  | IfStmt
  | ForStmt
  | WhileStmt
  | ReturnStmt
  | BranchStmt
  | LoadStmt;

/** A parsed file. */
export interface File {
  /** File name used in positions. */
  filename: string;
  /** Top-level statements. */
  stmts: Stmt[];
  /** Filled by the resolver: the module-level (top-level) scope; `locals` are top-level temporaries. */
  scope?: FunctionScope;
  /** Filled by the resolver: global names in slot order. */
  globals?: string[];
}

/** The `elif` of an if statement: the IfStmt that is its whole `else` block (`undefined` for none). */
export function elifOf(s: IfStmt): IfStmt | undefined {
  return s.else.length === 1 && s.else[0].kind === "IfStmt" ? s.else[0] : undefined;
}

/**
 * The left operand of a binary operator or the operand of a postfix operator (`.name`, `[i]`, `[a:b]`, the
 * callee of a call); undefined for other nodes. Left-nested chains of these can be arbitrarily long in
 * generated code, so the stages after the parser walk them with this instead of recursing.
 */
export function leftOperand(e: Expr): Expr | undefined {
  switch (e.kind) {
    case "BinaryExpr":
    case "DotExpr":
    case "IndexExpr":
    case "SliceExpr":
      return e.x;
    case "CallExpr":
      return e.fn;
    default:
      return undefined;
  }
}
