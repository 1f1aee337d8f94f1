/**
 * The parser behind `json.decode`: the reference's recursive-descent decoder (starlark-go `lib/json`)
 * rewritten as an explicit-stack loop, with the same results, error messages and offsets (nesting of any
 * depth included), plus budget charging.
 *
 * @module
 */
import {
  Dict,
  ENTRY_BYTES as TABLE_ENTRY_BYTES,
  Float,
  List,
  LONG_FLOAT_TEXT,
  normInt,
  parseDecimal,
  parseLongDecimal,
  TEXT_POLL_CHUNK,
  textBounded,
  type Thread,
  typeName,
  type Value,
} from "../values/mod.ts";
import { JSONSyntaxError, quoteByte } from "./json_scan.ts";
import { unquoteJSONString, unquoteRest, unquoteRestEnd } from "./json_strings.ts";

/** Bytes charged when an array or object opens: its entries on the parser's frame arrays. */
const OPEN_FRAME_BYTES = 32;

/**
 * A number literal's scan polls every this + 1 characters of the literal. Counted from the literal's start,
 * not the document's: a short number then never reaches the poll, whose first run in optimized code (a
 * number across an offset multiple of 64 Ki in a big document) would deoptimize the scan.
 */
const NUMBER_POLL_MASK = 0xffff;

/** Number literals longer than this many digits are charged quadratically (BigInt parsing is superlinear). */
const BIG_NUMBER_DIGITS = 1000;

/** Bytes per entry of an object of at most {@link COMPACT_ENTRIES} (a compact dict: its triple). */
const ENTRY_BYTES = 16;
/** Entries an object collects as triples before it becomes a dict (a dict's compact size). */
const COMPACT_ENTRIES = 8;
const VALUE_BYTES = 16;

/** Charges the superlinear cost of converting a huge decimal number. */
export function chargeBigDigits(thread: Thread, digits: number): void {
  if (digits > BIG_NUMBER_DIGITS) thread.charge(Math.floor((digits * digits) / 65536));
}

/** Invalid JSON (the only failure that `default` replaces), with the reference's message and offset. */
export class DecodeFailure extends Error {
  /** Byte offset in the input where parsing stopped. */
  readonly offset: number;
  /** Creates a failure; `message` has no position or function prefix. */
  constructor(message: string, offset: number) {
    super(message);
    this.offset = offset;
  }
}

// The float syntax Go's strconv.ParseFloat accepts, restricted to the characters the scanner collects.
const FLOAT_RE = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Memory is charged in batches of about this many bytes (and at the end). */
const ALLOC_BATCH = 65536;

/** Steps per value parsed (scanning, converting and storing it), on top of the bytes of the text. */
const STEPS_PER_VALUE = 3;
/** Values parsed between two charges (each charge may poll the interrupt hook). */
const VALUES_PER_CHARGE = 1024;

/**
 * Per nesting level, the keys of the last object decoded there, by position (null: not reusable), kept
 * from one document to the next: a program decoding many small records of one shape (an API's items, a
 * file of JSON lines) meets the same keys again, and a reused key is neither sliced nor hashed anew.
 * Bounded to {@link RECENT_KEY_LEVELS} levels of {@link RECENT_KEY_POSITIONS} plain keys of at most
 * {@link RECENT_KEY_LENGTH} characters. Decoding is synchronous and never re-entered, so one table serves.
 */
const RECENT_KEYS: (string | null)[][] = [];
const RECENT_KEY_LEVELS = 16;
const RECENT_KEY_POSITIONS = 64;
const RECENT_KEY_LENGTH = 64;

// Object keys that are their own JSON text (see Decoder.parseKey).
const PLAIN_KEY_RE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Longest stacks a spare decoder keeps (see {@link Decoder.release}). */
const SPARE_STACK = 4096;

/** A decoder that has finished, for the next document (decoding many small documents makes many). */
let spareDecoder: Decoder | undefined;

/**
 * Decodes the document `s` like {@link Decoder.decode}, on the spare decoder when there is one. A
 * decoder that fails is dropped with whatever it holds.
 */
export function decodeJSON(thread: Thread, s: string): Value {
  let d = spareDecoder;
  if (d === undefined) d = new Decoder(thread, s);
  else {
    spareDecoder = undefined;
    d.reuse(thread, s);
  }
  const v = d.decode();
  d.release();
  spareDecoder = d;
  return v;
}

