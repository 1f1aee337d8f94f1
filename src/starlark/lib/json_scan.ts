/**
 * Go's `encoding/json` scanner, re-implemented over binary strings (one char code per byte) with the same
 * results and error messages: {@link indentJSON} (`json.Indent`: validation, including the nesting limit
 * of {@link GO_MAX_NESTING}, and re-indentation), {@link validateJSON} (`json.Valid` with its error) and
 * {@link quoteByte} (how Go quotes a byte in error messages).
 * The reference `json` module delegates to these. Everything here is iterative: no input can exhaust the
 * JS stack.
 *
 * @module
 */
import { encodeRune, isPrint, TEXT_POLL_CHUNK, TextBuilder, type Thread } from "../values/mod.ts";

/** A JSON syntax error, with Go's message (e.g. `invalid character 'x' looking for beginning of value`). */
export class JSONSyntaxError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "JSONSyntaxError";
  }
}

/** Go's `encoding/json` refuses documents nested deeper than this many arrays/objects. */
export const GO_MAX_NESTING = 10000;

const HEX = "0123456789abcdef";

/**
 * Formats byte `c` as a quoted character literal the way Go's `%q` verb (and the JSON scanner's
 * `quoteChar`) does: `'x'`, `'\''`, `'"'`, `'\n'`, `'\x01'`, `'\u0080'`, or the character itself
 * (UTF-8 encoded) when printable.
 */
export function quoteByte(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x5c) return "'\\\\'";
  if (isPrint(c)) return "'" + encodeRune(c) + "'";
  switch (c) {
    case 7:
      return "'\\a'";
    case 8:
      return "'\\b'";
    case 9:
      return "'\\t'";
    case 10:
      return "'\\n'";
    case 11:
      return "'\\v'";
    case 12:
      return "'\\f'";
    case 13:
      return "'\\r'";
  }
  if (c < 0x20 || c === 0x7f) return "'\\x" + HEX[c >> 4] + HEX[c & 15] + "'";
  return "'\\u00" + HEX[c >> 4] + HEX[c & 15] + "'";
}

// ---------------------------------------------------------------------------
// The scanner (a port of the state machine in Go's encoding/json/scanner.go)

// Scan results.
const CONTINUE = 0;
const BEGIN_LITERAL = 1;
const BEGIN_OBJECT = 2;
const OBJECT_KEY = 3;
const OBJECT_VALUE = 4;
const END_OBJECT = 5;
const BEGIN_ARRAY = 6;
const ARRAY_VALUE = 7;
const END_ARRAY = 8;
const SKIP_SPACE = 9;
const END = 10;
const ERROR = 11;

// Parse-stack entries.
const PARSE_OBJECT_KEY = 0;
const PARSE_OBJECT_VALUE = 1;
const PARSE_ARRAY_VALUE = 2;

// States.
const S_BEGIN_VALUE_OR_EMPTY = 0;
const S_BEGIN_VALUE = 1;
const S_BEGIN_STRING_OR_EMPTY = 2;
const S_BEGIN_STRING = 3;
const S_END_VALUE = 4;
const S_END_TOP = 5;
const S_IN_STRING = 6;
const S_IN_STRING_ESC = 7;
const S_IN_STRING_ESC_U = 8; // 8..11: after \u, \uX, \uXX, \uXXX
const S_NEG = 12;
const S_1 = 13;
const S_0 = 14;
const S_DOT = 15;
const S_DOT0 = 16;
const S_E = 17;
const S_E_SIGN = 18;
const S_E0 = 19;
const S_LITERAL = 20; // inside true/false/null: `lit` and `litPos` say what comes next
const S_ERROR = 21;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Go's JSON scanner: feed bytes with {@link step}, then call {@link eof}. */
class Scanner {
  state = S_BEGIN_VALUE;
  endTop = false;
  readonly parseState: number[] = [];
  err: string | undefined = undefined;
  private lit = "";
  private litPos = 0;

  private error(c: number, context: string): number {
    this.state = S_ERROR;
    this.err = "invalid character " + quoteByte(c) + " " + context;
    return ERROR;
  }

