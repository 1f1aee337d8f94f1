/**
 * The iterable views returned by `s.elems()`, `s.elem_ords()`, `s.codepoints()`, `s.codepoint_ords()`
 * and `b.elems()`, with the reference's type names (`string.elems`, `string.codepoints`, `bytes.elems`),
 * reprs (`"abc".elems()`), equality (same text and kind) and capabilities: `string.elems` supports `len`
 * and indexing; the other two are only iterable. None of them is hashable.
 *
 * @module
 */
import { quote } from "./ops_repr.ts";
import { moreMarker, quotePrefix, type ReprPrefix } from "./quote_bounded.ts";
import type { ValueIterator } from "./ops_index.ts";
import { decodeRune, RUNE_ERROR_UTF8 } from "./utf8.ts";
import { StarObject, UnhashableError } from "./value.ts";
import type { Thread, Value } from "./value.ts";

function unhashable(type: string): UnhashableError {
  const e = new UnhashableError(type);
  e.message = `unhashable: ${type}`; // the reference's wording for these types
  return e;
}

/**
 * What the views share: each is over a binary string, iterates its bytes unless it says otherwise, prints
 * as the call that made it, equals a view made the same way from the same text, and is unhashable.
 */
abstract class TextView extends StarObject {
  /** The string or bytes (binary string). */
  readonly s: string;
  /** Whether the elements are ints rather than strings. */
  readonly ords: boolean;
  constructor(s: string, ords: boolean) {
    super();
    this.s = s;
    this.ords = ords;
  }
  /** The method call that made the view, as its repr ends (`.elems()`). */
  protected abstract get call(): string;
  /** Whether `s` holds bytes, which print as a bytes literal. */
  protected get isBytes(): boolean {
    return false;
  }
  /** Iterates the bytes, as 1-byte strings or as ints. */
  starlarkIterate(): ValueIterator {
    let i = 0;
    const s = this.s, ords = this.ords;
    return {
      next: () => (i < s.length ? (ords ? s.charCodeAt(i++) : s[i++]) : undefined),
      done: () => {},
    };
  }
  /** The call that made the view, e.g. `"abc".elems()`. */
  starlarkRepr(thread?: Thread): string {
    return quote(this.s, this.isBytes, thread) + this.call;
  }
  /** The repr within `limit` characters for an error message: a view of a long text quotes its prefix. */
  starlarkReprPrefix(limit: number, thread?: Thread): ReprPrefix {
    const q = quotePrefix(this.s, this.isBytes, limit - this.call.length);
    thread?.charge(1 + (q.text.length >>> 4));
    return q.whole
      ? { text: q.text + this.call }
      : { text: q.text, more: moreMarker(this.s.length - q.used, "byte") };
  }
  /** Equal to a view of the same kind over the same text (the type name tells the kinds of view apart). */
  starlarkEquals(y: Value): boolean {
    return y instanceof TextView && y.typeName === this.typeName && y.s === this.s && y.ords === this.ords;
  }
  /** Not hashable. */
  hashKey(): string {
    throw unhashable(this.typeName);
  }
}

/** `s.elems()` (1-byte strings) or `s.elem_ords()` (ints 0..255): an indexable sequence of the bytes. */
export class StringElems extends TextView {
  /** Always `"string.elems"`. */
  get typeName(): string {
    return "string.elems";
  }
  protected get call(): string {
    return this.ords ? ".elem_ords()" : ".elems()";
  }
  /** Number of bytes. */
  starlarkLen(): number {
    return this.s.length;
  }
  /** The i-th byte, as a string or an int. */
  starlarkIndex(i: number): Value {
    return this.ords ? this.s.charCodeAt(i) : this.s[i];
  }
}

/**
 * `s.codepoints()` (substrings) or `s.codepoint_ords()` (ints): iterates the UTF-8 code points; each
 * byte of an invalid sequence yields U+FFFD (as a string or as 0xFFFD).
 */
export class StringCodepoints extends TextView {
  /** Always `"string.codepoints"`. */
  get typeName(): string {
    return "string.codepoints";
  }
  protected get call(): string {
    return this.ords ? ".codepoint_ords()" : ".codepoints()";
  }
  /** Iterates the code points. */
  override starlarkIterate(): ValueIterator {
    let i = 0;
    const s = this.s, ords = this.ords;
    return {
      next: (): Value | undefined => {
        if (i >= s.length) return undefined;
        const c = s.charCodeAt(i);
        if (c < 0x80) {
          i++;
          return ords ? c : s[i - 1];
        }
        const p = decodeRune(s, i);
        const size = p & 7;
        const r = (p - size) / 8;
        const start = i;
        i += size;
        if (ords) return r;
        return size === 1 ? RUNE_ERROR_UTF8 : s.slice(start, i);
      },
      done: () => {},
    };
  }
}

/** `b.elems()`: iterates the bytes of a bytes value as ints 0..255. */
export class BytesElems extends TextView {
  /** Creates the view over `data`, the bytes as a binary string. */
  constructor(data: string) {
    super(data, true);
  }
  /** Always `"bytes.elems"`. */
  get typeName(): string {
    return "bytes.elems";
  }
  protected get call(): string {
    return ".elems()";
  }
  protected override get isBytes(): boolean {
    return true;
  }
}

/** `s.elems()`. */
export function stringElems(s: string): StringElems {
  return new StringElems(s, false);
}
/** `s.elem_ords()`. */
export function stringElemOrds(s: string): StringElems {
  return new StringElems(s, true);
}
/** `s.codepoints()`. */
export function stringCodepoints(s: string): StringCodepoints {
  return new StringCodepoints(s, false);
}
/** `s.codepoint_ords()`. */
export function stringCodepointOrds(s: string): StringCodepoints {
  return new StringCodepoints(s, true);
}
/** `b.elems()`. */
export function bytesElems(data: string): BytesElems {
  return new BytesElems(data);
}
