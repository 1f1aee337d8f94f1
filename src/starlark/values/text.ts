/**
 * Conversions between JS (UTF-16) strings, Starlark binary strings (one char code per UTF-8 byte) and
 * byte arrays, used at the host boundary. Import these names from `value.ts`.
 *
 * @module
 */

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: false });

/** Converts a JS (UTF-16) string to a Starlark binary string of its UTF-8 bytes. ASCII passes through. */
export function fromJSString(s: string): string {
  // deno-lint-ignore no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s;
  const bytes = utf8Encoder.encode(s);
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return out;
}

/** Converts a Starlark binary string back to a JS string (invalid UTF-8 becomes U+FFFD). */
export function toJSString(s: string): string {
  // deno-lint-ignore no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s;
  return utf8Decoder.decode(binaryToBytes(s));
}

/** The bytes of a binary string. */
export function binaryToBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** A binary string of the given bytes. */
export function bytesToBinary(b: Uint8Array): string {
  let out = "";
  for (let i = 0; i < b.length; i += 8192) out += String.fromCharCode(...b.subarray(i, i + 8192));
  return out;
}