/**
 * Parses a JSON document exactly like the reference's `json.decode`, iteratively (the reference recurses).
 * Failures carry the reference's message and offset.
 */
export class Decoder {
  private i = 0;
  private n: number;
  private pending = 0;
  /** Values parsed and not yet charged. */
  private values = 0;
  /** Per nesting level: the keys of the last object seen there, by position (see {@link RECENT_KEYS}). */
  private readonly prevKeys = RECENT_KEYS;
  /** Per nesting level: the position of the next key in the object being parsed. */
  private readonly keyPos: number[] = [];
  // The parser's stacks (see decode), kept with the decoder so that a reused one does not grow them anew.
  private readonly elems: Value[] = [];
  private readonly starts: number[] = [];
  private readonly objs: boolean[] = [];
  private readonly dicts: (Dict | null)[] = [];
  private readonly kv: unknown[] = [];
  private readonly keys: (string | undefined)[] = [];
  /** How far this document filled `elems` and `kv`: the slots {@link release} clears. */
  private elemHigh = 0;
  private kvHigh = 0;

  /** A decoder of the document `s` (a binary string), charging `thread`. */
  constructor(private thread: Thread, private s: string) {
    this.n = s.length;
  }

  /** Makes a decoder that has decoded a document successfully ready for the document `s`. */
  reuse(thread: Thread, s: string): void {
    this.thread = thread;
    this.s = s;
    this.n = s.length;
    this.i = 0;
    this.pending = 0;
    this.values = 0;
  }

  /**
   * Drops what a successful decode leaves referenced (the text, the thread, the values still on the
   * stacks' unused slots), so that a spare decoder keeps nothing alive. Stacks grown past
   * {@link SPARE_STACK} by a big document are emptied, which frees their storage, rather than dropped
   * with the decoder: a new decoder's arrays start with other maps than these, and the decoding code
   * optimized on these deoptimized on the first of them.
   */
  release(): void {
    this.s = "";
    this.thread = undefined as unknown as Thread;
    const { elems, kv, keys, dicts, starts, objs, elemHigh, kvHigh } = this;
    this.elemHigh = 0;
    this.kvHigh = 0;
    if (elems.length > SPARE_STACK || kv.length > SPARE_STACK || keys.length > SPARE_STACK) {
      elems.length = 0;
      kv.length = 0;
      keys.length = 0;
      dicts.length = 0;
      starts.length = 0;
      objs.length = 0;
      this.keyPos.length = 0;
      return;
    }
    // Only the slots this document used: a stack is as long as the longest document's needs, and clearing
    // all of it after each of many small documents cost about a tenth of their decoding. Every container
    // has closed, which set its `dicts` slot back to null.
    elems.fill(null, 0, elemHigh);
    kv.fill(null, 0, kvHigh);
  }

  /** Throws a {@link DecodeFailure} at the current offset. */
  private fail(msg: string): never {
    throw new DecodeFailure(msg, this.i);
  }

  /**
   * Charges memory, in batches; `flush` charges what is pending now (at the end of a document). Every
   * document's end runs the batch's charge here, so that the code optimized on small documents has run it
   * before a big document first fills a batch: a line never run deoptimizes the functions it is inlined in.
   */
  private alloc(bytes: number, flush = false): void {
    this.pending += bytes;
    if (this.pending >= ALLOC_BATCH || flush) {
      this.thread.allocate(this.pending);
      this.pending = 0;
    }
  }

  /** Counts `n` values parsed and charges them per batch; `n` = 0 charges those counted (see alloc). */
  private countValues(n: number): void {
    this.values += n;
    if (this.values >= VALUES_PER_CHARGE || n === 0) this.chargeValues();
  }

