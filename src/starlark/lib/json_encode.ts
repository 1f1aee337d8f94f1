/**
 * The encoder behind `json.encode` (and `json.encode_indent`): the reference's output and error messages,
 * built for speed.
 *
 * - Values are written recursively while nesting is shallow (the usual case: no frame objects), and
 *   deeper subtrees by an explicit-stack loop, so no input can exhaust the JS stack.
 * - Output pieces are collected in an array and joined in batches (no per-piece string concatenation);
 *   each batch is charged to the budgets when it is joined, which also polls the interrupt hook.
 * - Strings that need no escaping (one native regex test) are written as they are; dict keys are quoted
 *   once (a bounded cache shared by calls); dicts with the same keys in the same insertion order as a
 *   recent dict (records) reuse its sorted order instead of sorting again (json_shapes.ts).
 * - Compact dicts are read from their triples in place, each key written with the comma or brace before
 *   it as one piece (charged as the two pieces it stands for).
 * - One spare encoder is reused from call to call: many small values encoded one call each allocate
 *   no per-call state.
 *
 * @module
 */
import {
  Builtin,
  Dict,
  EvalError,
  Float,
  formatFloat,
  intToDecimal,
  List,
  Module,
  Range,
  reprBounded,
  ResourceError,
  type StarObject,
  StarSet,
  stringTableKey,
  TEXT_POLL_CHUNK,
  TextBuilder,
  type Thread,
  tryIterate,
  Tuple,
  typeName,
  type Value,
  type ValueIterator,
} from "../values/mod.ts";
import { attrNames, getAttr } from "../methods/mod.ts";
import { marshalJSONString } from "./json_strings.ts";
import {
  findShape,
  findTripleShape,
  remember,
  type Shape,
  sharedShapes,
  sortedShape,
} from "./json_shapes.ts";

/** Hard cap on the size of one result string, whatever the memory budget (JS strings have a size limit). */
export const MAX_OUTPUT_BYTES: number = 1 << 28;

/**
 * Output bytes per step (copying the text): joining and flattening megabytes of output takes ~2 ns a
 * byte, and a step stands for ~15 ns of work (a loop turn).
 */
const OUTPUT_BYTES_PER_STEP = 8;
/** Steps per output piece (a value or punctuation: formatting it and storing it). */
const STEPS_PER_PIECE = 2;
/** Pieces joined into one chunk at a time. */
const BATCH = 4096;
/**
 * Characters of long strings pending before a flush: long strings are flushed (and so charged) within
 * about this much output, so a list holding one long string many times stops at the memory budget
 * instead of being joined whole first.
 */
const BULK_CHARS = 1 << 20;
/** Strings at least this long count towards {@link BULK_CHARS}. */
const LONG_STRING = 1024;
/** Nesting depth written recursively; deeper values use the explicit-stack loop. */
const MAX_RECURSION = 64;
/** Steps per container (its frame, cycle check, and ordering of a dict's keys beyond the pieces). */
const STEPS_PER_CONTAINER = 4;

/**
 * Characters of an error's path to the failing value written before the other levels are only counted:
 * room for ~200 levels of short keys, which the reference's messages show whole.
 */
const PATH_CHARS = 4096;

/** One level of the path to the value an encoding error is about. */
type PathStep = { readonly key: string } | { readonly type: string; readonly index: number } | {
  readonly field: string;
};

/**
 * An encoding error, before the function name is added; `path` accumulates the levels above the failing
 * value, innermost first. They are kept as they are and written once, bounded (see {@link pathText}).
 */
class EncodeError extends Error {
  readonly path: PathStep[] = [];
}

/**
 * The reference's `in dict key "k": at list index 1: ` text of a path, outermost first, bounded like any
 * quoted value: keys by their bounded repr, and past {@link PATH_CHARS} characters the other levels only
 * counted (writing a path through 100,000 nested dicts took 12 s and 1 GB).
 */
function pathText(path: readonly PathStep[]): string {
  let out = "";
  let levels = 0;
  for (let j = path.length - 1; j >= 0 && out.length < PATH_CHARS; j--, levels++) {
    const step = path[j];
    if ("key" in step) out += `in dict key ${reprBounded(step.key)}: `;
    else if ("field" in step) out += `in field .${step.field}: `;
    else out += `at ${step.type} index ${step.index}: `;
  }
  return levels < path.length ? out + `... (${path.length - levels} more levels): ` : out;
}

