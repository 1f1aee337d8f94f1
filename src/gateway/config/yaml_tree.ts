/**
 * A typed view of a parsed YAML document for validation: every node keeps its offset in the file, so a
 * problem can say where it is; readers record problems instead of throwing, so one pass reports all.
 *
 * @module
 */
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";

/** One configuration problem, located in the file. */
export interface ConfigProblem {
  /** Dotted path of the offending key (`downstreams.memory.pool`, `clients[1].id`; `""` for the root). */
  readonly path: string;
  /** 1-based line (0 when unknown). */
  readonly line: number;
  /** 1-based column (0 when unknown). */
  readonly column: number;
  /** What is wrong, and what is expected. Never quotes a secret. */
  readonly message: string;
}

/** A YAML node with its path, as the validators see it. */
export interface Located {
  /** The YAML node (`undefined` when the key is absent). */
  readonly node: Node | undefined;
  /** Its dotted path. */
  readonly path: string;
  /** Offset of the node (or of its parent when absent). */
  readonly offset: number;
}

/** Collects problems and resolves positions. */
export class Problems {
  readonly #lines: LineCounter;
  readonly list: ConfigProblem[] = [];

  /** Problems of one file. */
  constructor(lines: LineCounter) {
    this.#lines = lines;
  }

  /** Records a problem at `at`. */
  add(at: Pick<Located, "path" | "offset">, message: string): void {
    const pos = this.#lines.linePos(at.offset);
    this.list.push({ path: at.path, line: pos.line, column: pos.col, message });
  }
}

/** The parsed document, its root and the problem collector (YAML syntax errors already recorded). */
export interface ParsedYaml {
  readonly doc: Document.Parsed;
  readonly root: Located;
  readonly problems: Problems;
}

/**
 * Parses YAML text with the core schema (no binary, no custom tags, no merge keys) and unique keys.
 * Syntax errors become problems.
 */
export function parseYaml(text: string): ParsedYaml {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, schema: "core", uniqueKeys: true, merge: false });
  const problems = new Problems(lines);
  for (const e of doc.errors) {
    const [pos] = e.linePos ?? [{ line: 0, col: 0 }];
    const message = e.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    problems.list.push({ path: "", line: pos.line, column: pos.col, message: `YAML: ${message}` });
  }
  return {
    doc,
    root: { node: (doc.contents ?? undefined) as Node | undefined, path: "", offset: 0 },
    problems,
  };
}

const MAX_ALIAS_DEPTH = 32;

/** Follows aliases (bounded); an alias to nothing is reported and read as absent. */
function deref(doc: Document.Parsed, at: Located, problems: Problems): Node | undefined {
  let node = at.node;
  for (let depth = 0; node !== undefined && isAlias(node); depth++) {
    const target = depth < MAX_ALIAS_DEPTH ? node.resolve(doc) : undefined;
    if (target === undefined) {
      problems.add(at, `unresolved alias *${node.source}`);
      return undefined;
    }
    node = target as Node;
  }
  return node;
}

function describe(node: Node | undefined): string {
  if (node === undefined) return "nothing";
  if (isMap(node)) return "a mapping";
  if (isSeq(node)) return "a list";
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return "null";
    return typeof v === "string" ? "a string" : typeof v === "number" ? "a number" : typeof v;
  }
  return "an unsupported value";
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/** Reads located nodes and records type problems. */
export class Reader {
  readonly #doc: Document.Parsed;
  readonly problems: Problems;

  /** A reader over a parsed document. */
  constructor(parsed: ParsedYaml) {
    this.#doc = parsed.doc;
    this.problems = parsed.problems;
  }

