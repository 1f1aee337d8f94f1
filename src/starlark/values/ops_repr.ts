/**
 * `repr` and `str` with the reference implementation's exact output: Go-style string quoting, floats as
 * Go's `%g`, `(1,)`, `set([1, 2])`, `range(0, 10, 2)`, `<built-in function len>`, and `[...]`/`{...}`
 * for a list or dict that contains itself.
 *
 * The printer is iterative (an explicit stack), so arbitrarily deep values print without exhausting the
 * JS stack, and it charges the thread's budgets as it goes, so printing a value whose text is
 * exponentially larger than its memory (shared sub-lists) stops with a resource error.
 *
 * @module
 */
import { formatFloat } from "./float_format.ts";
import { intToDecimal } from "./int_cost.ts";
import { TEXT_POLL_CHUNK } from "./ops_bulk.ts";
import { TextBuilder } from "./text_builder.ts";
import { decodeRune, isPrint, transcodeUTF8 } from "./utf8.ts";
import { Builtin, Bytes, Dict, Float, List, Module, Range, StarSet, Tuple, typeName } from "./value.ts";
import type { DictEntry, Thread, Value } from "./value.ts";

/**
 * Implemented by values defined outside this module (functions, host objects, string views) to control
 * their `repr`/`str` text. The result is a binary string.
 */
export interface StarlarkReprable {
  /** The `repr` text of the value; a long text should be charged to `thread` and polled. */
  starlarkRepr(thread?: Thread): string;
}

const HEX = "0123456789abcdef";
const PLAIN_RE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Quotes a binary string like the reference (`syntax.Quote`): double quotes; `"` and `\` backslashed;
 * printable code points kept; `\a \b \f \n \r \t \v`; other controls as `\xHH`; other non-printable
 * code points as `\uHHHH`/`\UHHHHHHHH`; bytes of invalid UTF-8 as `\xHH`. `bytes` adds the `b` prefix.
 */
export function quote(s: string, bytes = false, thread?: Thread): string {
  if (thread !== undefined && s.length >= 64) {
    // Copying a long text into the output costs ~1.5 ns a byte once joined; a step is ~15 ns.
    thread.charge(s.length >>> 4);
    thread.allocate(s.length + 3); // the quoted text is at least this long
  }
  if (PLAIN_RE.test(s)) return bytes ? 'b"' + s + '"' : '"' + s + '"';
  // The escaping loop below runs in JS: a step per few bytes, and more per escape (charged as it goes).
  if (thread !== undefined && s.length >= 64) thread.charge(s.length >>> 2);
  const text = quoteSlow(s, bytes, thread);
  // Escapes make the text up to 4× longer than `s`; the excess is charged once known.
  if (thread !== undefined && s.length >= 64) thread.allocate(text.length - s.length - 3);
  return text;
}

/**
 * Steps per escape written by the quoting loops, and per multi-byte rune they decode: ~40 ns an escape
 * (a piece and its text), ~12 ns a rune, against the step's 12.5 ns. A text of control bytes takes 10×
 * longer to quote than plain text, so this is charged as the loop goes, at its polls.
 */
export const STEPS_PER_ESCAPE = 3;

function quoteSlow(s: string, bytes: boolean, thread: Thread | undefined): string {
  const out = new TextBuilder(thread);
  out.add(bytes ? 'b"' : '"');
  let start = 0;
  let work = 0; // steps of escapes and runes not charged yet
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
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && c !== 34 && c !== 92) {
      i++;
      continue;
    }
    if (c < 0x80) {
      if (i > start) out.add(s.slice(start, i));
      out.add(escapeASCII(c));
      work += STEPS_PER_ESCAPE;
      i++;
    } else {
      const p = decodeRune(s, i);
      const size = p & 7;
      const r = (p - size) / 8;
      work++;
      if (size !== 1 && isPrint(r)) {
        i += size; // kept as it is, like plain ASCII
        continue;
      }
      work += STEPS_PER_ESCAPE;
      if (i > start) out.add(s.slice(start, i));
      if (size === 1) {
        out.add("\\x" + HEX[c >> 4] + HEX[c & 15]); // invalid byte (U+FFFD itself takes 3 bytes)
      } else if (r < 0x10000) {
        out.add("\\u" + r.toString(16).padStart(4, "0"));
      } else {
        out.add("\\U" + r.toString(16).padStart(8, "0"));
      }
      i += size;
    }
    start = i;
  }
  out.add(s.slice(start));
  out.add('"');
  thread?.charge(work);
  return out.finish();
}

/** The escape `quote` writes for the ASCII code `c` that is not kept as it is (`\\n`, `\\"`, `\\x01`...). */
export function escapeASCII(c: number): string {
  switch (c) {
    case 34:
      return '\\"';
    case 92:
      return "\\\\";
    case 7:
      return "\\a";
    case 8:
      return "\\b";
    case 12:
      return "\\f";
    case 10:
      return "\\n";
    case 13:
      return "\\r";
    case 9:
      return "\\t";
    case 11:
      return "\\v";
    default:
      return "\\x" + HEX[c >> 4] + HEX[c & 15];
  }
}

