/**
 * The Starlark value model shared by the whole engine.
 *
 * Representation (chosen so the hot paths stay on JS primitives):
 *
 * | Starlark | JS representation |
 * |---|---|
 * | `None` | `null` |
 * | `bool` | `boolean` |
 * | `int` | `number` when a safe integer (\|n\| ≤ 2^53−1), otherwise `bigint` (never a bigint in the safe range) |
 * | `float` | {@link Float} |
 * | `string` | JS `string` whose char codes are the UTF-8 *bytes* of the text (each 0..255): a "binary string" |
 * | `bytes` | {@link Bytes} (same binary-string layout) |
 * | `list`, `tuple`, `dict`, `set`, `range` | {@link List}, {@link Tuple}, {@link Dict}, {@link StarSet}, {@link Range} |
 * | builtin function or method | {@link Builtin} |
 * | module (`json`, `math`, capability namespaces) | {@link Module} |
 *
 * Because strings are byte strings, `len`, indexing and slicing are byte-exact like the reference, and
 * comparing two JS strings compares their UTF-8 encodings. Use {@link fromJSString}/{@link toJSString}
 * at the host boundary.
 *
 * @module
 */

/** Any Starlark value. */
export type Value = null | boolean | number | bigint | string | StarObject;

/** Keyword arguments as ordered `[name, value]` pairs (names are binary strings, i.e. ASCII identifiers). */
export type Kwargs = [string, Value][];

/** Base class of every non-primitive Starlark value. */
export abstract class StarObject {
  /** The Starlark type name, as returned by `type(x)`. */
  abstract get typeName(): string;
}

/** A Starlark float (IEEE-754 double). Wrapped so that `1` (int) and `1.0` (float) stay distinct. */
export class Float extends StarObject {
  /** The float value. */
  readonly value: number;
  /** Wraps a JS number as a Starlark float. */
  constructor(value: number) {
    super();
    this.value = value;
  }
  /** Always `"float"`. */
  get typeName(): string {
    return "float";
  }
}

/** A Starlark bytes value: an immutable byte sequence stored as a binary string. */
export class Bytes extends StarObject {
  /** The bytes, one char code (0..255) per byte. */
  readonly data: string;
  /** Wraps a binary string. */
  constructor(data: string) {
    super();
    this.data = data;
  }
  /** Always `"bytes"`. */
  get typeName(): string {
    return "bytes";
  }
}

/** Marker for containers that can be frozen and that track active iterators. */
export interface Mutable {
  /** Whether the value has been frozen. */
  frozen: boolean;
  /** Number of active iterations; mutation is an error while positive. */
  itercount: number;
}

/** A Starlark list. */
export class List extends StarObject implements Mutable {
  /** The elements (mutated in place by list operations; check {@link checkMutable} first). */
  elems: Value[];
  /** Whether the list has been frozen. */
  frozen = false;
  /** Number of active iterations. */
  itercount = 0;
  /** Creates a list that takes ownership of `elems`. */
  constructor(elems: Value[] = []) {
    super();
    this.elems = elems;
  }
  /** Always `"list"`. */
  get typeName(): string {
    return "list";
  }
}

/** A Starlark tuple (immutable). */
export class Tuple extends StarObject {
  /** The elements; never mutated after construction. */
  readonly elems: Value[];
  /** Creates a tuple that takes ownership of `elems`. */
  constructor(elems: Value[]) {
    super();
    this.elems = elems;
  }
  /** Always `"tuple"`. */
  get typeName(): string {
    return "tuple";
  }
}

/** The empty tuple, shared. */
export const EMPTY_TUPLE: Tuple = new Tuple([]);

/** Thrown for values that cannot be dict keys or set elements. */
export class UnhashableError extends Error {
  /** Type name of the offending value. */
  readonly typeName: string;
  /** Builds the reference's message `unhashable type: T`. */
  constructor(typeName: string) {
    super(`unhashable type: ${typeName}`);
    this.typeName = typeName;
  }
}

const identityIds = new WeakMap<object, number>();
let nextIdentityId = 1;

function identityKey(o: object): string {
  let id = identityIds.get(o);
  if (id === undefined) {
    id = nextIdentityId++;
    identityIds.set(o, id);
  }
  return "\u0103" + id;
}