  /** Whether the node is present (and not an explicit null). */
  present(at: Located): boolean {
    const node = deref(this.#doc, at, this.problems);
    return node !== undefined && !(isScalar(node) && node.value === null);
  }

  /**
   * The entries of a mapping, checking keys against `allowed` (unknown keys are problems). Returns
   * `undefined` (and records a problem) when the node is not a mapping.
   */
  map(at: Located, allowed?: readonly string[]): Map<string, Located> | undefined {
    const node = deref(this.#doc, at, this.problems);
    if (node === undefined || !isMap(node)) {
      this.problems.add(
        at,
        at.node === undefined ? "is required (a mapping)" : `must be a mapping, got ${describe(node)}`,
      );
      return undefined;
    }
    const out = new Map<string, Located>();
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const keyOffset = keyNode?.range?.[0] ?? at.offset;
      const key =
        isScalar(keyNode) && (typeof keyNode.value === "string" || typeof keyNode.value === "number")
          ? String(keyNode.value)
          : undefined;
      if (key === undefined) {
        this.problems.add({ path: at.path, offset: keyOffset }, "keys must be strings");
        continue;
      }
      const path = join(at.path, key);
      if (allowed !== undefined && !allowed.includes(key)) {
        this.problems.add(
          { path, offset: keyOffset },
          `unknown key "${key}" (expected one of: ${allowed.join(", ")})`,
        );
        continue;
      }
      const value = (pair.value ?? undefined) as Node | undefined;
      out.set(key, { node: value, path, offset: value?.range?.[0] ?? keyOffset });
    }
    return out;
  }

  /** The items of a list, or `undefined` (with a problem) when it is not one. */
  list(at: Located): Located[] | undefined {
    const node = deref(this.#doc, at, this.problems);
    if (node === undefined || !isSeq(node)) {
      this.problems.add(
        at,
        at.node === undefined ? "is required (a list)" : `must be a list, got ${describe(node)}`,
      );
      return undefined;
    }
    return node.items.map((item, i) => {
      const n = item as Node;
      return { node: n, path: `${at.path}[${i}]`, offset: n?.range?.[0] ?? at.offset };
    });
  }

  /** A scalar node, or `undefined` (with a problem: required, or of the wrong kind). */
  #scalar(at: Located, expected: string): { value: unknown } | undefined {
    const node = deref(this.#doc, at, this.problems);
    if (node === undefined && at.node === undefined) {
      this.problems.add(at, `is required (${expected})`);
      return undefined;
    }
    if (node === undefined || !isScalar(node)) {
      this.problems.add(at, `must be ${expected}, got ${describe(node)}`);
      return undefined;
    }
    return { value: node.value };
  }

  /** A non-empty string (numbers and booleans are accepted as text when `coerce` is set). */
  string(at: Located, coerce = false): string | undefined {
    const s = this.#scalar(at, "a string");
    if (s === undefined) return undefined;
    const v = s.value;
    if (typeof v === "string") {
      if (v === "") this.problems.add(at, "must not be empty");
      return v === "" ? undefined : v;
    }
    if (coerce && (typeof v === "number" || typeof v === "boolean")) return String(v);
    this.problems.add(at, `must be a string, got ${v === null ? "null" : typeof v}`);
    return undefined;
  }

  /** An integer within `[min, max]`. */
  integer(at: Located, min: number, max: number = Number.MAX_SAFE_INTEGER): number | undefined {
    const s = this.#scalar(at, "an integer");
    if (s === undefined) return undefined;
    const v = s.value;
    if (typeof v !== "number" || !Number.isInteger(v)) {
      this.problems.add(at, `must be an integer, got ${typeof v === "number" ? v : typeof v}`);
      return undefined;
    }
    if (v < min || v > max) {
      this.problems.add(at, `must be between ${min} and ${max}, got ${v}`);
      return undefined;
    }
    return v;
  }

  /** One of the given strings. */
  oneOf<T extends string>(at: Located, options: readonly T[]): T | undefined {
    const v = this.string(at);
    if (v === undefined) return undefined;
    if (!(options as readonly string[]).includes(v)) {
      this.problems.add(at, `must be one of ${options.map((o) => `"${o}"`).join(", ")}, got "${v}"`);
      return undefined;
    }
    return v as T;
  }

  /** A list of non-empty strings. */
  strings(at: Located): string[] | undefined {
    const items = this.list(at);
    if (items === undefined) return undefined;
    const out: string[] = [];
    for (const item of items) {
      const s = this.string(item);
      if (s !== undefined) out.push(s);
    }
    return out;
  }

  /** A mapping of strings to strings (scalars coerced to text when `coerce` is set). */
  stringMap(at: Located, coerce = false): Map<string, { value: string; at: Located }> | undefined {
    const entries = this.map(at);
    if (entries === undefined) return undefined;
    const out = new Map<string, { value: string; at: Located }>();
    for (const [k, v] of entries) {
      const s = this.string(v, coerce);
      if (s !== undefined) out.set(k, { value: s, at: v });
    }
    return out;
  }
}

/** A child of a mapping, present or not (absent children point at the parent's position). */
export function child(entries: Map<string, Located> | undefined, parent: Located, key: string): Located {
  return entries?.get(key) ?? { node: undefined, path: join(parent.path, key), offset: parent.offset };
}