  private push(c: number, ps: number, success: number): number {
    this.parseState.push(ps);
    if (this.parseState.length <= GO_MAX_NESTING) return success;
    return this.error(c, "exceeded max depth");
  }

  private pop(): void {
    this.parseState.pop();
    if (this.parseState.length === 0) {
      this.state = S_END_TOP;
      this.endTop = true;
    } else {
      this.state = S_END_VALUE;
    }
  }

  private beginValue(c: number): number {
    if (isSpace(c)) return SKIP_SPACE;
    switch (c) {
      case 0x7b: // {
        this.state = S_BEGIN_STRING_OR_EMPTY;
        return this.push(c, PARSE_OBJECT_KEY, BEGIN_OBJECT);
      case 0x5b: // [
        this.state = S_BEGIN_VALUE_OR_EMPTY;
        return this.push(c, PARSE_ARRAY_VALUE, BEGIN_ARRAY);
      case 0x22:
        this.state = S_IN_STRING;
        return BEGIN_LITERAL;
      case 0x2d:
        this.state = S_NEG;
        return BEGIN_LITERAL;
      case 0x30:
        this.state = S_0;
        return BEGIN_LITERAL;
      case 0x74:
        return this.beginLiteral("true");
      case 0x66:
        return this.beginLiteral("false");
      case 0x6e:
        return this.beginLiteral("null");
    }
    if (c >= 0x31 && c <= 0x39) {
      this.state = S_1;
      return BEGIN_LITERAL;
    }
    return this.error(c, "looking for beginning of value");
  }

  private beginLiteral(lit: string): number {
    this.state = S_LITERAL;
    this.lit = lit;
    this.litPos = 1;
    return BEGIN_LITERAL;
  }

  private endValue(c: number): number {
    const n = this.parseState.length;
    if (n === 0) {
      this.state = S_END_TOP;
      this.endTop = true;
      return this.endTopStep(c);
    }
    if (isSpace(c)) {
      this.state = S_END_VALUE;
      return SKIP_SPACE;
    }
    switch (this.parseState[n - 1]) {
      case PARSE_OBJECT_KEY:
        if (c === 0x3a) {
          this.parseState[n - 1] = PARSE_OBJECT_VALUE;
          this.state = S_BEGIN_VALUE;
          return OBJECT_KEY;
        }
        return this.error(c, "after object key");
      case PARSE_OBJECT_VALUE:
        if (c === 0x2c) {
          this.parseState[n - 1] = PARSE_OBJECT_KEY;
          this.state = S_BEGIN_STRING;
          return OBJECT_VALUE;
        }
        if (c === 0x7d) {
          this.pop();
          return END_OBJECT;
        }
        return this.error(c, "after object key:value pair");
      default:
        if (c === 0x2c) {
          this.state = S_BEGIN_VALUE;
          return ARRAY_VALUE;
        }
        if (c === 0x5d) {
          this.pop();
          return END_ARRAY;
        }
        return this.error(c, "after array element");
    }
  }

  private endTopStep(c: number): number {
    // A non-space byte is reported as an error, but only on the next step (Go returns scanEnd here).
    if (!isSpace(c)) this.error(c, "after top-level value");
    return END;
  }