/** Implemented by host-defined values that are hashable (by identity unless they say otherwise). */
export interface HashableObject {
  /** Returns a JS string that is equal for equal values; must contain a char ≥ 0x100 to avoid clashes. */
  hashKey?(): string;
}

/**
 * Maps a hashable Starlark value to a JS Map key such that two Starlark values are `==` exactly when their
 * keys are SameValueZero-equal. Strings map to themselves (their chars are all < 0x100); every synthetic
 * key contains a char ≥ 0x100 so it can never clash with a string.
 *
 * @throws {UnhashableError} for lists, dicts, sets and other unhashable values.
 */
export function hashKey(v: Value): unknown {
  switch (typeof v) {
    case "string":
    case "number":
    case "bigint":
    case "boolean":
      return v;
    case "object":
      if (v === null) return null;
      if (v instanceof Float) return floatKey(v.value);
      if (v instanceof Bytes) return "\u0101" + v.data;
      if (v instanceof Tuple) return tupleKey(v);
      if (v instanceof List || v instanceof Dict || v instanceof StarSet) {
        throw new UnhashableError(v.typeName);
      }
      {
        const h = (v as HashableObject).hashKey;
        if (typeof h === "function") return h.call(v);
        if ((v as { unhashable?: boolean }).unhashable) throw new UnhashableError(v.typeName);
      }
      return identityKey(v);
  }
  throw new UnhashableError(typeof v);
}

function floatKey(f: number): unknown {
  if (Number.isNaN(f)) return "\u0100NaN"; // the reference treats all NaNs as equal
  if (Number.isInteger(f)) return Number.isSafeInteger(f) ? f : BigInt(f);
  return f; // non-integral: cannot equal any int; -0 and 0 are SameValueZero-equal
}

function tupleKey(t: Tuple): string {
  let s = "\u0102(";
  for (const e of t.elems) {
    const k = hashKey(e);
    switch (typeof k) {
      case "string":
        s += "s" + k.length + ":" + k;
        break;
      case "number":
        s += "n" + (Object.is(k, -0) ? 0 : k) + ";";
        break;
      case "bigint":
        s += "n" + k + ";"; // bigint keys are outside the safe range, so they never equal a number key
        break;
      case "boolean":
        s += k ? "T" : "F";
        break;
      default:
        s += "N";
    }
  }
  return s + ")";
}

/** One dict entry. */
export interface DictEntry {
  /** The original key. */
  key: Value;
  /** The value. */
  value: Value;
}

/** Most entries a dict keeps in its compact form before switching to a hash table. */
const SMALL_DICT_MAX = 8;

/** The compact form of every empty dict (shared: never mutated; an insertion replaces it). */
const NO_ENTRIES: unknown[] = [];

/**
 * A Starlark dict: insertion-ordered, keyed by Starlark equality (see {@link hashKey}).
 *
 * Small dicts (the usual record) are stored compactly as a flat array of `[hashKey, key, value]`
 * triples searched linearly: a quarter of the memory of a JS Map with entry objects, and faster to build.
 * A dict switches for good to a `Map` of {@link DictEntry} objects when it grows past a few entries, or
 * as soon as {@link Dict.map} is read; code that needs no map should use the methods instead.
 */
