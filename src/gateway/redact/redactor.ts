/**
 * The redactor: injected secret values are found in one Aho–Corasick pass (overlapping and adjacent
 * occurrences merged into one replacement), then each configured pattern runs its regex only over texts
 * where its anchor occurs. Every replacement is `[REDACTED]` and is counted. Patterns match the original
 * text, so a pattern match that overlaps a secret joins it in one replacement instead of leaving a tail.
 *
 * It works on decoded JSON values (every string and object key of a result, an error text, a
 * notification, arguments), so JSON escapes in the wire form never split a secret; texts that themselves
 * carry JSON escapes (JSON inside a text) are also matched on their decoded view.
 *
 * @module
 */
import type { JsonValue } from "../domain/mod.ts";
import { Automaton, mergeIntervals } from "./automaton.ts";
import {
  decodeEscapes,
  deeperView,
  escapeWindows,
  MAX_ESCAPE,
  MAX_ESCAPE_LAYERS,
  toRawIntervals,
} from "./escapes.ts";

/** What replaces every match. */
export const REDACTED = "[REDACTED]";

/**
 * The deepest nesting of arrays and objects that {@link Redactor.redactValue} walks. A subtree below it
 * is replaced whole by `[REDACTED]` (and counted): it fails closed, never passed through unscanned, and
 * the walk never overflows the stack.
 */
export const MAX_REDACT_DEPTH = 512;

/** A regex pattern gated by an anchor literal. */
export interface RedactionPattern {
  /** The pattern's name (for diagnostics). */
  readonly name: string;
  /** The regex source (compiled with the `g` flag). */
  readonly regex: string;
  /** A literal every match contains. */
  readonly anchor: string;
}

/** The redactor's inputs. */
export interface RedactorOptions {
  /** Secret values to redact wherever they occur (empty strings are ignored). */
  readonly secrets?: readonly string[];
  /** Anchored patterns. */
  readonly patterns?: readonly RedactionPattern[];
}

/** Outcome of a redaction. */
export interface RedactionOutcome<T> {
  /** The redacted value (the same value when nothing matched). */
  readonly value: T;
  /** The number of replacements. */
  readonly count: number;
}

interface CompiledPattern {
  readonly name: string;
  readonly regex: RegExp;
  readonly anchor: string;
  /** The regex starts with the anchor as a plain literal: its own scan is the anchor search. */
  readonly prefixed: boolean;
}

const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|/]/g;

/**
 * Whether every match of `source` begins with `anchor` and the regex engine can only try it where the
 * anchor occurs: the source starts with the anchor written literally, no quantifier follows it (which
 * would make its last character optional), and there is no alternation anywhere (an alternative could
 * match without the anchor). Then V8 finds candidate positions by a substring search for that literal
 * prefix, which is the anchor gate itself; a separate `includes` would only repeat that search.
 */
export function anchorIsLiteralPrefix(source: string, anchor: string): boolean {
  const literal = anchor.replace(REGEX_SYNTAX, "\\$&");
  if (anchor.length === 0 || !source.startsWith(literal) || source.includes("|")) return false;
  return !"*+?{".includes(source.charAt(literal.length) || "x");
}

/** Redacts secrets and anchored patterns. Immutable; safe to share between concurrent calls. */
export class Redactor {
  readonly #secrets: Automaton | undefined;
  readonly #patterns: readonly CompiledPattern[];
  readonly #escapeRadius: number;

