/**
 * Parsing of the decision reference (`data.codemode.authz.allow`) into the wasm entrypoint it names.
 *
 * The accepted syntax is the ground subset of a Rego reference: `data` followed by `.name` segments and
 * bracketed scalar terms (`["name"]`, `` [`raw`] ``, `[0]`, `[true]`, `[null]`). Surrounding whitespace is
 * accepted, as OPA's reference parser does; nothing else is normalized.
 *
 * @module
 */
import { RegoLoadError } from "./errors.ts";

/** One ground segment of a reference after `data`. */
export type RefSegment = string | number | boolean | null;

/** A parsed, ground decision reference. */
export interface DecisionRef {
  /** The reference as given, trimmed. */
  readonly text: string;
  /** The segments after `data`. */
  readonly path: readonly RefSegment[];
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/;

function fail(message: string): never {
  throw new RegoLoadError("decision", `rego: ${message}`);
}

class RefScanner {
  pos = 0;
  constructor(readonly src: string) {}

  get done(): boolean {
    return this.pos >= this.src.length;
  }

  skipSpace(): void {
    while (!this.done && /\s/.test(this.src[this.pos])) this.pos++;
  }

  ident(): string | undefined {
    if (this.done || !IDENT_START.test(this.src[this.pos])) return undefined;
    const start = this.pos;
    while (!this.done && IDENT_PART.test(this.src[this.pos])) this.pos++;
    return this.src.slice(start, this.pos);
  }

  /** A double-quoted string with JSON escapes. */
  quoted(): string {
    const start = this.pos;
    this.pos++;
    while (!this.done && this.src[this.pos] !== '"') {
      if (this.src[this.pos] === "\\") this.pos++;
      this.pos++;
    }
    if (this.done) fail(`decision ${JSON.stringify(this.src)} has an unterminated string`);
    this.pos++;
    try {
      return JSON.parse(this.src.slice(start, this.pos)) as string;
    } catch {
      fail(`decision ${JSON.stringify(this.src)} has an invalid string literal`);
    }
  }

  raw(): string {
    const end = this.src.indexOf("`", this.pos + 1);
    if (end < 0) fail(`decision ${JSON.stringify(this.src)} has an unterminated raw string`);
    const value = this.src.slice(this.pos + 1, end);
    this.pos = end + 1;
    return value;
  }

  /** A bracketed term; `undefined` marks a variable (the reference is not ground). */
  bracketTerm(): RefSegment | undefined {
    this.skipSpace();
    const c = this.src[this.pos];
    let term: RefSegment | undefined;
    if (c === '"') term = this.quoted();
    else if (c === "`") term = this.raw();
    else {
      const num = NUMBER.exec(this.src.slice(this.pos));
      if (num) {
        this.pos += num[0].length;
        term = Number(num[0]);
      } else {
        const name = this.ident();
        if (name === undefined) {
          fail(
            `decision ${JSON.stringify(this.src)} is not a valid reference (unsupported term at ${this.pos})`,
          );
        }
        if (name === "true") term = true;
        else if (name === "false") term = false;
        else if (name === "null") term = null;
        else term = undefined;
      }
    }
    this.skipSpace();
    if (this.src[this.pos] !== "]") {
      fail(`decision ${JSON.stringify(this.src)} is not a valid reference (expected "]" at ${this.pos})`);
    }
    this.pos++;
    return term;
  }
}

/**
 * Parses and checks a decision reference. Rejects a blank string, anything that is not a reference, a
 * reference whose head is not `data`, and a reference with a variable term (not ground).
 */
export function parseDecision(decision: unknown): DecisionRef {
  if (typeof decision !== "string") fail("decision must be a string such as data.codemode.authz.allow");
  const text = decision.trim();
  if (text === "") fail("decision is blank; pass a ground data reference such as data.codemode.authz.allow");
  const s = new RefScanner(text);
  const head = s.ident();
  if (head === undefined) fail(`decision ${JSON.stringify(text)} is not a valid reference`);
  const path: RefSegment[] = [];
  let ground = true;
  while (!s.done) {
    const c = text[s.pos];
    if (c === ".") {
      s.pos++;
      const name = s.ident();
      if (name === undefined) {
        fail(`decision ${JSON.stringify(text)} is not a valid reference (expected a name at ${s.pos})`);
      }
      path.push(name);
    } else if (c === "[") {
      s.pos++;
      const term = s.bracketTerm();
      if (term === undefined) ground = false;
      else path.push(term);
    } else {
      fail(
        `decision ${JSON.stringify(text)} is not a valid reference (unexpected ${
          JSON.stringify(c)
        } at ${s.pos})`,
      );
    }
  }
  if (head !== "data") fail(`decision ${JSON.stringify(text)} must be a data reference (start with "data")`);
  if (!ground) fail(`decision ${JSON.stringify(text)} is not ground: it contains a variable`);
  return Object.freeze({ text, path: Object.freeze(path) });
}

/**
 * The wasm entrypoint name of a decision (`codemode/authz/allow`), or `undefined` when no entrypoint can
 * name it: OPA joins the path with `/`, so only non-empty string segments without `/` are unambiguous.
 */
export function entrypointName(ref: DecisionRef): string | undefined {
  if (ref.path.length === 0) return undefined;
  for (const seg of ref.path) {
    if (typeof seg !== "string" || seg === "" || seg.includes("/")) return undefined;
  }
  return ref.path.join("/");
}
