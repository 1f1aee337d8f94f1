/**
 * Expression parsing (and the parser state shared with statement parsing), following the reference
 * implementation's grammar, precedence climbing, nesting limit, error messages and error positions.
 *
 * @module
 */

import type {
  Arg,
  BinaryOp,
  CallExpr,
  DictEntry,
  Expr,
  ForClause,
  Ident,
  IfClause,
  Param,
  Position,
  UnaryOp,
} from "./ast.ts";
import { checkAssign, checkCallArgs, checkParams } from "./check.ts";
import type { FrontEndMeter } from "./meter.ts";
import { Scanner } from "./scanner.ts";
import {
  AMP,
  AND,
  BYTES,
  CIRCUMFLEX,
  COLON,
  COMMA,
  DOT,
  ELSE,
  EOF,
  EQ,
  EQL,
  FLOAT,
  FOR,
  GE,
  GT,
  GTGT,
  IDENT,
  IF,
  IN,
  INT,
  LAMBDA,
  LBRACE,
  LBRACK,
  LE,
  LPAREN,
  LT,
  LTLT,
  MAX_TOKEN,
  MINUS,
  NEQ,
  NEWLINE,
  NOT,
  NOT_IN,
  OR,
  PERCENT,
  PIPE,
  PLUS,
  RBRACE,
  RBRACK,
  RPAREN,
  SEMI,
  SLASH,
  SLASHSLASH,
  STAR,
  STARSTAR,
  STRING,
  TILDE,
  TOKEN_NAMES,
  tokenString,
} from "./tokens.ts";

/** Options for {@link parseFile} and {@link parseExpr}. */
export interface ParseOptions {
  /**
   * Run the static checks of `check.ts` (argument and parameter order, assignment targets) while parsing.
   * Default true. A resolver that runs them itself, in the reference's order, may turn them off.
   */
  staticChecks?: boolean;
  /** Counts the tokens scanned, charging them to its budget (see meter.ts). */
  meter?: FrontEndMeter;
}

// Binary operator precedence, -1 for tokens that are not binary operators.
const PREC = new Int8Array(MAX_TOKEN).fill(-1);
const LEVELS: number[][] = [
  [OR],
  [AND],
  [NOT],
  [EQL, NEQ, LT, GT, LE, GE, IN, NOT_IN],
  [PIPE],
  [CIRCUMFLEX],
  [AMP],
  [LTLT, GTGT],
  [MINUS, PLUS],
  [STAR, PERCENT, SLASH, SLASHSLASH],
];
LEVELS.forEach((toks, level) => toks.forEach((t) => (PREC[t] = level)));
const NUM_LEVELS = LEVELS.length;
const COMPARISON = PREC[EQL];
const NOT_LEVEL = PREC[NOT];

/** Whether `tok` ends an expression list (so a preceding comma is a trailing one). */
export function terminatesExprList(tok: number): boolean {
  return tok === EOF || tok === NEWLINE || tok === EQ || tok === RBRACE || tok === RBRACK || tok === RPAREN ||
    tok === SEMI;
}

/** The expression half of the parser; the statement parser extends it. */
export class ExprParser {
  protected readonly sc: Scanner;
  protected readonly filename: string;
  protected readonly checks: boolean;
  protected tok = 0;
  protected depth = 0;

  constructor(filename: string, src: string, opts: ParseOptions | undefined) {
    this.filename = filename;
    this.sc = new Scanner(filename, src, opts?.meter);
    this.checks = opts?.staticChecks ?? true;
    this.next();
  }

  protected next(): void {
    this.tok = this.sc.next();
  }

  protected errHere(msg: string): never {
    return this.sc.errorHere(msg);
  }

  protected enter(): void {
    if (++this.depth > 1000) this.errHere("excessive nesting");
  }

