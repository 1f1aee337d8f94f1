/**
 * Methods of `string`. Strings are binary strings of UTF-8 bytes: searching, counting, splitting and
 * indices work on bytes like the reference, while case and classification methods decode runes.
 *
 * @module
 */
import {
  anyArg,
  boolArg,
  chargeBytes,
  chargeRunes,
  checkPositional,
  countMatches,
  decodeRune,
  EvalError,
  findIndex,
  findLastIndex,
  forEach,
  forEachMatch,
  intArg,
  iterableArg,
  type Kwargs,
  List,
  MAX_STRING_LENGTH,
  runeCount,
  runeOf,
  sizeOf,
  sliceIndices,
  SLOT_BYTES,
  stringArg,
  TEXT_POLL_CHUNK,
  type Thread,
  tooLongString,
  Tuple,
  typeName,
  unpackPositional,
  type Value,
} from "../values/mod.ts";
import {
  cutsetMatcher,
  decodeLastRune,
  isASCII,
  isCased,
  isDigit,
  isLetter,
  isLower,
  isSpace,
  isTitle,
  isUpper,
  mapRunes,
  RuneMeter,
  toLower,
  toTitle,
  toUpper,
} from "./unicode.ts";
import { rsplitSpace, splitFields, splitSpace } from "./string_split.ts";
import { formatMethod } from "./string_format.ts";
import type { MethodFn } from "./mod.ts";

type StrFn = (thread: Thread, s: string, args: Value[], kwargs: Kwargs, name: string) => Value;

function withPrefix<T>(name: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof EvalError) throw new EvalError(`${name}: ${e.message}`);
    throw e;
  }
}

function noArgs(name: string, args: Value[], kwargs: Kwargs): void {
  checkPositional(name, args, kwargs, 0, 0);
}

/** Every rune of `s` satisfies `pred`, and `s` is non-empty. */
function allRunes(thread: Thread, s: string, pred: (r: number) => boolean): boolean {
  const meter = new RuneMeter(thread);
  try {
    for (let i = 0; i < s.length;) {
      const p = decodeRune(s, i);
      const r = runeOf(p);
      meter.rune(r);
      if (!pred(r)) return false;
      i += sizeOf(p);
    }
  } finally {
    meter.flush();
  }
  return s !== "";
}

function hasCased(thread: Thread, s: string): boolean {
  return !allRunes(thread, s, (r) => !isCased(r)) && s !== "";
}

/** Bytes per step of a native case conversion of ASCII text. */
const CASE_BYTES_PER_STEP = 8;

/** Go's `strings.ToLower`. */
function lowerString(thread: Thread, s: string): string {
  if (isASCII(s)) {
    thread.charge(1 + Math.floor(s.length / CASE_BYTES_PER_STEP));
    return s.toLowerCase();
  }
  return mapRunes(thread, s, toLower);
}

/** Go's `strings.ToUpper`. */
function upperString(thread: Thread, s: string): string {
  if (isASCII(s)) {
    thread.charge(1 + Math.floor(s.length / CASE_BYTES_PER_STEP));
    return s.toUpperCase();
  }
  return mapRunes(thread, s, toUpper);
}

/** `title()` of ASCII text: an upper-case letter after each non-letter, lower case elsewhere. */
function asciiTitle(thread: Thread, s: string): string {
  const out: string[] = [];
  const codes: number[] = [];
  let prevCased = false;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    const upper = c >= 0x41 && c <= 0x5a, lower = c >= 0x61 && c <= 0x7a;
    if (upper || lower) {
      if (prevCased && upper) c += 32;
      else if (!prevCased && lower) c -= 32;
      prevCased = true;
    } else prevCased = false;
    codes.push(c);
    if (codes.length === 8192) {
      out.push(String.fromCharCode.apply(null, codes));
      codes.length = 0;
      thread.poll();
    }
  }
  out.push(String.fromCharCode.apply(null, codes));
  return out.length === 1 ? out[0] : out.join("");
}

/** Go's `strings.Count` on `s[lo:hi]`: non-overlapping occurrences; an empty `sub` counts rune boundaries. */
function countSub(thread: Thread, s: string, sub: string, lo: number, hi: number): number {
  if (lo >= hi) return sub === "" ? 1 : 0;
  if (sub === "") {
    const slice = s.slice(lo, hi);
    chargeRunes(thread, slice);
    return runeCount(slice) + 1;
  }
  return countMatches(thread, s, sub, lo, hi);
}