export class Dict extends StarObject implements Mutable {
  /** The compact form, or null once the dict uses {@link Dict.map}. */
  #small: unknown[] | null = NO_ENTRIES;
  /** The hash table form; null while compact. */
  #map: Map<unknown, DictEntry> | null = null;
  /** Whether the dict has been frozen. */
  frozen = false;
  /** Number of active iterations. */
  itercount = 0;
  /** Always `"dict"`. */
  get typeName(): string {
    return "dict";
  }
  /**
   * Entries by normalized key; JS Map iteration order is insertion order, as in the reference. Reading
   * this converts a compact dict to its map form (once): the map stays valid for the dict's lifetime.
   */
  get map(): Map<unknown, DictEntry> {
    return this.#map ?? this.#toMap();
  }
  /** Number of entries. */
  get size(): number {
    const s = this.#small;
    return s !== null ? s.length / 3 : this.#map!.size;
  }
  /** Looks a key up; returns `undefined` when absent. Throws {@link UnhashableError}. */
  get(key: Value): Value | undefined {
    return this.getByHash(hashKey(key));
  }
  /**
   * Looks up the value whose key has hash key `hk` (as computed by {@link hashKey}; a string or a safe
   * integer is its own hash key); `undefined` when absent.
   */
  getByHash(hk: unknown): Value | undefined {
    const s = this.#small;
    if (s !== null) {
      for (let i = 0; i < s.length; i += 3) if (s[i] === hk) return s[i + 2] as Value;
      return undefined;
    }
    const e = this.#map!.get(hk);
    return e === undefined ? undefined : e.value;
  }
  /** Inserts or replaces without mutability checks (callers check with {@link checkMutable}). */
  setUnchecked(key: Value, value: Value): void {
    this.setByHash(hashKey(key), key, value);
  }
  /**
   * Inserts or replaces the entry of `key`, whose hash key is `hk`, without mutability checks; returns
   * true when a new entry was added. An existing entry keeps its original key, as in the reference.
   */
  setByHash(hk: unknown, key: Value, value: Value): boolean {
    const s = this.#small;
    if (s !== null) {
      for (let i = 0; i < s.length; i += 3) {
        if (s[i] === hk) {
          s[i + 2] = value;
          return false;
        }
      }
      if (s === NO_ENTRIES) {
        this.#small = [hk, key, value];
        return true;
      }
      if (s.length < 3 * SMALL_DICT_MAX) {
        s.push(hk, key, value);
        return true;
      }
      this.#toMap();
    }
    const m = this.#map!;
    const e = m.get(hk);
    if (e !== undefined) {
      e.value = value;
      return false;
    }
    m.set(hk, { key, value });
    return true;
  }
  /** Removes a key without mutability checks; returns the removed value or `undefined`. */
  deleteUnchecked(key: Value): Value | undefined {
    const k = hashKey(key);
    const s = this.#small;
    if (s !== null) {
      for (let i = 0; i < s.length; i += 3) {
        if (s[i] === k) {
          const v = s[i + 2] as Value;
          s.splice(i, 3);
          return v;
        }
      }
      return undefined;
    }
    const m = this.#map!;
    const e = m.get(k);
    if (e === undefined) return undefined;
    m.delete(k);
    return e.value;
  }
  /** Keys in insertion order. */
  keys(): Value[] {
    const out: Value[] = [];
    const s = this.#small;
    if (s !== null) {
      for (let i = 1; i < s.length; i += 3) out.push(s[i] as Value);
    } else {
      for (const e of this.#map!.values()) out.push(e.key);
    }
    return out;
  }
  /** Calls `fn` with each key and value in insertion order; `fn` must not modify the dict. */
  forEach(fn: (key: Value, value: Value) => void): void {
    const s = this.#small;
    if (s !== null) {
      for (let i = 0; i < s.length; i += 3) fn(s[i + 1] as Value, s[i + 2] as Value);
    } else {
      for (const e of this.#map!.values()) fn(e.key, e.value);
    }
  }
  /**
   * @internal Fills an empty dict from `[hashKey, key, value]` triples with distinct hash keys, taking
   * ownership of the array (dict displays with constant keys).
   */
  initEntries(triples: unknown[]): void {
    if (triples.length <= 3 * SMALL_DICT_MAX) {
      this.#small = triples;
      return;
    }
    const m = new Map<unknown, DictEntry>();
    for (let i = 0; i < triples.length; i += 3) {
      m.set(triples[i], { key: triples[i + 1] as Value, value: triples[i + 2] as Value });
    }
    this.#small = null;
    this.#map = m;
  }
  #toMap(): Map<unknown, DictEntry> {
    const m = new Map<unknown, DictEntry>();
    const s = this.#small!;
    for (let i = 0; i < s.length; i += 3) m.set(s[i], { key: s[i + 1] as Value, value: s[i + 2] as Value });
    this.#small = null;
    this.#map = m;
    return m;
  }
}

/** A Starlark set: insertion-ordered, keyed like {@link Dict}. */
export class StarSet extends StarObject implements Mutable {
  /** Elements by normalized key. */
  readonly map: Map<unknown, Value> = new Map();
  /** Whether the set has been frozen. */
  frozen = false;
  /** Number of active iterations. */
  itercount = 0;
  /** Always `"set"`. */
  get typeName(): string {
    return "set";
  }
  /** Number of elements. */
  get size(): number {
    return this.map.size;
  }
  /** Membership test. Throws {@link UnhashableError}. */
  has(v: Value): boolean {
    return this.map.has(hashKey(v));
  }
  /** Adds without mutability checks. */
  addUnchecked(v: Value): void {
    const k = hashKey(v);
    if (!this.map.has(k)) this.map.set(k, v);
  }
  /** Elements in insertion order. */
  elems(): Value[] {
    return [...this.map.values()];
  }
}

/** Length of a range whose bounds and span are safe integers (integer arithmetic only: exact). */
function smallRangeLength(start: number, stop: number, step: number): number {
  const span = step > 0 ? stop - start : start - stop;
  if (span <= 0) return 0;
  const by = step > 0 ? step : -step;
  const q = span - 1;
  return (q - (q % by)) / by + 1;
}

function bigRangeLength(start: bigint, stop: bigint, step: bigint): bigint {
  const span = step > 0n ? stop - start : start - stop;
  if (span <= 0n) return 0n;
  return (span - 1n) / (step > 0n ? step : -step) + 1n;
}

/**
 * The value of `range(start, stop, step)`: an immutable, lazily computed sequence of ints.
 *
 * Two representations share the class. When the bounds, the step and `stop - start` are all safe
 * integers (the usual case), the number fields are exact and every element `start + i*step` is a safe
 * integer computed without rounding. Otherwise {@link Range.big} holds the exact bounds and the number
 * fields are only their nearest doubles: use {@link Range.at}, {@link Range.exactLength},
 * {@link Range.contains} or {@link Range.bounds}, which are exact for both representations.
 */
export class Range extends StarObject {
  /** First value (the nearest double when {@link Range.big} is set). */
  readonly start: number;
  /** Exclusive bound (the nearest double when {@link Range.big} is set). */
  readonly stop: number;
  /** Non-zero step (the nearest double when {@link Range.big} is set). */
  readonly step: number;
  /** Number of elements (the nearest double when {@link Range.big} is set). */
  readonly length: number;
  /**
   * The exact bounds (first value, exclusive bound, non-zero step and number of elements), set only when
   * some bound, the step or the span is outside the safe-integer range.
   */
  readonly big:
    | { readonly start: bigint; readonly stop: bigint; readonly step: bigint; readonly length: bigint }
    | undefined;
  /** Builds a range (step ≠ 0); the arguments are validated by the `range` builtin. */
  constructor(start: number | bigint, stop: number | bigint, step: number | bigint) {
    super();
    const s0 = typeof start === "bigint" ? normInt(start) : start;
    const s1 = typeof stop === "bigint" ? normInt(stop) : stop;
    const s2 = typeof step === "bigint" ? normInt(step) : step;
    if (
      typeof s0 === "number" && typeof s1 === "number" && typeof s2 === "number" &&
      Number.isSafeInteger(s0) && Number.isSafeInteger(s1) && Number.isSafeInteger(s2) &&
      Number.isSafeInteger(s1 - s0) // a rounded difference is never a safe integer
    ) {
      this.start = s0;
      this.stop = s1;
      this.step = s2;
      this.length = smallRangeLength(s0, s1, s2);
      this.big = undefined;
    } else {
      const b0 = BigInt(start), b1 = BigInt(stop), b2 = BigInt(step);
      const n = bigRangeLength(b0, b1, b2);
      this.start = Number(b0);
      this.stop = Number(b1);
      this.step = Number(b2);
      this.length = Number(n);
      this.big = { start: b0, stop: b1, step: b2, length: n };
    }
  }
  /** Always `"range"`. */
  get typeName(): string {
    return "range";
  }
  /** The exact number of elements (a bigint only beyond the safe-integer range). */
  get exactLength(): number | bigint {
    return this.big === undefined ? this.length : normInt(this.big.length);
  }
  /** The i-th element (0 ≤ i < length), exact. */
  at(i: number | bigint): number | bigint {
    const b = this.big;
    if (b === undefined) return this.start + Number(i) * this.step;
    return normInt(b.start + BigInt(i) * b.step);
  }
  /** Whether the int `x` is an element of the range. */
  contains(x: number | bigint): boolean {
    const b = this.big;
    if (b === undefined) {
      if (typeof x !== "number") return false; // every element is a safe integer
      const start = this.start, step = this.step;
      // Within the bounds, x - start is smaller than the span: exact.
      if (step > 0 ? x < start || x >= this.stop : x > start || x <= this.stop) return false;
      return (x - start) % step === 0;
    }
    const v = BigInt(x);
    if (b.step > 0n ? v < b.start || v >= b.stop : v > b.start || v <= b.stop) return false;
    return (v - b.start) % b.step === 0n;
  }
  /** The exact bounds as bigints (computed for a range of safe integers). */
  bounds(): NonNullable<Range["big"]> {
    if (this.big !== undefined) return this.big;
    return {
      start: BigInt(this.start),
      stop: BigInt(this.stop),
      step: BigInt(this.step),
      length: BigInt(this.length),
    };
  }
  /** Ranges are not hashable; throws {@link UnhashableError} with the reference's `unhashable: range`. */
  hashKey(): string {
    const e = new UnhashableError("range");
    e.message = "unhashable: range";
    throw e;
  }
}

/** Signature of a built-in function's implementation. `self` is the Builtin being called. */
export type BuiltinFn = (thread: Thread, args: Value[], kwargs: Kwargs, self: Builtin) => Value;

/** A built-in function, or a method bound to its receiver. */
export class Builtin extends StarObject {
  /** Name (for a method, just the method name, e.g. `append`). */
  readonly name: string;
  /** Implementation. */
  readonly fn: BuiltinFn;
  /** Bound receiver for methods; `undefined` for plain functions. */
  readonly receiver: Value | undefined;
  /** Creates a builtin. */
  constructor(name: string, fn: BuiltinFn, receiver?: Value) {
    super();
    this.name = name;
    this.fn = fn;
    this.receiver = receiver;
  }
  /** Always `"builtin_function_or_method"`. */
  get typeName(): string {
    return "builtin_function_or_method";
  }
}

/** A named collection of members accessed with `.`, such as `json`, `math` or a capability namespace. */
export class Module extends StarObject {
  /** Module name shown by `str()`. */
  readonly name: string;
  /** Members. */
  readonly members: ReadonlyMap<string, Value>;
  /** Creates a module; members are not copied. */
  constructor(name: string, members: ReadonlyMap<string, Value>) {
    super();
    this.name = name;
    this.members = members;
  }
  /** Always `"module"`. */
  get typeName(): string {
    return "module";
  }
  /** Modules are unhashable, as in the reference (`unhashable: module`). */
  hashKey(): string {
    throw new EvalError("unhashable: module");
  }
}

// ---------------------------------------------------------------------------
// Errors

/** Base class of every error the engine raises on purpose. */
export class StarlarkError extends Error {}

/** One frame of a Starlark call stack. */
export interface CallFrame {
  /** Function name (`<toplevel>` for module code, `<lambda>` for lambdas, builtin name for builtins). */
  name: string;
  /** File name. */
  filename: string;
  /** Line of the active call or failing operation (0 for builtins). */
  line: number;
  /** Column. */
  col: number;
}

/** A Starlark runtime error (`fail()`, type errors, key errors...), with the call stack where it happened. */
export class EvalError extends StarlarkError {
  /** Innermost frame last, like Python tracebacks. */
  callStack: CallFrame[];
  /** Creates an error; the interpreter fills the call stack as the error propagates. */
  constructor(message: string, callStack: CallFrame[] = []) {
    super(message);
    this.name = "EvalError";
    this.callStack = callStack;
  }
  /** The error with its traceback, in the reference's format. */
  backtrace(): string {
    // Like the reference, an innermost built-in frame is named in the final line instead of listed.
    let frames = this.callStack;
    let where = "";
    const last = frames[frames.length - 1];
    if (last !== undefined && last.line === 0) {
      where = ` in ${last.name}`;
      frames = frames.slice(0, -1);
    }
    let s = "Traceback (most recent call last):\n";
    for (const f of frames) {
      s += f.line > 0 ? `  ${f.filename}:${f.line}:${f.col}: in ${f.name}\n` : `  <builtin>: in ${f.name}\n`;
    }
    return s + `Error${where}: ` + this.message;
  }
}

/**
 * Thrown by a host value's `starlarkAttr` or `setField` when it has no such field (the reference's
 * `NoSuchAttrError`): its message is used as is, and the engine appends a spelling hint
 * (`(did you mean .x?)`) from the value's attribute names.
 */
export class NoSuchAttrError extends EvalError {
  /** Creates the error, e.g. `new NoSuchAttrError("point has no .z attribute")`. */
  constructor(message: string) {
    super(message);
    this.name = "NoSuchAttrError";
  }
}

/** Which budget was exhausted. */
export type ResourceKind = "steps" | "memory" | "depth" | "cancelled";

/** A budget was exhausted (steps, memory, nesting depth) or the host cancelled the execution. */
export class ResourceError extends StarlarkError {
  /** Which budget. */
  readonly resource: ResourceKind;
  /** Creates a resource error. */
  constructor(resource: ResourceKind, message: string) {
    super(message);
    this.name = "ResourceError";
    this.resource = resource;
  }
}

/** A scan, parse or resolve error at a source position. */
export class StarlarkSyntaxError extends StarlarkError {
  /** File name. */
  readonly filename: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly col: number;
  /** The bare message without the position. */
  readonly msg: string;
  /** Message is rendered `file:line:col: msg` like the reference. */
  constructor(filename: string, line: number, col: number, msg: string) {
    super(`${filename}:${line}:${col}: ${msg}`);
    this.name = "StarlarkSyntaxError";
    this.filename = filename;
    this.line = line;
    this.col = col;
    this.msg = msg;
  }
}

// ---------------------------------------------------------------------------
// Threads, budgets, dialect

/** Dialect options, as in the reference's `syntax.FileOptions`/resolve flags. All default to false. */
export interface Dialect {
  /** Allow the `set` builtin. */
  set: boolean;
  /** Allow `while` loops. */
  while: boolean;
  /** Allow recursive calls. */
  recursion: boolean;
  /** Allow `if`/`for`/`while` at top level. */
  topLevelControl: boolean;
  /** Allow reassigning a global (and `+=` on globals). */
  globalReassign: boolean;
  /**
   * Make `load` bind global variables instead of file-local ones (the reference's `LoadBindsGlobally`,
   * a legacy Bazel option). Optional for compatibility; absent means false.
   */
  loadBindsGlobally?: boolean;
}

/** The reference's defaults: every option off. */
export const DEFAULT_DIALECT: Readonly<Dialect> = Object.freeze({
  set: false,
  while: false,
  recursion: false,
  topLevelControl: false,
  globalReassign: false,
});

/** Every option on (the CLI's `--all-options`). */
export const ALL_OPTIONS_DIALECT: Readonly<Dialect> = Object.freeze({
  set: true,
  while: true,
  recursion: true,
  topLevelControl: true,
  globalReassign: true,
});

/** Loads a module for a `load` statement; returns its exported members. */
export type LoadHook = (thread: Thread, module: string) => ReadonlyMap<string, Value>;

/** Options for a {@link Thread}. */
export interface ThreadOptions {
  /** Thread name (shown nowhere by default; useful to hosts). */
  name?: string;
  /** Step budget; `Infinity` (default) means unbounded. */
  maxSteps?: number;
  /** Allocation budget in bytes (approximate, charged by operations that allocate); default unbounded. */
  maxMemory?: number;
  /** Maximum call depth (default 1000, like a generous recursion limit). */
  maxCallDepth?: number;
  /**
   * Polled every few thousand steps (and inside long built-ins): return a reason string to stop the
   * execution with a `cancelled` {@link ResourceError}, or `undefined` to continue.
   */
  checkInterrupt?: () => string | undefined;
  /** Receives `print()` output; default discards it. */
  print?: (thread: Thread, msg: string) => void;
  /** Resolves `load` statements; absent means `load` fails. */
  load?: LoadHook;
  /** Dialect options. */
  dialect?: Partial<Dialect>;
}

/** How many steps pass between two interrupt polls. */
export const INTERRUPT_POLL_STEPS = 4096;

/**
 * The execution state of one Starlark evaluation: budgets, hooks, dialect and the call stack.
 * A thread is used by one execution at a time and is never shared between executions.
 */
export class Thread {
  /** Thread name. */
  readonly name: string;
  /** Steps executed so far. */
  steps = 0;
  /** Step budget. */
  readonly maxSteps: number;
  /** Bytes charged so far. */
  memory = 0;
  /** Allocation budget. */
  readonly maxMemory: number;
  /** Maximum call depth. */
  readonly maxCallDepth: number;
  /** The step count at which the next interrupt poll happens. */
  nextPoll: number = INTERRUPT_POLL_STEPS;
  /** Interrupt poll. */
  readonly checkInterrupt: (() => string | undefined) | undefined;
  /** Print hook. */
  readonly print: (thread: Thread, msg: string) => void;
  /** Load hook. */
  readonly load: LoadHook | undefined;
  /** Dialect options in force. */
  readonly dialect: Readonly<Dialect>;
  /** Active call stack (maintained by the interpreter and by builtin calls). */
  readonly callStack: CallFrame[] = [];
  /** Host-owned per-thread data, like the reference's `Thread.SetLocal`. */
  readonly locals: Map<string, unknown> = new Map();

