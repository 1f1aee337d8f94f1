/**
 * The chunked-file format of starlark-go's own test data (`go.starlark.net/internal/chunkedfile`), read the
 * way the reference's test driver (`starlark/eval_test.go`) reads it, so that we run exactly the programs
 * the reference runs and expect exactly the errors it expects:
 *
 * - the file is split on `"\n---\n"`; each chunk is padded with newlines so that its line numbers are
 *   those of the whole file;
 * - any line containing `###` expects an error at that line: the rest of the line, trimmed, is a Go
 *   string literal (`"..."` or a raw `` `...` ``) holding an RE2 regular expression;
 * - dialect options are enabled when the chunk's text contains `option:NAME` anywhere
 *   (`strings.Contains`, as in `getOptions`), so an option named in a file's header applies only to
 *   the first chunk.
 *
 * @module
 */

import type { Dialect } from "../../../src/starlark/values/value.ts";

/** One program of a chunked file. */
export interface GoChunk {
  /** 1-based line of the chunk's first line in the file. */
  readonly start: number;
  /** The chunk's text, preceded by `start - 1` newlines. */
  readonly source: string;
  /** Expected errors: line → regular expression source (RE2 syntax). */
  readonly wantErrs: Map<number, string>;
  /** Annotations that could not be read (a malformed `###` line is a failure in the reference too). */
  readonly badAnnotations: string[];
}

/**
 * Decodes a Go string literal (`strconv.Unquote` for `"..."` and raw `` `...` `` literals).
 * @throws {SyntaxError} when `lit` is not a valid literal of those two forms.
 */
export function goUnquote(lit: string): string {
  if (lit.length >= 2 && lit[0] === "`" && lit[lit.length - 1] === "`") {
    const body = lit.slice(1, -1);
    if (body.includes("`")) throw new SyntaxError(`invalid raw string literal: ${lit}`);
    return body.replaceAll("\r", "");
  }
  if (lit.length < 2 || lit[0] !== '"' || lit[lit.length - 1] !== '"') {
    throw new SyntaxError(`not a quoted string: ${lit}`);
  }
  const body = lit.slice(1, -1);
  // Escapes produce bytes (\x, octal) or code points (\u, \U); collect bytes and decode as UTF-8 at the
  // end, as Go strings are byte strings.
  const bytes: number[] = [];
  const enc = new TextEncoder();
  const pushCodePoint = (cp: number) => bytes.push(...enc.encode(String.fromCodePoint(cp)));
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '"' || c === "\n") throw new SyntaxError(`invalid string literal: ${lit}`);
    if (c !== "\\") {
      const cp = body.codePointAt(i)!;
      if (cp > 0xffff) i++;
      pushCodePoint(cp);
      continue;
    }
    const e = body[++i];
    const simple: Record<string, number> = {
      a: 7,
      b: 8,
      f: 12,
      n: 10,
      r: 13,
      t: 9,
      v: 11,
      "\\": 92,
      '"': 34,
    };
    if (e !== undefined && e in simple) {
      bytes.push(simple[e]);
    } else if (e === "x" || e === "u" || e === "U") {
      const n = e === "x" ? 2 : e === "u" ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) throw new SyntaxError(`bad escape in ${lit}`);
      i += n;
      if (e === "x") bytes.push(parseInt(hex, 16));
      else pushCodePoint(parseInt(hex, 16));
    } else if (e !== undefined && e >= "0" && e <= "7") {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) throw new SyntaxError(`bad escape in ${lit}`);
      i += 2;
      bytes.push(parseInt(oct, 8));
    } else {
      throw new SyntaxError(`unknown escape sequence in ${lit}`);
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Splits a chunked file like `chunkedfile.Read`. */
export function readChunks(text: string): GoChunk[] {
  const chunks: GoChunk[] = [];
  let linenum = 1;
  for (const chunk of text.split("\n---\n")) {
    const start = linenum;
    const source = "\n".repeat(linenum - 1) + chunk;
    const wantErrs = new Map<number, string>();
    const badAnnotations: string[] = [];
    for (const line of chunk.split("\n")) {
      const at = line.indexOf("###");
      if (at >= 0) {
        const rest = line.slice(at + 3).trim();
        try {
          const pattern = goUnquote(rest);
          goRegExp(pattern); // a pattern that does not compile is reported, as by regexp.Compile
          wantErrs.set(linenum, pattern);
        } catch (e) {
          badAnnotations.push(`line ${linenum}: ${(e as Error).message}`);
        }
      }
      linenum++;
    }
    linenum++; // the "---" separator
    chunks.push({ start, source, wantErrs, badAnnotations });
  }
  return chunks;
}

/** Whether the chunk enables `option:NAME` (the driver's `strings.Contains(chunk, "option:"+name)`). */
export function hasOption(source: string, name: string): boolean {
  return source.includes("option:" + name);
}

/** The dialect of a chunk, from the options the reference's `getOptions` reads. */
export function chunkDialect(source: string): Dialect {
  return {
    set: hasOption(source, "set"),
    while: hasOption(source, "while"),
    recursion: hasOption(source, "recursion"),
    topLevelControl: hasOption(source, "toplevelcontrol"),
    globalReassign: hasOption(source, "globalreassign"),
    loadBindsGlobally: hasOption(source, "loadbindsglobally"),
  };
}

/**
 * Compiles an RE2 pattern as a JS RegExp. The corpus uses only the subset both engines share; without
 * the `u` flag JS, like RE2, reads a `{` that cannot start a repetition as a literal character.
 */
export function goRegExp(source: string): RegExp {
  if (/\\[QEzApP]|\(\?[imsU-]|\[\[:/.test(source)) {
    throw new SyntaxError(`RE2 syntax without a JS equivalent in this harness: ${source}`);
  }
  return new RegExp(source);
}
