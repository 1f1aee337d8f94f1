/**
 * JSON string handling with the exact behaviour of Go's `encoding/json` and `strconv`, which the reference
 * `json` module relies on, over binary strings (one char code per byte):
 *
 * - {@link unquoteJSONString}: `json.Unmarshal` of one string literal — validation, then decoding of
 *   escapes (`\uXXXX` surrogate pairs, lone surrogates → U+FFFD) and of invalid UTF-8 (each bad byte → U+FFFD).
 * - {@link marshalJSONString}: `json.Marshal` of a string (HTML-safe escaping of `<`, `>`, `&`, U+2028/9).
 *
 * @module
 */
import {
  decodeRune,
  encodeRune,
  isInvalid,
  RUNE_ERROR,
  STEPS_PER_ESCAPE,
  TEXT_POLL_CHUNK,
  TextBuilder,
  type Thread,
} from "../values/mod.ts";
import { validateJSON } from "./json_scan.ts";

const HEX = "0123456789abcdef";

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** The code unit of `\uXXXX` at `s[i:]`, or -1 when there is none (Go's `getu4`). */
function getu4(s: string, i: number): number {
  if (i + 6 > s.length || s.charCodeAt(i) !== 0x5c || s.charCodeAt(i + 1) !== 0x75) return -1;
  let r = 0;
  for (let k = i + 2; k < i + 6; k++) {
    const h = hexValue(s.charCodeAt(k));
    if (h < 0) return -1;
    r = r * 16 + h;
  }
  return r;
}

/**
 * Literals up to this length are first decoded in one pass that validates as it goes; longer ones (which
 * need polling and a piece builder) and invalid ones take the two-pass path with the scanner's messages.
 */
export const FAST_UNQUOTE_MAX = 4096;

// For each escape letter after a backslash, the byte it stands for (-1: none); "u" is handled apart.
const SIMPLE_ESCAPES = new Int16Array(256).fill(-1);
{
  const letters = '"\\/bfnrt', bytes = '"\\/\b\f\n\r\t';
  for (let k = 0; k < letters.length; k++) SIMPLE_ESCAPES[letters.charCodeAt(k)] = bytes.charCodeAt(k);
}

/**
 * The decoded bytes of the literal {@link unquoteSpan} is reading, from index 0: one array, reused by
 * every call, rather than an array per literal grown as it fills (a document of many escaped strings made
 * more garbage in those arrays than in its values). A literal of at most {@link FAST_UNQUOTE_MAX} chars
 * decodes to at most three bytes per char (an invalid byte becomes U+FFFD), so it never grows.
 */
const SCRATCH: number[] = new Array<number>(3 * FAST_UNQUOTE_MAX).fill(0);

/** Char codes passed to one `String.fromCharCode` call: a few KiB of stack, however deep the caller is. */
const CODES_PER_CALL = 512;

/** Decoded strings up to this many bytes are made through {@link EXACT}. */
const EXACT_MAX = 128;
/** Per length n ≤ {@link EXACT_MAX}, an array of n codes, made on first use (33 KiB for all of them). */
const EXACT: (number[] | undefined)[] = [];

/** The string of the byte values `SCRATCH[0:n)` (a flat string, where concatenating pieces would make a rope). */
function fromScratch(n: number): string {
  if (n <= EXACT_MAX) {
    // Through an array of exactly n codes, kept for the next string of that length: a slice would be
    // garbage between the decoded values, and the young generation's pages, nearly all live values while
    // a document is decoded, are then moved to the old generation whole rather than copied object by object.
    let a = EXACT[n];
    if (a === undefined) a = EXACT[n] = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) a[i] = SCRATCH[i];
    return String.fromCharCode.apply(null, a);
  }
  if (n <= CODES_PER_CALL) return String.fromCharCode.apply(null, SCRATCH.slice(0, n));
  let out = "";
  for (let i = 0; i < n; i += CODES_PER_CALL) {
    out += String.fromCharCode.apply(null, SCRATCH.slice(i, Math.min(n, i + CODES_PER_CALL)));
  }
  return out;
}

