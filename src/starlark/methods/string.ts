/**
 * Methods of `string`. Strings are binary strings of UTF-8 bytes: searching, counting, splitting and
 * indices work on bytes like the reference, while case and classification methods decode runes.
 *
 * @module
 */
import {
  anyArg,
  boolArg,
  checkPositional,
  intArg,
  iterableArg,
  sliceIndices,
  stringArg,
  unpackPositional,
} from "../args.ts";
import { EvalError, List, Tuple, typeName } from "../value.ts";
import type { Kwargs, Thread, Value } from "../value.ts";
import { decodeRune, runeCount, runeOf, sizeOf } from "../utf8.ts";
import { chargeBytes, forEach } from "../builtins/util.ts";
import {
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
  chargeBytes(thread, s.length);
  for (let i = 0; i < s.length;) {
    const p = decodeRune(s, i);
    if (!pred(runeOf(p))) return false;
    i += sizeOf(p);
  }
  return s !== "";
}

function hasCased(s: string): boolean {
  for (let i = 0; i < s.length;) {
    const p = decodeRune(s, i);
    if (isCased(runeOf(p))) return true;
    i += sizeOf(p);
  }
  return false;
}

/** Go's `strings.ToLower`. */
export function lowerString(s: string): string {
  if (isASCII(s)) return s.toLowerCase();
  return mapRunes(s, toLower);
}

/** Go's `strings.ToUpper`. */
export function upperString(s: string): string {
  if (isASCII(s)) return s.toUpperCase();
  return mapRunes(s, toUpper);
}

/** Go's `strings.Count`: non-overlapping occurrences; an empty `sub` counts rune boundaries. */
function countSub(s: string, sub: string): number {
  if (sub === "") return runeCount(s) + 1;
  let n = 0;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

function findImpl(
  name: string,
  s: string,
  args: Value[],
  kwargs: Kwargs,
  allowError: boolean,
  last: boolean,
) {
  const [sub, start, end] = unpackPositional(name, args, kwargs, 1, stringArg, anyArg, anyArg) as [
    string,
    Value | undefined,
    Value | undefined,
  ];
  const [lo, hi] = withPrefix(name, () => sliceIndices(start, end, s.length));
  const slice = lo < hi ? s.slice(lo, hi) : "";
  const i = last ? slice.lastIndexOf(sub) : slice.indexOf(sub);
  if (i < 0) {
    if (!allowError) throw new EvalError(`${name}: substring not found`);
    return -1;
  }
  return i + lo;
}

/** The set of runes of a strip cutset (invalid bytes decode as U+FFFD, as in Go). */
function runeSet(chars: string): Set<number> {
  const set = new Set<number>();
  for (let i = 0; i < chars.length;) {
    const p = decodeRune(chars, i);
    set.add(runeOf(p));
    i += sizeOf(p);
  }
  return set;
}

function trimLeft(s: string, match: (r: number) => boolean): string {
  let i = 0;
  while (i < s.length) {
    const p = decodeRune(s, i);
    if (!match(runeOf(p))) break;
    i += sizeOf(p);
  }
  return s.slice(i);
}

function trimRight(s: string, match: (r: number) => boolean): string {
  let end = s.length;
  while (end > 0) {
    const p = decodeLastRune(s, end);
    if (!match(runeOf(p))) break;
    end -= sizeOf(p);
  }
  return s.slice(0, end);
}

const strip: StrFn = (thread, s, args, kwargs, name) => {
  const [chars] = unpackPositional(name, args, kwargs, 0, stringArg);
  chargeBytes(thread, s.length);
  let match: (r: number) => boolean = isSpace;
  if (chars !== undefined && chars !== "") {
    const set = runeSet(chars);
    match = (r) => set.has(r);
  }
  if (name[0] === "l") return trimLeft(s, match);
  if (name[0] === "r") return trimRight(s, match);
  return trimRight(trimLeft(s, match), match);
};

const startsWith: StrFn = (thread, s, args, kwargs, name) => {
  const [x, start, end] = unpackPositional(name, args, kwargs, 1, anyArg, anyArg, anyArg) as [
    Value,
    Value | undefined,
    Value | undefined,
  ];
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
      if (test(p)) return true;
    }
    return false;
  }
  if (typeof x === "string") return test(x);
  throw new EvalError(`${name}: got ${typeName(x)}, want string or tuple of string`);
};

const partition: StrFn = (thread, s, args, kwargs, name) => {
  const [sep] = unpackPositional(name, args, kwargs, 1, stringArg) as [string];
  if (sep === "") throw new EvalError(`${name}: empty separator`);
  chargeBytes(thread, s.length);
  const first = name[0] === "p";
  const i = first ? s.indexOf(sep) : s.lastIndexOf(sep);
  if (i < 0) return first ? new Tuple([s, "", ""]) : new Tuple(["", "", s]);
  return new Tuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
};

const removeFix: StrFn = (thread, s, args, kwargs, name) => {
  const [fix] = unpackPositional(name, args, kwargs, 1, stringArg) as [string];
  chargeBytes(thread, fix.length);
  if (name === "removeprefix") return s.startsWith(fix) ? s.slice(fix.length) : s;
  return s.endsWith(fix) ? s.slice(0, s.length - fix.length) : s;
};