// Strings made of printable ASCII other than `"` and `\` are their own JSON text.
const PLAIN_RE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const ASCII_PRINT_RE = /^[\x20-\x7f]*$/;

/** Strings up to this long are checked by a loop: cheaper than a regex call for short keys and words. */
const SHORT_PLAIN = 24;

/** Whether `s` matches {@link PLAIN_RE}. */
function isPlain(s: string): boolean {
  const n = s.length;
  if (n > SHORT_PLAIN) return PLAIN_RE.test(s);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** Encodes a string like the reference: `strconv.Quote` for printable ASCII, `json.Marshal` otherwise. */
function quoteJSON(s: string, thread?: Thread): string {
  if (isPlain(s)) return '"' + s + '"';
  if (!ASCII_PRINT_RE.test(s)) return marshalJSONString(s, thread);
  // A replacement over megabytes of quotes or backslashes is one native call of ~100 ns a match: in polled
  // chunks (an escape never spans two of them, as every character is one byte).
  if (thread !== undefined && s.length > TEXT_POLL_CHUNK) {
    const out = new TextBuilder(thread);
    out.add('"');
    for (let i = 0; i < s.length; i += TEXT_POLL_CHUNK) {
      const chunk = s.slice(i, i + TEXT_POLL_CHUNK);
      const quoted = quotePrintable(chunk);
      // Each escape adds one character: charge the matches, ~65 ns each (a chunk is at most ~2 ms of them).
      thread.charge(STEPS_PER_REPLACED_MATCH * (quoted.length - chunk.length));
      out.add(quoted);
      thread.poll();
    }
    out.add('"');
    return out.finish();
  }
  const quoted = quotePrintable(s);
  thread?.charge(STEPS_PER_REPLACED_MATCH * (quoted.length - s.length));
  return '"' + quoted + '"';
}

/** Steps per quote or backslash escaped by a native replacement (~65 ns each, a step being ~12.5 ns). */
const STEPS_PER_REPLACED_MATCH = 5;

/** The escaped body of printable ASCII `s` (the reference's test admits DEL, which strconv.Quote escapes). */
function quotePrintable(s: string): string {
  // Without DEL (nearly always), a replacement pattern rather than a function: no JS call per quote or backslash.
  if (!s.includes("\x7f")) return s.replace(/["\\]/g, "\\$&");
  return s.replace(/["\\\x7f]/g, (c) => (c === "\x7f" ? "\\x7f" : "\\" + c));
}

/** Whether `x` is encoded as an object of its attributes (the reference's `HasAttrs` case). */
function isHasAttrs(x: StarObject): boolean {
  if (x instanceof Module) return true;
  if (typeof (x as { starlarkAttrNames?: unknown }).starlarkAttrNames === "function") return true;
  return attrNames(x).length > 0;
}

/** An array, object or attribute container being written by the explicit-stack loop. */
interface Frame {
  kind: "array" | "dict" | "attrs";
  obj: object;
  type: string;
  n: number;
  i: number;
  elems?: readonly Value[];
  range?: Range;
  iter?: ValueIterator;
  /** A dict's keys in sorted order, or an object's attribute names. */
  names?: string[];
}

/** Most dict keys whose quoted text is kept across calls. */
const KEY_CACHE_SIZE = 4096;
/**
 * Quoted key texts (`"k":`), shared by all calls: small records are usually encoded one call each, and
 * their keys repeat from call to call. A pure function of the key, bounded, and never evicted.
 */
const keyCache = new Map<string, string>();

/** One call's encoding state. */
class Encoder {
  private readonly chunks: string[] = [];
  /**
   * Pieces of the current batch: `parts[0..np)`. The array is overwritten batch after batch rather than
   * emptied, so that it does not grow again from nothing for each batch.
   */
  private readonly parts: string[] = [];
  private np = 0;
  /** Pieces of the batch written merged into another piece (charged as pieces of their own). */
  private merged = 0;
  private size = 0;
  private bulk = 0;
  /** Containers being written (cycle check); a set once deep, an array while shallow. */
  private readonly path: object[] = [];
  private deepPath: Set<object> | undefined;
  /**
   * The key lists (in insertion order) of the last few dicts sorted, with the sorted order of their
   * positions: records and their nested dicts repeat a handful of shapes, so sorting is mostly skipped.
   */
  private readonly shapes: Shape[] = [];
  /**
   * The triples of the compact dicts being written, innermost last: they are read in place, and copied
   * ({@link detach}) before anything that could run host code (an iterable's or an attribute's), so
   * the output is the dicts' entries as they were when their writing began, as with a snapshot.
   */
  private readonly live: (readonly unknown[])[] = [];
  /** Entries of {@link live} below this index are copies already. */
  private detached = 0;

  constructor(private thread: Thread, private fn: string) {}

  /** Makes an encoder that has written a value successfully ready for another call. */
  reuse(thread: Thread, fn: string): void {
    this.thread = thread;
    this.fn = fn;
  }

  /**
   * Drops what a successful call leaves referenced (the output, its pieces, the thread) and its per-call
   * state, so that a spare encoder keeps nothing alive and charges the next call as a new one would.
   */
  release(): void {
    this.chunks.length = 0;
    this.parts.fill("");
    this.size = 0;
    this.shapes.length = 0;
    this.deepPath = undefined;
    this.thread = undefined as unknown as Thread;
  }

  private add(s: string): void {
    this.parts[this.np++] = s;
    if (this.np + this.merged >= BATCH) this.flush();
  }

  /** Adds a piece that stands for two (punctuation merged with a key's text). */
  private addPair(s: string): void {
    this.parts[this.np++] = s;
    if (this.np + ++this.merged >= BATCH) this.flush();
  }

  private flush(): void {
    const np = this.np;
    if (np === 0) return;
    const parts = this.parts;
    if (parts.length !== np) parts.length = np;
    this.bulk = 0;
    const chunk = parts.join("");
    const n = chunk.length;
    this.size += n;
    if (this.size > MAX_OUTPUT_BYTES) {
      throw new ResourceError("memory", `${this.fn}: output exceeds ${MAX_OUTPUT_BYTES} bytes`);
    }
    this.thread.allocate(n);
    this.thread.charge(STEPS_PER_PIECE * (np + this.merged) + Math.ceil(n / OUTPUT_BYTES_PER_STEP));
    this.chunks.push(chunk);
    this.np = 0;
    this.merged = 0;
  }

  /** The whole output. */
  text(): string {
    this.flush();
    return this.chunks.length === 1 ? this.chunks[0] : this.chunks.join("");
  }

  private keyText(k: string): string {
    // Only short keys are cached, under their table key (as a dict keys its table): a program must not
    // fill the shared cache with keys V8 hashes alike.
    const ck = k.length <= 64 ? stringTableKey(k) : undefined;
    let t = ck === undefined ? undefined : keyCache.get(ck);
    if (t === undefined) {
      // A long key is quoted like a long string value: charged, and polled while it is escaped.
      if (k.length >= 64) this.thread.charge(k.length >>> 2);
      t = quoteJSON(k, this.thread) + ":";
      if (ck !== undefined && keyCache.size < KEY_CACHE_SIZE) keyCache.set(ck, t);
    }
    return t;
  }

  /** Writes a scalar and returns true, or returns false for a container. */
  private scalar(v: Value): boolean {
    // Tests in the order of how common each kind is in documents; `typeof x === "..."` compiles to a
    // type check, where a switch on `typeof` may call the Typeof builtin.
    if (typeof v === "string") {
      const parts = this.parts;
      if (isPlain(v)) {
        parts[this.np++] = '"';
        parts[this.np++] = v;
        parts[this.np++] = '"';
      } else {
        if (v.length >= 64) this.thread.charge(v.length >>> 2); // escaping runs in JS
        parts[this.np++] = quoteJSON(v, this.thread);
      }
      if (v.length >= LONG_STRING) this.bulk += v.length;
      if (this.np + this.merged >= BATCH || this.bulk >= BULK_CHARS) this.flush();
      return true;
    }
    if (typeof v === "number") {
      this.add(String(v));
      return true;
    }
    if (v === null) {
      this.add("null");
      return true;
    }
    if (v instanceof Float) {
      const x = v.value;
      if (!Number.isFinite(x)) throw new EncodeError(`cannot encode non-finite float ${formatFloat(x)}`);
      this.add(formatFloat(x));
      return true;
    }
    if (typeof v === "boolean") {
      this.add(v ? "true" : "false");
      return true;
    }
    if (typeof v === "bigint") {
      this.add(intToDecimal(v, this.thread));
      return true;
    }
    return false;
  }

  private onPath(v: object): boolean {
    return this.deepPath !== undefined ? this.deepPath.has(v) : this.path.includes(v);
  }

  private enter(v: object): void {
    if (this.onPath(v)) throw new EncodeError("cycle in JSON structure");
    this.path.push(v);
    if (this.deepPath !== undefined) this.deepPath.add(v);
    else if (this.path.length > 16) this.deepPath = new Set(this.path);
  }

  private leave(): void {
    const v = this.path.pop()!;
    this.deepPath?.delete(v);
  }

  /** Copies the triples of the compact dicts being written: host code may be about to run. */
  private detach(): void {
    const live = this.live;
    for (let i = this.detached; i < live.length; i++) live[i] = live[i].slice();
    this.detached = live.length;
  }

  /** A dict's keys in sorted order (all keys must be strings). */
  private sortedKeys(d: Dict): string[] {
    const ks = d.keys() as string[];
    const order = this.sortedOrder(ks);
    if (order === undefined) return ks;
    const out: string[] = new Array(ks.length);
    for (let j = 0; j < ks.length; j++) out[j] = ks[order[j]];
    return out;
  }

  /**
   * The positions of a dict's keys (in insertion order) in sorted key order, or undefined when there are
   * fewer than two; fails unless all keys are strings.
   */
  private sortedOrder(keys: Value[]): number[] | undefined {
    const n = keys.length;
    for (let i = 0; i < n; i++) {
      const k = keys[i];
      if (typeof k !== "string") throw new EncodeError(`dict has ${typeName(k)} key, want string`);
    }
    const ks = keys as string[];
    if (n < 2) return undefined;
    return (findShape(this.shapes, ks) ?? this.newShape(ks)).order;
  }

  /** The shape of `ks` (two or more strings) for a dict not of a shape this call has met. */
  private newShape(ks: readonly string[]): Shape {
    const n = ks.length;
    // Charged once per call and shape whether or not another call already sorted it, so that step
    // counts do not depend on what ran before in the process.
    this.thread.charge(Math.ceil((n * Math.log2(n)) / 2));
    const shape = findShape(sharedShapes, ks) ?? sortedShape(ks);
    remember(this.shapes, shape);
    return shape;
  }

  /** The texts written before the values of a dict of this shape (see {@link Shape.texts}). */
  private textsOf(shape: Shape): string[] {
    if (shape.texts !== undefined) return shape.texts;
    const texts = shape.order.map((p, i) => (i === 0 ? "{" : ",") + this.keyText(shape.keys[p]));
    shape.texts = texts;
    return texts;
  }

  /**
   * Writes a compact dict from its triples `s`: the same pieces (and charges) as the general path, without
   * its arrays of keys and values, and with the punctuation and key before each value written as one.
   */
  private writeCompact(d: Dict, s: readonly unknown[], depth: number): void {
    const n = s.length / 3;
    this.enter(d);
    if (n < 2) {
      this.add("{");
      if (n === 1) {
        const k = s[1];
        if (typeof k !== "string") throw new EncodeError(`dict has ${typeName(k as Value)} key, want string`);
        this.add(this.keyText(k));
        this.writeValue(s[2] as Value, k, depth);
      }
      this.add("}");
      this.leave();
      return;
    }
    let shape = findTripleShape(this.shapes, s, n);
    if (shape === undefined) {
      for (let i = 1; i < s.length; i += 3) {
        const k = s[i];
        if (typeof k !== "string") throw new EncodeError(`dict has ${typeName(k as Value)} key, want string`);
      }
      // As newShape, without an array of the keys when another call has met the shape (the usual case
      // for small records encoded one call each).
      this.thread.charge(Math.ceil((n * Math.log2(n)) / 2));
      shape = findTripleShape(sharedShapes, s, n);
      if (shape === undefined) {
        const ks: string[] = new Array(n);
        for (let i = 0; i < n; i++) ks[i] = s[3 * i + 1] as string;
        shape = sortedShape(ks);
      }
      remember(this.shapes, shape);
    }
    const texts = this.textsOf(shape);
    const order = shape.order;
    const live = this.live;
    const at = live.length;
    live.push(s);
    for (let i = 0; i < n; i++) {
      const p = order[i];
      this.addPair(texts[i]);
      const v = live[at][3 * p + 2] as Value;
      // Scalars (most values) without a call to write: calls cost most before the code is optimized.
      try {
        if (!this.scalar(v)) this.container(v, depth + 1);
      } catch (err) {
        if (err instanceof EncodeError) err.path.push({ key: shape.keys[p] });
        throw err;
      }
    }
    live.pop();
    if (this.detached > at) this.detached = at;
    this.add("}");
    this.leave();
  }

  /** Writes the value of dict key `k`, naming the key in an error from inside it. */
  private writeValue(v: Value, k: string, depth: number): void {
    try {
      this.write(v, depth + 1);
    } catch (err) {
      if (err instanceof EncodeError) err.path.push({ key: k });
      throw err;
    }
  }

  /** Writes `v`, recursively while the nesting is shallow. */
  write(v: Value, depth: number): void {
    if (!this.scalar(v)) this.container(v, depth);
  }

  /** Writes `v`, which is not a scalar, recursively while the nesting is shallow. */
  private container(v: Value, depth: number): void {
    if (depth >= MAX_RECURSION) {
      this.writeDeep(v);
      return;
    }
    const obj = v as StarObject;
    this.thread.charge(STEPS_PER_CONTAINER);
    if (obj instanceof List || obj instanceof Tuple) {
      this.writeArray(obj, obj.typeName, obj.elems, depth);
    } else if (obj instanceof Dict) {
      const s = obj.compactTriples();
      if (s !== null) {
        this.writeCompact(obj, s, depth);
        return;
      }
      this.enter(obj);
      // Keys and values by position: each value is read in order, not looked up by its key.
      const keys = obj.keys() as string[];
      const order = this.sortedOrder(keys);
      const vals = obj.valueList();
      this.add("{");
      for (let i = 0; i < keys.length; i++) {
        const p = order === undefined ? i : order[i];
        const k = keys[p];
        if (i > 0) this.add(",");
        this.add(this.keyText(k));
        this.writeValue(vals[p], k, depth);
      }
      this.add("}");
      this.leave();
    } else if (obj instanceof StarSet) {
      this.thread.allocate(8 * obj.size);
      this.writeArray(obj, "set", obj.elems(), depth);
    } else if (obj instanceof Range) {
      // Ints only: nothing can fail. A huge range stops on the budgets as the output is charged.
      this.add("[");
      for (let i = 0; i < obj.length; i++) {
        if (i > 0) this.add(",");
        this.add(String(obj.at(i)));
      }
      this.add("]");
    } else {
      this.writeDeep(obj);
    }
  }

  private writeArray(obj: object, type: string, elems: readonly Value[], depth: number): void {
    this.enter(obj);
    this.add("[");
    for (let i = 0; i < elems.length; i++) {
      if (i > 0) this.add(",");
      const v = elems[i];
      try {
        if (!this.scalar(v)) this.container(v, depth + 1);
      } catch (err) {
        if (err instanceof EncodeError) err.path.push({ type, index: i });
        throw err;
      }
    }
    this.add("]");
    this.leave();
  }

  /** Writes `x` with an explicit stack: for deep nesting, big ranges, other iterables and attributes. */
  private writeDeep(x: Value): void {
    const stack: Frame[] = [];
    // Writes a scalar, or opens a container frame (its children are written by the loop below).
    const open = (v: Value): void => {
      if (this.scalar(v)) return;
      const obj = v as StarObject;
      this.thread.charge(STEPS_PER_CONTAINER);
      let f: Frame;
      if (obj instanceof Dict) {
        if (this.onPath(obj)) throw new EncodeError("cycle in JSON structure");
        const names = this.sortedKeys(obj);
        f = { kind: "dict", obj, type: "dict", n: names.length, i: 0, names };
      } else if (obj instanceof List || obj instanceof Tuple) {
        f = { kind: "array", obj, type: obj.typeName, n: obj.elems.length, i: 0, elems: obj.elems };
      } else if (obj instanceof StarSet) {
        f = { kind: "array", obj, type: "set", n: obj.size, i: 0, elems: obj.elems() };
      } else if (obj instanceof Range) {
        f = { kind: "array", obj, type: "range", n: obj.length, i: 0, range: obj };
      } else {
        this.detach();
        const iter = obj instanceof Builtin ? undefined : tryIterate(obj);
        if (iter !== undefined) {
          f = { kind: "array", obj, type: obj.typeName, n: Infinity, i: 0, iter };
        } else if (isHasAttrs(obj)) {
          const names = attrNames(obj).slice().sort();
          f = { kind: "attrs", obj, type: obj.typeName, n: names.length, i: 0, names };
        } else {
          throw new EncodeError(`cannot encode ${obj.typeName} as JSON`);
        }
      }
      try {
        this.enter(obj);
      } catch (e) {
        f.iter?.done();
        throw e;
      }
      this.add(f.kind === "array" ? "[" : "{");
      stack.push(f);
    };

    try {
      open(x);
      while (stack.length > 0) {
        const f = stack[stack.length - 1];
        let child: Value | undefined;
        if (f.i < f.n) {
          if (f.elems !== undefined) child = f.elems[f.i];
          else if (f.range !== undefined) child = f.range.at(f.i);
          else if (f.iter !== undefined) {
            this.detach();
            child = f.iter.next();
          } else if (f.kind === "dict") child = (f.obj as Dict).get(f.names![f.i])!;
          else {
            this.detach();
            try {
              child = attribute(this.thread, f.obj as StarObject, f.names![f.i]);
            } catch (e) {
              // The reference reports this error for the object itself, not for one of its fields.
              stack.pop();
              throw e;
            }
          }
        }
        if (child === undefined) {
          f.iter?.done();
          this.add(f.kind === "array" ? "]" : "}");
          stack.pop();
          this.leave();
          continue;
        }
        if (f.i > 0) this.add(",");
        if (f.kind !== "array") this.add(this.keyText(f.names![f.i]));
        f.i++;
        open(child);
      }
    } catch (e) {
      for (const f of stack) f.iter?.done();
      if (e instanceof EncodeError) {
        for (let j = stack.length - 1; j >= 0; j--) {
          const f = stack[j];
          const k = f.i - 1;
          if (f.kind === "array") e.path.push({ type: f.type, index: k });
          else if (f.kind === "dict") e.path.push({ key: f.names![k] });
          else e.path.push({ field: f.names![k] });
        }
      }
      throw e;
    }
  }
}

/** An encoder that has finished a call, for the next one (encoding many small values makes many). */
let spareEncoder: Encoder | undefined;

function attribute(thread: Thread, obj: StarObject, name: string): Value {
  try {
    return getAttr(thread, obj, name);
  } catch (e) {
    if (e instanceof EvalError) {
      throw new EncodeError(`cannot access attribute ${obj.typeName}.${name}: ${e.message}`);
    }
    throw e;
  }
}

/**
 * Encodes `x` as compact JSON exactly like the reference's `json.encode`. Errors are EvalErrors whose
 * message starts with `fn: ` (the reference prefixes the builtin's name).
 */
export function encodeJSON(thread: Thread, x: Value, fn = "json.encode"): string {
  let enc = spareEncoder;
  if (enc === undefined) enc = new Encoder(thread, fn);
  else {
    // Taken while in use: host code run by this call may encode too, with an encoder of its own.
    spareEncoder = undefined;
    enc.reuse(thread, fn);
  }
  try {
    enc.write(x, 0);
    const text = enc.text();
    enc.release();
    spareEncoder = enc;
    return text;
  } catch (e) {
    if (e instanceof EncodeError) throw new EvalError(`${fn}: ${pathText(e.path)}${e.message}`);
    throw e;
  }
}