/** Writes the UTF-8 bytes of `r` (a scalar value: no surrogate) at `SCRATCH[n]`; returns the new end. */
function putRune(n: number, r: number): number {
  const b = SCRATCH;
  if (r < 0x80) b[n++] = r;
  else if (r < 0x800) {
    b[n++] = 0xc0 | (r >> 6);
    b[n++] = 0x80 | (r & 0x3f);
  } else if (r < 0x10000) {
    b[n++] = 0xe0 | (r >> 12);
    b[n++] = 0x80 | ((r >> 6) & 0x3f);
    b[n++] = 0x80 | (r & 0x3f);
  } else {
    b[n++] = 0xf0 | (r >> 18);
    b[n++] = 0x80 | ((r >> 12) & 0x3f);
    b[n++] = 0x80 | ((r >> 6) & 0x3f);
    b[n++] = 0x80 | (r & 0x3f);
  }
  return n;
}

/**
 * One-pass decoding of the quoted literal `s[from:to]` (at most {@link FAST_UNQUOTE_MAX} long), read in
 * place: the same result as the two-pass path of {@link unquoteJSONString} for valid literals, or
 * undefined as soon as something would be an error there (a control byte, an inner quote, an unknown
 * escape, a short `\u`), so that path reports it. Its result is built as one flat string of byte values, not
 * as a rope of the pieces between escapes: a decoded document keeps its strings, and a rope of ten pieces
 * takes several times the memory (and garbage collection time) of the flat string.
 */
export function unquoteSpan(s: string, from: number, to: number): string | undefined {
  if (to - from > FAST_UNQUOTE_MAX) return undefined;
  const v = unquoteRest(s, from, from + 1, to);
  return unquotedEnd === to ? v : undefined;
}

/** Where the literal read by the last successful {@link unquoteRest} ends (after its closing quote). */
let unquotedEnd = -1;

/** The end of the literal the last {@link unquoteRest} that returned a string has read. */
export function unquoteRestEnd(): number {
  return unquotedEnd;
}

/**
 * {@link unquoteSpan} of the literal opening at `open` in `s` and ending at its first unescaped quote before
 * `limit`, for a caller that has scanned it up to `from` and found only ASCII bytes that stand for
 * themselves before (no quote, no backslash): the literal is read once, not scanned for its end first.
 * Returns undefined, like unquoteSpan, for a literal with a flaw, unclosed before `limit`, or longer than
 * {@link FAST_UNQUOTE_MAX}; else the decoded string, with its end in {@link unquoteRestEnd}.
 */
export function unquoteRest(s: string, open: number, from: number, limit: number): string | undefined {
  const stop = Math.min(limit, open + FAST_UNQUOTE_MAX); // one past the last index the closing quote may have
  if (from >= stop) return undefined; // too long: the prefix is not scanned again either
  // The scanned prefix may hold control bytes, which only the general path reports.
  for (let k = open + 1; k < from; k++) if (s.charCodeAt(k) < 0x20) return undefined;
  const b = SCRATCH;
  // Bytes decoded into SCRATCH; -1 while the literal has needed no decoding (its text is its value).
  let n = -1;
  for (let r = from; r < stop;) {
    const c = s.charCodeAt(r);
    if (c === 0x22) {
      unquotedEnd = r + 1;
      return n < 0 ? s.slice(open + 1, r) : fromScratch(n);
    }
    if (c === 0x5c) {
      if (r + 1 >= stop) return undefined;
      if (n < 0) n = copyToScratch(s, open + 1, r);
      const e = s.charCodeAt(r + 1);
      if (e === 0x75) {
        let rr = getu4(s, r);
        if (rr < 0 || r + 6 > stop) return undefined;
        r += 6;
        if (rr >= 0xd800 && rr < 0xe000) {
          const rr1 = r + 6 <= stop ? getu4(s, r) : -1;
          if (rr < 0xdc00 && rr1 >= 0xdc00 && rr1 < 0xe000) {
            n = putRune(n, 0x10000 + ((rr - 0xd800) << 10) + (rr1 - 0xdc00));
            r += 6;
            continue;
          }
          rr = RUNE_ERROR;
        }
        n = putRune(n, rr);
        continue;
      }
      const v = SIMPLE_ESCAPES[e];
      if (v < 0) return undefined;
      b[n++] = v;
      r += 2;
    } else if (c < 0x20) {
      return undefined;
    } else if (c < 0x80) {
      if (n >= 0) b[n++] = c;
      r++;
    } else {
      const p = decodeRune(s, r);
      if (isInvalid(p)) {
        if (n < 0) n = copyToScratch(s, open + 1, r);
        b[n++] = 0xef;
        b[n++] = 0xbf;
        b[n++] = 0xbd;
        r++;
      } else {
        const size = p & 7;
        if (n >= 0) { for (let k = r; k < r + size; k++) b[n++] = s.charCodeAt(k); }
        r += size;
      }
    }
  }
  return undefined;
}

