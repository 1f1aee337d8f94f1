/**
 * Bounded quoting of program values in error messages.
 *
 * Why: an error message that embeds `repr(x)` (`key "..." not in dict`), a raw string (`int: invalid
 * literal with base 10: ...`) or an int's decimal digits (`repeat count ... too large`) would otherwise
 * build a text as large as the value, or four times larger once escaped, in one step that is neither
 * charged nor polled: `{"a": 1}["\x01" * 20000000]` built an 80-million-character message. Every such
 * message quotes a bounded prefix instead, built without first building the whole text: a string is cut
 * before it is quoted, a container walk stops once the limit is reached, and a huge int shows its leading
 * digits from one division instead of a full decimal conversion.
 *
 * A value whose text fits in the limit prints exactly as `repr` prints it, so messages about ordinary
 * values stay those of the reference. A longer one prints as the first characters of that same text
 * (cut between escapes and runes, never inside one) followed by a marker that says how much of the value
 * is left out, in the value's own units: `... (19999936 more bytes)` for a string or bytes, `digits` for
 * an int, `elements` for a list, tuple or set, `entries` for a dict. The reference quotes the whole value;
 * this difference is deliberate (README, "Deviations from the source document").
 *
 * @module
 */
import { formatFloat } from "./float_format.ts";
import { intBits, mulSteps } from "./int_cost.ts";
import {
  CLOSE_DICT,
  CLOSE_LIST,
  CLOSE_SET,
  CLOSE_TUPLE,
  CLOSE_TUPLE1,
  Cursor,
  escapeASCII,
  Lit,
  POP,
  pushNextElem,
  repr,
  type Work,
} from "./ops_repr.ts";
import type { StarlarkReprable } from "./ops_repr.ts";
import { decodeRune, isPrint } from "./utf8.ts";
import { Builtin, Bytes, Dict, Float, List, Module, Range, StarSet, Tuple, typeName } from "./value.ts";
import type { Thread, Value } from "./value.ts";

/** How many characters of a value's text an error message quotes before it cuts the text short. */
export const QUOTE_LIMIT = 256;

/**
 * How many bytes of its message `fail` keeps (the message is the program's own text). Half of what a
 * host shows of an error's detail (2 KiB), so that the marker saying how much was left out is seen.
 */
export const FAIL_LIMIT = 1024;

/** A value's text cut to a limit: `text` fits the limit, `more` is the marker when `text` is not whole. */
export interface ReprPrefix {
  /** The whole `repr`, or a prefix of it within the limit. */
  readonly text: string;
  /** `... (N more UNIT)` when `text` is cut. */
  readonly more?: string;
}

/**
 * Implemented by values whose `repr` can be long (host objects, string views): their text cut to at most
 * `limit` characters, built without building the whole text.
 */
export interface BoundedReprable {
  /** The bounded repr (see {@link reprBounded}). */
  starlarkReprPrefix(limit: number, thread?: Thread): ReprPrefix;
}

/** The marker that ends a cut text: `... (N more bytes)` (a unit in the singular, as in `byte`). */
export function moreMarker(n: number, unit: string): string {
  return `... (${n} more ${n === 1 ? unit : unit === "entry" ? "entries" : unit + "s"})`;
}

/** Steps charged for a bounded quote: a constant amount of text work, like any short string operation. */
function chargeText(thread: Thread | undefined, chars: number): void {
  if (thread === undefined) return;
  thread.charge(1 + (chars >>> 4));
  thread.allocate(chars);
}

const HEX = "0123456789abcdef";

/** A quoted prefix: its text (without the closing quote when cut) and how many bytes of the input it shows. */
interface QuotedPrefix {
  readonly text: string;
  readonly used: number;
  /** Whether `text` is the whole quoted text, closing quote included. */
  readonly whole: boolean;
}

