/**
 * The exact size of a value's JSON encoding in UTF-8 bytes, so the size cap is checked before any
 * scanning.
 *
 * @module
 */

const encoder = new TextEncoder();
const CHUNK = 16384;
// A chunk may grow by one unit (a surrogate pair kept whole): 3 bytes per unit plus slack.
const scratch = new Uint8Array(CHUNK * 3 + 8);

/** UTF-8 bytes of a well-formed string, by the native encoder over fixed-size chunks (no big buffer). */
function utf8Length(s: string): number {
  let n = 0;
  for (let at = 0; at < s.length;) {
    let end = Math.min(s.length, at + CHUNK);
    // Never split a surrogate pair between chunks.
    const last = s.charCodeAt(end - 1);
    if (end < s.length && last >= 0xd800 && last <= 0xdbff) end++;
    n += encoder.encodeInto(end - at === s.length ? s : s.slice(at, end), scratch).written;
    at = end;
  }
  return n;
}

/**
 * UTF-8 bytes of `JSON.stringify(value)` (0 for a value it does not encode), computed by the native
 * JSON encoder and the native UTF-8 encoder over fixed-size chunks, so even a large result is measured
 * at memory speed. `JSON.stringify` escapes lone surrogates, so its output is well-formed and the UTF-8
 * length is exact.
 */
export function jsonByteLength(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : utf8Length(text);
}