/** Copies the char codes of `s[from:to]` to the start of SCRATCH; returns their count. */
function copyToScratch(s: string, from: number, to: number): number {
  const b = SCRATCH;
  let n = 0;
  for (let k = from; k < to; k++) b[n++] = s.charCodeAt(k);
  return n;
}

/**
 * Decodes one JSON string literal `lit` (including its quotes), exactly like Go's `json.Unmarshal` into
 * a string: scanner validation first, then unescaping, with invalid UTF-8 bytes and unpaired surrogates
 * replaced by U+FFFD. Returns a binary (UTF-8) string.
 *
 * @throws {JSONSyntaxError} with the scanner's message for control characters and bad escapes.
 */
export function unquoteJSONString(lit: string, thread?: Thread): string {
  if (lit.length <= FAST_UNQUOTE_MAX) {
    const fast = unquoteSpan(lit, 0, lit.length);
    if (fast !== undefined) return fast;
  }
  return unquoteValidated(lit, thread);
}

/**
 * The general path of {@link unquoteJSONString}, for literals of any length: the scanner's validation (and
 * its error messages), then the decoding, polling `thread` on the way. The one-pass {@link unquoteSpan}
 * must agree with it on every literal it accepts.
 *
 * @throws {JSONSyntaxError} with the scanner's message for control characters and bad escapes.
 */
export function unquoteValidated(lit: string, thread?: Thread): string {
  validateJSON(lit, thread);
  const end = lit.length - 1;
  const out = new TextBuilder(thread);
  let start = 1;
  for (let r = 1, next = TEXT_POLL_CHUNK; r < end;) {
    if (r >= next) {
      thread?.poll();
      next = r + TEXT_POLL_CHUNK;
    }
    const c = lit.charCodeAt(r);
    if (c === 0x5c) {
      out.add(lit.slice(start, r));
      const e = lit.charCodeAt(r + 1);
      switch (e) {
        case 0x62:
          out.add("\b");
          break;
        case 0x66:
          out.add("\f");
          break;
        case 0x6e:
          out.add("\n");
          break;
        case 0x72:
          out.add("\r");
          break;
        case 0x74:
          out.add("\t");
          break;
        case 0x75: {
          let rr = getu4(lit, r);
          r += 6;
          if (rr >= 0xd800 && rr < 0xe000) {
            const rr1 = getu4(lit, r);
            if (rr < 0xdc00 && rr1 >= 0xdc00 && rr1 < 0xe000) {
              out.add(encodeRune(0x10000 + ((rr - 0xd800) << 10) + (rr1 - 0xdc00)));
              r += 6;
              start = r;
              continue;
            }
            rr = RUNE_ERROR;
          }
          out.add(encodeRune(rr));
          start = r;
          continue;
        }
        default: // the quote, backslash and slash stand for themselves
          out.add(lit[r + 1]);
      }
      r += 2;
      start = r;
    } else if (c < 0x80) {
      r++;
    } else {
      const p = decodeRune(lit, r);
      if (isInvalid(p)) {
        out.add(lit.slice(start, r) + "\xef\xbf\xbd");
        r++;
        start = r;
      } else {
        r += p & 7;
      }
    }
  }
  out.add(lit.slice(start, end));
  return out.finish();
}

// Bytes below 0x80 that Go's HTML-safe JSON encoder writes unescaped.
const HTML_SAFE: boolean[] = [];
for (let c = 0; c < 0x80; c++) {
  HTML_SAFE.push(c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x3c && c !== 0x3e && c !== 0x26);
}

