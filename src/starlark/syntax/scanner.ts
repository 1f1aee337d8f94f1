/**
 * The Starlark lexical scanner.
 *
 * It mirrors the reference scanner (go.starlark.net/syntax) token for token, including where its position
 * ends up after each token, because several parser errors are reported at "the scanner's position" rather
 * than at a token start. Columns count Unicode code points (runes), like the reference; a surrogate pair in
 * the JS source counts as one column.
 *
 * @module
 */

import {
  DEFAULT_MAX_INT_BITS,
  fromJSString,
  parseDecimal,
  StarlarkSyntaxError,
  Thread,
} from "../values/mod.ts";
import { type FrontEndBudget, FrontEndMeter } from "./meter.ts";
import { decodeString, hasCRorNonASCII, isHex, quoteRune } from "./literals.ts";
import { isLetterRune } from "../unicode/mod.ts";
import {
  AMP,
  AMP_EQ,
  BYTES,
  CIRCUMFLEX,
  CIRCUMFLEX_EQ,
  COLON,
  COMMA,
  DOT,
  EOF,
  EQ,
  EQL,
  FLOAT,
  GE,
  GT,
  GTGT,
  GTGT_EQ,
  IDENT,
  ILLEGAL,
  INDENT,
  INT,
  keywordAt,
  LBRACE,
  LBRACK,
  LE,
  LPAREN,
  LT,
  LTLT,
  LTLT_EQ,
  MINUS,
  MINUS_EQ,
  NEQ,
  NEWLINE,
  OUTDENT,
  PERCENT,
  PERCENT_EQ,
  PIPE,
  PIPE_EQ,
  PLUS,
  PLUS_EQ,
  RBRACE,
  RBRACK,
  RPAREN,
  SEMI,
  SLASH,
  SLASH_EQ,
  SLASHSLASH,
  SLASHSLASH_EQ,
  STAR,
  STAR_EQ,
  STARSTAR,
  STRING,
  TILDE,
} from "./tokens.ts";

const C_NL = 10, C_CR = 13, C_SP = 32, C_TAB = 9, C_HASH = 35, C_BSL = 92, C_DQ = 34, C_SQ = 39;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
/**
 * Like the reference's isIdentStart: ASCII letters, `_`, or any Unicode letter of Go's Unicode version
 * (not the JS runtime's, which accepts letters the reference refuses).
 */
function isIdentStart(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
  return isLetterRune(c);
}

/**
 * A scanner over one source text. Call {@link Scanner.next} repeatedly; after each call the token's kind,
 * start position and value are in the public fields, and {@link Scanner.posLine}/{@link Scanner.posCol}
 * give the scanner's position just past it (where the reference reports many errors).
 */
export class Scanner {
  /** File name used in error positions. */
  readonly filename: string;
  private readonly src: string;
  private readonly n: number;
  private i = 0;
  private line = 1;
  private lineStart = 0; // index of the first char of the current line
  private adj = 0; // surrogate pairs seen on the current line (each counts as one column)
  private depth = 0;
  private readonly indents: number[] = [0];
  private dents = 0;
  private atLineStart = true;

  /** Kind of the current token. */
  tok: number = ILLEGAL;
  /** Line of the current token's first character. */
  tokLine = 1;
  /** Column of the current token's first character. */
  tokCol = 1;
  /** Source text of the current token (identifiers and literals). */
  raw = "";
  /** Decoded value: number/bigint for INT, number for FLOAT, binary string for STRING/BYTES/IDENT. */
  value: number | bigint | string = 0;

  /** Counts a unit of work per token (see meter.ts). */
  readonly meter: FrontEndMeter;
  // Tokens not yet handed to the meter: the count per token stays one increment.
  private unmetered = 0;

  /** Creates a scanner over `src` (a JS string), charging its tokens to `meter`. */
  constructor(filename: string, src: string, meter: FrontEndMeter = new FrontEndMeter()) {
    this.filename = filename;
    this.src = src;
    this.n = src.length;
    this.meter = meter;
  }

  /** Line of the scanner's current position. */
  posLine(): number {
    return this.line;
  }

  /** Column of the scanner's current position. */
  posCol(): number {
    return this.i - this.lineStart + 1 - this.adj;
  }

  /** Throws a syntax error at the given position. */
  error(line: number, col: number, msg: string): never {
    throw new StarlarkSyntaxError(this.filename, line, col, msg);
  }