  /** Creates a thread. */
  constructor(options: ThreadOptions = {}) {
    this.name = options.name ?? "";
    this.maxSteps = options.maxSteps ?? Infinity;
    this.maxMemory = options.maxMemory ?? Infinity;
    this.maxCallDepth = options.maxCallDepth ?? 1000;
    this.checkInterrupt = options.checkInterrupt;
    this.print = options.print ?? (() => {});
    this.load = options.load;
    this.dialect = Object.freeze({ ...DEFAULT_DIALECT, ...options.dialect });
  }

  /**
   * Charges `n` steps (n ≥ 0). Built-ins call this in proportion to their work before doing it.
   * @throws {ResourceError} when the step budget is exhausted or the interrupt poll says stop.
   */
  charge(n: number): void {
    this.steps += n;
    if (this.steps > this.maxSteps) {
      throw new ResourceError("steps", `Starlark computation cancelled: too many steps`);
    }
    if (this.steps >= this.nextPoll) this.poll();
  }

  /** Polls the interrupt hook now (the interpreter calls this through {@link charge}). */
  poll(): void {
    this.nextPoll = this.steps + INTERRUPT_POLL_STEPS;
    if (this.checkInterrupt !== undefined) {
      const reason = this.checkInterrupt();
      if (reason !== undefined) {
        throw new ResourceError("cancelled", `Starlark computation cancelled: ${reason}`);
      }
    }
  }

