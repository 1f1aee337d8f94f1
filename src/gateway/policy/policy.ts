/**
 * The gateway's access policy: deny by default, deny beats allow, rules are exact namespaced names
 * (`memory__read_graph`), whole-downstream wildcards (`memory__*`) or patterns with `*` anywhere in the
 * name (`memory__read_*`, `*__search_*`; the semantics are the limits' tool patterns, shared).
 *
 * @module
 */
import {
  allowed,
  type Catalog,
  type Decision,
  denied,
  formatToolRef,
  type Identity,
  isValidDownstreamName,
  SEPARATOR,
  type ToolRef,
  tryParseToolRef,
} from "../domain/mod.ts";
import { globMatches, isGlob, splitPattern, toolGlobProblem, WILDCARD } from "../../limits/mod.ts";

/** A parsed rule. */
export type Rule =
  | { readonly kind: "exact"; readonly name: string; readonly ref: ToolRef }
  | { readonly kind: "downstream"; readonly downstream: string }
  | {
    readonly kind: "glob";
    readonly pattern: string;
    /** The downstream when the part before the first `__` has no `*`; `undefined` when it is a pattern. */
    readonly downstream: string | undefined;
  };

const WILDCARD_SUFFIX = `${SEPARATOR}${WILDCARD}`;

/**
 * Parses one rule, or returns why it is not one. Three forms: an exact namespaced name
 * (`memory__read_graph`), a whole downstream (`memory__*`), and any other pattern with `*` standing
 * for any run of characters, including none and including `__` (`memory__read_*`, `*__search_*`),
 * always matched against the whole namespaced name. A pattern must contain the `__` separator with
 * something on both sides, so a bare `*` or `mem*` is refused rather than guessed at and a typo never
 * widens access to every downstream.
 */
export function parseRule(rule: string): Rule | string {
  if (!isGlob(rule)) {
    const ref = tryParseToolRef(rule);
    if (ref === undefined || !isValidDownstreamName(ref.downstream)) {
      return `"${rule}" is not a namespaced tool name (downstream__tool)`;
    }
    return { kind: "exact", name: formatToolRef(ref), ref };
  }
  const problem = toolGlobProblem(rule);
  if (problem !== undefined) return problem;
  const { downstream } = splitPattern(rule)!;
  if (isGlob(downstream)) return { kind: "glob", pattern: rule, downstream: undefined };
  if (!isValidDownstreamName(downstream)) return `"${rule}": "${downstream}" is not a downstream name`;
  if (rule === `${downstream}${WILDCARD_SUFFIX}`) return { kind: "downstream", downstream };
  return { kind: "glob", pattern: rule, downstream };
}

/** The downstream a rule names, or `undefined` for a pattern over downstream names (`*__search`). */
export function ruleDownstream(rule: Rule): string | undefined {
  return rule.kind === "exact" ? rule.ref.downstream : rule.downstream;
}

/** The rules of one client, as configured. */
export interface ClientRules {
  /** Allow rules. */
  readonly allow: readonly string[];
  /** Deny rules. */
  readonly deny: readonly string[];
}

/** A compiled rule set: exact names and wildcard downstreams in sets, other patterns in a list. */
interface RuleSet {
  readonly exact: ReadonlySet<string>;
  readonly downstreams: ReadonlySet<string>;
  readonly globs: readonly string[];
}

function compile(rules: readonly string[]): RuleSet {
  const exact = new Set<string>();
  const downstreams = new Set<string>();
  const globs: string[] = [];
  for (const text of rules) {
    const rule = parseRule(text);
    if (typeof rule === "string") throw new TypeError(`invalid policy rule: ${rule}`);
    if (rule.kind === "exact") exact.add(rule.name);
    else if (rule.kind === "downstream") downstreams.add(rule.downstream);
    else globs.push(rule.pattern);
  }
  return { exact, downstreams, globs };
}

function matches(set: RuleSet, ref: ToolRef, name: string): boolean {
  return set.downstreams.has(ref.downstream) || set.exact.has(name) ||
    set.globs.some((g) => globMatches(g, name));
}

/**
 * The policy: per client, allow and deny rule sets. A client without rules, an unknown client, and a
 * tool no allow rule covers are all `denied_default`; any matching deny rule is `denied_explicit`, even
 * when an allow rule matches too. Immutable; a reload builds a new one.
 */
export class Policy {
  readonly #clients: ReadonlyMap<string, { allow: RuleSet; deny: RuleSet }>;

  /**
   * Compiles the rules. Throws a `TypeError` for a malformed rule (the config loader reports those with
   * their place in the file before a policy is ever built).
   */
  constructor(clients: Readonly<Record<string, ClientRules>> = {}) {
    const map = new Map<string, { allow: RuleSet; deny: RuleSet }>();
    for (const [id, rules] of Object.entries(clients)) {
      map.set(id, { allow: compile(rules.allow), deny: compile(rules.deny) });
    }
    this.#clients = map;
  }

  /** The decision for `client` calling `tool`. Pure and total: never throws. */
  decide(client: Identity, tool: ToolRef): Decision {
    const rules = this.#clients.get(client.id);
    if (rules === undefined) return denied("denied_default");
    let name: string;
    try {
      name = formatToolRef(tool);
    } catch {
      // A ref that cannot be named cannot be in any rule: the zero decision.
      return denied("denied_default");
    }
    if (matches(rules.deny, tool, name)) return denied("denied_explicit");
    if (matches(rules.allow, tool, name)) return allowed();
    return denied("denied_default");
  }

  /** The part of `full` that `client` may call; everything else is invisible to it. */
  filter(client: Identity, full: Catalog): Catalog {
    if (!this.#clients.has(client.id)) return full.filter(() => false);
    return full.filter((t) => this.decide(client, t.ref).allow);
  }
}