  /** Consumes a token of kind `t` and returns its position. */
  protected consume(t: number): Position {
    if (this.tok !== t) this.errHere(`got ${tokenString(this.tok)}, want ${tokenString(t)}`);
    const pos = { line: this.sc.tokLine, col: this.sc.tokCol };
    this.next();
    return pos;
  }

  /** loop_variables = primary_with_suffix (',' primary_with_suffix)* ','? — not parseExpr, which would eat `in`. */
  protected parseForLoopVariables(): Expr {
    const v = this.parsePrimaryWithSuffix();
    if (this.tok !== COMMA) return v;
    const list: Expr[] = [v];
    while (this.tok === COMMA) {
      this.next();
      if (terminatesExprList(this.tok)) break;
      list.push(this.parsePrimaryWithSuffix());
    }
    return { kind: "TupleExpr", line: v.line, col: v.col, list };
  }

  protected parseIdent(): Ident {
    const sc = this.sc;
    if (this.tok !== IDENT) this.errHere("not an identifier");
    const id: Ident = { kind: "Ident", line: sc.tokLine, col: sc.tokCol, name: sc.value as string };
    this.next();
    return id;
  }

  /** params = (param ',')* param ','? ; param = IDENT | IDENT '=' test | '*' | '*' IDENT | '**' IDENT */
  protected parseParams(): Param[] {
    const sc = this.sc;
    const params: Param[] = [];
    while (this.tok !== RPAREN && this.tok !== COLON && this.tok !== EOF) {
      if (params.length > 0) this.consume(COMMA);
      if (this.tok === RPAREN) break;
      if (this.tok === STAR || this.tok === STARSTAR) {
        const op = this.tok;
        const line = sc.tokLine, col = sc.tokCol;
        this.next();
        if (op === STARSTAR) params.push({ kind: "starstar", name: this.parseIdent(), line, col });
        else if (this.tok === IDENT) params.push({ kind: "star", name: this.parseIdent(), line, col });
        else params.push({ kind: "star", line, col });
        continue;
      }
      const name = this.parseIdent();
      if (this.tok === EQ) {
        const eqLine = sc.tokLine, eqCol = sc.tokCol;
        this.next();
        params.push({ kind: "default", name, default: this.parseTest(), eqLine, eqCol });
        continue;
      }
      params.push({ kind: "normal", name });
    }
    return params;
  }

  /** An expression, possibly an unparenthesized tuple (`a, b`). */
  protected parseExpr(inParens: boolean): Expr {
    const x = this.parseTest();
    if (this.tok !== COMMA) return x;
    return { kind: "TupleExpr", line: x.line, col: x.col, list: this.parseExprs([x], inParens) };
  }

  /** expr_list = (',' test)* ','? — starting at the comma. */
  protected parseExprs(exprs: Expr[], allowTrailingComma: boolean): Expr[] {
    const sc = this.sc;
    while (this.tok === COMMA) {
      const line = sc.tokLine, col = sc.tokCol;
      this.next();
      if (terminatesExprList(this.tok)) {
        if (!allowTrailingComma) sc.error(line, col, "unparenthesized tuple with trailing comma");
        break;
      }
      exprs.push(this.parseTest());
    }
    return exprs;
  }

  /** A single-component expression, including `lambda` and `a if b else c`. */
  protected parseTest(): Expr {
    this.enter();
    let x: Expr;
    if (this.tok === LAMBDA) {
      x = this.parseLambda(true);
    } else {
      x = this.parseTestPrec(0);
      if (this.tok === IF) {
        const sc = this.sc;
        const ifLine = sc.tokLine, ifCol = sc.tokCol;
        this.next();
        const cond = this.parseTestPrec(0);
        if (this.tok !== ELSE) sc.error(ifLine, ifCol, "conditional expression without else clause");
        this.next();
        x = { kind: "CondExpr", line: x.line, col: x.col, cond, then: x, else: this.parseTest() };
      }
    }
    this.depth--;
    return x;
  }

