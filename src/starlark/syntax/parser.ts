/**
 * The Starlark parser: statements and the public entry points. Expressions are parsed by
 * {@link ExprParser}; both follow the reference implementation (go.starlark.net/syntax) exactly, down to
 * error messages and positions.
 *
 * @module
 */

import { toJSString } from "../values/mod.ts";
import type { AssignStmt, Expr, File, Ident, IfStmt, LoadStmt, Position, Stmt } from "./ast.ts";
import { checkAssign, checkParams } from "./check.ts";
import { ExprParser, type ParseOptions } from "./expr_parser.ts";
import {
  BREAK,
  COLON,
  COMMA,
  CONTINUE,
  DEF,
  ELIF,
  ELSE,
  EOF,
  EQ,
  FOR,
  GTGT_EQ,
  IDENT,
  IF,
  IN,
  INDENT,
  LOAD,
  LPAREN,
  NEWLINE,
  OUTDENT,
  PASS,
  PLUS_EQ,
  RETURN,
  RPAREN,
  SEMI,
  STRING,
  TOKEN_NAMES,
  tokenString,
  WHILE,
} from "./tokens.ts";

export type { ParseOptions };

class Parser extends ExprParser {
  parseFile(): File {
    const stmts: Stmt[] = [];
    while (this.parseTopLevel(stmts));
    return { filename: this.filename, stmts };
  }

  /** Parses the next top-level statement(s) into `stmts`; false at the end of the file. */
  parseTopLevel(stmts: Stmt[]): boolean {
    while (this.tok === NEWLINE) this.next();
    if (this.tok === EOF) {
      this.sc.settleMeter();
      return false;
    }
    this.parseStmt(stmts);
    return true;
  }

  parseWholeExpr(): Expr {
    const x = this.parseExpr(false);
    if (this.tok === NEWLINE) this.next();
    if (this.tok !== EOF) this.errHere(`got ${tokenString(this.tok)} after expression, want EOF`);
    return x;
  }

  private parseStmt(stmts: Stmt[]): void {
    switch (this.tok) {
      case DEF:
        stmts.push(this.parseDefStmt());
        return;
      case IF:
        stmts.push(this.parseIfStmt());
        return;
      case FOR:
        stmts.push(this.parseForStmt());
        return;
      case WHILE:
        stmts.push(this.parseWhileStmt());
        return;
    }
    this.parseSimpleStmt(stmts);
  }

  private parseDefStmt(): Stmt {
    const { tokLine: line, tokCol: col } = this.sc;
    this.next();
    const name = this.parseIdent();
    this.consume(LPAREN);
    const params = this.parseParams();
    this.consume(RPAREN);
    if (this.checks) checkParams(this.filename, params);
    this.consume(COLON);
    const body = this.parseSuite();
    return { kind: "DefStmt", line, col, name, params, body };
  }

  private parseIfStmt(): Stmt {
    const { tokLine: line, tokCol: col } = this.sc;
    this.next();
    const cond = this.parseTest();
    this.consume(COLON);
    const top: IfStmt = { kind: "IfStmt", line, col, cond, then: this.parseSuite(), else: [] };
    let tail = top;
    while (this.tok === ELIF) {
      const { tokLine: line, tokCol: col } = this.sc;
      this.next();
      const cond = this.parseTest();
      this.consume(COLON);
      const elif: IfStmt = { kind: "IfStmt", line, col, cond, then: this.parseSuite(), else: [] };
      tail.else = [elif];
      tail = elif;
    }
    if (this.tok === ELSE) {
      this.next();
      this.consume(COLON);
      tail.else = this.parseSuite();
    }
    return top;
  }

  private parseForStmt(): Stmt {
    const { tokLine: line, tokCol: col } = this.sc;
    this.next();
    const vars = this.parseForLoopVariables();
    this.consume(IN);
    const x = this.parseExpr(false);
    this.consume(COLON);
    if (this.checks) checkAssign(this.filename, vars, false);
    return { kind: "ForStmt", line, col, vars, x, body: this.parseSuite() };
  }

  private parseWhileStmt(): Stmt {
    const { tokLine: line, tokCol: col } = this.sc;
    this.next();
    const cond = this.parseTest();
    this.consume(COLON);
    return { kind: "WhileStmt", line, col, cond, body: this.parseSuite() };
  }

  /** simple_stmt = small_stmt (';' small_stmt)* ';'? NEWLINE */
  private parseSimpleStmt(stmts: Stmt[]): Stmt[] {
    for (;;) {
      stmts.push(this.parseSmallStmt());
      if (this.tok !== SEMI) break;
      this.next();
      if (this.tok === NEWLINE || this.tok === EOF) break;
    }
    // EOF without NEWLINE occurs in `if x: pass`, for example.
    if (this.tok !== EOF) this.consume(NEWLINE);
    return stmts;
  }