  /** Feeds one byte; returns the scan result. */
  step(c: number): number {
    switch (this.state) {
      case S_BEGIN_VALUE_OR_EMPTY:
        if (isSpace(c)) return SKIP_SPACE;
        if (c === 0x5d) return this.endValue(c);
        return this.beginValue(c);
      case S_BEGIN_VALUE:
        return this.beginValue(c);
      case S_BEGIN_STRING_OR_EMPTY:
        if (isSpace(c)) return SKIP_SPACE;
        if (c === 0x7d) {
          this.parseState[this.parseState.length - 1] = PARSE_OBJECT_VALUE;
          return this.endValue(c);
        }
        return this.beginString(c);
      case S_BEGIN_STRING:
        return this.beginString(c);
      case S_END_VALUE:
        return this.endValue(c);
      case S_END_TOP:
        return this.endTopStep(c);
      case S_IN_STRING:
        if (c === 0x22) {
          this.state = S_END_VALUE;
          return CONTINUE;
        }
        if (c === 0x5c) {
          this.state = S_IN_STRING_ESC;
          return CONTINUE;
        }
        if (c < 0x20) return this.error(c, "in string literal");
        return CONTINUE;
      case S_IN_STRING_ESC:
        switch (c) {
          case 0x62: // b
          case 0x66: // f
          case 0x6e: // n
          case 0x72: // r
          case 0x74: // t
          case 0x5c: // backslash
          case 0x2f: // /
          case 0x22: // "
            this.state = S_IN_STRING;
            return CONTINUE;
          case 0x75: // u
            this.state = S_IN_STRING_ESC_U;
            return CONTINUE;
        }
        return this.error(c, "in string escape code");
      case S_IN_STRING_ESC_U:
      case S_IN_STRING_ESC_U + 1:
      case S_IN_STRING_ESC_U + 2:
      case S_IN_STRING_ESC_U + 3:
        if (isHex(c)) {
          this.state = this.state === S_IN_STRING_ESC_U + 3 ? S_IN_STRING : this.state + 1;
          return CONTINUE;
        }
        return this.error(c, "in \\u hexadecimal character escape");
      case S_NEG:
        if (c === 0x30) {
          this.state = S_0;
          return CONTINUE;
        }
        if (c >= 0x31 && c <= 0x39) {
          this.state = S_1;
          return CONTINUE;
        }
        return this.error(c, "in numeric literal");
      case S_1:
        if (isDigit(c)) return CONTINUE;
        return this.state0(c);
      case S_0:
        return this.state0(c);
      case S_DOT:
        if (isDigit(c)) {
          this.state = S_DOT0;
          return CONTINUE;
        }
        return this.error(c, "after decimal point in numeric literal");
      case S_DOT0:
        if (isDigit(c)) return CONTINUE;
        if (c === 0x65 || c === 0x45) {
          this.state = S_E;
          return CONTINUE;
        }
        return this.endValue(c);
      case S_E:
        if (c === 0x2b || c === 0x2d) {
          this.state = S_E_SIGN;
          return CONTINUE;
        }
        return this.eSign(c);
      case S_E_SIGN:
        return this.eSign(c);
      case S_E0:
        if (isDigit(c)) return CONTINUE;
        return this.endValue(c);
      case S_LITERAL: {
        const want = this.lit.charCodeAt(this.litPos);
        if (c !== want) {
          return this.error(c, `in literal ${this.lit} (expecting ${quoteByte(want)})`);
        }
        if (++this.litPos === this.lit.length) this.state = S_END_VALUE;
        return CONTINUE;
      }
      default:
        return ERROR;
    }
  }

  private beginString(c: number): number {
    if (isSpace(c)) return SKIP_SPACE;
    if (c === 0x22) {
      this.state = S_IN_STRING;
      return BEGIN_LITERAL;
    }
    return this.error(c, "looking for beginning of object key string");
  }

  private state0(c: number): number {
    if (c === 0x2e) {
      this.state = S_DOT;
      return CONTINUE;
    }
    if (c === 0x65 || c === 0x45) {
      this.state = S_E;
      return CONTINUE;
    }
    return this.endValue(c);
  }

  private eSign(c: number): number {
    if (isDigit(c)) {
      this.state = S_E0;
      return CONTINUE;
    }
    return this.error(c, "in exponent of numeric literal");
  }

  /** Signals the end of input; returns END or ERROR (with {@link err} set). */
  eof(): number {
    if (this.err !== undefined) return ERROR;
    if (this.endTop) return END;
    this.step(0x20);
    if (this.endTop) return END;
    if (this.err === undefined) this.err = "unexpected end of JSON input";
    return ERROR;
  }
}

/**
 * Go's `json.Indent`: validates `src` and re-indents it. Leading spaces are dropped, trailing spaces
 * kept; empty arrays and objects stay `[]`/`{}`; `prefix` starts every line but the first.
 *
 * `charge` is called with the number of output bytes about to be produced (in batches, and always
 * before a large piece is built), so that the caller can enforce its budgets before memory is used;
 * `poll` is called between chunks of the input.
 *
 * @throws {JSONSyntaxError} with Go's message when `src` is not valid JSON.
 */