/**
 * Quotes `s` like `quote(s, bytes)` while the text stays within `max` characters: the whole quoted text
 * when it fits, else the longest prefix made of whole escapes and runes (no closing quote), and how many
 * bytes of `s` it covers. Looks at no more than `max` bytes of `s`.
 */
export function quotePrefix(s: string, bytes: boolean, max: number): QuotedPrefix {
  let out = bytes ? 'b"' : '"';
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    let piece: string;
    let size = 1;
    if (c >= 0x20 && c < 0x7f && c !== 34 && c !== 92) {
      piece = s[i];
    } else if (c < 0x80) {
      piece = escapeASCII(c);
    } else {
      const p = decodeRune(s, i);
      size = p & 7;
      const r = (p - size) / 8;
      if (size !== 1 && isPrint(r)) piece = s.slice(i, i + size);
      else if (size === 1) piece = "\\x" + HEX[c >> 4] + HEX[c & 15];
      else if (r < 0x10000) piece = "\\u" + r.toString(16).padStart(4, "0");
      else piece = "\\U" + r.toString(16).padStart(8, "0");
    }
    if (out.length + piece.length > max) break;
    out += piece;
    i += size;
  }
  // The closing quote belongs to a whole text only; a cut one ends where the marker begins.
  if (i === n && out.length < max) return { text: out + '"', used: n, whole: true };
  return { text: out, used: i, whole: false };
}

/** The longest prefix of the binary string `s` within `max` bytes that does not split a UTF-8 rune. */
function runePrefix(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  // Step back over continuation bytes (at most 3) to the start of the rune the cut falls in.
  for (let back = 0; back < 3 && end > 0 && (s.charCodeAt(end) & 0xc0) === 0x80; back++) end--;
  return s.slice(0, end);
}

/**
 * A program's own text (a string quoted raw, as in `int: invalid literal with base 10: TEXT`): `s` when
 * it has at most `limit` bytes, else its first `limit` bytes (whole runes) and `... (N more bytes)`.
 */
export function textBounded(s: string, limit: number = QUOTE_LIMIT, thread?: Thread): string {
  if (s.length <= limit) return s;
  const head = runePrefix(s, limit);
  chargeText(thread, head.length);
  return head + moreMarker(s.length - head.length, "byte");
}

const LOG10_2 = Math.log10(2);

/**
 * The decimal text of the int `x`: whole when it has at most `limit` digits, else its first `limit`
 * digits and `... (N more digits)`. A huge int is not converted to decimal: one division by a power of
 * ten leaves its leading digits, and their count gives the number of the others.
 */
export function intBounded(x: number | bigint, limit: number = QUOTE_LIMIT, thread?: Thread): string {
  if (typeof x === "number") return String(x);
  const bits = intBits(x);
  // Below ~3.3 bits a digit, the text has at most limit + 1 digits: converting it is cheap.
  if (bits <= Math.ceil((limit + 8) / LOG10_2)) {
    const s = x.toString();
    const sign = x < 0n ? 1 : 0;
    if (s.length - sign <= limit) return s;
    return s.slice(0, sign + limit) + moreMarker(s.length - sign - limit, "digit");
  }
  const neg = x < 0n;
  // |x| has at least floor((bits - 1)·log10 2) + 1 digits; dropping k of them leaves more than `limit`.
  const k = Math.max(0, Math.floor((bits - 1) * LOG10_2) - limit - 2);
  if (thread !== undefined) {
    const n = (bits + 63) >>> 6;
    // The power of ten (squarings up to n/2 limbs), then a division with a short quotient: measured at
    // about two n-limb products (3.8 ms for 2^18 bits, 210 ms for 2^23.6).
    thread.charge(2 * mulSteps(n, n) + n);
    thread.allocate(16 * n);
  }
  const lead = ((neg ? -x : x) / 10n ** BigInt(k)).toString();
  const shown = lead.slice(0, limit);
  return (neg ? "-" : "") + shown + moreMarker(lead.length - shown.length + k, "digit");
}

