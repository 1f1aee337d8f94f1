/**
 * Splits a conformance file (`tests/starlark/*.star`) into chunks, the same way the reference checker
 * (`refcheck/main.go`) does, so both implementations run exactly the same programs.
 *
 * Format:
 * - chunks are separated by lines consisting of exactly `---`; each chunk runs as its own program, padded
 *   with blank lines so that error line numbers are those of the whole file;
 * - `option:NAME` in the file's first line, or in a comment line of a chunk, turns on a dialect option
 *   (`set`, `while`, `recursion`, `toplevelcontrol`, `globalreassign`);
 * - `reference:skip` (same places) exempts a chunk from the reference check (CodeMode extensions);
 * - a line ending in `### REGEX` means the chunk must fail, at that line, with a message matching REGEX.
 *
 * @module
 */

import type { Dialect } from "../../src/starlark/values/value.ts";

/** One program of a conformance file. */
export interface Chunk {
  /** 1-based line of the chunk's first line in the file. */
  start: number;
  /** The chunk's source, preceded by `start - 1` newlines. */
  source: string;
  /** Dialect options named by `option:` comments. */
  options: Set<string>;
  /** Expected errors: line → regex source. */
  expect: Map<number, string>;
  /** Whether the chunk is exempt from the reference check. */
  referenceSkip: boolean;
}

const OPTION_RE = /option:(\w+)/g;
const EXPECT_RE = /###\s*(.*?)\s*$/;
const COMMENT_RE = /^\s*#/;

function optionsIn(line: string, into: Set<string>): void {
  for (const m of line.matchAll(OPTION_RE)) into.add(m[1]);
}

/** Splits a conformance file into its chunks. */
export function splitChunks(text: string): Chunk[] {
  const lines = text.replace(/\n$/, "").split("\n");
  const fileOptions = new Set<string>();
  let fileSkip = false;
  if (lines.length > 0 && COMMENT_RE.test(lines[0])) {
    optionsIn(lines[0], fileOptions);
    fileSkip = lines[0].includes("reference:skip");
  }
  const chunks: Chunk[] = [];
  let begin = 0;
  const flush = (end: number) => {
    const chunk: Chunk = {
      start: begin + 1,
      source: "",
      options: new Set(fileOptions),
      expect: new Map(),
      referenceSkip: fileSkip,
    };
    let src = "\n".repeat(begin);
    for (let i = begin; i < end; i++) {
      const line = lines[i];
      src += line + "\n";
      if (COMMENT_RE.test(line)) {
        optionsIn(line, chunk.options);
        if (line.includes("reference:skip")) chunk.referenceSkip = true;
      }
      const m = EXPECT_RE.exec(line);
      if (m !== null) chunk.expect.set(i + 1, m[1]);
    }
    chunk.source = src;
    chunks.push(chunk);
  };
  lines.forEach((line, i) => {
    if (line === "---") {
      flush(i);
      begin = i + 1;
    }
  });
  flush(lines.length);
  return chunks;
}

/** The dialect a chunk asks for (everything else off, like the reference's defaults). */
export function chunkDialect(chunk: Chunk): Dialect {
  const known = ["set", "while", "recursion", "toplevelcontrol", "globalreassign"];
  for (const o of chunk.options) {
    if (!known.includes(o)) throw new Error(`line ${chunk.start}: unknown option:${o}`);
  }
  return {
    set: chunk.options.has("set"),
    while: chunk.options.has("while"),
    recursion: chunk.options.has("recursion"),
    topLevelControl: chunk.options.has("toplevelcontrol"),
    globalReassign: chunk.options.has("globalreassign"),
  };
}

/**
 * Converts a regex written for Go's RE2 into a JS RegExp. The suite only uses the common subset; the
 * pattern is compiled without the `u` flag because, like RE2, non-Unicode JS regexes treat a `{` or `]`
 * that cannot start a quantifier or close a class as a literal character.
 */
export function goRegExp(source: string): RegExp {
  return new RegExp(source);
}
