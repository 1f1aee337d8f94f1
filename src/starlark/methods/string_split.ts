/**
 * Whitespace splitting for `str.split`/`str.rsplit` with no separator, with Go's rules: runs of
 * `unicode.IsSpace` runes separate fields, and invalid UTF-8 bytes are never spaces.
 *
 * @module
 */
import { decodeRune, runeOf, sizeOf, TEXT_POLL_CHUNK, type Thread } from "../values/mod.ts";
import { decodeLastRune, isSpace } from "./unicode.ts";

/** All whitespace-separated fields (Go's `strings.Fields`). */
export function splitFields(s: string, thread?: Thread): string[] {
  return splitSpace(s, -1, thread);
}

/**
 * Whitespace-separated fields from the left; with `max` ≥ 0, after `max` splits the last field runs
 * to the end of the string (keeping its trailing spaces).
 */
export function splitSpace(s: string, max: number, thread?: Thread): string[] {
  const res: string[] = [];
  let start = -1;
  for (let i = 0, next = TEXT_POLL_CHUNK; i < s.length;) {
    if (i >= next) {
      thread?.poll();
      next = i + TEXT_POLL_CHUNK;
    }
    // ASCII (the usual text) needs no rune decoding.
    const c = s.charCodeAt(i);
    let space: boolean, size: number;
    if (c < 0x80) {
      space = c === 0x20 || (c >= 0x09 && c <= 0x0d);
      size = 1;
    } else {
      const p = decodeRune(s, i);
      space = isSpace(runeOf(p));
      size = sizeOf(p);
    }
    if (space) {
      if (start >= 0) {
        if (res.length === max) break;
        res.push(s.slice(start, i));
        start = -1;
      }
    } else if (start < 0) {
      start = i;
    }
    i += size;
  }
  if (start >= 0) res.push(s.slice(start));
  return res;
}

/**
 * Whitespace-separated fields from the right; after `max` (≥ 0) splits the first field runs to the
 * start of the string (keeping its leading spaces).
 */
export function rsplitSpace(s: string, max: number, thread?: Thread): string[] {
  const res: string[] = [];
  let end = -1;
  let i = s.length;
  for (let next = i - TEXT_POLL_CHUNK; i > 0;) {
    if (i <= next) {
      thread?.poll();
      next = i - TEXT_POLL_CHUNK;
    }
    const c = s.charCodeAt(i - 1);
    let space: boolean, size: number;
    if (c < 0x80) {
      space = c === 0x20 || (c >= 0x09 && c <= 0x0d);
      size = 1;
    } else {
      const p = decodeLastRune(s, i);
      space = isSpace(runeOf(p));
      size = sizeOf(p);
    }
    if (space) {
      if (end >= 0) {
        if (res.length === max) break;
        res.push(s.slice(i, end));
        end = -1;
      }
    } else if (end < 0) {
      end = i;
    }
    i -= size;
  }
  if (end >= 0) res.push(s.slice(0, end));
  return res.reverse();
}