  /** Throws a syntax error at the scanner's current position. */
  errorHere(msg: string): never {
    throw new StarlarkSyntaxError(this.filename, this.line, this.posCol(), msg);
  }

  /** Like the reference's peekRune: 0 at EOF, `\r` reads as `\n`. (Non-ASCII returns the UTF-16 unit.) */
  private peek(): number {
    if (this.i >= this.n) return 0;
    const c = this.src.charCodeAt(this.i);
    return c === C_CR ? C_NL : c;
  }

  /** Consumes one newline (`\n`, `\r\n` or `\r`) at the current index. */
  private newline(): void {
    if (this.src.charCodeAt(this.i) === C_CR && this.src.charCodeAt(this.i + 1) === C_NL) this.i++;
    this.i++;
    this.line++;
    this.lineStart = this.i;
    this.adj = 0;
  }

  /** Consumes one rune that is not a newline. */
  private advance(): void {
    const c = this.src.charCodeAt(this.i++);
    if (c >= 0xd800 && c < 0xdc00 && this.i < this.n) {
      const d = this.src.charCodeAt(this.i);
      if (d >= 0xdc00 && d < 0xe000) {
        this.i++;
        this.adj++;
      }
    }
  }

  /** Records the current position as the start of the token being scanned. */
  private startTok(): void {
    this.tokLine = this.line;
    this.tokCol = this.i - this.lineStart + 1 - this.adj;
  }

  /** Scans the next token into the public fields and returns its kind. */
  next(): number {
    if (++this.unmetered === 64) {
      this.unmetered = 0;
      this.meter.tick(64);
    }
    const from = this.i;
    const tok = (this.tok = this.scan());
    // A long token (or a long run of blanks and comments before it) costs a step per 8 characters.
    if (this.i - from > 256) this.meter.work((this.i - from) >> 3, 0);
    return tok;
  }

  /** Hands the tokens counted so far to the meter and charges them (at the end of the file). */
  settleMeter(): void {
    this.meter.tick(this.unmetered);
    this.unmetered = 0;
    this.meter.flush();
  }

  /** The reference's nextToken: indentation, blank lines, comments, then one token. */
  private scan(): number {
    const src = this.src;
    for (;;) {
      let c: number;
      let blank = false;
      const savedLineStart = this.atLineStart;
      if (this.atLineStart) {
        this.atLineStart = false;
        let col = 0;
        for (;;) {
          c = this.peek();
          if (c === C_SP) {
            col++;
            this.i++;
          } else if (c === C_TAB) {
            col += 8 - ((this.posCol() - 1) % 8);
            this.i++;
          } else break;
        }
        if (c === C_HASH || c === C_NL || c === 0) blank = true;
        if (!blank && this.depth === 0) {
          const stk = this.indents;
          const cur = stk[stk.length - 1];
          if (col > cur) {
            this.dents++;
            stk.push(col);
          } else if (col < cur) {
            while (stk.length > 0 && col < stk[stk.length - 1]) {
              this.dents--;
              stk.pop();
            }
            if (col !== stk[stk.length - 1]) {
              this.errorHere("unindent does not match any outer indentation level");
            }
          }
        }
      }

      if (this.dents !== 0) {
        this.startTok();
        if (this.dents < 0) {
          this.dents++;
          return OUTDENT;
        }
        this.dents--;
        return INDENT;
      }

      c = this.peek();
      while (c === C_SP || c === C_TAB) {
        this.i++;
        c = this.peek();
      }

      if (c === C_HASH) {
        // Skip the comment, counting surrogate pairs so later columns on this line stay right. A NUL ends
        // it, and then the file, as in the reference (which reads NUL as its end-of-input rune).
        let i = this.i;
        const n = this.n;
        for (; i < n; i++) {
          const d = src.charCodeAt(i);
          if (d === C_NL || d === C_CR || d === 0) break;
          if (d >= 0xd800 && d < 0xdc00 && i + 1 < n) {
            const e = src.charCodeAt(i + 1);
            if (e >= 0xdc00 && e < 0xe000) {
              i++;
              this.adj++;
            }
          }
        }
        this.i = i;
        c = this.peek();
      }

      if (c === C_NL) {
        this.atLineStart = true;
        if (this.depth > 0 || blank) {
          this.newline();
          continue;
        }
        this.startTok();
        this.newline();
        this.raw = "\n";
        return NEWLINE;
      }

      if (c === 0) {
        if (this.indents.length > 1) {
          if (savedLineStart) {
            this.dents = 1 - this.indents.length;
            this.indents.length = 1;
            continue;
          }
          this.atLineStart = true;
          this.startTok();
          this.raw = "\n";
          return NEWLINE;
        }
        this.startTok();
        return EOF;
      }

      if (c === C_BSL) {
        this.i++;
        if (this.peek() !== C_NL) this.errorHere("stray backslash in program");
        this.newline();
        continue;
      }
      break;
    }

    this.startTok();
    const start = this.i;
    let c = src.charCodeAt(start);

    if (c === 44) {
      this.i++;
      return COMMA;
    }
    if (c === C_DQ || c === C_SQ) return this.scanString(start, false, false);

    if (c >= 0xd800 && c < 0xdc00) c = src.codePointAt(start)!;
    if (isIdentStart(c)) {
      if (c === 114 || c === 98) { // r"..." or b"..."
        const d = src.charCodeAt(start + 1);
        if (d === C_DQ || d === C_SQ) {
          this.i++;
          return this.scanString(start, c === 114, c === 98);
        }
        if (c === 114 && d === 98) { // rb"..."
          const e = src.charCodeAt(start + 2);
          if (e === C_DQ || e === C_SQ) {
            this.i += 2;
            return this.scanString(start, true, true);
          }
        }
      }
      let i = start + 1;
      let ascii = c < 128;
      if (!ascii) i = start + (c > 0xffff ? 2 : 1);
      const n = this.n;
      for (; i < n; i++) {
        const d = src.charCodeAt(i);
        if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || d === 95 || (d >= 48 && d <= 57)) continue;
        if (d < 128) break;
        const cp = src.codePointAt(i)!;
        if (!isIdentStart(cp)) break;
        ascii = false;
        if (cp > 0xffff) {
          i++;
          this.adj++;
        }
      }
      if (c > 0xffff) this.adj++;
      this.i = i;
      const kw = keywordAt(src, start, i);
      if (kw >= 0) return kw;
      const raw = src.slice(start, i);
      this.raw = raw;
      this.value = ascii ? raw : fromJSString(raw);
      return IDENT;
    }

