/**
 * The gateway's access policy: deny by default, deny beats allow, rules are exact namespaced names
 * (`memory__read_graph`) or whole-downstream wildcards (`memory__*`).
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

/** A parsed rule. */
export type Rule =
  | { readonly kind: "exact"; readonly name: string; readonly ref: ToolRef }
  | { readonly kind: "downstream"; readonly downstream: string };

const WILDCARD_SUFFIX = `${SEPARATOR}*`;

/**
 * Parses one rule, or returns why it is not one. Only the two forms are accepted: a bare `*`, a `*`
 * inside a name (`mem*`) or a wildcard on the tool part (`memory__read_*`) are rejected rather than
 * guessed at, so a typo never widens access.
 */
export function parseRule(rule: string): Rule | string {
  if (rule.endsWith(WILDCARD_SUFFIX)) {
    const downstream = rule.slice(0, -WILDCARD_SUFFIX.length);
    if (!isValidDownstreamName(downstream) || downstream.includes("*")) {
      return `"${rule}" is not a valid downstream wildcard (downstream__*)`;
    }
    return { kind: "downstream", downstream };
  }
  if (rule.includes("*")) return `"${rule}": only whole-downstream wildcards (downstream__*) are supported`;
  const ref = tryParseToolRef(rule);
  if (ref === undefined || !isValidDownstreamName(ref.downstream)) {
    return `"${rule}" is not a namespaced tool name (downstream__tool)`;
  }
  return { kind: "exact", name: formatToolRef(ref), ref };
}

/** The downstream a rule names. */
export function ruleDownstream(rule: Rule): string {
  return rule.kind === "exact" ? rule.ref.downstream : rule.downstream;
}

/** The rules of one client, as configured. */
export interface ClientRules {
  /** Allow rules. */
  readonly allow: readonly string[];
  /** Deny rules. */
  readonly deny: readonly string[];
}

/** A compiled rule set: exact names and wildcard downstreams. */
interface RuleSet {
  readonly exact: ReadonlySet<string>;
  readonly downstreams: ReadonlySet<string>;
}

function compile(rules: readonly string[]): RuleSet {
  const exact = new Set<string>();
  const downstreams = new Set<string>();
  for (const text of rules) {
    const rule = parseRule(text);
    if (typeof rule === "string") throw new TypeError(`invalid policy rule: ${rule}`);
    if (rule.kind === "exact") exact.add(rule.name);
    else downstreams.add(rule.downstream);
  }
  return { exact, downstreams };
}

function matches(set: RuleSet, ref: ToolRef, name: string): boolean {
  return set.downstreams.has(ref.downstream) || set.exact.has(name);
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