  /**
   * Compiles the secrets into one automaton and each pattern's regex. Throws a `SyntaxError` for a regex
   * that does not compile (config validation reports it first, with its place in the file).
   */
  constructor(options: RedactorOptions = {}) {
    const secrets = [...new Set((options.secrets ?? []).filter((s) => s.length > 0))];
    this.#secrets = secrets.length > 0 ? new Automaton(secrets) : undefined;
    this.#escapeRadius = MAX_ESCAPE * (Math.max(0, ...secrets.map((s) => s.length)) + 1);
    const patterns = options.patterns ?? [];
    this.#patterns = patterns.map((p) => ({
      name: p.name,
      regex: new RegExp(p.regex, "g"),
      anchor: p.anchor,
      prefixed: anchorIsLiteralPrefix(p.regex, p.anchor),
    }));
  }

  /** Whether this redactor can never change anything (no secrets, no patterns). */
  get empty(): boolean {
    return this.#secrets === undefined && this.#patterns.length === 0;
  }

  /**
   * Redacts one text: the secret occurrences (one automaton pass, plus a pass over the decoded view near
   * JSON escapes) and the matches of every pattern whose anchor occurs are merged into one sorted list of
   * spans (overlapping and adjacent spans join), then replaced in a single copy of the text. Each merged
   * span is one `[REDACTED]` and counts once.
   */
  redactText(text: string): RedactionOutcome<string> {
    if (this.empty || text.length === 0) return { value: text, count: 0 };
    let spans: number[] = [];
    if (this.#secrets !== undefined) {
      spans = this.#secrets.intervals(text);
      // Second pass over the decoded view, only near backslashes: JSON inside a text may split a
      // secret with escape sequences.
      const windows = escapeWindows(text, this.#escapeRadius);
      for (let k = 0; k < windows.length; k += 2) {
        // A text JSON-encoded N times holds its secret under N layers of escapes: peel them one at a
        // time, each layer's view mapped back to the raw text, while a layer still decodes something.
        let view = decodeEscapes(text, windows[k], windows[k + 1]);
        for (let layer = 1; view !== undefined; layer++) {
          const decoded = this.#secrets.intervals(view.text);
          if (decoded.length > 0) spans = mergeIntervals(spans, toRawIntervals(view, decoded));
          if (layer >= MAX_ESCAPE_LAYERS) break;
          view = deeperView(view);
        }
      }
    }
    for (const p of this.#patterns) {
      // The gate: the regex runs only where its anchor occurs. A regex led by its anchor is gated by its
      // own literal-prefix search; any other is tried only on texts that contain the anchor.
      if (!p.prefixed && !text.includes(p.anchor)) continue;
      const found: number[] = [];
      const re = p.regex;
      re.lastIndex = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        // An empty match would be replaced between every character: never a secret, never counted.
        if (m[0].length === 0) re.lastIndex++;
        else found.push(m.index, m.index + m[0].length);
      }
      if (found.length > 0) spans = mergeIntervals(spans, found);
    }
    if (spans.length === 0) return { value: text, count: 0 };
    return { value: replaceSpans(text, spans), count: spans.length / 2 };
  }

  /**
   * Redacts every string and object key inside a decoded JSON value. Unchanged subtrees are returned as
   * they are (no copy); changed objects and arrays are new, so the input is never mutated.
   */
  redactValue<T extends JsonValue>(value: T): RedactionOutcome<T> {
    if (this.empty) return { value, count: 0 };
    const counter = { count: 0 };
    const out = this.#walk(value, counter, 0) as T;
    return { value: out, count: counter.count };
  }

  #walk(value: JsonValue, counter: { count: number }, depth: number): JsonValue {
    if (typeof value === "string") {
      const r = this.redactText(value);
      counter.count += r.count;
      return r.value;
    }
    if (value === null || typeof value !== "object") return value;
    // Decoded JSON from the SDK is bounded by its parser; this guard keeps a hostile in-process value
    // from overflowing the stack, and fails closed (the subtree is replaced, not passed through).
    if (depth > MAX_REDACT_DEPTH) {
      counter.count++;
      return REDACTED;
    }
    if (Array.isArray(value)) {
      let copy: JsonValue[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const v = this.#walk(value[i], counter, depth + 1);
        if (v !== value[i] && copy === undefined) copy = value.slice(0, i);
        if (copy !== undefined) copy.push(v);
      }
      return copy ?? value;
    }
    let changed = false;
    const entries: [string, JsonValue][] = [];
    for (const [k, v] of Object.entries(value)) {
      const key = this.redactText(k);
      counter.count += key.count;
      const nv = this.#walk(v, counter, depth + 1);
      if (key.value !== k || nv !== v) changed = true;
      entries.push([key.value, nv]);
    }
    return changed ? Object.fromEntries(entries) : value;
  }
}

function replaceSpans(text: string, spans: readonly number[]): string {
  let out = "";
  let at = 0;
  for (let k = 0; k < spans.length; k += 2) {
    out += text.slice(at, spans[k]) + REDACTED;
    at = spans[k + 1];
  }
  return out + text.slice(at);
}