/** Dicts up to this size are walked by position, like `repr` does (same order either way). */
const SMALL_DICT = 8;

/** The unit a cut container's marker counts in. */
function unitOf(x: Value): string {
  return x instanceof Dict ? "entry" : "element";
}

function lengthOf(x: Value): number {
  if (x instanceof List || x instanceof Tuple) return x.elems.length;
  if (x instanceof Dict || x instanceof StarSet) return x.size;
  return 0;
}

/**
 * `repr(x)` when it has at most `limit` characters; else a prefix of it within `limit` characters and a
 * marker saying how much of `x` is left out (see the module documentation). The work is bounded by
 * `limit` whatever the size of `x`, and charged to `thread` when given.
 */
export function reprBounded(x: Value, thread?: Thread, limit: number = QUOTE_LIMIT): string {
  switch (typeof x) {
    case "string": {
      const q = quotePrefix(x, false, limit);
      chargeText(thread, q.text.length);
      return q.whole ? q.text : q.text + moreMarker(x.length - q.used, "byte");
    }
    case "number":
    case "bigint":
      return intBounded(x, limit, thread);
    case "boolean":
      return x ? "True" : "False";
  }
  if (x === null) return "None";
  if (x instanceof Float) return formatFloat(x.value);
  if (x instanceof Bytes) {
    const q = quotePrefix(x.data, true, limit);
    chargeText(thread, q.text.length);
    return q.whole ? q.text : q.text + moreMarker(x.data.length - q.used, "byte");
  }
  if (x instanceof List || x instanceof Tuple || x instanceof Dict || x instanceof StarSet) {
    return walkBounded(x, thread, limit);
  }
  const p = objectPrefix(x, thread, limit);
  return p.more === undefined ? p.text : p.text + p.more;
}

/** The bounded repr of a value that is neither a container, a string, bytes nor an int. */
function objectPrefix(x: Value, thread: Thread | undefined, limit: number): ReprPrefix {
  if (x === null) return { text: "None" };
  if (typeof x === "boolean") return { text: x ? "True" : "False" };
  if (x instanceof Float) return { text: formatFloat(x.value) };
  const bounded = (x as Partial<BoundedReprable> | null)?.starlarkReprPrefix;
  if (typeof bounded === "function") return bounded.call(x, limit, thread);
  let text: string;
  if (x instanceof Range || x instanceof Builtin || x instanceof Module) text = repr(x);
  else {
    const r = (x as Partial<StarlarkReprable> | null)?.starlarkRepr;
    text = typeof r === "function" ? r.call(x, thread) : `<${typeName(x)}>`;
  }
  if (text.length <= limit) return { text };
  const head = runePrefix(text, limit);
  return { text: head, more: moreMarker(text.length - head.length, "character") };
}