  /** Like parseTest but without a trailing `if ... else ...` (comprehension `if` clauses, lambda bodies there). */
  protected parseTestNoCond(): Expr {
    return this.tok === LAMBDA ? this.parseLambda(false) : this.parseTestPrec(0);
  }

  protected parseLambda(allowCond: boolean): Expr {
    this.enter();
    const { tokLine: line, tokCol: col } = this.sc;
    this.next();
    const params = this.tok !== COLON ? this.parseParams() : [];
    this.consume(COLON);
    if (this.checks) checkParams(this.filename, params);
    const body = allowCond ? this.parseTest() : this.parseTestNoCond();
    this.depth--;
    return { kind: "LambdaExpr", line, col, params, body };
  }

  /**
   * Parses a binary expression whose operators bind at least as tightly as level `prec`.
   *
   * The reference recurses once per precedence level (parseTestPrec/parseBinopExpr) and counts every
   * frame against its nesting limit. This loop builds the same tree by precedence climbing, and keeps
   * `depth` equal to the reference's frame count at every point where that count is checked: no token is
   * consumed between the levels of one descent, so a single check per descent reports the same error at
   * the same position.
   */
  protected parseTestPrec(prec: number): Expr {
    const base = this.depth;
    if (prec >= NUM_LEVELS) {
      this.enter();
      const x = this.parsePrimaryWithSuffix();
      this.depth = base;
      return x;
    }
    let x: Expr;
    if (this.tok === NOT && prec <= NOT_LEVEL) {
      // The reference's frames prec..NOT_LEVEL are active when it meets `not`.
      this.depth = base + NOT_LEVEL - prec + 1;
      if (this.depth > 1000) this.errHere("excessive nesting");
      const { tokLine: line, tokCol: col } = this.sc;
      this.next();
      x = { kind: "UnaryExpr", line, col, op: "not", x: this.parseTestPrec(NOT_LEVEL) };
    } else {
      // Frames prec..NUM_LEVELS, then the primary.
      this.depth = base + NUM_LEVELS - prec + 1;
      if (this.depth > 1000) this.errHere("excessive nesting");
      x = this.parsePrimaryWithSuffix();
    }
    this.depth = base;
    return this.climb(x, prec, base);
  }

  /** Applies binary operators of level `prec` or tighter to `x`, left-associatively; comparisons do not associate. */
  private climb(x: Expr, prec: number, base: number): Expr {
    const sc = this.sc;
    let afterComparison = false;
    for (;;) {
      if (this.tok === NOT) {
        // In operator position, `not` must begin `not in`.
        this.next();
        if (this.tok !== IN) this.errHere(`got ${tokenString(this.tok)}, want in`);
        this.tok = NOT_IN;
      }
      const opprec = PREC[this.tok];
      if (opprec < prec) return x;
      if (afterComparison && opprec === COMPARISON) {
        const prevOp = x.kind === "BinaryExpr" ? x.op : "?";
        this.errHere(`${prevOp} does not associate with ${TOKEN_NAMES[this.tok]} (use parens)`);
      }
      const op = TOKEN_NAMES[this.tok] as BinaryOp;
      const opLine = sc.tokLine, opCol = sc.tokCol;
      this.next();
      // The reference parses the right operand from its frame for level opprec.
      this.depth = base + opprec - prec + 1;
      const y = this.parseTestPrec(opprec + 1);
      this.depth = base;
      x = { kind: "BinaryExpr", line: x.line, col: x.col, op, opLine, opCol, x, y };
      afterComparison = opprec === COMPARISON;
    }
  }

  /** primary_with_suffix = primary ('.' IDENT | '[' slice ']' | '(' args ')')* */
  protected parsePrimaryWithSuffix(): Expr {
    const sc = this.sc;
    let x = this.parsePrimary();
    for (;;) {
      switch (this.tok) {
        case DOT: {
          const dotLine = sc.tokLine, dotCol = sc.tokCol;
          this.next();
          const id = this.parseIdent();
          x = {
            kind: "DotExpr",
            line: x.line,
            col: x.col,
            x,
            name: id.name,
            dotLine,
            dotCol,
            nameLine: id.line,
            nameCol: id.col,
          };
          break;
        }
        case LBRACK:
          x = this.parseSliceSuffix(x);
          break;
        case LPAREN:
          x = this.parseCallSuffix(x);
          break;
        default:
          return x;
      }
    }
  }

