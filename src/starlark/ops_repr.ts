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
import { decodeRune, isPrint, transcodeUTF8 } from "./utf8.ts";
import { Builtin, Bytes, Dict, Float, List, Module, Range, StarSet, Tuple, typeName } from "./value.ts";
import type { Thread, Value } from "./value.ts";

/**
 * Implemented by values defined outside this module (functions, host objects, string views) to control
 * their `repr`/`str` text. The result is a binary string.
 */
export interface StarlarkReprable {
  /** The `repr` text of the value. */
  starlarkRepr(): string;
}

const HEX = "0123456789abcdef";
const PLAIN_RE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Quotes a binary string like the reference (`syntax.Quote`): double quotes; `"` and `\` backslashed;
 * printable code points kept; `\a \b \f \n \r \t \v`; other controls as `\xHH`; other non-printable
 * code points as `\uHHHH`/`\UHHHHHHHH`; bytes of invalid UTF-8 as `\xHH`. `bytes` adds the `b` prefix.
 */
export function quote(s: string, bytes = false, thread?: Thread): string {
  if (thread !== undefined && s.length >= 64) thread.charge(s.length >>> 6);
  if (PLAIN_RE.test(s)) return bytes ? 'b"' + s + '"' : '"' + s + '"';
  // The escaping loop below runs in JS: a step per few bytes.
  if (thread !== undefined && s.length >= 64) thread.charge(s.length >>> 2);
  let out = bytes ? 'b"' : '"';
  let start = 0;
  const n = s.length;
  for (let i = 0; i < n;) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && c !== 34 && c !== 92) {
      i++;
      continue;
    }
    out += s.slice(start, i);
    if (c < 0x80) {
      out += escapeASCII(c);
      i++;
    } else {
      const p = decodeRune(s, i);
      const size = p & 7;
      const r = (p - size) / 8;
      if (size === 1) {
        out += "\\x" + HEX[c >> 4] + HEX[c & 15]; // invalid byte (U+FFFD itself takes 3 bytes)
      } else if (isPrint(r)) {
        out += s.slice(i, i + size);
      } else if (r < 0x10000) {
        out += "\\u" + r.toString(16).padStart(4, "0");
      } else {
        out += "\\U" + r.toString(16).padStart(8, "0");
      }
      i += size;
    }
    start = i;
  }
  return out + s.slice(start) + '"';
}

function escapeASCII(c: number): string {
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

/** A literal piece of output on the printer's work stack. */
class Lit {
  constructor(readonly s: string) {}
}
const COMMA = new Lit(", ");
const CLOSE_LIST = new Lit("]");
const CLOSE_TUPLE = new Lit(")");
const CLOSE_TUPLE1 = new Lit(",)");
const CLOSE_DICT = new Lit("}");
const CLOSE_SET = new Lit("])");
const COLON = new Lit(": ");
/** Marks the end of a list's or dict's contents: pop it from the cycle-detection path. */
const POP = new Lit("");

type Work = Value | Lit;

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
  if (x instanceof Bytes) return transcodeUTF8(x.data);
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
      return x.toString();
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

/** How many items the printer handles between two budget checks. */
const CHECK_EVERY = 256;
/** Steps per item printed (a conversion to text and an append: 50–200 ns). */
const STEPS_PER_ITEM = 8;

function writeValue(root: Value, thread: Thread | undefined): string {
  let out = "";
  const path = new Path();
  const stack: Work[] = [root];
  let items = 0;
  let charged = 0;
  while (stack.length > 0) {
    const w = stack.pop()!;
    if (w instanceof Lit) {
      if (w === POP) path.pop();
      else out += w.s;
      continue;
    }
    if (thread !== undefined && ++items % CHECK_EVERY === 0) {
      thread.charge(CHECK_EVERY * STEPS_PER_ITEM);
      thread.allocate(out.length - charged);
      charged = out.length;
    }
    const s = scalarRepr(w, thread);
    if (s !== undefined) {
      out += s;
      continue;
    }
    if (w instanceof List) {
      if (path.includes(w)) {
        out += "[...]";
        continue;
      }
      out += "[";
      stack.push(CLOSE_LIST, POP);
      path.push(w);
      pushElems(stack, w.elems);
    } else if (w instanceof Tuple) {
      out += "(";
      stack.push(w.elems.length === 1 ? CLOSE_TUPLE1 : CLOSE_TUPLE);
      pushElems(stack, w.elems);
    } else if (w instanceof Dict) {
      if (path.includes(w)) {
        out += "{...}";
        continue;
      }
      out += "{";
      stack.push(CLOSE_DICT, POP);
      path.push(w);
      const entries = [...w.map.values()];
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push(entries[i].value, COLON, entries[i].key);
        if (i > 0) stack.push(COMMA);
      }
    } else if (w instanceof StarSet) {
      out += "set([";
      stack.push(CLOSE_SET);
      pushElems(stack, [...w.map.values()]);
    } else {
      out += objectRepr(w, thread);
    }
  }
  if (thread !== undefined) thread.allocate(out.length - charged);
  return out;
}

function pushElems(stack: Work[], elems: readonly Value[]): void {
  for (let i = elems.length - 1; i >= 0; i--) {
    stack.push(elems[i]);
    if (i > 0) stack.push(COMMA);
  }
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
  if (typeof r === "function") return r.call(x);
  return `<${typeName(x)}>`;
}