export function indentJSON(
  src: string,
  prefix: string,
  indent: string,
  charge?: (bytes: number) => void,
  poll?: () => void,
): string {
  const scan = new Scanner();
  // Built in flat chunks: an output of millions of short pieces would otherwise hold them all.
  const parts = new TextBuilder(poll === undefined ? undefined : { poll });
  let needIndent = false;
  let depth = 0;
  let pending = 0;
  const grow = (bytes: number): void => {
    pending += bytes;
    if (pending >= 4096 && charge !== undefined) {
      charge(pending);
      pending = 0;
    }
  };
  // Line starts for small depths are built once; deep ones are built when needed (they can be huge).
  const lines: string[] = [];
  const newline = (d: number): void => {
    grow(1 + prefix.length + indent.length * d);
    if (d < 64) parts.add(lines[d] ??= "\n" + prefix + indent.repeat(d));
    else parts.add("\n" + prefix + indent.repeat(d));
  };
  let start = 0; // start of a run of input bytes copied verbatim
  const flush = (end: number): void => {
    if (start < end) {
      grow(end - start);
      parts.add(src.slice(start, end));
    }
  };
  const n = src.length;
  for (let i = 0, next = TEXT_POLL_CHUNK; i < n; i++) {
    if (i >= next) {
      poll?.();
      next = i + TEXT_POLL_CHUNK;
    }
    if (scan.state === S_IN_STRING) {
      // Fast path: ordinary string bytes are always copied verbatim.
      let c = src.charCodeAt(i);
      while (c !== 0x22 && c !== 0x5c && c >= 0x20 && ++i < n) c = src.charCodeAt(i);
      if (i === n) break;
    }
    const c = src.charCodeAt(i);
    const v = scan.step(c);
    if (v === CONTINUE || (v === BEGIN_LITERAL && !needIndent)) continue; // stays in the verbatim run
    if (v === BEGIN_LITERAL || (v === END && scan.err === undefined)) {
      // Copied verbatim too, after the pending line break if any.
      flush(i);
      start = i;
      if (needIndent) {
        needIndent = false;
        depth++;
        newline(depth);
      }
      continue;
    }
    flush(i);
    start = i + 1;
    if (v === SKIP_SPACE) continue;
    // A byte after the top-level value is an error reported one step late; stop at once instead.
    if (v === ERROR || scan.err !== undefined) break;
    if (needIndent && v !== END_OBJECT && v !== END_ARRAY) {
      needIndent = false;
      depth++;
      newline(depth);
    }
    grow(2);
    switch (c) {
      case 0x7b:
        needIndent = true; // delayed, so that empty containers print as {} and []
        parts.add("{");
        break;
      case 0x5b:
        needIndent = true;
        parts.add("[");
        break;
      case 0x2c:
        parts.add(",");
        newline(depth);
        break;
      case 0x3a:
        parts.add(": ");
        break;
      default: // } or ]
        if (needIndent) {
          needIndent = false;
        } else {
          depth--;
          newline(depth);
        }
        parts.add(c === 0x7d ? "}" : "]");
    }
  }
  if (scan.eof() === ERROR) throw new JSONSyntaxError(scan.err!);
  flush(n);
  if (pending > 0 && charge !== undefined) charge(pending);
  return parts.finish();
}

/**
 * Checks that `src` is one valid JSON value (Go's `checkValid`).
 * @throws {JSONSyntaxError} with the scanner's message when it is not.
 */
export function validateJSON(src: string, thread?: Thread): void {
  const scan = new Scanner();
  for (let i = 0; i < src.length; i++) {
    if (scan.step(src.charCodeAt(i)) === ERROR) throw new JSONSyntaxError(scan.err!);
    if ((i & (TEXT_POLL_CHUNK - 1)) === TEXT_POLL_CHUNK - 1) thread?.poll();
  }
  if (scan.eof() === ERROR) throw new JSONSyntaxError(scan.err!);
}