  /** Skips spaces; reports whether input remains. */
  private skipSpace(): boolean {
    const s = this.s;
    let i = this.i;
    for (; i < this.n; i++) {
      const c = s.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) {
        this.i = i;
        return true;
      }
    }
    this.i = i;
    return false;
  }

  /** The next non-space byte (not consumed); fails at the end of input. */
  private next(): number {
    if (!this.skipSpace()) this.fail("unexpected end of file");
    return this.s.charCodeAt(this.i);
  }

  /**
   * Parses the whole document (one value, optionally surrounded by spaces) and returns its value.
   *
   * @throws {DecodeFailure} for invalid JSON.
   * @throws {ResourceError} when a budget is exhausted.
   */
  decode(): Value {
    const s = this.s;
    // The containers being parsed, in parallel arrays rather than frame objects: for a list, where its
    // elements start on the shared `elems` stack (they are copied into an exact-size array when it
    // closes); for a dict, the dict and the key whose value is being parsed (undefined while the key
    // itself is being parsed).
    const { elems, starts, objs, dicts, kv, keys } = this;
    let elemTop = 0; // elems[0..elemTop) are in use: the array is not shrunk, so it does not grow again
    // Per level: whether it is an object; for an object, its dict once it has one (null while its
    // entries are still [key, key, value] triples on `kv`, from starts[level]: a small object becomes
    // a dict only when it closes, with an exact-size entry array and no growth on the way).
    let kvTop = 0; // kv[0..kvTop) are in use, as for elems
    let depth = 0;
    for (;;) {
      // Parse one value starting at i; containers push a frame and loop back for their first child.
      let v: Value = null;
      // Compact text (json.encode's) has no space between tokens: the next byte is read here, and only a
      // space or the end of the text (NaN) takes the call to `next`, which is not inlined in this function.
      let b = s.charCodeAt(this.i);
      if (!(b > 0x20)) b = this.next();
      this.countValues(1);
      switch (b) {
        case 0x22: // "
          v = depth > 0 && keys[depth - 1] === undefined && objs[depth - 1]
            ? this.parseKey(depth - 1)
            : this.parseString();
          break;
        case 0x6e: // n
        case 0x74: // t
        case 0x66: { // f
          const word = b === 0x6e ? "null" : b === 0x74 ? "true" : "false";
          if (!s.startsWith(word, this.i)) this.fail(`unexpected character ${quoteByte(b)}`);
          this.i += word.length;
          v = b === 0x6e ? null : b === 0x74;
          break;
        }
        case 0x5b: // [
        case 0x7b: { // {
          // Nesting has no limit, as in the reference: the frames live on these arrays, not the JS stack,
          // and are charged (for the frame and the dict) as they open, so only the budgets bound depth.
          this.alloc(OPEN_FRAME_BYTES);
          this.i++;
          const close = b === 0x5b ? 0x5d : 0x7d;
          let first = s.charCodeAt(this.i);
          if (!(first > 0x20)) first = this.next();
          if (first === close) {
            this.i++;
            this.alloc(VALUE_BYTES * 2);
            v = b === 0x5b ? new List([]) : new Dict();
            break;
          }
          objs[depth] = b === 0x7b;
          starts[depth] = b === 0x5b ? elemTop : kvTop;
          dicts[depth] = null;
          keys[depth] = undefined;
          this.keyPos[depth] = 0;
          depth++;
          continue;
        }
        default:
          if ((b >= 0x30 && b <= 0x39) || b === 0x2d) v = this.parseNumber();
          else this.fail(`unexpected character ${quoteByte(b)}`);
      }
      // Hand the value to the enclosing containers, closing those that end here.
      for (;;) {
        if (depth === 0) {
          if (this.skipSpace()) {
            this.fail(`unexpected character ${quoteByte(s.charCodeAt(this.i))} after value`);
          }
          this.countValues(0);
          this.alloc(0, true);
          return v;
        }
        const top = depth - 1;
        if (!objs[top]) {
          elems[elemTop++] = v;
          let c = s.charCodeAt(this.i);
          if (!(c > 0x20)) c = this.next();
          if (c === 0x2c) {
            this.i++;
            break;
          }
          if (c !== 0x5d) this.fail(`got ${quoteByte(c)}, want ',' or ']'`);
          this.i++;
          depth--;
          const start = starts[top];
          const list = elems.slice(start, elemTop);
          if (elemTop > this.elemHigh) this.elemHigh = elemTop;
          elemTop = start;
          this.alloc(VALUE_BYTES * 2 + 8 * list.length);
          v = new List(list);
          continue;
        }
        const key = keys[top];
        if (key === undefined) {
          if (typeof v !== "string") this.fail(`got ${typeName(v)} for object key, want string`);
          let c = s.charCodeAt(this.i);
          if (!(c > 0x20)) c = this.next();
          if (c !== 0x3a) this.fail(`after object key, got ${quoteByte(c)}, want ':' `);
          this.i++;
          keys[top] = v as string;
          break;
        }
        // A repeated key keeps its place and takes the new value.
        const dict = dicts[top];
        if (dict !== null) {
          // Charged as it grows: a table of millions of entries must stop at the budget, not be built first.
          const before = dict.size;
          dict.setUnchecked(key, v);
          if (dict.size !== before) this.alloc(TABLE_ENTRY_BYTES);
        } else {
          const st = starts[top];
          let j = st;
          while (j < kvTop && kv[j] !== key) j += 3;
          if (j < kvTop) kv[j + 2] = v;
          else if (kvTop - st < 3 * COMPACT_ENTRIES) {
            // A string is its own hash key.
            kv[kvTop++] = key;
            kv[kvTop++] = key;
            kv[kvTop++] = v;
          } else {
            // A big object: a dict (and its hash table) from here on, not a linear search per key.
            const big = new Dict();
            this.alloc(TABLE_ENTRY_BYTES * (COMPACT_ENTRIES + 1));
            big.initEntries(kv.slice(st, kvTop));
            if (kvTop > this.kvHigh) this.kvHigh = kvTop;
            kvTop = st;
            big.setUnchecked(key, v);
            dicts[top] = big;
          }
        }
        keys[top] = undefined;
        let c = s.charCodeAt(this.i);
        if (!(c > 0x20)) c = this.next();
        if (c === 0x2c) {
          this.i++;
          break;
        }
        if (c !== 0x7d) this.fail(`in object, got ${quoteByte(c)}, want ',' or '}'`);
        this.i++;
        depth--;
        let done = dicts[top];
        if (done === null) {
          const st = starts[top];
          done = new Dict();
          done.initEntries(kv.slice(st, kvTop));
          if (kvTop > this.kvHigh) this.kvHigh = kvTop;
          kvTop = st;
          this.alloc(VALUE_BYTES * 2 + ENTRY_BYTES * done.size);
        } else this.alloc(VALUE_BYTES * 2);
        dicts[top] = null;
        v = done;
      }
    }
  }

  /** Charges the values parsed since the last charge (which also polls the interrupt hook). */
  private chargeValues(): void {
    this.thread.charge(STEPS_PER_VALUE * this.values);
    this.values = 0;
  }

  /**
   * Parses an object key. Objects in an array usually repeat the keys of the previous object at the
   * same depth, in the same order: a key equal to the one seen at that position is reused (no new
   * string, and its hash is already computed).
   */
  private parseKey(level: number): string {
    const pos = this.keyPos[level]++;
    if (level >= RECENT_KEY_LEVELS || pos >= RECENT_KEY_POSITIONS) return this.parseString();
    let prev = this.prevKeys[level];
    if (prev === undefined) prev = this.prevKeys[level] = [];
    const cand = prev[pos];
    const s = this.s;
    const i = this.i;
    // A candidate is plain text (no quote, backslash, control or non-ASCII byte), so an identical literal
    // is exactly its JSON text.
    if (typeof cand === "string" && s.charCodeAt(i + 1 + cand.length) === 0x22 && s.startsWith(cand, i + 1)) {
      this.i = i + cand.length + 2;
      this.alloc(VALUE_BYTES);
      return cand;
    }
    const k = this.parseString();
    prev[pos] = k.length <= RECENT_KEY_LENGTH && isPlainKey(k) ? k : null;
    return k;
  }

  /** Parses the string literal at the current offset. */
  private parseString(): string {
    // Find the closing quote; the content is used as-is when it has no escapes and is ASCII.
    const s = this.s;
    const start = this.i;
    let safe = true;
    let j = start + 1;
    for (let next = j + TEXT_POLL_CHUNK; j < this.n; j++) {
      if (j >= next) {
        this.thread.poll();
        next = j + TEXT_POLL_CHUNK;
      }
      const c = s.charCodeAt(j);
      if (c === 0x22) break;
      if (c === 0x5c || c >= 0x80) {
        if (safe) {
          // The rest is decoded as it is read, unless it is too long or has a flaw: the scan then goes on.
          safe = false;
          const fast = unquoteRest(s, start, j, this.n);
          if (fast !== undefined) {
            const end = unquoteRestEnd();
            this.i = end;
            this.alloc(VALUE_BYTES + end - start);
            return fast;
          }
        }
        if (c === 0x5c) j++;
      }
    }
    if (j >= this.n) this.fail("unclosed string literal");
    j++; // the closing quote
    this.i = j;
    this.alloc(VALUE_BYTES + j - start);
    if (safe) return s.slice(start + 1, j - 1);
    try {
      return unquoteJSONString(s.slice(start, j), this.thread);
    } catch (e) {
      if (e instanceof JSONSyntaxError) this.fail(e.message);
      throw e;
    }
  }

  /**
   * Parses the number literal at the current offset: an int, or a float if it has `.eE+-`. One pass reads
   * the characters and, on the way, the value of the digits and where the point is: a plain decimal
   * (`-?D+.D+`, nearly every float in documents) needs no second pass and no syntax check.
   */
  private parseNumber(): Value {
    const s = this.s;
    const start = this.i;
    const first = s.charCodeAt(start);
    // The digits read as one integer (exact while below 2^53, and past it never back below).
    let m = first === 0x2d ? 0 : first - 0x30;
    let isFloat = false;
    // Whether the literal is digits with at most one point (no exponent, no second sign).
    let plain = true;
    let dot = -1;
    let j = start + 1;
    for (; j < this.n; j++) {
      const c = s.charCodeAt(j);
      if (((j - start) & NUMBER_POLL_MASK) === 0) this.thread.poll(); // a number of millions of digits
      if (c >= 0x30 && c <= 0x39) {
        m = m * 10 + (c - 0x30);
        continue;
      }
      if (c === 0x2e) {
        isFloat = true;
        if (dot >= 0) plain = false;
        dot = j;
      } else if (c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d) {
        isFloat = true;
        plain = false;
      } else break;
    }
    this.i = j;
    // JSON disallows a leading zero before a digit.
    const d = first === 0x2d ? start + 1 : start;
    if (d === j || (s.charCodeAt(d) === 0x30 && d + 1 < j && isDigitAt(s, d + 1))) {
      this.fail(`invalid number: ${textBounded(s.slice(start, j))}`);
    }
    if (j - start <= 15 && !isFloat) {
      // Small ints: the digits' value (no string, no BigInt).
      return d > start && m !== 0 ? -m : m; // "-0" is the int 0
    }
    if (isFloat && plain && dot > d && dot < j - 1) {
      const f = j - 1 - dot;
      if (f <= 22 && m <= Number.MAX_SAFE_INTEGER) {
        // The integer and 10^f are exact doubles, and one IEEE division rounds their quotient correctly:
        // the value `Number` gives for the text, without the text.
        const x = m / POW10[f];
        this.alloc(VALUE_BYTES);
        return new Float(d > start ? -x : x);
      }
      if (j - start <= LONG_FLOAT_TEXT) {
        // More digits than one division handles: `Number` of the text, whose syntax the scan has checked.
        this.thread.charge((j - start) >>> 2);
        const x = Number(s.slice(start, j));
        if (!Number.isFinite(x)) this.fail(`invalid number: ${textBounded(s.slice(start, j))}`);
        this.alloc(VALUE_BYTES);
        return new Float(x);
      }
    }
    const num = s.slice(start, j);
    if (isFloat) {
      // A float's digits are read twice, in JS loops (float_parse.ts), but not converted like a big int's.
      this.thread.charge(num.length >>> 2);
      const x = num.length > LONG_FLOAT_TEXT
        ? parseLongDecimal(num, () => this.thread.poll(), false) ?? NaN
        : FLOAT_RE.test(num)
        ? Number(num)
        : NaN;
      if (!Number.isFinite(x)) this.fail(`invalid number: ${textBounded(num)}`);
      this.alloc(VALUE_BYTES);
      return new Float(x);
    }
    this.alloc(VALUE_BYTES);
    // The digits were checked above; a long number is refused over the integer-size cap and split.
    const neg = num.charCodeAt(0) === 0x2d;
    const v = parseDecimal(neg ? num.slice(1) : num, this.thread);
    return normInt(neg ? -v : v);
  }
}

/** Exact powers of ten as doubles (10^22 is the largest). */
const POW10: readonly number[] = Array.from({ length: 23 }, (_, k) => Number("1e" + k));

/** Whether `k` matches {@link PLAIN_KEY_RE}; short keys by a loop, cheaper than a regex call. */
function isPlainKey(k: string): boolean {
  const n = k.length;
  if (n > 24) return PLAIN_KEY_RE.test(k);
  for (let i = 0; i < n; i++) {
    const c = k.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

function isDigitAt(s: string, k: number): boolean {
  const c = s.charCodeAt(k);
  return c >= 0x30 && c <= 0x39;
}