/** The bounded repr of a container: the walk of `repr`, stopped once `limit` characters are written. */
function walkBounded(root: Value, thread: Thread | undefined, limit: number): string {
  let out = "";
  const path: (List | Dict)[] = [];
  const stack: Work[] = [root];
  let rootCursor: Cursor | undefined;
  /** Top-level elements written whole so far. */
  let done = 0;
  let items = 0;
  let cut = false;
  while (stack.length > 0) {
    const w = stack.pop()!;
    if (w instanceof Lit) {
      if (w === POP) path.pop();
      else if (out.length + w.s.length <= limit || (rootCursor !== undefined && done === lengthOf(root))) {
        // The root's own closing bracket is always written once every element is: the text is whole.
        out += w.s;
      } else {
        cut = true;
        break;
      }
      continue;
    }
    if (w instanceof Cursor) {
      if (w === rootCursor) done = w.i;
      if (pushNextElem(stack, w) > 0) stack.push(SEP);
      continue;
    }
    items++;
    let piece: string | undefined;
    if (typeof w === "string" || w instanceof Bytes) {
      const data = typeof w === "string" ? w : w.data;
      if (limit - out.length < (typeof w === "string" ? 2 : 3)) {
        cut = true; // not even its quotes fit
        break;
      }
      const q = quotePrefix(data, typeof w !== "string", limit - out.length);
      out += q.text;
      if (!q.whole) {
        cut = true;
        break;
      }
      continue;
    }
    if (typeof w === "number" || typeof w === "bigint") {
      piece = intBounded(w, limit - out.length + 1, thread);
      if (out.length + piece.length > limit) {
        // The int's own leading digits, cut at the limit (its marker would count the wrong thing).
        out += piece.slice(0, Math.max(0, limit - out.length));
        cut = true;
        break;
      }
      out += piece;
      continue;
    }
    if (w instanceof List || w instanceof Dict) {
      if (path.includes(w)) {
        piece = w instanceof List ? "[...]" : "{...}";
      } else {
        if (out.length + 1 > limit) {
          cut = true;
          break;
        }
        out += w instanceof List ? "[" : "{";
        path.push(w);
        stack.push(w instanceof List ? CLOSE_LIST : CLOSE_DICT, POP);
        const c = w instanceof List
          ? new Cursor(w.elems, undefined, false)
          : w.size <= SMALL_DICT
          ? new Cursor(w.keys(), undefined, true, w.valueList())
          : new Cursor(undefined, w.map.values(), true);
        if (w === root) rootCursor = c;
        stack.push(c);
        continue;
      }
    } else if (w instanceof Tuple) {
      if (out.length + 1 > limit) {
        cut = true;
        break;
      }
      out += "(";
      const c = new Cursor(w.elems, undefined, false);
      if (w === root) rootCursor = c;
      stack.push(w.elems.length === 1 ? CLOSE_TUPLE1 : CLOSE_TUPLE, c);
      continue;
    } else if (w instanceof StarSet) {
      if (out.length + 5 > limit) {
        cut = true;
        break;
      }
      out += "set([";
      const c = new Cursor(undefined, w.map.values(), false);
      if (w === root) rootCursor = c;
      stack.push(CLOSE_SET, c);
      continue;
    } else {
      const p = objectPrefix(w, thread, limit - out.length);
      out += p.text;
      if (p.more !== undefined) {
        cut = true;
        break;
      }
      continue;
    }
    if (out.length + piece.length > limit) {
      cut = true;
      break;
    }
    out += piece;
  }
  if (thread !== undefined) {
    thread.charge(1 + items * 2);
    thread.allocate(out.length);
  }
  if (!cut) return out;
  return out + moreMarker(lengthOf(root) - done, unitOf(root));
}

const SEP = new Lit(", ");

/**
 * The text of `fail(*args, sep=sep)`: the values' display strings (strings as they are, other values as
 * their {@link reprBounded} text) joined by `sep`, within `limit` bytes. Once the text reaches the limit
 * it is cut: a string (or separator) shows its first bytes and `... (N more bytes)`, another value its
 * bounded repr with that value's own marker, and `and K more arguments` follows when any are left.
 */
export function joinBounded(
  args: readonly Value[],
  sep: string,
  thread: Thread | undefined,
  limit: number = FAIL_LIMIT,
): string {
  let out = "";
  for (let i = 0; i < args.length; i++) {
    for (const piece of i === 0 ? [args[i]] : [sep, args[i]]) {
      const room = limit - out.length;
      let cut: string | undefined;
      if (typeof piece === "string") {
        if (piece.length <= room) out += piece;
        else {
          const head = runePrefix(piece, room);
          cut = head + moreMarker(piece.length - head.length, "byte");
        }
      } else {
        const text = reprBounded(piece, thread, room);
        if (text.length <= room) out += text;
        else cut = text;
      }
      if (cut !== undefined) {
        const left = args.length - i - 1;
        chargeText(thread, out.length + cut.length);
        return out + cut + (left > 0 ? ` and ${left} more argument${left === 1 ? "" : "s"}` : "");
      }
    }
    thread?.charge(1);
  }
  return out;
}
