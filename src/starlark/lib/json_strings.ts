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

// For each escape letter after a backslash, its one-byte decoding; "u" is handled apart.
const SIMPLE_ESCAPES: (string | undefined)[] = [];
for (
  const [c, v] of [['"', '"'], ["\\", "\\"], ["/", "/"], ["b", "\b"], ["f", "\f"], ["n", "\n"], ["r", "\r"], [
    "t",
    "\t",
  ]]
) {
  SIMPLE_ESCAPES[c.charCodeAt(0)] = v;
}

/** Char codes passed to one `String.fromCharCode` call: a few KiB of stack, however deep the caller is. */
const CODES_PER_CALL = 512;

/** The string of the byte values `codes` (a flat string, where concatenating pieces would make a rope). */
function fromCodes(codes: number[]): string {
  const n = codes.length;
  if (n <= CODES_PER_CALL) return String.fromCharCode.apply(null, codes);
  let out = "";
  for (let i = 0; i < n; i += CODES_PER_CALL) {
    out += String.fromCharCode.apply(null, codes.slice(i, Math.min(n, i + CODES_PER_CALL)));
  }
  return out;
}

/** Appends the UTF-8 bytes of `r` (a scalar value: no surrogate) to `codes`. */
function pushRune(codes: number[], r: number): void {
  if (r < 0x80) codes.push(r);
  else if (r < 0x800) codes.push(0xc0 | (r >> 6), 0x80 | (r & 0x3f));
  else if (r < 0x10000) codes.push(0xe0 | (r >> 12), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
  else codes.push(0xf0 | (r >> 18), 0x80 | ((r >> 12) & 0x3f), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
}

/**
 * One-pass decoding of the quoted literal `s[from:to]` (at most {@link FAST_UNQUOTE_MAX} long), read in
 * place: the same result as the two-pass path of {@link unquoteJSONString} for valid literals, or
 * undefined as soon as something would be an error there (a control byte, an inner quote, an unknown
 * escape, a short `\u`), so that path reports it. Its result is built as one flat string of byte values, not as a rope of the
 * pieces between escapes: a decoded document keeps its strings, and a rope of ten pieces takes several
 * times the memory (and garbage collection time) of the flat string.
 */
export function unquoteSpan(s: string, from: number, to: number): string | undefined {
  const end = to - 1; // the closing quote
  let codes: number[] | undefined;
  for (let r = from + 1; r < end;) {
    const c = s.charCodeAt(r);
    if (c === 0x5c) {
      if (r + 1 >= end) return undefined; // the closing quote escaped
      if (codes === undefined) codes = codesOf(s, from + 1, r);
      const e = s.charCodeAt(r + 1);
      if (e === 0x75) {
        let rr = getu4(s, r);
        if (rr < 0 || r + 6 > end) return undefined;
        r += 6;
        if (rr >= 0xd800 && rr < 0xe000) {
          const rr1 = r + 6 <= end ? getu4(s, r) : -1;
          if (rr < 0xdc00 && rr1 >= 0xdc00 && rr1 < 0xe000) {
            pushRune(codes, 0x10000 + ((rr - 0xd800) << 10) + (rr1 - 0xdc00));
            r += 6;
            continue;
          }
          rr = RUNE_ERROR;
        }
        pushRune(codes, rr);
        continue;
      }
      const v = SIMPLE_ESCAPES[e];
      if (v === undefined) return undefined;
      codes.push(v.charCodeAt(0));
      r += 2;
    } else if (c < 0x20 || c === 0x22) {
      return undefined;
    } else if (c < 0x80) {
      codes?.push(c);
      r++;
    } else {
      const p = decodeRune(s, r);
      if (isInvalid(p)) {
        if (codes === undefined) codes = codesOf(s, from + 1, r);
        codes.push(0xef, 0xbf, 0xbd);
        r++;
      } else {
        const size = p & 7;
        if (codes !== undefined) { for (let k = r; k < r + size; k++) codes.push(s.charCodeAt(k)); }
        r += size;
      }
    }
  }
  return codes === undefined ? s.slice(from + 1, end) : fromCodes(codes);
}

/** The char codes of `s[from:to]`. */
function codesOf(s: string, from: number, to: number): number[] {
  const codes: number[] = [];
  for (let k = from; k < to; k++) codes.push(s.charCodeAt(k));
  return codes;
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