function findImpl(
  thread: Thread,
  name: string,
  s: string,
  args: Value[],
  kwargs: Kwargs,
  allowError: boolean,
  last: boolean,
): Value {
  const [sub, start, end] = unpackPositional(name, args, kwargs, 1, stringArg, anyArg, anyArg) as [
    string,
    Value | undefined,
    Value | undefined,
  ];
  const [lo, hi] = withPrefix(name, () => sliceIndices(start, end, s.length));
  // Like the reference, an empty window is searched as the empty string.
  let i: number;
  if (lo >= hi) i = sub === "" ? lo : -1;
  else i = last ? findLastIndex(thread, s, sub, lo, hi) : findIndex(thread, s, sub, lo, hi);
  if (i < 0) {
    if (!allowError) throw new EvalError(`${name}: substring not found`);
    return -1;
  }
  return i;
}

/**
 * Charges the runes a trim examined when all were ASCII, in the amounts a {@link RuneMeter} charges them
 * (one step each, flushed per 1,024), so the budgets see the same charges as on the rune-by-rune path.
 */
function chargeASCIIRunes(thread: Thread, n: number): void {
  for (; n >= 1024; n -= 1024) thread.charge(1024);
  if (n > 0) thread.charge(n);
}

function trimLeft(thread: Thread, s: string, match: (r: number) => boolean): string {
  // ASCII needs no rune decoding; a non-ASCII byte among the examined ones sends it all the long way.
  const n = s.length;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return trimLeftRunes(thread, s, match);
    if (!match(c)) break;
  }
  chargeASCIIRunes(thread, i < n ? i + 1 : i);
  return i === 0 ? s : s.slice(i);
}

function trimRight(thread: Thread, s: string, match: (r: number) => boolean): string {
  let end = s.length;
  for (; end > 0; end--) {
    const c = s.charCodeAt(end - 1);
    if (c >= 0x80) return trimRightRunes(thread, s, match);
    if (!match(c)) break;
  }
  chargeASCIIRunes(thread, end > 0 ? s.length - end + 1 : s.length);
  return end === s.length ? s : s.slice(0, end);
}

function trimLeftRunes(thread: Thread, s: string, match: (r: number) => boolean): string {
  const meter = new RuneMeter(thread);
  let i = 0;
  while (i < s.length) {
    const p = decodeRune(s, i);
    const r = runeOf(p);
    meter.rune(r);
    if (!match(r)) break;
    i += sizeOf(p);
  }
  meter.flush();
  return s.slice(i);
}

function trimRightRunes(thread: Thread, s: string, match: (r: number) => boolean): string {
  const meter = new RuneMeter(thread);
  let end = s.length;
  while (end > 0) {
    const p = decodeLastRune(s, end);
    const r = runeOf(p);
    meter.rune(r);
    if (!match(r)) break;
    end -= sizeOf(p);
  }
  meter.flush();
  return s.slice(0, end);
}

const strip: StrFn = (thread, s, args, kwargs, name) => {
  const [chars] = args.length === 0 && kwargs.length === 0
    ? [undefined]
    : unpackPositional(name, args, kwargs, 0, stringArg);
  let match: (r: number) => boolean = isSpace;
  if (chars !== undefined && chars !== "") {
    chargeRunes(thread, chars);
    match = cutsetMatcher(chars);
  }
  if (name[0] === "l") return trimLeft(thread, s, match);
  if (name[0] === "r") return trimRight(thread, s, match);
  return trimRight(thread, trimLeft(thread, s, match), match);
};

/** Bytes per step of a comparison of a prefix or suffix (compared byte by byte). */
const COMPARE_BYTES_PER_STEP = 16;

function chargeCompare(thread: Thread, affix: string): void {
  if (affix.length >= COMPARE_BYTES_PER_STEP) {
    thread.charge(Math.floor(affix.length / COMPARE_BYTES_PER_STEP));
  }
}

