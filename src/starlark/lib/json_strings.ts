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
const FAST_UNQUOTE_MAX = 4096;

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

/**
 * One-pass decoding of a quoted literal: the same result as the two-pass path for valid literals, or
 * undefined as soon as something would be an error there (a control byte, an inner quote, an unknown
 * escape, a short `\u`), so that path reports it. Short literals only: the pieces are concatenated directly.
 */
function unquoteValid(lit: string): string | undefined {
  const end = lit.length - 1;
  let out = "";
  let start = 1;
  for (let r = 1; r < end;) {
    const c = lit.charCodeAt(r);
    if (c === 0x5c) {
      if (r + 1 >= end) return undefined; // the closing quote escaped
      if (r > start) out += lit.slice(start, r);
      const e = lit.charCodeAt(r + 1);
      if (e === 0x75) {
        let rr = getu4(lit, r);
        if (rr < 0 || r + 6 > end) return undefined;
        r += 6;
        if (rr >= 0xd800 && rr < 0xe000) {
          const rr1 = r + 6 <= end ? getu4(lit, r) : -1;
          if (rr < 0xdc00 && rr1 >= 0xdc00 && rr1 < 0xe000) {
            out += encodeRune(0x10000 + ((rr - 0xd800) << 10) + (rr1 - 0xdc00));
            r += 6;
            start = r;
            continue;
          }
          rr = RUNE_ERROR;
        }
        out += encodeRune(rr);
        start = r;
        continue;
      }
      const v = SIMPLE_ESCAPES[e];
      if (v === undefined) return undefined;
      out += v;
      r += 2;
      start = r;
    } else if (c < 0x20 || c === 0x22) {
      return undefined;
    } else if (c < 0x80) {
      r++;
    } else {
      const p = decodeRune(lit, r);
      if (isInvalid(p)) {
        out += lit.slice(start, r) + "\xef\xbf\xbd";
        r++;
        start = r;
      } else {
        r += p & 7;
      }
    }
  }
  return start === 1 ? lit.slice(1, end) : out + lit.slice(start, end);
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
    const fast = unquoteValid(lit);
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

/**
 * Go's `json.Marshal` of a string (binary string in, binary string out): `"` and `\` escaped,
 * `\b \f \n \r \t`, other control characters and `< > &` as `\u00XX`, U+2028/U+2029 as `\u2028`/`\u2029`,
 * each invalid UTF-8 byte as `\ufffd`; everything else verbatim.
 */
export function marshalJSONString(s: string, thread?: Thread): string {
  const out = new TextBuilder(thread);
  out.add('"');
  let start = 0;
  const n = s.length;
  for (let i = 0, next = TEXT_POLL_CHUNK; i < n;) {
    if (i >= next) {
      thread?.poll();
      next = i + TEXT_POLL_CHUNK;
    }
    const b = s.charCodeAt(i);
    if (b < 0x80) {
      if (HTML_SAFE[b]) {
        i++;
        continue;
      }
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
    if (isInvalid(p)) {
      out.add(s.slice(start, i) + "\\ufffd");
      i++;
      start = i;
      continue;
    }
    const r = Math.floor(p / 8);
    if (r === 0x2028 || r === 0x2029) {
      out.add(s.slice(start, i) + (r === 0x2028 ? "\\u2028" : "\\u2029"));
      i += 3;
      start = i;
      continue;
    }
    i += p & 7;
  }
  out.add(s.slice(start));
  out.add('"');
  return out.finish();
}