  private parseSmallStmt(): Stmt {
    const sc = this.sc;
    const { tokLine: line, tokCol: col } = sc;
    switch (this.tok) {
      case RETURN: {
        this.next();
        if (this.tok !== EOF && this.tok !== NEWLINE && this.tok !== SEMI) {
          return { kind: "ReturnStmt", line, col, result: this.parseExpr(false) };
        }
        return { kind: "ReturnStmt", line, col };
      }
      case BREAK:
      case CONTINUE:
      case PASS: {
        const token = this.tok === BREAK ? "break" : this.tok === CONTINUE ? "continue" : "pass";
        this.next();
        return { kind: "BranchStmt", line, col, token };
      }
      case LOAD:
        return this.parseLoadStmt();
    }
    const x = this.parseExpr(false);
    const tok = this.tok;
    if (tok === EQ || (tok >= PLUS_EQ && tok <= GTGT_EQ)) {
      const opLine = sc.tokLine, opCol = sc.tokCol;
      this.next();
      const rhs = this.parseExpr(false);
      if (this.checks) checkAssign(this.filename, x, tok !== EQ);
      const op = TOKEN_NAMES[tok] as AssignStmt["op"];
      return { kind: "AssignStmt", line: x.line, col: x.col, op, opLine, opCol, lhs: x, rhs };
    }
    return { kind: "ExprStmt", line: x.line, col: x.col, x };
  }

  /** load_stmt = 'load' '(' STRING {',' (IDENT '=')? STRING} [','] ')' */
  private parseLoadStmt(): LoadStmt {
    const sc = this.sc;
    const { tokLine: line, tokCol: col } = sc;
    this.next();
    const lparen = this.consume(LPAREN);
    if (this.tok !== STRING) this.errHere("first operand of load statement must be a string literal");
    const module = sc.value as string;
    this.next();
    const to: Ident[] = [], from: string[] = [], fromPos: Position[] = [];
    while (this.tok !== RPAREN && this.tok !== EOF) {
      this.consume(COMMA);
      if (this.tok === RPAREN) break;
      if (this.tok === STRING) {
        // load("module", "id"): the local name is the original one, positioned inside the quotes.
        const name = sc.value as string;
        const pos = { line: sc.tokLine, col: sc.tokCol + 1 };
        to.push({ kind: "Ident", line: pos.line, col: pos.col, name });
        from.push(name);
        fromPos.push(pos);
        this.next();
      } else if (this.tok === IDENT) {
        const id = this.parseIdent();
        const n = toJSString(id.name);
        to.push(id);
        if (this.tok !== EQ) {
          this.errHere(`load operand must be "${n}" or ${n}="originalname" (want '=' after ${n})`);
        }
        this.next();
        if (this.tok !== STRING) {
          this.errHere(`original name of loaded symbol must be quoted: ${n}="originalname"`);
        }
        from.push(sc.value as string);
        fromPos.push({ line: sc.tokLine, col: sc.tokCol + 1 });
        this.next();
      } else {
        this.errHere(`load operand must be "name" or localname="name" (got ${tokenString(this.tok)})`);
      }
    }
    this.consume(RPAREN);
    if (to.length === 0) sc.error(lparen.line, lparen.col, "load statement must import at least 1 symbol");
    return { kind: "LoadStmt", line, col, module, to, from, fromPos };
  }

  /** suite = simple_stmt | NEWLINE INDENT stmt+ OUTDENT */
  private parseSuite(): Stmt[] {
    this.enter();
    let stmts: Stmt[] = [];
    if (this.tok === NEWLINE) {
      this.next();
      this.consume(INDENT);
      while (this.tok !== OUTDENT && this.tok !== EOF) this.parseStmt(stmts);
      this.consume(OUTDENT);
    } else {
      stmts = this.parseSimpleStmt(stmts);
    }
    this.depth--;
    return stmts;
  }
}

/**
 * Parses a Starlark file. String and bytes literal values come out as binary strings (UTF-8 bytes),
 * ints as number (bigint beyond ±(2^53−1)), floats as number.
 * @throws {StarlarkSyntaxError} with the reference's `file:line:col: message` text.
 */
export function parseFile(filename: string, source: string, options?: ParseOptions): File {
  return new Parser(filename, source, options).parseFile();
}

/**
 * Parses a file a top-level statement at a time, so that its caller may stop between two (see
 * `eval/exec.ts`'s CompileJob). The statements come out as {@link parseFile} returns them.
 */
export class FileParser {
  readonly #p: Parser;
  /** The statements parsed so far. */
  readonly stmts: Stmt[] = [];

  /** Starts parsing `source` (the first token is scanned now). */
  constructor(filename: string, source: string, options?: ParseOptions) {
    this.#p = new Parser(filename, source, options);
  }

  /** Parses the next top-level statement; false once the file is over. */
  next(): boolean {
    return this.#p.parseTopLevel(this.stmts);
  }
}

/**
 * Parses a single expression (a comma-separated list is a tuple), optionally followed by one newline.
 * @throws {StarlarkSyntaxError}
 */
export function parseExpr(filename: string, source: string, options?: ParseOptions): Expr {
  return new Parser(filename, source, options).parseWholeExpr();
}