const startsWith: StrFn = (thread, s, args, kwargs, name) => {
  if (args.length === 1 && kwargs.length === 0 && typeof args[0] === "string") {
    // The common call: the whole string, one affix (no unpacking, no slice, no closure).
    chargeCompare(thread, args[0]);
    return name[0] === "e" ? s.endsWith(args[0]) : s.startsWith(args[0]);
  }
  const [x, start, end] = unpackPositional(name, args, kwargs, 1, anyArg, anyArg, anyArg) as [
    Value,
    Value | undefined,
    Value | undefined,
  ];
  if (start === undefined && end === undefined && typeof x === "string") {
    // The common call: the whole string, one affix (no slice, no closure).
    chargeCompare(thread, x);
    return name[0] === "e" ? s.endsWith(x) : s.startsWith(x);
  }
  const [lo, hi] = withPrefix(name, () => sliceIndices(start ?? null, end ?? null, s.length));
  const sub = s.slice(lo, hi < lo ? lo : hi);
  const test = name[0] === "e" ? (p: string) => sub.endsWith(p) : (p: string) => sub.startsWith(p);
  if (x instanceof Tuple) {
    thread.charge(x.elems.length);
    for (let i = 0; i < x.elems.length; i++) {
      const p = x.elems[i];
      if (typeof p !== "string") {
        throw new EvalError(`${name}: want string, got ${typeName(p)}, for element ${i}`);
      }
      chargeCompare(thread, p);
      if (test(p)) return true;
    }
    return false;
  }
  if (typeof x === "string") {
    chargeCompare(thread, x);
    return test(x);
  }
  throw new EvalError(`${name}: got ${typeName(x)}, want string or tuple of string`);
};

const partition: StrFn = (thread, s, args, kwargs, name) => {
  const sep = args.length === 1 && kwargs.length === 0 && typeof args[0] === "string"
    ? args[0]
    : unpackPositional(name, args, kwargs, 1, stringArg)[0] as string;
  if (sep === "") throw new EvalError(`${name}: empty separator`);
  const first = name[0] === "p";
  const i = first ? findIndex(thread, s, sep) : findLastIndex(thread, s, sep);
  if (i < 0) return first ? new Tuple([s, "", ""]) : new Tuple(["", "", s]);
  return new Tuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
};

const removeFix: StrFn = (thread, s, args, kwargs, name) => {
  const [fix] = unpackPositional(name, args, kwargs, 1, stringArg) as [string];
  chargeCompare(thread, fix);
  if (name === "removeprefix") return s.startsWith(fix) ? s.slice(fix.length) : s;
  return s.endsWith(fix) ? s.slice(0, s.length - fix.length) : s;
};

/** Parts joined into one string per this many, so that huge results are built from few big strings. */
const JOIN_BATCH = 4096;

/** Steps charged per part a method creates (a substring and its slot), on top of the search. */
const STEPS_PER_PART = 2;
/** Bytes charged per part: its slot and a string header. */
const PART_BYTES = 24;

function chargeParts(thread: Thread, n: number): void {
  thread.charge(STEPS_PER_PART * n);
  thread.allocate(PART_BYTES * n);
}

/**
 * Go's `strings.Replace(s, old, new, n)` (n < 0: all). The occurrences are counted first, so that the
 * result's size is charged to the memory budget before it is built.
 */
function replaceImpl(thread: Thread, s: string, old: string, rep: string, n: number): string {
  if (old === rep || n === 0) return s;
  const limit = n < 0 ? Infinity : n;
  const count = old === "" ? Math.min(limit, countSub(thread, s, "", 0, s.length)) : countMatches(
    thread,
    s,
    old,
    0,
    s.length,
    limit,
  );
  if (count === 0) return s;
  const size = s.length + count * (rep.length - old.length);
  if (size > MAX_STRING_LENGTH) throw tooLongString(size);
  thread.allocate(size);
  chargeBytes(thread, size);
  thread.charge(STEPS_PER_PART * count);
  const out: string[] = [];
  let parts: string[] = [];
  let start = 0;
  const cut = (i: number): void => {
    parts.push(s.slice(start, i), rep);
    if (parts.length >= JOIN_BATCH) {
      out.push(parts.join(""));
      parts = [];
    }
  };
  if (old === "") {
    // Before each rune (and at the end), like Go.
    for (let k = 0; k < count; k++) {
      const i = k === 0 ? 0 : start + sizeOf(decodeRune(s, start));
      cut(i);
      start = i;
      if ((k & (TEXT_POLL_CHUNK - 1)) === TEXT_POLL_CHUNK - 1) thread.poll(); // charged above
    }
  } else {
    forEachMatch(thread, s, old, 0, s.length, count, (i) => {
      cut(i);
      start = i + old.length;
    });
  }
  parts.push(s.slice(start));
  out.push(parts.join(""));
  return out.length === 1 ? out[0] : out.join("");
}

