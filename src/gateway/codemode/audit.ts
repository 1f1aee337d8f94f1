/**
 * What code mode adds to the audit log: one record per `execute`, `search_api` and `describe_api` call
 * (never the program's source, only its SHA-256), and, for each tool a program or `describe_api` names
 * but its client cannot reach, the record the same passthrough call would have left (`denied_*` or
 * `not_found`), so a program probing forbidden tools is as visible as a client calling them directly.
 *
 * @module
 */
import { isCodeModeError } from "../../errors.ts";
import { type AuditRecord, isGatewayError, type Tool } from "../domain/mod.ts";
import { identifierFor, nameTools } from "./names.ts";

/** The code-mode tools that leave a record of their own. */
export type CodeModeToolName = "execute" | "search_api" | "describe_api";

/** The most refused names audited for one execution (each is a security record the answer waits on). */
export const MAX_REFUSALS_PER_EXECUTION = 16;

const UTF8 = new TextEncoder();

/** The lowercase hex SHA-256 of `text`'s UTF-8 bytes. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", UTF8.encode(text.toWellFormed())));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * How a code-mode call ended, as its record's `outcome`: `ok`, `cancelled` when the caller's signal
 * ended it, else the error's classification (a CodeMode error code, or a gateway one such as
 * `audit_unavailable`).
 */
export function outcomeOf(err: unknown, signal?: AbortSignal): string {
  if (err === undefined) return "ok";
  if (signal?.aborted && !isCodeModeError(err)) return "cancelled";
  if (isCodeModeError(err)) return err.code;
  if (isGatewayError(err)) return err.code;
  return "internal";
}

/** The fields of a code-mode tool's record besides the fixed ones. */
export interface CodeModeRecordFields {
  /** The calling client. */
  readonly clientId: string;
  /** Which tool. */
  readonly tool: CodeModeToolName;
  /** `ok` or the error classification (see {@link outcomeOf}). */
  readonly outcome: string;
  /** Wall-clock milliseconds the call took. */
  readonly latencyMs: number;
  /** When it ended. */
  readonly now: Date;
  /** `execute` only: the execution's id (its native calls' records carry it too). */
  readonly executionId?: string;
  /** `execute` only: how many native calls the program made. */
  readonly nativeCalls?: number;
  /** `execute` only: the SHA-256 of the source. */
  readonly sourceSha256?: string;
}

/**
 * The record of one code-mode tool call. The client chose to use code mode and its server was built
 * over what it may call, so the decision is `allowed`; `error` is the outcome's code for a failure (the
 * program's own words never reach the audit log).
 */
export function codeModeRecord(f: CodeModeRecordFields): AuditRecord {
  return Object.freeze({
    timestamp: f.now.toISOString(),
    client_id: f.clientId,
    tool_name: f.tool,
    decision: "allowed",
    allowed: true,
    latency_ms: Math.round(f.latencyMs * 1000) / 1000,
    breaker_state: "",
    redactions: 0,
    truncated: false,
    error: f.outcome === "ok" ? "" : f.outcome,
    ...(f.executionId === undefined ? {} : { execution_id: f.executionId }),
    outcome: f.outcome,
    ...(f.nativeCalls === undefined ? {} : { native_calls: f.nativeCalls }),
    ...(f.sourceSha256 === undefined ? {} : { source_sha256: f.sourceSha256 }),
  });
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;

/**
 * Every `root.name` reference in a Starlark source outside string literals and comments, where `root`
 * is not itself after a dot (`a.b.c` yields `a.b` only), in order of first appearance, without
 * repeats. A lexical scan (linear in the source, no parse): it sees what a program spells out, not
 * names it builds at run time (`getattr(root, "na" + "me")`).
 */
export function dottedReferences(source: string): string[] {
  const found = new Set<string>();
  const n = source.length;
  let i = 0;
  // Whether the last significant token was a `.` (so the next identifier is an attribute, not a root).
  let afterDot = false;
  while (i < n) {
    const c = source[i];
    if (c === "#") {
      while (i < n && source[i] !== "\n") i++;
      continue;
    }
    if (c === '"' || c === "'") {
      i = skipString(source, i);
      afterDot = false;
      continue;
    }
    if (IDENT_START.test(c) || c.charCodeAt(0) > 127) {
      let j = i + 1;
      while (j < n && (IDENT_PART.test(source[j]) || source.charCodeAt(j) > 127)) j++;
      const word = source.slice(i, j);
      // A string prefix (r"...", b'...', rb"...") belongs to the literal that follows.
      if (j < n && (source[j] === '"' || source[j] === "'") && /^(?:[rRbB]|[rR][bB]|[bB][rR])$/.test(word)) {
        i = skipString(source, j);
        afterDot = false;
        continue;
      }
      if (!afterDot) {
        let k = j;
        while (k < n && (source[k] === " " || source[k] === "\t")) k++;
        if (source[k] === ".") {
          let m = k + 1;
          while (m < n && (source[m] === " " || source[m] === "\t")) m++;
          let e = m;
          if (e < n && IDENT_START.test(source[e])) {
            e++;
            while (e < n && IDENT_PART.test(source[e])) e++;
            found.add(`${word}.${source.slice(m, e)}`);
          }
        }
      }
      afterDot = false;
      i = j;
      continue;
    }
    if (c === ".") afterDot = !(i + 1 < n && /[0-9]/.test(source[i + 1]));
    else if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r" && c !== "\\") afterDot = false;
    i++;
  }
  return [...found];
}

/** The index just past the string literal whose opening quote is at `i` (or the end of the source). */
function skipString(source: string, i: number): number {
  const q = source[i];
  const triple = source.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  while (j < source.length) {
    const c = source[j];
    if (c === "\\") {
      j += 2;
      continue;
    }
    if (!triple && c === "\n") return j;
    if (source.startsWith(close, j)) return j + close.length;
    j++;
  }
  return source.length;
}

/**
 * The gateway tool names behind capability references a client cannot reach: `visible` holds the
 * capability names of its own server; `all` is the full catalog before policy; `downstreams` the
 * configured downstream names (a down one has no tools listed). A reference whose root is not a
 * downstream's (a local variable, `json.encode`) is not a tool name and is left out; one naming a
 * downstream's tool maps to that tool's name, one naming no tool to `downstream__name` as written.
 */
export function refusedToolNames(
  references: readonly string[],
  visible: ReadonlySet<string>,
  all: readonly Tool[],
  downstreams: readonly string[],
): string[] {
  const unknown = references.filter((r) => !visible.has(r));
  if (unknown.length === 0) return [];
  const byCapability = new Map(
    nameTools(all, (t) => t.ref, (t) => t.name).named.map((n) => [n.capability, n.item.name]),
  );
  const roots = new Map<string, string>();
  for (const d of [...downstreams, ...all.map((t) => t.ref.downstream)]) {
    if (!roots.has(identifierFor(d))) roots.set(identifierFor(d), d);
  }
  const out = new Set<string>();
  for (const ref of unknown) {
    const dot = ref.indexOf(".");
    const downstream = roots.get(ref.slice(0, dot));
    if (downstream === undefined) continue;
    out.add(byCapability.get(ref) ?? `${downstream}__${ref.slice(dot + 1)}`);
    if (out.size >= MAX_REFUSALS_PER_EXECUTION) break;
  }
  return [...out];
}
