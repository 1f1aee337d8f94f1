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

function pushUTF8(out: number[], cp: number): void {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
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
  const out: number[] = [];
  let i = from;
  while (i < to) {
    const c = src.charCodeAt(i);
    if (c < 128 && c !== C_BSL && c !== C_CR) {
      out.push(c);
      i++;
      continue;
    }
    if (c === C_CR) {
      out.push(C_NL);
      i += src.charCodeAt(i + 1) === C_NL ? 2 : 1;
      continue;
    }
    if (c >= 128) {
      const cp = src.codePointAt(i)!;
      // Lone surrogates cannot be encoded; like TextEncoder, they become U+FFFD.
      pushUTF8(out, cp >= 0xd800 && cp < 0xe000 ? 0xfffd : cp);
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    if (rawMode) {
      out.push(c);
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
        out.push(7);
        break;
      case 98: // b
        out.push(8);
        break;
      case 102: // f
        out.push(12);
        break;
      case 110: // n
        out.push(10);
        break;
      case 114: // r
        out.push(13);
        break;
      case 116: // t
        out.push(9);
        break;
      case 118: // v
        out.push(11);
        break;
      case C_BSL:
      case C_SQ:
      case C_DQ:
        out.push(e);
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
        out.push(v);
        i = j;
        continue;
      }
      case 120: { // x
        if (to - i < 4) fail(`truncated escape sequence ${src.slice(i, to)}`);
        const h1 = src.charCodeAt(i + 2), h2 = src.charCodeAt(i + 3);
        if (!isHex(h1) || !isHex(h2)) fail(`invalid escape sequence ${src.slice(i, i + 4)}`);
        const v = hexVal(h1) * 16 + hexVal(h2);
        if (!isBytes && v > 127) {
          const h = v.toString(16).toUpperCase().padStart(4, "0");
          fail(
            `non-ASCII hex escape ${src.slice(i, i + 4)} (use \\u${h} for the UTF-8 encoding of U+${h})`,
          );
        }
        out.push(v);
        i += 4;
        continue;
      }
      case 117: // u
      case 85: { // U
        const sz = e === 117 ? 6 : 10;
        if (to - i < sz) fail(`truncated escape sequence ${src.slice(i, to)}`);
        let v = 0;
        for (let j = i + 2; j < i + sz; j++) {
          const d = src.charCodeAt(j);
          if (!isHex(d)) fail(`invalid escape sequence ${src.slice(i, i + sz)}`);
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
        pushUTF8(out, v);
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
  for (let k = 0; k < out.length; k += 8192) s += String.fromCharCode(...out.slice(k, k + 8192));
  return s;
}