/** Go's `strings.Replace(s, old, new, n)` with budget checks before the result is built. */
function replaceImpl(thread: Thread, s: string, old: string, rep: string, n: number): string {
  if (old === rep || n === 0) return s;
  chargeBytes(thread, s.length);
  const m = countSub(s, old);
  if (m === 0) return s;
  if (n < 0 || m < n) n = m;
  const size = s.length + n * (rep.length - old.length);
  thread.allocate(size);
  chargeBytes(thread, size);
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    let j = start;
    if (old.length === 0) {
      if (i > 0) j += sizeOf(decodeRune(s, start));
    } else {
      j = s.indexOf(old, start);
    }
    parts.push(s.slice(start, j), rep);
    start = j + old.length;
  }
  parts.push(s.slice(start));
  return parts.join("");
}

const replace: StrFn = (thread, s, args, kwargs, name) => {
  const [old, rep, count] = unpackPositional(name, args, kwargs, 2, stringArg, stringArg, intArg) as [
    string,
    string,
    number | undefined,
  ];
  return replaceImpl(thread, s, old, rep, count ?? -1);
};

const split: StrFn = (thread, s, args, kwargs, name) => {
  const [sep, maxArg] = unpackPositional(name, args, kwargs, 0, anyArg, intArg);
  const max = maxArg ?? -1;
  chargeBytes(thread, s.length);
  let res: string[];
  if (sep === undefined || sep === null) {
    if (max < 0) res = splitFields(s);
    else if (name === "split") res = splitSpace(s, max);
    else res = rsplitSpace(s, max);
  } else if (typeof sep === "string") {
    if (sep === "") throw new EvalError("split: empty separator");
    res = s.split(sep);
    if (max >= 0 && res.length > max + 1) {
      if (name === "split") res = [...res.slice(0, max), res.slice(max).join(sep)];
      else {
        const excess = res.length - max;
        res = [res.slice(0, excess).join(sep), ...res.slice(excess)];
      }
    }
  } else {
    throw new EvalError(`split: got ${typeName(sep)} for separator, want string`);
  }
  thread.allocate(8 * res.length);
  return new List(res);
};

const splitlines: StrFn = (thread, s, args, kwargs, name) => {
  const [keepends] = unpackPositional(name, args, kwargs, 0, boolArg);
  chargeBytes(thread, s.length);
  if (s === "") return new List([]);
  let lines: string[];
  if (keepends) {
    lines = s.split("\n").map((l, i, a) => (i < a.length - 1 ? l + "\n" : l));
  } else {
    lines = s.split("\n");
  }
  if (s.endsWith("\n")) lines.pop();
  thread.allocate(8 * lines.length);
  return new List(lines);
};

const join: StrFn = (thread, s, args, kwargs, name) => {
  const [it] = unpackPositional(name, args, kwargs, 1, iterableArg) as [Value];
  const parts: string[] = [];
  let total = 0;
  forEach(thread, it, (x) => {
    if (typeof x !== "string") throw new EvalError(`join: in list, want string, got ${typeName(x)}`);
    total += x.length + (parts.length > 0 ? s.length : 0);
    thread.allocate(x.length + s.length);
    parts.push(x);
  });
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
  chargeBytes(thread, hi - lo);
  return countSub(lo < hi ? s.slice(lo, hi) : "", sub);
};

const capitalize: StrFn = (thread, s, args, kwargs, name) => {
  noArgs(name, args, kwargs);
  chargeBytes(thread, s.length);
  thread.allocate(s.length);
  let first = true;
  return mapRunes(s, (r) => {
    const out = first ? toTitle(r) : toLower(r);
    first = false;
    return out;
  });
};

const title: StrFn = (thread, s, args, kwargs, name) => {
  noArgs(name, args, kwargs);
  chargeBytes(thread, s.length);
  thread.allocate(s.length);
  let prevCased = false;
  return mapRunes(s, (r) => {
    r = prevCased ? toLower(r) : toTitle(r);
    prevCased = isCased(r);
    return r;
  });
};

const istitle: StrFn = (thread, s, args, kwargs, name) => {
  noArgs(name, args, kwargs);
  chargeBytes(thread, s.length);
  let cased = false, prevCased = false;
  for (let i = 0; i < s.length;) {
    const p = decodeRune(s, i);
    const r = runeOf(p);
    i += sizeOf(p);
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
  }
  return cased;
};

function classify(pred: (r: number) => boolean): StrFn {
  return (thread, s, args, kwargs, name) => {
    noArgs(name, args, kwargs);
    return allRunes(thread, s, pred);
  };
}

function caseTest(convert: (s: string) => string): StrFn {
  return (thread, s, args, kwargs, name) => {
    noArgs(name, args, kwargs);
    chargeBytes(thread, s.length);
    return hasCased(s) && convert(s) === s;
  };
}

function caseConvert(convert: (s: string) => string): StrFn {
  return (thread, s, args, kwargs, name) => {
    noArgs(name, args, kwargs);
    chargeBytes(thread, s.length);
    thread.allocate(s.length);
    return convert(s);
  };
}

const STRING_FUNCS: [string, StrFn][] = [
  ["capitalize", capitalize],
  ["count", count],
  ["endswith", startsWith],
  ["find", (_t, s, a, k, n) => findImpl(n, s, a, k, true, false)],
  ["format", (t, s, a, k) => formatMethod(t, s, a, k)],
  ["index", (_t, s, a, k, n) => findImpl(n, s, a, k, false, false)],
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
  ["rfind", (_t, s, a, k, n) => findImpl(n, s, a, k, true, true)],
  ["rindex", (_t, s, a, k, n) => findImpl(n, s, a, k, false, true)],
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