const replace: StrFn = (thread, s, args, kwargs, name) => {
  const [old, rep, count] = unpackPositional(name, args, kwargs, 2, stringArg, stringArg, intArg) as [
    string,
    string,
    number | undefined,
  ];
  return replaceImpl(thread, s, old, rep, count ?? -1);
};

/**
 * The parts of `s` between occurrences of `sep` (non-empty), at most `max` cuts when `max` ≥ 0 (Go's
 * `strings.SplitN(s, sep, max + 1)`); each part is charged before it is kept. `keepSep` leaves the
 * separator at the end of each part (Go's `SplitAfter`).
 */
function splitOn(thread: Thread, s: string, sep: string, max: number, keepSep = false): string[] {
  const res: string[] = [];
  let start = 0;
  const keep = keepSep ? sep.length : 0;
  forEachMatch(thread, s, sep, 0, s.length, max < 0 ? Infinity : max, (i) => {
    chargeParts(thread, 1);
    res.push(s.slice(start, i + keep));
    start = i + sep.length;
  });
  chargeParts(thread, 1);
  res.push(s.slice(start));
  return res;
}

const split: StrFn = (thread, s, args, kwargs, name) => {
  // `s.split(sep)` and `s.split()` need no unpacking.
  const [sep, maxArg] = args.length <= 1 && kwargs.length === 0
    ? [args[0], undefined]
    : unpackPositional(name, args, kwargs, 0, anyArg, intArg);
  const max = maxArg ?? -1;
  let res: string[];
  if (sep === undefined || sep === null) {
    chargeRunes(thread, s);
    if (max < 0) res = splitFields(s, thread);
    else if (name === "split") res = splitSpace(s, max, thread);
    else res = rsplitSpace(s, max, thread);
    chargeParts(thread, res.length);
  } else if (typeof sep === "string") {
    if (sep === "") throw new EvalError("split: empty separator");
    if (name === "split" || max < 0) res = splitOn(thread, s, sep, max);
    else {
      // The reference splits everywhere, then joins the leading parts back.
      res = splitOn(thread, s, sep, -1);
      const excess = res.length - max;
      if (excess > 1) {
        const head = res.slice(0, excess);
        let size = 0;
        for (const p of head) size += p.length + sep.length;
        thread.allocate(size);
        chargeBytes(thread, size);
        res = [head.join(sep), ...res.slice(excess)];
      }
    }
  } else {
    throw new EvalError(`split: got ${typeName(sep)} for separator, want string`);
  }
  return new List(res);
};

const splitlines: StrFn = (thread, s, args, kwargs, name) => {
  const [keepends] = unpackPositional(name, args, kwargs, 0, boolArg);
  if (s === "") return new List([]);
  const lines = splitOn(thread, s, "\n", -1, keepends === true);
  if (s.endsWith("\n")) lines.pop();
  return new List(lines);
};

const join: StrFn = (thread, s, args, kwargs, name) => {
  const [it] = unpackPositional(name, args, kwargs, 1, iterableArg) as [Value];
  let parts: readonly Value[];
  if (it instanceof List || it instanceof Tuple) parts = it.elems;
  else {
    const collected: Value[] = [];
    forEach(thread, it, (x) => {
      thread.allocate(SLOT_BYTES);
      collected.push(x);
    });
    parts = collected;
  }
  // One step per part (the check and the join's copy of the reference), and the bytes of the result.
  thread.charge(parts.length);
  let total = parts.length > 0 ? s.length * (parts.length - 1) : 0;
  for (let i = 0; i < parts.length; i++) {
    const x = parts[i];
    if (typeof x !== "string") throw new EvalError(`join: in list, want string, got ${typeName(x)}`);
    total += x.length;
  }
  if (total > MAX_STRING_LENGTH) throw tooLongString(total);
  thread.allocate(total);
  chargeBytes(thread, total);
  return parts.join(s);
};

const count: StrFn = (thread, s, args, kwargs, name) => {
  const [sub, start, end] = unpackPositional(name, args, kwargs, 1, stringArg, anyArg, anyArg) as [
    string,
    Value | undefined,
    Value | undefined,
  ];
  const [lo, hi] = withPrefix(name, () => sliceIndices(start, end, s.length));
  return countSub(thread, s, sub, lo, hi);
};

