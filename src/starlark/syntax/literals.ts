/**
 * Decoding of string and bytes literals, and rune quoting for scanner messages.
 *
 * @module
 */

import { isPrintRune } from "../unicode/mod.ts";

const C_NL = 10, C_CR = 13, C_BSL = 92, C_DQ = 34, C_SQ = 39;

/** Whether `c` is an ASCII hex digit. */
export function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}
/** Value of a hex digit. */
function hexVal(c: number): number {
  return c <= 57 ? c - 48 : (c | 32) - 87;
}

/** Go's `%q` of a rune, for "unexpected input character" messages. */
export function quoteRune(r: number): string {
  const simple: Record<number, string> = {
    7: "\\a",
    8: "\\b",
    12: "\\f",
    10: "\\n",
    13: "\\r",
    9: "\\t",
    11: "\\v",
    39: "\\'",
    92: "\\\\",
  };
  if (simple[r] !== undefined) return `'${simple[r]}'`;
  if (r < 0x20 || r === 0x7f) return `'\\x${r.toString(16).padStart(2, "0")}'`;
  // Printable as Go's strconv.IsPrint sees it (Go's Unicode version, not the runtime's).
  if (r < 0x80 || isPrintRune(r)) return `'${String.fromCodePoint(r)}'`;
  if (r < 0x10000) return `'\\u${r.toString(16).padStart(4, "0")}'`;
  return `'\\U${r.toString(16).padStart(8, "0")}'`;
}

/** Whether `src[from, to)` contains a CR or a non-ASCII character. */
export function hasCRorNonASCII(src: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = src.charCodeAt(i);
    if (c === C_CR || c >= 128) return true;
  }
  return false;
}

function utf8FirstByte(cp: number): number {
  if (cp < 0x80) return cp;
  if (cp < 0x800) return 0xc0 | (cp >> 6);
  if (cp < 0x10000) return 0xe0 | (cp >> 12);
  return 0xf0 | (cp >> 18);
}

/** Writes the UTF-8 encoding of `cp` at `out[n]`; returns the index past it. */
function putUTF8(out: Uint8Array, n: number, cp: number): number {
  if (cp < 0x80) {
    out[n] = cp;
    return n + 1;
  }
  if (cp < 0x800) {
    out[n] = 0xc0 | (cp >> 6);
    out[n + 1] = 0x80 | (cp & 63);
    return n + 2;
  }
  if (cp < 0x10000) {
    out[n] = 0xe0 | (cp >> 12);
    out[n + 1] = 0x80 | ((cp >> 6) & 63);
    out[n + 2] = 0x80 | (cp & 63);
    return n + 3;
  }
  out[n] = 0xf0 | (cp >> 18);
  out[n + 1] = 0x80 | ((cp >> 12) & 63);
  out[n + 2] = 0x80 | ((cp >> 6) & 63);
  out[n + 3] = 0x80 | (cp & 63);
  return n + 4;
}

