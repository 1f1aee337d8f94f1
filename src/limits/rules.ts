/**
 * Rules from text to matchers: parsing `60/min`, tool patterns and reset times (each returns the value
 * or why it is not one, so the configuration loader can place every problem in the file), and the
 * compiled form the evaluator matches calls against. A rule's state is keyed by a fingerprint of what it
 * says, so a reload that keeps a rule keeps its counters and a changed rule starts fresh.
 *
 * @module
 */
import type { LimitRule, Per, Subject } from "./domain.ts";
import { globMatches, isGlob, splitPattern, toolGlobProblem, WILDCARD } from "./pattern.ts";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const UNITS: Readonly<Record<string, number>> = Object.freeze({
  s: 1_000,
  sec: 1_000,
  second: 1_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
});

/** Units a `rate` may use and units a `quota` may use. */
export const RATE_UNITS: readonly string[] = Object.freeze(["s", "min", "h"]);
/** Units a `quota` may use (its window resets at the period's UTC boundary). */
export const QUOTA_UNITS: readonly string[] = Object.freeze(["min", "h", "day"]);

/** The largest count a rate, quota, burst or concurrency may state. */
export const MAX_COUNT = 1_000_000_000;

/**
 * Parses `N/unit` (`600/min`, `10/s`, `5000/day`; long unit names too) with a unit of `allowed`
 * (periods in {@link RATE_UNITS} or {@link QUOTA_UNITS}), or returns why it is not one.
 */
export function parsePer(text: string, allowed: readonly string[]): Per | string {
  const m = /^\s*(\d{1,10})\s*\/\s*([a-z]+)\s*$/.exec(text);
  const shape = `"N/${allowed.join("|")}"`;
  if (m === null) return `must be ${shape}, got "${text}"`;
  const periodMs = UNITS[m[2]];
  if (periodMs === undefined || !allowed.some((u) => UNITS[u] === periodMs)) {
    return `unit "${m[2]}" is not one of ${allowed.join(", ")}`;
  }
  const count = Number(m[1]);
  if (count < 1 || count > MAX_COUNT) return `the count must be between 1 and ${MAX_COUNT}`;
  return Object.freeze({ count, periodMs });
}

/**
 * Parses a UTC reset time `HH:MM` into milliseconds after midnight, or returns why it is not one. It
 * applies modulo the quota's period: `06:30` resets an hourly window at half past each hour.
 */
export function parseResetTime(text: string): number | string {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (m === null) return `must be a UTC time HH:MM, got "${text}"`;
  return (Number(m[1]) * 60 + Number(m[2])) * 60_000;
}

/**
 * Checks a tool pattern, returning why it is not one (or `undefined`): `*` alone for every tool, or a
 * namespaced pattern with the policy's semantics (see `pattern.ts`: `*` is any run of characters, so
 * `memory__search_*`, `memory__*` and `*__search` all work). A downstream part without `*` must be a
 * downstream name.
 */
export function toolPatternProblem(pattern: string): string | undefined {
  if (pattern === WILDCARD) return undefined;
  const problem = toolGlobProblem(pattern);
  if (problem !== undefined) return problem;
  const { downstream } = splitPattern(pattern)!;
  const bare = downstream.replaceAll(WILDCARD, "");
  if (isGlob(downstream) ? !/^[A-Za-z0-9_-]*$/.test(bare) : !NAME.test(downstream)) {
    return `"${pattern}": "${downstream}" is not a downstream name`;
  }
  return undefined;
}

function compileTool(pattern: string): (tool: string) => boolean {
  if (pattern === WILDCARD) return () => true;
  if (!isGlob(pattern)) return (tool) => tool === pattern;
  return (tool) => globMatches(pattern, tool);
}

/** Checks a client id or downstream pattern (`*` or a plain name without `*`). */
export function namePatternProblem(pattern: string, what: "client" | "downstream"): string | undefined {
  if (pattern === "*") return undefined;
  if (pattern === "" || pattern.includes("*")) return `"${pattern}" is not "*" or a ${what} name`;
  if (what === "downstream" && !NAME.test(pattern)) return `"${pattern}" is not a downstream name`;
  return undefined;
}

/** The problems of a whole rule that no single field shows (nothing to limit, a burst without rate...). */
export function ruleProblems(rule: Omit<LimitRule, "name">): string[] {
  const out: string[] = [];
  if (rule.rate === undefined && rule.concurrency === undefined && rule.quota === undefined) {
    out.push("states no limit (rate, concurrency or quota)");
  }
  if (rule.burst !== undefined && rule.rate === undefined) out.push("burst needs a rate");
  if (rule.quotaResetMs !== undefined && rule.quota === undefined) out.push("quota_reset needs a quota");
  for (
    const [field, list] of [["clients", rule.clients], ["tools", rule.tools], [
      "downstreams",
      rule.downstreams,
    ]] as const
  ) {
    if (list.length === 0) out.push(`${field} must name at least one pattern (or "*")`);
  }
  for (const t of rule.tools) {
    const p = toolPatternProblem(t);
    if (p !== undefined) out.push(p);
  }
  for (const c of rule.clients) {
    const p = namePatternProblem(c, "client");
    if (p !== undefined) out.push(p);
  }
  for (const d of rule.downstreams) {
    const p = namePatternProblem(d, "downstream");
    if (p !== undefined) out.push(p);
  }
  return out;
}

/** 64-bit FNV-1a of `text`'s UTF-16 units, as 16 hex digits: short, stable store keys. */
function fingerprint(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}

/** A rule ready to match: its matchers and the fingerprint its counters are keyed by. */
export interface CompiledRule {
  /** The rule as configured. */
  readonly rule: LimitRule;
  /** A hash of everything the rule says except its name: a changed rule gets new counters. */
  readonly id: string;
  /** Whether `subject` is limited by this rule. */
  matches(subject: Subject): boolean;
}

/** Compiles a validated rule (see {@link ruleProblems}); throws a `TypeError` for an invalid one. */
export function compileRule(rule: LimitRule): CompiledRule {
  const problems = ruleProblems(rule);
  if (problems.length > 0) throw new TypeError(`invalid limit rule "${rule.name}": ${problems.join("; ")}`);
  const clients = rule.clients.includes("*") ? undefined : new Set(rule.clients);
  const downstreams = rule.downstreams.includes("*") ? undefined : new Set(rule.downstreams);
  const tools = rule.tools.map(compileTool);
  const anyTool = rule.tools.includes(WILDCARD);
  const { name: _name, ...said } = rule;
  const canonical = JSON.stringify(said, Object.keys(said).sort().concat("count", "periodMs"));
  return Object.freeze({
    rule,
    id: fingerprint(canonical),
    matches: (s: Subject) =>
      (clients === undefined || clients.has(s.client)) &&
      (downstreams === undefined || downstreams.has(s.downstream)) &&
      (anyTool || tools.some((matches) => matches(s.tool))),
  });
}
