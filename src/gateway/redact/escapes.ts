/**
 * A decoded view of JSON string escapes inside a text, with a map back to the raw text. A tool that
 * returns JSON as text (`{"token":"ab\u0063d"}`) carries a secret split by an escape sequence; matching
 * on the decoded view finds it, and the map says which raw characters to replace.
 *
 * @module
 */

/**
 * A decoded part of a raw text and, for each decoded unit `j`, where it starts in the raw text
 * (`rawAt[j]`, absolute); `rawAt[text.length]` is where the decoded part ends in the raw text.
 */
export interface DecodedView {
  /** The part with JSON escapes decoded. */
  readonly text: string;
  /** `rawAt[j]`: raw index of decoded unit `j`. */
  readonly rawAt: Int32Array;
}

/** The longest escape sequence (`\uXXXX`). */
export const MAX_ESCAPE = 6;

/**
 * The raw windows `[from, to)` (flat pairs, merged) within `radius` units of a backslash. An occurrence
 * that only exists in the decoded view contains an escape, and spans at most `MAX_ESCAPE` raw units per
 * decoded unit, so a radius of `MAX_ESCAPE * longest + MAX_ESCAPE` around every backslash holds it.
 */
export function escapeWindows(raw: string, radius: number): number[] {
  const out: number[] = [];
  for (let b = raw.indexOf("\\"); b >= 0; b = raw.indexOf("\\", b + 1)) {
    const from = Math.max(0, b - radius);
    const to = Math.min(raw.length, b + radius);
    if (out.length > 0 && out[out.length - 1] >= from) out[out.length - 1] = to;
    else out.push(from, to);
  }
  return out;
}

const SIMPLE: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

function hex(u: number): number {
  if (u >= 48 && u <= 57) return u - 48;
  if (u >= 65 && u <= 70) return u - 55;
  if (u >= 97 && u <= 102) return u - 87;
  return -1;
}

/**
 * Decodes JSON escapes (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\uXXXX`) found in
 * `raw[from, to)`. A backslash that starts no valid escape stays as it is. Returns `undefined` when the
 * part has no escape at all, so callers skip the second pass.
 */
export function decodeEscapes(raw: string, from = 0, to: number = raw.length): DecodedView | undefined {
  const first = raw.indexOf("\\", from);
  if (first < 0 || first >= to) return undefined;
  const units: number[] = [];
  const rawAt: number[] = [];
  let changed = false;
  for (let i = from; i < to;) {
    const u = raw.charCodeAt(i);
    if (u === 92 /* \ */ && i + 1 < to) {
      const next = raw[i + 1];
      const simple = SIMPLE[next];
      if (simple !== undefined) {
        rawAt.push(i);
        units.push(simple.charCodeAt(0));
        i += 2;
        changed = true;
        continue;
      }
      if (next === "u" && i + 5 < to) {
        const h = (hex(raw.charCodeAt(i + 2)) << 12) | (hex(raw.charCodeAt(i + 3)) << 8) |
          (hex(raw.charCodeAt(i + 4)) << 4) | hex(raw.charCodeAt(i + 5));
        const valid = hex(raw.charCodeAt(i + 2)) >= 0 && hex(raw.charCodeAt(i + 3)) >= 0 &&
          hex(raw.charCodeAt(i + 4)) >= 0 && hex(raw.charCodeAt(i + 5)) >= 0;
        if (valid) {
          rawAt.push(i);
          units.push(h);
          i += 6;
          changed = true;
          continue;
        }
      }
    }
    rawAt.push(i);
    units.push(u);
    i += 1;
  }
  if (!changed) return undefined;
  rawAt.push(to);
  let text = "";
  const CHUNK = 8192;
  for (let k = 0; k < units.length; k += CHUNK) text += String.fromCharCode(...units.slice(k, k + CHUNK));
  return { text, rawAt: Int32Array.from(rawAt) };
}

/** Maps decoded intervals (flat `[start, end)` pairs) back to raw intervals. */
export function toRawIntervals(view: DecodedView, decoded: readonly number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < decoded.length; k += 2) {
    out.push(view.rawAt[decoded[k]], view.rawAt[decoded[k + 1]]);
  }
  return out;
}