  protected parseSliceSuffix(x: Expr): Expr {
    const lbrackLine = this.sc.tokLine, lbrackCol = this.sc.tokCol;
    this.next();
    let lo: Expr | undefined, hi: Expr | undefined, step: Expr | undefined;
    if (this.tok !== COLON) {
      const y = this.parseExpr(false);
      if (this.tok === RBRACK) {
        this.next();
        return { kind: "IndexExpr", line: x.line, col: x.col, lbrackLine, lbrackCol, x, index: y };
      }
      lo = y;
    }
    if (this.tok === COLON) {
      this.next();
      if (this.tok !== COLON && this.tok !== RBRACK) hi = this.parseTest();
    }
    if (this.tok === COLON) {
      this.next();
      if (this.tok !== RBRACK) step = this.parseTest();
    }
    this.consume(RBRACK);
    return { kind: "SliceExpr", line: x.line, col: x.col, lbrackLine, lbrackCol, x, lo, hi, step };
  }

  protected parseCallSuffix(fn: Expr): Expr {
    const sc = this.sc;
    const lparenLine = sc.tokLine, lparenCol = sc.tokCol;
    this.next();
    let args: Arg[] = [];
    let rparen: Position;
    if (this.tok === RPAREN) {
      rparen = { line: sc.tokLine, col: sc.tokCol };
      this.next();
    } else {
      args = this.parseArgs();
      rparen = this.consume(RPAREN);
    }
    const call: CallExpr = {
      kind: "CallExpr",
      line: fn.line,
      col: fn.col,
      fn,
      args,
      lparenLine,
      lparenCol,
      rparenLine: rparen.line,
      rparenCol: rparen.col,
    };
    if (this.checks && args.length > 0) checkCallArgs(this.filename, call);
    return call;
  }

  /** arg_list = ((arg ',')* arg ','?)? ; arg = test | IDENT '=' test | '*' test | '**' test */
  protected parseArgs(): Arg[] {
    const sc = this.sc;
    const args: Arg[] = [];
    while (this.tok !== RPAREN && this.tok !== EOF) {
      if (args.length > 0) this.consume(COMMA);
      if (this.tok === RPAREN) break;
      if (this.tok === STAR || this.tok === STARSTAR) {
        const kind = this.tok === STAR ? "star" : "starstar";
        const line = sc.tokLine, col = sc.tokCol;
        this.next();
        args.push({ kind, value: this.parseTest(), line, col });
        continue;
      }
      // Parse `test = test`, then check that the left side was an identifier (stays LL(1)).
      const x = this.parseTest();
      if (this.tok === EQ) {
        if (x.kind !== "Ident") this.errHere("keyword argument must have form name=expr");
        this.next();
        args.push({ kind: "named", name: x.name, value: this.parseTest(), line: x.line, col: x.col });
        continue;
      }
      args.push({ kind: "positional", value: x });
    }
    return args;
  }