/** A literal piece of output on the printer's work stack (also the bounded quoter's, quote_bounded.ts). */
export class Lit {
  constructor(readonly s: string) {}
}
/** A fixed piece of a container's text. */
export const CLOSE_LIST: Lit = new Lit("]");
/** A fixed piece of a container's text. */
export const CLOSE_TUPLE: Lit = new Lit(")");
/** A fixed piece of a container's text. */
export const CLOSE_TUPLE1: Lit = new Lit(",)");
/** A fixed piece of a container's text. */
export const CLOSE_DICT: Lit = new Lit("}");
/** A fixed piece of a container's text. */
export const CLOSE_SET: Lit = new Lit("])");
/** A fixed piece of a container's text. */
export const COLON: Lit = new Lit(": ");
/** Marks the end of a list's or dict's contents: pop it from the cycle-detection path. */
export const POP: Lit = new Lit("");

/**
 * The elements of a container still to print, one at a time: pushing them all at once would put 2n
 * entries on the work stack (and copy a dict's entries) in one unpolled, uncharged step.
 */
export class Cursor {
  /** The next element's position. */
  i = 0;
  constructor(
    readonly elems: readonly Value[] | undefined,
    readonly entries: Iterator<Value | DictEntry> | undefined,
    readonly isDict: boolean,
    /** A dict's values, by the position of its keys in `elems`. */
    readonly vals?: readonly Value[],
  ) {}
}

/** An entry of the printer's work stack. */
export type Work = Value | Lit | Cursor;

/** `repr(x)` as a binary string; with a thread, the work and output size are charged to its budgets. */
export function repr(x: Value, thread?: Thread): string {
  const scalar = scalarRepr(x, thread);
  if (scalar !== undefined) return scalar;
  if ((x instanceof List || x instanceof Tuple) && x.elems.length <= 64) {
    const s = flatRepr(x);
    if (s !== undefined) return s;
  }
  return writeValue(x, thread);
}

/** Fast path for short lists and tuples of scalars; `undefined` when an element is a container. */
function flatRepr(x: List | Tuple): string | undefined {
  const elems = x.elems;
  let out = x instanceof List ? "[" : "(";
  for (let i = 0; i < elems.length; i++) {
    const s = scalarRepr(elems[i]);
    if (s === undefined) return undefined;
    out += i === 0 ? s : ", " + s;
  }
  if (x instanceof List) return out + "]";
  return out + (elems.length === 1 ? ",)" : ")");
}

/** `str(x)`: strings unchanged, bytes decoded as UTF-8 (invalid bytes → U+FFFD), otherwise `repr`. */
export function str(x: Value, thread?: Thread): string {
  if (typeof x === "string") return x;
  if (x instanceof Bytes) {
    return transcodeUTF8(
      x.data,
      thread === undefined ? undefined : () => thread.poll(),
    );
  }
  return repr(x, thread);
}

/** `repr(x)` for a value that contains no others; `undefined` for anything else. */
function scalarRepr(x: Value, thread?: Thread): string | undefined {
  switch (typeof x) {
    case "string":
      return quote(x, false, thread);
    case "number":
      return String(x);
    case "bigint":
      return intToDecimal(x, thread);
    case "boolean":
      return x ? "True" : "False";
  }
  if (x === null) return "None";
  if (x instanceof Float) return formatFloat(x.value);
  return undefined;
}

/**
 * The lists and dicts being printed (the reference's cycle check). A linear scan is fastest for the usual
 * shallow values; deep values switch to a set so that printing stays linear.
 */
class Path {
  private readonly stack: (List | Dict)[] = [];
  private set: Set<List | Dict> | undefined;
  includes(v: List | Dict): boolean {
    if (this.set !== undefined) return this.set.has(v);
    return this.stack.includes(v);
  }
  push(v: List | Dict): void {
    this.stack.push(v);
    if (this.set !== undefined) this.set.add(v);
    else if (this.stack.length > 16) this.set = new Set(this.stack);
  }
  pop(): void {
    const v = this.stack.pop()!;
    // A value appears at most once on the path (a repeat would have printed as a cycle).
    if (this.set !== undefined) this.set.delete(v);
  }
}