const capitalize: StrFn = (thread, s, args, kwargs, name) => {
  noArgs(name, args, kwargs);
  thread.allocate(s.length);
  if (isASCII(s)) {
    thread.charge(1 + Math.floor(s.length / CASE_BYTES_PER_STEP));
    return s.slice(0, 1).toUpperCase() + s.slice(1).toLowerCase();
  }
  let first = true;
  return mapRunes(thread, s, (r) => {
    const out = first ? toTitle(r) : toLower(r);
    first = false;
    return out;
  });
};

const title: StrFn = (thread, s, args, kwargs, name) => {
  noArgs(name, args, kwargs);
  thread.allocate(s.length);
  if (isASCII(s)) {
    // A byte loop in JS.
    thread.charge(1 + s.length);
    return asciiTitle(thread, s);
  }
  let prevCased = false;
  return mapRunes(thread, s, (r) => {
    r = prevCased ? toLower(r) : toTitle(r);
    prevCased = isCased(r);
    return r;
  });
};

const istitle: StrFn = (thread, s, args, kwargs, name) => {
  noArgs(name, args, kwargs);
  let cased = false, prevCased = false;
  const ok = allRunes(thread, s, (r) => {
    if ((r >= 0x41 && r <= 0x5a) || isTitle(r)) {
      if (prevCased) return false;
      prevCased = cased = true;
    } else if (isLower(r)) {
      if (!prevCased) return false;
      prevCased = cased = true;
    } else if (isUpper(r)) {
      return false;
    } else {
      prevCased = false;
    }
    return true;
  });
  return ok && cased;
};

function classify(pred: (r: number) => boolean): StrFn {
  return (thread, s, args, kwargs, name) => {
    noArgs(name, args, kwargs);
    return allRunes(thread, s, pred);
  };
}

function caseTest(convert: (thread: Thread, s: string) => string): StrFn {
  return (thread, s, args, kwargs, name) => {
    noArgs(name, args, kwargs);
    chargeBytes(thread, s.length);
    return hasCased(thread, s) && convert(thread, s) === s;
  };
}

function caseConvert(convert: (thread: Thread, s: string) => string): StrFn {
  return (thread, s, args, kwargs, name) => {
    noArgs(name, args, kwargs);
    chargeBytes(thread, s.length);
    thread.allocate(s.length);
    return convert(thread, s);
  };
}

const STRING_FUNCS: [string, StrFn][] = [
  ["capitalize", capitalize],
  ["count", count],
  ["endswith", startsWith],
  ["find", (t, s, a, k, n) => findImpl(t, n, s, a, k, true, false)],
  ["format", (t, s, a, k) => formatMethod(t, s, a, k)],
  ["index", (t, s, a, k, n) => findImpl(t, n, s, a, k, false, false)],
  ["isalnum", classify((r) => isLetter(r) || isDigit(r))],
  ["isalpha", classify(isLetter)],
  ["isdigit", classify(isDigit)],
  ["islower", caseTest(lowerString)],
  ["isspace", classify(isSpace)],
  ["istitle", istitle],
  ["isupper", caseTest(upperString)],
  ["join", join],
  ["lower", caseConvert(lowerString)],
  ["lstrip", strip],
  ["partition", partition],
  ["removeprefix", removeFix],
  ["removesuffix", removeFix],
  ["replace", replace],
  ["rfind", (t, s, a, k, n) => findImpl(t, n, s, a, k, true, true)],
  ["rindex", (t, s, a, k, n) => findImpl(t, n, s, a, k, false, true)],
  ["rpartition", partition],
  ["rsplit", split],
  ["rstrip", strip],
  ["split", split],
  ["splitlines", splitlines],
  ["startswith", startsWith],
  ["strip", strip],
  ["title", title],
  ["upper", caseConvert(upperString)],
];

/** Builds the string method table; `extra` adds methods implemented elsewhere (the iterable views). */
export function stringMethods(extra: [string, MethodFn][] = []): Map<string, MethodFn> {
  const m = new Map<string, MethodFn>(extra);
  for (const [name, f] of STRING_FUNCS) {
    m.set(name, (thread, recv, args, kwargs) => f(thread, recv as string, args, kwargs, name));
  }
  return m;
}