/** The UTF-8 length of `src[from:to]` (a lone surrogate counts as U+FFFD, 3 bytes). */
function utf8Length(src: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = src.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < to && (src.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * The text of the first `bytes` UTF-8 bytes from `src[from]`, as the reference quotes a bad escape (it
 * measures bytes): a character the bound cuts shows as U+FFFD, as a UTF-8 decoder shows its first bytes.
 */
function utf8Prefix(src: string, from: number, bytes: number): string {
  let n = 0, i = from;
  while (i < src.length && n < bytes) {
    const step = src.codePointAt(i)! > 0xffff ? 2 : 1;
    const len = utf8Length(src, i, i + step);
    if (n + len > bytes) return src.slice(from, i) + "\ufffd";
    n += len;
    i += step;
  }
  return src.slice(from, i);
}

/**
 * Decodes the content `src[from, to)` of a string or bytes literal (escapes unless `rawMode`, CR/CRLF to
 * LF, non-ASCII to UTF-8) into a binary string. Invalid escapes call `fail` with the reference's message.
 */
export function decodeString(
  src: string,
  from: number,
  to: number,
  rawMode: boolean,
  isBytes: boolean,
  fail: (msg: string) => never,
): string {
  // Bytes go to a typed buffer (a literal of megabytes decodes at a few ns a character): no UTF-16 unit
  // becomes more than 3 bytes (a surrogate pair, 2 units, becomes 4) and no escape more than 4 bytes.
  const out = new Uint8Array(3 * (to - from));
  let n = 0;
  let i = from;
  while (i < to) {
    const c = src.charCodeAt(i);
    if (c < 128 && c !== C_BSL && c !== C_CR) {
      out[n++] = c;
      i++;
      continue;
    }
    if (c === C_CR) {
      out[n++] = C_NL;
      i += src.charCodeAt(i + 1) === C_NL ? 2 : 1;
      continue;
    }
    if (c >= 128) {
      const cp = src.codePointAt(i)!;
      // Lone surrogates cannot be encoded; like TextEncoder, they become U+FFFD.
      n = putUTF8(out, n, cp >= 0xd800 && cp < 0xe000 ? 0xfffd : cp);
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    if (rawMode) {
      out[n++] = c;
      i++;
      continue;
    }
    // Escape sequence.
    if (i + 1 >= to) fail("truncated escape sequence \\");
    const e = src.charCodeAt(i + 1);
    switch (e) {
      case C_NL:
        i += 2;
        continue;
      case C_CR:
        i += src.charCodeAt(i + 2) === C_NL ? 3 : 2;
        continue;
      case 97: // a
        out[n++] = 7;
        break;
      case 98: // b
        out[n++] = 8;
        break;
      case 102: // f
        out[n++] = 12;
        break;
      case 110: // n
        out[n++] = 10;
        break;
      case 114: // r
        out[n++] = 13;
        break;
      case 116: // t
        out[n++] = 9;
        break;
      case 118: // v
        out[n++] = 11;
        break;
      case C_BSL:
      case C_SQ:
      case C_DQ:
        out[n++] = e;
        break;
      case 48:
      case 49:
      case 50:
      case 51:
      case 52:
      case 53:
      case 54:
      case 55: {
        let v = e - 48;
        let j = i + 2;
        for (let k = 1; k < 3 && j < to; k++, j++) {
          const d = src.charCodeAt(j);
          if (d < 48 || d > 55) break;
          v = v * 8 + d - 48;
        }
        if (!isBytes && v > 127) {
          const h = v.toString(16).toUpperCase().padStart(4, "0");
          fail(`non-ASCII octal escape \\${v.toString(8)} (use \\u${h} for the UTF-8 encoding of U+${h})`);
        }
        if (v >= 256) fail(`invalid escape sequence \\${v.toString(8).padStart(3, "0")}`);
        out[n++] = v;
        i = j;
        continue;
      }
      case 120: { // x
        if (to - i < 4 && utf8Length(src, i, to) < 4) fail(`truncated escape sequence ${src.slice(i, to)}`);
        const h1 = src.charCodeAt(i + 2), h2 = src.charCodeAt(i + 3);
        if (!isHex(h1) || !isHex(h2)) fail(`invalid escape sequence ${utf8Prefix(src, i, 4)}`);
        const v = hexVal(h1) * 16 + hexVal(h2);
        if (!isBytes && v > 127) {
          const h = v.toString(16).toUpperCase().padStart(4, "0");
          fail(
            `non-ASCII hex escape ${src.slice(i, i + 4)} (use \\u${h} for the UTF-8 encoding of U+${h})`,
          );
        }
        out[n++] = v;
        i += 4;
        continue;
      }
      case 117: // u
      case 85: { // U
        const sz = e === 117 ? 6 : 10;
        if (to - i < sz && utf8Length(src, i, to) < sz) fail(`truncated escape sequence ${src.slice(i, to)}`);
        let v = 0;
        // Enough bytes but too few characters: a non-ASCII (non-hex) character comes before `to`.
        for (let j = i + 2; j < i + sz; j++) {
          const d = src.charCodeAt(j);
          if (!isHex(d)) fail(`invalid escape sequence ${utf8Prefix(src, i, sz)}`);
          v = v * 16 + hexVal(d);
        }
        if (v > 0x10ffff) {
          fail(
            `code point out of range: ${src.slice(i, i + sz)} (max \\U${v.toString(16).padStart(8, "0")})`,
          );
        }
        if (v >= 0xd800 && v < 0xe000) {
          fail(`invalid Unicode code point U+${v.toString(16).toUpperCase().padStart(4, "0")}`);
        }
        n = putUTF8(out, n, v);
        i += sz;
        continue;
      }
      default: {
        // The reference prints the first UTF-8 byte of the offending character as a rune.
        const b = e < 128 ? e : utf8FirstByte(src.codePointAt(i + 1)!);
        fail(`invalid escape sequence \\${String.fromCharCode(b)}`);
      }
    }
    i += 2;
  }
  let s = "";
  for (let k = 0; k < n; k += 8192) {
    s += String.fromCharCode.apply(null, out.subarray(k, Math.min(n, k + 8192)) as unknown as number[]);
  }
  return s;
}