/** Dicts up to this size are printed from copies of their keys and values (see writeValue). */
const SMALL_DICT = 8;

/** How many items the printer handles between two budget checks. */
const CHECK_EVERY = 256;
/** Steps per item printed (a conversion to text and an append: 50–200 ns). */
const STEPS_PER_ITEM = 8;

function writeValue(root: Value, thread: Thread | undefined): string {
  const out = new TextBuilder(thread);
  const path = new Path();
  const stack: Work[] = [root];
  let items = 0;
  let charged = 0;
  while (stack.length > 0) {
    const w = stack.pop()!;
    if (w instanceof Lit) {
      if (w === POP) path.pop();
      else out.add(w.s);
      continue;
    }
    if (w instanceof Cursor) {
      if (pushNextElem(stack, w) > 0) out.add(", ");
      continue;
    }
    if (thread !== undefined && ++items % CHECK_EVERY === 0) {
      thread.charge(CHECK_EVERY * STEPS_PER_ITEM);
      thread.allocate(out.length - charged);
      charged = out.length;
    }
    const s = scalarRepr(w, thread);
    if (s !== undefined) {
      out.add(s);
      continue;
    }
    if (w instanceof List) {
      if (path.includes(w)) {
        out.add("[...]");
        continue;
      }
      out.add("[");
      stack.push(CLOSE_LIST, POP);
      path.push(w);
      stack.push(new Cursor(w.elems, undefined, false));
    } else if (w instanceof Tuple) {
      out.add("(");
      stack.push(w.elems.length === 1 ? CLOSE_TUPLE1 : CLOSE_TUPLE, new Cursor(w.elems, undefined, false));
    } else if (w instanceof Dict) {
      if (path.includes(w)) {
        out.add("{...}");
        continue;
      }
      out.add("{");
      stack.push(CLOSE_DICT, POP);
      path.push(w);
      // A small dict by position (copying a few entries keeps it in its compact form); a big one through
      // its entries, without a copy.
      stack.push(
        w.size <= SMALL_DICT
          ? new Cursor(w.keys(), undefined, true, w.valueList())
          : new Cursor(undefined, w.map.values(), true),
      );
    } else if (w instanceof StarSet) {
      out.add("set([");
      stack.push(CLOSE_SET, new Cursor(undefined, w.map.values(), false));
    } else {
      out.add(objectRepr(w, thread));
    }
  }
  if (thread !== undefined) thread.allocate(out.length - charged);
  return out.finish();
}

/**
 * Moves `c` on by one element: pushes `c` back, and the element (or a dict entry's key, `: ` and value)
 * above it. Returns the element's index, or -1 when `c` has none left; the caller adds the separator
 * before every element but the first (the bounded quoter as work on the stack, repr as text).
 */
export function pushNextElem(stack: Work[], c: Cursor): number {
  let v: Value | DictEntry;
  const k = c.i;
  if (c.elems !== undefined) {
    if (k >= c.elems.length) return -1;
    v = c.elems[k];
  } else {
    const r = c.entries!.next();
    if (r.done === true) return -1;
    v = r.value;
  }
  c.i++;
  stack.push(c);
  if (c.vals !== undefined) stack.push(c.vals[k], COLON, v as Value);
  else if (c.isDict) {
    const e = v as DictEntry;
    stack.push(e.value, COLON, e.key);
  } else stack.push(v as Value);
  return k;
}

function objectRepr(x: Value, thread: Thread | undefined): string {
  if (x instanceof Bytes) return quote(x.data, true, thread);
  if (x instanceof Range) {
    const b = x.big ?? x; // bigints and safe integers both print in plain decimal
    if (b.step !== 1 && b.step !== 1n) return `range(${b.start}, ${b.stop}, ${b.step})`;
    if (b.start !== 0 && b.start !== 0n) return `range(${b.start}, ${b.stop})`;
    return `range(${b.stop})`;
  }
  if (x instanceof Builtin) {
    return x.receiver !== undefined
      ? `<built-in method ${x.name} of ${typeName(x.receiver)} value>`
      : `<built-in function ${x.name}>`;
  }
  if (x instanceof Module) return `<module ${quote(x.name)}>`;
  const r = (x as Partial<StarlarkReprable> | null)?.starlarkRepr;
  if (typeof r === "function") return r.call(x, thread);
  return `<${typeName(x)}>`;
}