/** The escape of each byte below 0x80 that is not {@link HTML_SAFE}, as `json.Marshal` writes it. */
const ASCII_ESCAPES: string[] = [];
{
  const short: Record<number, string> = {
    0x22: '\\"',
    0x5c: "\\\\",
    8: "\\b",
    12: "\\f",
    10: "\\n",
    13: "\\r",
    9: "\\t",
  };
  for (let c = 0; c < 0x80; c++) {
    ASCII_ESCAPES.push(HTML_SAFE[c] ? "" : short[c] ?? "\\u00" + HEX[c >> 4] + HEX[c & 15]);
  }
}

// Well-formed UTF-8 as Go decodes it (no overlong forms, no surrogates, nothing above U+10FFFF).
const VALID_UTF8_RE =
  // deno-lint-ignore no-control-regex
  /^(?:[\x00-\x7f]|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2})*$/;
// The bytes json.Marshal escapes below 0x80 (the complement of HTML_SAFE there).
// deno-lint-ignore no-control-regex
const ASCII_UNSAFE_RE = /[\x00-\x1f"\\<>&]/g;

/** Strings up to this long are escaped by native regular expressions when they are valid UTF-8. */
const REGEX_MARSHAL_MAX = 4096;

/**
 * Go's `json.Marshal` of a string (binary string in, binary string out): `"` and `\` escaped,
 * `\b \f \n \r \t`, other control characters and `< > &` as `\u00XX`, U+2028/U+2029 as `\u2028`/`\u2029`,
 * each invalid UTF-8 byte as `\ufffd`; everything else verbatim.
 */
export function marshalJSONString(s: string, thread?: Thread): string {
  if (
    s.length <= REGEX_MARSHAL_MAX && VALID_UTF8_RE.test(s) && !s.includes("\xe2\x80\xa8") &&
    !s.includes("\xe2\x80\xa9")
  ) {
    // Only ASCII bytes change then: one native scan (and a call per escaped byte), where the loop below
    // runs byte by byte, slowly until it is optimized.
    return '"' + s.replace(ASCII_UNSAFE_RE, (c) => ASCII_ESCAPES[c.charCodeAt(0)]) + '"';
  }
  const out = new TextBuilder(thread);
  out.add('"');
  let start = 0;
  let work = 0; // steps of escapes and runes not charged yet (see STEPS_PER_ESCAPE)
  const n = s.length;
  for (let i = 0, next = TEXT_POLL_CHUNK; i < n;) {
    if (i >= next) {
      if (thread !== undefined) {
        thread.charge(work);
        thread.poll();
      }
      work = 0;
      next = i + TEXT_POLL_CHUNK;
    }
    const b = s.charCodeAt(i);
    if (b < 0x80) {
      if (HTML_SAFE[b]) {
        i++;
        continue;
      }
      // An ASCII escape here is two pieces (the text before it, and itself): a step more than in `repr`.
      work += STEPS_PER_ESCAPE + 1;
      out.add(s.slice(start, i));
      switch (b) {
        case 0x5c:
        case 0x22:
          out.add("\\" + s[i]);
          break;
        case 8:
          out.add("\\b");
          break;
        case 12:
          out.add("\\f");
          break;
        case 10:
          out.add("\\n");
          break;
        case 13:
          out.add("\\r");
          break;
        case 9:
          out.add("\\t");
          break;
        default:
          out.add("\\u00" + HEX[b >> 4] + HEX[b & 15]);
      }
      i++;
      start = i;
      continue;
    }
    const p = decodeRune(s, i);
    work++;
    if (isInvalid(p)) {
      work += STEPS_PER_ESCAPE;
      out.add(s.slice(start, i) + "\\ufffd");
      i++;
      start = i;
      continue;
    }
    const r = Math.floor(p / 8);
    if (r === 0x2028 || r === 0x2029) {
      work += STEPS_PER_ESCAPE;
      out.add(s.slice(start, i) + (r === 0x2028 ? "\\u2028" : "\\u2029"));
      i += 3;
      start = i;
      continue;
    }
    i += p & 7;
  }
  out.add(s.slice(start));
  out.add('"');
  thread?.charge(work);
  return out.finish();
}