    switch (c) {
      case 40: // (
      case 91: // [
      case 123: // {
        if (++this.depth > 1000) this.errorHere("excessive nesting");
        this.i++;
        return c === 40 ? LPAREN : c === 91 ? LBRACK : LBRACE;
      case 41: // )
      case 93: // ]
      case 125: // }
        if (this.depth === 0) this.errorHere(`unexpected ${quoteRune(c)}`);
        this.depth--;
        this.i++;
        return c === 41 ? RPAREN : c === 93 ? RBRACK : RBRACE;
    }

    if (isDigit(c) || c === 46) return this.scanNumber(start, c);

    const next = src.charCodeAt(start + 1);
    switch (c) {
      case 61: // =
        this.i += next === 61 ? 2 : 1;
        return next === 61 ? EQL : EQ;
      case 60: // <
      case 62: // >
        if (next === 61) {
          this.i += 2;
          return c === 60 ? LE : GE;
        }
        if (next === c) {
          if (src.charCodeAt(start + 2) === 61) {
            this.i += 3;
            return c === 60 ? LTLT_EQ : GTGT_EQ;
          }
          this.i += 2;
          return c === 60 ? LTLT : GTGT;
        }
        this.i++;
        return c === 60 ? LT : GT;
      case 33: // !
        if (next === 61) {
          this.i += 2;
          return NEQ;
        }
        this.errorHere("unexpected input character '!'");
        break;
      case 43: // +
        return this.maybeEq(next, PLUS, PLUS_EQ);
      case 45: // -
        return this.maybeEq(next, MINUS, MINUS_EQ);
      case 37: // %
        return this.maybeEq(next, PERCENT, PERCENT_EQ);
      case 38: // &
        return this.maybeEq(next, AMP, AMP_EQ);
      case 124: // |
        return this.maybeEq(next, PIPE, PIPE_EQ);
      case 94: // ^
        return this.maybeEq(next, CIRCUMFLEX, CIRCUMFLEX_EQ);
      case 47: // /
        if (next === 47) {
          if (src.charCodeAt(start + 2) === 61) {
            this.i += 3;
            return SLASHSLASH_EQ;
          }
          this.i += 2;
          return SLASHSLASH;
        }
        return this.maybeEq(next, SLASH, SLASH_EQ);
      case 58: // :
        this.i++;
        return COLON;
      case 59: // ;
        this.i++;
        return SEMI;
      case 126: // ~
        this.i++;
        return TILDE;
      case 42: // *
        if (next === 42) {
          this.i += 2;
          return STARSTAR;
        }
        return this.maybeEq(next, STAR, STAR_EQ);
    }
    return this.errorHere(`unexpected input character ${quoteRune(c)}`);
  }

  /** Scans a one-character operator that may be followed by `=`. */
  private maybeEq(next: number, plain: number, withEq: number): number {
    if (next === 61) {
      this.i += 2;
      return withEq;
    }
    this.i++;
    return plain;
  }

  /** Scans an int or float literal (or a lone `.`), with the reference's rules and messages. */
  private scanNumber(start: number, c: number): number {
    const src = this.src;
    const startCol = this.tokCol;
    let fraction = false, exponent = false;
    let kind = 10; // radix of an int literal
    if (c === 46) {
      this.i++;
      if (!isDigit(this.peek())) return DOT;
      fraction = true;
    } else if (c === 48) {
      this.i++;
      c = this.peek();
      const lc = c | 32;
      if (c === 46) {
        fraction = true;
      } else if (lc === 120) { // x
        this.i++;
        if (!isHex(this.peek())) this.error(this.line, startCol, "invalid hex literal");
        while (isHex(this.peek())) this.i++;
        kind = 16;
      } else if (lc === 111 || lc === 98) { // o, b
        this.i++;
        const max = lc === 111 ? 55 : 49;
        const ok = (d: number) => d >= 48 && d <= max;
        if (!ok(this.peek())) this.errorHere(lc === 111 ? "invalid octal literal" : "invalid binary literal");
        while (ok(this.peek())) this.i++;
        kind = lc === 111 ? 8 : 2;
      } else {
        let allZeros = true, octal = true;
        while (isDigit(c)) {
          if (c !== 48) allZeros = false;
          if (c > 55) octal = false;
          this.i++;
          c = this.peek();
        }
        if (c === 46) fraction = true;
        else if ((c | 32) === 101) exponent = true;
        else if (octal && !allZeros) {
          this.errorHere(`obsolete form of octal literal; use 0o${src.slice(start + 1, this.i)}`);
        } else if (!allZeros) {
          // Digits 8 or 9 after a leading zero: the reference's ParseInt rejects it.
          this.error(this.line, startCol, "invalid int literal");
        }
        kind = 0; // zero(s)
      }
    } else {
      while (isDigit(this.peek())) this.i++;
      c = this.peek();
      if (c === 46) fraction = true;
      else if ((c | 32) === 101) exponent = true;
    }

    if (fraction) {
      this.i++;
      while (isDigit(this.peek())) this.i++;
      if ((this.peek() | 32) === 101) exponent = true;
    }
    if (exponent) {
      this.i++;
      c = this.peek();
      if (c === 43 || c === 45) {
        this.i++;
        if (!isDigit(this.peek())) this.errorHere("invalid float literal");
      }
      while (isDigit(this.peek())) this.i++;
    }

    const raw = src.slice(start, this.i);
    this.raw = raw;
    if (fraction || exponent) {
      const f = Number(raw);
      if (!isFinite(f)) this.errorHere("invalid float literal");
      this.value = f;
      return FLOAT;
    }
    if (kind === 0) {
      this.value = 0;
      return INT;
    }
    const digits = kind === 10 ? raw : raw.slice(2);
    if (digits.length <= (kind === 10 ? 15 : kind === 16 ? 13 : kind === 8 ? 17 : 52)) {
      this.value = kind === 10 ? Number(digits) : parseInt(digits, kind);
      return INT;
    }
    let lead = 0;
    while (lead < digits.length - 1 && digits.charCodeAt(lead) === 48) lead++;
    const budget = this.chargeIntLiteral(digits.length - lead, kind, startCol);
    const big = kind === 10 && budget instanceof Thread
      ? parseDecimal(digits, budget) // in pieces, charged and polled like int("...")
      : BigInt(kind === 10 ? digits : raw.slice(0, 2).toLowerCase() + digits);
    // The reference parses octal and binary literals as int64 only.
    if ((kind === 8 || kind === 2) && big > 0x7fffffffffffffffn) {
      this.error(this.line, startCol, "invalid int literal");
    }
    this.value = big >= -0x1fffffffffffffn && big <= 0x1fffffffffffffn ? Number(big) : big;
    return INT;
  }

  /**
   * Refuses an int literal too large for any int the run may hold (its least value already has more
   * bits than the budget's `maxIntBits`), and charges the conversion of one it accepts: V8 turns
   * decimal digits into a BigInt in superlinear time (a 2-million-digit literal takes a third of a
   * second). A thread converts it in polled pieces and charges that itself (`parseDecimal`); any other
   * budget is charged the conversion in steps before it starts. Returns the budget.
   */
  private chargeIntLiteral(ndigits: number, radix: number, startCol: number): FrontEndBudget | undefined {
    const maxBits = this.meter.budget?.maxIntBits ?? DEFAULT_MAX_INT_BITS;
    // The least value of that many significant digits, radix^(n-1), has floor((n-1)·log2 radix) + 1 bits.
    const leastBits = Math.floor((ndigits - 1) * Math.log2(radix)) + 1;
    if (leastBits > maxBits) {
      this.error(
        this.line,
        startCol,
        `int literal too large (${ndigits} digits; ints are limited to ${maxBits} bits)`,
      );
    }
    const budget = this.meter.budget;
    if (radix === 10 && ndigits > 300 && !(budget instanceof Thread)) {
      this.meter.tick(ndigits + Math.floor((ndigits * ndigits) / 2 ** 19));
    }
    return budget;
  }

  /**
   * Scans a string or bytes literal whose opening quote is at `this.i` (prefix already consumed) and
   * decodes it to a binary string.
   */
  private scanString(tokStart: number, rawMode: boolean, isBytes: boolean): number {
    const src = this.src;
    const n = this.n;
    const startLine = this.tokLine, startCol = this.tokCol;
    const quoteLine = this.line, quoteCol = this.posCol();
    const quote = src.charCodeAt(this.i);
    const triple = src.charCodeAt(this.i + 1) === quote && src.charCodeAt(this.i + 2) === quote;
    let i = this.i + (triple ? 3 : 1);
    const contentStart = i;
    let plain = true; // no backslash, CR or non-ASCII: the value is the source slice
    const eofError = () => this.error(startLine, startCol, "unexpected EOF in string");
    const nl = (cr: boolean) => {
      if (cr && src.charCodeAt(i + 1) === C_NL) i++;
      i++;
      this.line++;
      this.lineStart = i;
      this.adj = 0;
    };
    let quoteCount = 0;
    for (;;) {
      if (i >= n) {
        this.i = i;
        eofError();
      }
      const d = src.charCodeAt(i);
      if (d === quote) {
        i++;
        if (!triple || ++quoteCount === 3) break;
        continue;
      }
      quoteCount = 0;
      if (d === C_NL || d === C_CR) {
        if (!triple) {
          this.i = i;
          this.error(startLine, startCol, "unexpected newline in string");
        }
        if (d === C_CR) plain = false;
        nl(d === C_CR);
        continue;
      }
      if (d === C_BSL) {
        plain = false;
        i++;
        if (i >= n) {
          this.i = i;
          eofError();
        }
        const e = src.charCodeAt(i);
        if (e === C_NL || e === C_CR) nl(e === C_CR);
        else i++;
        continue;
      }
      if (d >= 128) {
        plain = false;
        if (d >= 0xd800 && d < 0xdc00 && i + 1 < n) {
          const e = src.charCodeAt(i + 1);
          if (e >= 0xdc00 && e < 0xe000) {
            i++;
            this.adj++;
          }
        }
      }
      i++;
    }
    this.i = i;
    const contentEnd = i - (triple ? 3 : 1);
    this.raw = src.slice(tokStart, i);
    if (plain || (rawMode && !hasCRorNonASCII(src, contentStart, contentEnd))) {
      this.value = src.slice(contentStart, contentEnd);
    } else {
      // Decoding takes ~10-20 ns a character, into a buffer of 3 bytes per character.
      const len = contentEnd - contentStart;
      if (len > 256) this.meter.work(len >> 1, 3 * len);
      this.value = decodeString(
        src,
        contentStart,
        contentEnd,
        rawMode,
        isBytes,
        (msg) => this.error(quoteLine, quoteCol, msg),
      );
    }
    return isBytes ? BYTES : STRING;
  }
}
