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

/** The unit a simple escape `\c` stands for, by the code of `c`; -1 where `c` starts no simple escape. */
const SIMPLE = new Int32Array(128).fill(-1);
const SIMPLE_ESCAPES: readonly [string, string][] = [
  ['"', '"'],
  ["\\", "\\"],
  ["/", "/"],
  ["b", "\b"],
  ["f", "\f"],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
];
for (const [c, v] of SIMPLE_ESCAPES) SIMPLE[c.charCodeAt(0)] = v.charCodeAt(0);

function hex(u: number): number {
  if (u >= 48 && u <= 57) return u - 48;
  if (u >= 65 && u <= 70) return u - 55;
  if (u >= 97 && u <= 102) return u - 87;
  return -1;
}

/** Builds a string from UTF-16 units as they are (lone surrogates kept, unlike a `TextDecoder`). */
function fromUnits(units: Uint16Array): string {
  const CHUNK = 8192;
  if (units.length <= CHUNK) return String.fromCharCode.apply(null, units as unknown as number[]);
  let text = "";
  for (let k = 0; k < units.length; k += CHUNK) {
    text += String.fromCharCode.apply(null, units.subarray(k, k + CHUNK) as unknown as number[]);
  }
  return text;
}

/**
 * Decodes JSON escapes (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\uXXXX`) found in
 * `raw[from, to)`. A backslash that starts no valid escape stays as it is. Returns `undefined` when the
 * part has no escape at all, so callers skip the second pass. Typed arrays throughout: this runs once per
 * layer over every window near a backslash.
 */
export function decodeEscapes(raw: string, from = 0, to: number = raw.length): DecodedView | undefined {
  const first = raw.indexOf("\\", from);
  if (first < 0 || first >= to) return undefined;
  const units = new Uint16Array(to - from);
  const rawAt = new Int32Array(to - from + 1);
  let k = 0;
  let changed = false;
  for (let i = from; i < to;) {
    const u = raw.charCodeAt(i);
    if (u === 92 /* \ */ && i + 1 < to) {
      const next = raw.charCodeAt(i + 1);
      const simple = next < 128 ? SIMPLE[next] : -1;
      if (simple >= 0) {
        rawAt[k] = i;
        units[k++] = simple;
        i += 2;
        changed = true;
        continue;
      }
      if (next === 117 /* u */ && i + 5 < to) {
        const a = hex(raw.charCodeAt(i + 2));
        const b = hex(raw.charCodeAt(i + 3));
        const c = hex(raw.charCodeAt(i + 4));
        const d = hex(raw.charCodeAt(i + 5));
        if ((a | b | c | d) >= 0) {
          rawAt[k] = i;
          units[k++] = (a << 12) | (b << 8) | (c << 4) | d;
          i += 6;
          changed = true;
          continue;
        }
      }
    }
    rawAt[k] = i;
    units[k++] = u;
    i += 1;
  }
  if (!changed) return undefined;
  rawAt[k] = to;
  return { text: fromUnits(units.subarray(0, k)), rawAt: rawAt.subarray(0, k + 1) };
}

/**
 * How many layers of JSON string escapes are peeled: a secret JSON-encoded up to 8 times (inside a
 * document encoded as often) is found. A standard encoder doubles an escape's backslashes per layer
 * (`"` → `\"` → `\\\"` ...), so 8 layers already spell one quote with 255 backslashes. The bound
 * caps the work a hostile text can cause (each layer is one more pass over the windows near backslashes;
 * a chain of `\u005c` escapes adds a layer per 5 units) at a fixed multiple of a single pass.
 */
export const MAX_ESCAPE_LAYERS = 8;

/**
 * The next layer of a decoded view: its own text's JSON escapes decoded, with `rawAt` still pointing
 * into the original raw text. `undefined` when that text has no escape left.
 */
export function deeperView(view: DecodedView): DecodedView | undefined {
  const next = decodeEscapes(view.text);
  if (next === undefined) return undefined;
  const rawAt = new Int32Array(next.rawAt.length);
  for (let j = 0; j < rawAt.length; j++) rawAt[j] = view.rawAt[next.rawAt[j]];
  return { text: next.text, rawAt };
}

/** Maps decoded intervals (flat `[start, end)` pairs) back to raw intervals. */
export function toRawIntervals(view: DecodedView, decoded: readonly number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < decoded.length; k += 2) {
    out.push(view.rawAt[decoded[k]], view.rawAt[decoded[k + 1]]);
  }
  return out;
}