  protected parsePrimary(): Expr {
    this.enter();
    const sc = this.sc;
    const line = sc.tokLine, col = sc.tokCol;
    let x: Expr;
    switch (this.tok) {
      case IDENT:
        x = { kind: "Ident", line, col, name: sc.value as string };
        this.next();
        break;
      case INT:
      case FLOAT:
      case STRING:
      case BYTES: {
        const type = this.tok === INT
          ? "int"
          : this.tok === FLOAT
          ? "float"
          : this.tok === STRING
          ? "string"
          : "bytes";
        x = { kind: "Literal", line, col, type, value: sc.value, raw: sc.raw };
        this.next();
        break;
      }
      case LBRACK:
        x = this.parseList();
        break;
      case LBRACE:
        x = this.parseDict();
        break;
      case LPAREN:
        this.next();
        if (this.tok === RPAREN) {
          this.next();
          x = { kind: "TupleExpr", line, col, list: [] };
          break;
        }
        x = { kind: "ParenExpr", line, col, x: this.parseExpr(true) };
        this.consume(RPAREN);
        break;
      case MINUS:
      case PLUS:
      case TILDE: {
        const op: UnaryOp = this.tok === MINUS ? "-" : this.tok === PLUS ? "+" : "~";
        this.next();
        x = { kind: "UnaryExpr", line, col, op, x: this.parsePrimaryWithSuffix() };
        break;
      }
      default:
        // Reported at the token's start, which matters when it is a NEWLINE.
        return sc.error(line, col, `got ${tokenString(this.tok)}, want primary expression`);
    }
    this.depth--;
    return x;
  }

  /** list = '[' ']' | '[' test (',' test)* ','? ']' | '[' test comp_suffix */
  protected parseList(): Expr {
    const { tokLine: line, tokCol: col } = this.sc;
    this.next();
    if (this.tok === RBRACK) {
      this.next();
      return { kind: "ListExpr", line, col, list: [] };
    }
    const x = this.parseTest();
    if (this.tok === FOR) return this.parseComprehensionSuffix(line, col, x, RBRACK);
    const list = this.tok === COMMA ? this.parseExprs([x], true) : [x];
    this.consume(RBRACK);
    return { kind: "ListExpr", line, col, list };
  }

  /** dict = '{' '}' | '{' entry (',' entry)* ','? '}' | '{' entry comp_suffix */
  protected parseDict(): Expr {
    const { tokLine: line, tokCol: col } = this.sc;
    this.next();
    if (this.tok === RBRACE) {
      this.next();
      return { kind: "DictExpr", line, col, list: [] };
    }
    const x = this.parseDictEntry();
    if (this.tok === FOR) return this.parseComprehensionSuffix(line, col, x, RBRACE);
    const list = [x];
    while (this.tok === COMMA) {
      this.next();
      if (this.tok === RBRACE) break;
      list.push(this.parseDictEntry());
    }
    this.consume(RBRACE);
    return { kind: "DictExpr", line, col, list };
  }

  protected parseDictEntry(): DictEntry {
    const key = this.parseTest();
    const colon = this.consume(COLON);
    const value = this.parseTest();
    return {
      kind: "DictEntry",
      line: key.line,
      col: key.col,
      colonLine: colon.line,
      colonCol: colon.col,
      key,
      value,
    };
  }

  /** comp_suffix = ('for' loop_variables 'in' test_prec0 | 'if' test_nocond)* closing bracket */
  protected parseComprehensionSuffix(line: number, col: number, body: Expr | DictEntry, end: number): Expr {
    const sc = this.sc;
    const clauses: (ForClause | IfClause)[] = [];
    while (this.tok !== end) {
      const cl = sc.tokLine, cc = sc.tokCol;
      if (this.tok === FOR) {
        this.next();
        const vars = this.parseForLoopVariables();
        this.consume(IN);
        // As in Python 3, the operand of `in` is neither a conditional, a lambda nor a bare tuple.
        const x = this.parseTestPrec(0);
        if (this.checks) checkAssign(this.filename, vars, false);
        clauses.push({ kind: "ForClause", line: cl, col: cc, vars, x });
      } else if (this.tok === IF) {
        this.next();
        clauses.push({ kind: "IfClause", line: cl, col: cc, cond: this.parseTestNoCond() });
      } else {
        this.errHere(`got ${tokenString(this.tok)}, want '${TOKEN_NAMES[end]}', for, or if`);
      }
    }
    this.next();
    return { kind: "Comprehension", line, col, curly: end === RBRACE, body, clauses };
  }
}
