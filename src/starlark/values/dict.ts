/**
 * Hashing of Starlark values ({@link hashKey}) and the hashed containers built on it, {@link Dict} and
 * {@link StarSet}. They share a module because `hashKey` must recognise dicts and sets as unhashable
 * while the containers key their entries with it. Import these names from `value.ts`.
 *
 * @module
 */

import { Bytes, Float, List, type Mutable, StarObject, Tuple, type Value } from "./object.ts";
import { UnhashableError } from "./errors.ts";
import {
  DIGEST_KEY_LENGTH,
  escapeHostKey,
  keepTableKey,
  tableKey,
  tableKeyStartsWith,
  valueTableKey,
} from "./table_key.ts";

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
      if (v instanceof Bytes) {
        if (v.data.length <= LONG_KEY_LENGTH || bigKeysCached === 0) return "\u0101" + v.data;
        return bigKeys.get(v) ?? "\u0101" + v.data;
      }
      if (v instanceof Tuple) return rootTupleKey(v);
      if (v instanceof List || v instanceof Dict || v instanceof StarSet) {
        throw new UnhashableError(v.typeName);
      }
      {
        const h = (v as HashableObject).hashKey;
        if (typeof h === "function") return escapeHostKey(h.call(v));
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

/** Tuples nested deeper than this are keyed by the explicit-stack loop of {@link walkTupleKey}. */
const RECURSIVE_KEY_DEPTH = 64;

/**
 * A tuple with an element this deep (the top tuple's elements being at depth 1) cannot be compared
 * with an equal tuple: the reference's comparison stops at depth 10 (`COMPARE_LIMIT` of
 * ops_compare.ts) with an error. Its key says so (it starts {@link TOO_DEEP_KEY} instead of
 * "\u0102("), and a lookup that finds an equal key fails like the reference's comparison of the two.
 */
const TOO_DEEP_LEVEL = 10;
/** The first character of the key of a tuple too deep to compare. */
const TOO_DEEP_KEY = "\u0104";
/** Deepest level with an element met while building the current tuple key. */
let deepestElement = 0;

/**
 * Whether `hk` is the key of a tuple too deep to compare with an equal one: an equality key, or the
 * table key a dict or set stores it under (see {@link tableKey}).
 */
export function isTooDeepKey(hk: unknown): boolean {
  return typeof hk === "string" && tableKeyStartsWith(hk, 0x104);
}

/**
 * What comparing two equal keys of tuples too deep to compare raises, with the reference's message.
 * It is an {@link UnhashableError} so that every caller treats it as it treats a key that cannot be
 * hashed, as the reference treats both failures of its hash table: `set()` prefixes it, `x in dict`
 * ignores it, `d[k] = v` and `x in set` report it.
 */
export function tooDeepError(): UnhashableError {
  const e = new UnhashableError("tuple");
  e.message = "comparison exceeded maximum recursion depth";
  return e;
}

function rootTupleKey(t: Tuple): string {
  if (bigKeysCached > 0) {
    const cached = bigKeys.get(t);
    if (cached !== undefined) return cached;
  }
  deepestElement = 0;
  const k = tupleKey(t);
  return deepestElement >= TOO_DEEP_LEVEL ? TOO_DEEP_KEY + k.slice(1) : k;
}

function tupleKey(t: Tuple, depth = 0): string {
  let s = "\u0102(";
  if (t.elems.length > 0 && depth + 1 > deepestElement) deepestElement = depth + 1;
  for (const e of t.elems) {
    const k = e instanceof Tuple
      ? depth < RECURSIVE_KEY_DEPTH ? tupleKey(e, depth + 1) : walkTupleKey(e, undefined, depth + 1)
      : hashKey(e);
    s = appendKey(s, k);
  }
  return s + ")";
}

/**
 * Keys of big tuples and bytes, built once (with polls, by {@link prepareKey}) and kept as long as their
 * value lives: both are immutable, and a hashable tuple's elements are too, so a key never goes stale.
 */
const bigKeys = new WeakMap<Tuple | Bytes, string>();
/** How many keys {@link bigKeys} was given: while none, a tuple's key skips the look-up. */
let bigKeysCached = 0;
/**
 * Strings and bytes longer than this are charged for the comparison with an equal key in a table; a bytes
 * key is built once and cached only beyond it (a shorter one is keyed anew, cheaper than the look-up).
 */
export const LONG_KEY_LENGTH = 256;
/** Elements between two polls while a big tuple's key is built. */
const KEY_POLL_ELEMENTS = 4096;

/**
 * Builds the key of a big tuple or bytes value ahead of {@link hashKey}, which then finds it cached; a tuple's
 * elements are walked with `poll` called every few thousand of them, so that a key of millions of elements
 * does not hold the thread between two polls. The caller has charged the work and the key's memory.
 */
export function prepareKey(v: Tuple | Bytes, poll: () => void): void {
  if (bigKeys.has(v)) return;
  let k: string;
  if (v instanceof Bytes) k = "\u0101" + v.data;
  else {
    deepestElement = 0;
    k = walkTupleKey(v, poll);
    if (deepestElement >= TOO_DEEP_LEVEL) k = TOO_DEEP_KEY + k.slice(1);
  }
  k.charCodeAt(0); // flattened once, here, rather than by the first table that hashes it
  bigKeys.set(v, k);
  bigKeysCached++;
  if (k.length >= DIGEST_KEY_LENGTH) keepTableKey(v, k);
}

/** Whether {@link prepareKey} has built the key of `v`. */
export function isKeyPrepared(v: Tuple | Bytes): boolean {
  return bigKeysCached > 0 && bigKeys.has(v);
}

/**
 * The key of a tuple of any depth and size (`t = (t,)` in a loop, a tuple of a million elements): a
 * post-order walk with an explicit stack. Records the depth of the deepest element in
 * {@link deepestElement}, counting the root's elements as depth 1 like {@link tupleKey} (`depth` is the
 * root's own), and calls `poll` every {@link KEY_POLL_ELEMENTS} elements.
 *
 * Per level, the keys of a run of scalars are joined flat (one piece each would be three rope nodes), and
 * a nested tuple's key is appended as a rope, not copied: a chain nested n deep stays linear to build.
 */
function walkTupleKey(root: Tuple, poll?: () => void, depth = 0): string {
  const tuples: Tuple[] = [root], next: number[] = [0], keys: string[] = ["\u0102("];
  const runs: string[][] = [[]];
  if (root.elems.length > 0 && depth + 1 > deepestElement) deepestElement = depth + 1;
  let walked = 0;
  for (;;) {
    const top = tuples.length - 1;
    const t = tuples[top], i = next[top];
    if (i < t.elems.length) {
      next[top] = i + 1;
      if (poll !== undefined && ++walked % KEY_POLL_ELEMENTS === 0) poll();
      const e = t.elems[i];
      if (e instanceof Tuple) {
        tuples.push(e);
        next.push(0);
        keys.push("\u0102(");
        runs.push([]);
        if (e.elems.length > 0 && depth + tuples.length > deepestElement) {
          deepestElement = depth + tuples.length;
        }
      } else {
        runs[top].push(appendKey("", hashKey(e)));
      }
      continue;
    }
    const run = runs.pop()!;
    const s = (run.length > 0 ? keys.pop()! + run.join("") : keys.pop()!) + ")";
    tuples.pop();
    next.pop();
    if (top === 0) return s;
    const outer = runs[top - 1];
    if (outer.length > 0) {
      keys[top - 1] += outer.join("");
      outer.length = 0;
    }
    keys[top - 1] = appendKey(keys[top - 1], s);
  }
}

/** Appends an element's key to a tuple's key under construction. */
function appendKey(s: string, k: unknown): string {
  switch (typeof k) {
    case "string":
      return s + "s" + k.length + ":" + k;
    case "number":
      return s + "n" + (Object.is(k, -0) ? 0 : k) + ";";
    case "bigint":
      // Bigints are outside the safe range, so they never equal a number key; hex is linear-time.
      return s + "b" + k.toString(16) + ";";
    case "boolean":
      return s + (k ? "T" : "F");
    default:
      return s + "N";
  }
}

/** A lookup found the entry of `hk`: fails where the reference's key comparison would, else returns `v`. */
function hit<T>(hk: unknown, v: T): T {
  if (isTooDeepKey(hk)) throw tooDeepError();
  return v;
}

/**
 * Per table, an iterator parked at its front for {@link takeFirst}. V8 keeps a deleted entry's slot
 * until the table is rebuilt, and a new iterator walks every such slot: taking the first entry of a table
 * whose front was emptied by earlier takes (`while d: d.popitem()`) would cost O(entries taken) each time,
 * O(n²) in all (262,144 takes from a 3M-entry Map took 30 s). A parked iterator goes on from where it
 * stopped; V8's iterators are live, so they see what is added and skip what is deleted.
 */
const fronts = new WeakMap<Map<unknown, unknown>, Iterator<[unknown, unknown]>>();

/**
 * The first entry of `m` in insertion order, for a caller that removes it at once (the parked iterator
 * has passed it); undefined when `m` is empty. A caller that ends up not removing it calls
 * {@link forgetFront}.
 */
function takeFirst<V>(m: Map<unknown, V>): [unknown, V] | undefined {
  let it = fronts.get(m) as Iterator<[unknown, V]> | undefined;
  if (it === undefined) {
    it = m.entries();
    fronts.set(m, it as Iterator<[unknown, unknown]>);
  }
  const r = it.next();
  if (r.done) {
    fronts.delete(m);
    return undefined;
  }
  return r.value;
}

/** Drops the parked iterator of `m`: the next {@link takeFirst} starts from the front. */
function forgetFront(m: Map<unknown, unknown>): void {
  fronts.delete(m);
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
 * as soon as {@link Dict.map} is read; code that needs no map should use the methods instead. The map is
 * keyed by the {@link tableKey} of each entry's hash key, which a program cannot make collide in V8's
 * buckets; code that walks {@link Dict.map} and looks its keys up in another table uses them as they are.
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
   * Entries by table key ({@link tableKey} of the hash key); JS Map iteration order is insertion order,
   * as in the reference. Reading this converts a compact dict to its map form (once): the map stays valid
   * for the dict's lifetime.
   */
  get map(): Map<unknown, DictEntry> {
    return this.#map ?? this.toMapForm();
  }
  /** Number of entries. */
  get size(): number {
    const s = this.#small;
    return s !== null ? s.length / 3 : this.#map!.size;
  }
  /** Looks a key up; returns `undefined` when absent. Throws {@link UnhashableError}. */
  get(key: Value): Value | undefined {
    if (!(key instanceof Tuple)) {
      return key instanceof Bytes ? this.getValue(key) : this.getByHash(hashKey(key));
    }
    const hk = hashKey(key);
    const v = this.getValue(key, hk);
    return v === undefined ? v : hit(hk, v);
  }
  /**
   * {@link getByHash} for a tuple or bytes key, whose digested table key is kept with it. A TS-private
   * method, not a `#` one (see {@link toMapForm}).
   */
  private getValue(key: Tuple | Bytes, hk: unknown = hashKey(key)): Value | undefined {
    if (this.#small !== null) return this.getByHash(hk);
    const e = this.#map!.get(valueTableKey(key, hk));
    return e === undefined ? undefined : e.value;
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
    const e = this.#map!.get(tableKey(hk));
    return e === undefined ? undefined : e.value;
  }
  /** Inserts or replaces without mutability checks (callers check with {@link checkMutable}). */
  setUnchecked(key: Value, value: Value): void {
    const hk = hashKey(key);
    if (key instanceof Tuple && isTooDeepKey(hk) && this.getByHash(hk) !== undefined) throw tooDeepError();
    this.setByHash(hk, key, value);
  }
  /**
   * {@link setUnchecked}, except that a key too deep to compare with the equal key present is not
   * inserted (no error): returns false then.
   */
  trySet(key: Value, value: Value): boolean {
    const hk = hashKey(key);
    if (key instanceof Tuple && isTooDeepKey(hk) && this.getByHash(hk) !== undefined) return false;
    this.setByHash(hk, key, value);
    return true;
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
      this.toMapForm();
    }
    const m = this.#map!;
    const tk = valueTableKey(key, hk);
    const e = m.get(tk);
    if (e !== undefined) {
      e.value = value;
      return false;
    }
    m.set(tk, { key, value });
    return true;
  }
  /** Removes a key without mutability checks; returns the removed value or `undefined`. */
  deleteUnchecked(key: Value): Value | undefined {
    const k = hashKey(key);
    const s = this.#small;
    if (s !== null) {
      for (let i = 0; i < s.length; i += 3) {
        if (s[i] === k) {
          hit(k, null);
          const v = s[i + 2] as Value;
          s.splice(i, 3);
          return v;
        }
      }
      return undefined;
    }
    const m = this.#map!;
    const tk = valueTableKey(key, k);
    const e = m.get(tk);
    if (e === undefined) return undefined;
    hit(k, null);
    m.delete(tk);
    return e.value;
  }
  /**
   * Removes and returns the first entry in insertion order, without mutability checks (`popitem`);
   * undefined when empty. Fails like {@link Dict.deleteUnchecked} for a key too deep to compare.
   */
  popFirst(): DictEntry | undefined {
    const s = this.#small;
    if (s !== null) {
      if (s.length === 0) return undefined;
      hit(s[0], null);
      const e = { key: s[1] as Value, value: s[2] as Value };
      s.splice(0, 3);
      return e;
    }
    const m = this.#map!;
    const first = takeFirst(m);
    if (first === undefined) return undefined;
    if (isTooDeepKey(first[0])) {
      forgetFront(m);
      hit(first[0], null);
    }
    m.delete(first[0]);
    return first[1];
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
  /**
   * Copies the entries of a compact `src` (not this dict) into this one, in order, without mutability
   * checks: existing keys keep their position and take the new value. Returns false, copying nothing,
   * when `src` is in its hash table form (the caller walks {@link Dict.map} then, with polls).
   *
   * An entry whose key is too deep to compare with the equal key present cannot be inserted: the copy
   * ends there, silently (`onTooDeep` "stop", as the reference ignores that failure in `|`), or with
   * the comparison's error (`"fail"`, as in `update`).
   */
  assignCompact(src: Dict, onTooDeep: "stop" | "fail"): boolean {
    const s = src.#small;
    if (s === null) return false;
    if (this.#small === NO_ENTRIES && s.length > 0) {
      // A copy into an empty dict: the triples as they are.
      this.#small = s.slice();
      return true;
    }
    for (let i = 0; i < s.length; i += 3) {
      if (isTooDeepKey(s[i]) && this.getByHash(s[i]) !== undefined) {
        if (onTooDeep === "stop") return true;
        throw tooDeepError();
      }
      this.setByHash(s[i], s[i + 1] as Value, s[i + 2] as Value);
    }
    return true;
  }
  /** Removes every entry without mutability checks; a compact dict stays compact, a hash table stays one. */
  clearUnchecked(): void {
    if (this.#map !== null) {
      this.#map.clear();
      forgetFront(this.#map);
    } else this.#small = NO_ENTRIES;
  }
  /** Values in insertion order (position i goes with position i of {@link Dict.keys}). */
  valueList(): Value[] {
    const out: Value[] = [];
    const s = this.#small;
    if (s !== null) {
      for (let i = 2; i < s.length; i += 3) out.push(s[i] as Value);
    } else {
      for (const e of this.#map!.values()) out.push(e.value);
    }
    return out;
  }
  /**
   * @internal The compact form's `[hashKey, key, value]` triples in insertion order, or null once the
   * dict is a hash table. Read-only for callers, and only valid until the dict is next modified: a
   * reader that may run code between two reads must copy it first. It lets a hot reader (json.encode)
   * walk a record without the two arrays of {@link keys} and {@link valueList}.
   */
  compactTriples(): readonly unknown[] | null {
    return this.#small;
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
      m.set(tableKey(triples[i]), { key: triples[i + 1] as Value, value: triples[i + 2] as Value });
    }
    this.#small = null;
    this.#map = m;
  }
  /**
   * Switches to the hash table form for good. A TS-private method, not a `#` one: a class with `#`
   * methods gives every instance a brand slot (8 bytes more per dict, of 56).
   */
  private toMapForm(): Map<unknown, DictEntry> {
    const m = new Map<unknown, DictEntry>();
    const s = this.#small!;
    for (let i = 0; i < s.length; i += 3) {
      m.set(tableKey(s[i]), { key: s[i + 1] as Value, value: s[i + 2] as Value });
    }
    this.#small = null;
    this.#map = m;
    return m;
  }
}

/** A Starlark set: insertion-ordered, keyed like {@link Dict}. */
export class StarSet extends StarObject implements Mutable {
  /** Elements by table key ({@link tableKey} of the hash key). */
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
    const k = hashKey(v);
    return this.map.has(valueTableKey(v, k)) && (!(v instanceof Tuple) || hit(k, true));
  }
  /** Adds without mutability checks. */
  addUnchecked(v: Value): void {
    const k = hashKey(v);
    const tk = valueTableKey(v, k);
    if (!this.map.has(tk)) this.map.set(tk, v);
    else if (v instanceof Tuple) hit(k, null);
  }
  /**
   * Removes the element of hash key `hk` without mutability checks; returns whether it was there. Like
   * the reference's deletion, which compares the keys, it fails for a key too deep to compare (even
   * with itself: `pop` of such an element fails). Throws {@link UnhashableError} then. `v`, the element
   * itself when the caller has it, lets a long tuple or bytes key's kept table key be used.
   */
  deleteByHash(hk: unknown, v?: Value): boolean {
    const tk = v === undefined ? tableKey(hk) : valueTableKey(v, hk);
    return this.map.has(tk) && hit(hk, this.map.delete(tk));
  }
  /**
   * Removes and returns the first element in insertion order, without mutability checks (`pop`);
   * undefined when empty. Fails like {@link StarSet.deleteByHash} for an element too deep to compare.
   */
  popFirst(): Value | undefined {
    const first = takeFirst(this.map);
    if (first === undefined) return undefined;
    if (isTooDeepKey(first[0])) {
      forgetFront(this.map);
      hit(first[0], null);
    }
    this.map.delete(first[0]);
    return first[1];
  }
  /** Elements in insertion order. */
  elems(): Value[] {
    return [...this.map.values()];
  }
}
