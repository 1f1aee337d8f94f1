/**
 * Tool-name patterns, one meaning for every place that selects tools by name: the gateway's access
 * policy (`allow`/`deny`) and the limits' `tools:` lists. It lives here because the limits stand alone
 * and the gateway may import them, not the reverse.
 *
 * The semantics, stated once (docs/gateway.md repeats them for operators):
 * - a pattern is matched against the whole namespaced name `downstream__tool`, never a part of it;
 * - every character but `*` matches itself, case-sensitively;
 * - `*` matches any run of characters, including none and including the separator `__` (so
 *   `memory__*` keeps meaning every tool of `memory`, even one whose own name contains `__`);
 * - the pattern must contain the separator `__` with something before and after it, so a typo such
 *   as a bare `*` or `mem*` is refused instead of silently selecting every downstream.
 *
 * @module
 */

/** The separator of namespaced tool names (the gateway's `downstream__tool`). */
const SEPARATOR = "__";
/** The wildcard character. */
export const WILDCARD = "*";
/** The longest pattern accepted (the gateway's longest tool name). */
export const MAX_PATTERN_LENGTH = 256;

/** A pattern split at its first separator. */
export interface PatternParts {
  /** What comes before the first `__`: a downstream name, or a pattern over names when it holds `*`. */
  readonly downstream: string;
  /** What comes after the first `__`. */
  readonly tool: string;
}

/**
 * Checks the shape of a tool pattern, returning why it is not one (or `undefined`): at most
 * {@link MAX_PATTERN_LENGTH} characters, a `__` with a non-empty part on each side, and a tool part that
 * does not start with a second separator (`a____b`, which no tool name can be).
 */
export function toolGlobProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return `"${pattern.slice(0, 40)}...": longer than ${MAX_PATTERN_LENGTH} characters`;
  }
  const parts = splitPattern(pattern);
  if (parts === undefined || parts.downstream === "" || parts.tool === "") {
    return `"${pattern}" is not a namespaced tool pattern (downstream__tool, with "*" for any run of characters)`;
  }
  if (parts.tool.startsWith(SEPARATOR)) return `"${pattern}": doubled "${SEPARATOR}" separator`;
  return undefined;
}

/** Splits a pattern at its first `__`, or `undefined` when it has none. */
export function splitPattern(pattern: string): PatternParts | undefined {
  const at = pattern.indexOf(SEPARATOR);
  if (at < 0) return undefined;
  return { downstream: pattern.slice(0, at), tool: pattern.slice(at + SEPARATOR.length) };
}

/** Whether a pattern holds a wildcard (otherwise it names exactly one tool). */
export function isGlob(pattern: string): boolean {
  return pattern.includes(WILDCARD);
}

/**
 * Whether `name` matches `pattern` as a whole under the semantics above. Linear in practice: the classic
 * two-pointer match that backtracks only to the last `*`, so a hostile name cannot make it explode.
 */
export function globMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] === WILDCARD) {
      star = p++;
      resume = n;
    } else if (p < pattern.length && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === WILDCARD) p++;
  return p === pattern.length;
}

/**
 * Whether every name `inner` matches is matched by `outer` too (`memory__*` covers `memory__read_*`):
 * how `--check` tells an allow rule a deny rule makes useless. Exact because `*` is the only wildcard:
 * a `*` of `inner` can stand for a run of characters found in no pattern, which only a `*` of `outer`
 * can absorb, so matching `inner`'s symbols against `outer` decides. Quadratic, memoized.
 */
export function globCovers(outer: string, inner: string): boolean {
  const memo = new Map<number, boolean>();
  const covers = (o: number, i: number): boolean => {
    const key = o * (inner.length + 1) + i;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (o === outer.length) {
      result = i === inner.length;
    } else if (outer[o] === WILDCARD) {
      // The outer `*` absorbs nothing more, or one more symbol of inner (a character or a whole `*`).
      result = covers(o + 1, i) || (i < inner.length && covers(o, i + 1));
    } else {
      result = i < inner.length && inner[i] !== WILDCARD && inner[i] === outer[o] && covers(o + 1, i + 1);
    }
    memo.set(key, result);
    return result;
  };
  return covers(0, 0);
}