  /**
   * Charges `bytes` of allocation against the memory budget before an operation allocates.
   * @throws {ResourceError} when the memory budget would be exceeded.
   */
  allocate(bytes: number): void {
    this.memory += bytes;
    if (this.memory > this.maxMemory) {
      throw new ResourceError("memory", `Starlark computation cancelled: memory budget exceeded`);
    }
  }
}

// ---------------------------------------------------------------------------
// Small shared helpers

/** Returns the Starlark type name of any value. */
export function typeName(v: Value): string {
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "int";
    case "boolean":
      return "bool";
    default:
      return v === null ? "NoneType" : v.typeName;
  }
}

/** Whether `v` is a Starlark int. */
export function isInt(v: Value): v is number | bigint {
  return typeof v === "number" || typeof v === "bigint";
}

/** Normalizes a bigint to the canonical int representation (a number when it is a safe integer). */
export function normInt(b: bigint): number | bigint {
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

/**
 * Checks that a container may be mutated; `what` names the operation for the message, e.g.
 * `"append to"` or `"insert into"`.
 * @throws {EvalError} "cannot <what> frozen <type>" or "cannot <what> <type> during iteration".
 */
export function checkMutable(v: Mutable & StarObject, what: string): void {
  if (v.frozen) throw new EvalError(`cannot ${what} frozen ${v.typeName}`);
  if (v.itercount > 0) throw new EvalError(`cannot ${what} ${v.typeName} during iteration`);
}

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
