/**
 * What `--check` warns about in a configuration that is valid but probably not what its author meant.
 * Warnings, never problems: the file still passes.
 *
 * - Always: an allow rule that a deny rule of the same client fully covers (`allow: [memory__read_*]`
 *   under `deny: [memory__*]`) never allows anything, since deny wins.
 * - With `--probe` (the downstreams are started, as `tools` does): a policy or limit rule whose pattern
 *   matches no tool of any running downstream — usually a typo or a renamed tool. Rules that name a
 *   downstream that did not come up are not judged; the downstream's failure is the warning.
 *
 * Each warning carries the rule's place in the file, like a problem.
 *
 * @module
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { ConfigProblem, GatewayConfig } from "./config/mod.ts";
import { globCovers, globMatches, splitPattern, WILDCARD } from "../limits/mod.ts";

/** A downstream as the probe saw it (the registry's view). */
export interface ProbedDownstream {
  /** Its configured name. */
  readonly name: string;
  /** `up` when it answered with its tools. */
  readonly state: string;
  /** Its tools, by their own (un-namespaced) names. */
  readonly tools: readonly { readonly name: string }[];
}

/** Finds the line and column of a list item in the file (0:0 when the text is not known). */
class Locator {
  readonly #doc;
  readonly #lines = new LineCounter();

  constructor(text: string | undefined) {
    this.#doc = text === undefined ? undefined : parseDocument(text, { lineCounter: this.#lines });
  }

  at(path: readonly (string | number)[], message: string): ConfigProblem {
    const dotted = path.map((p, i) => typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`).join("");
    const node = this.#doc?.getIn(path, true);
    if ((isScalar(node) || isSeq(node) || isMap(node)) && node.range) {
      const { line, col } = this.#lines.linePos(node.range[0]);
      return { path: dotted, line, column: col, message };
    }
    return { path: dotted, line: 0, column: 0, message };
  }
}

/** Allow rules made useless by a deny rule of the same client (see the module docs). */
export function shadowWarnings(config: GatewayConfig, text?: string): ConfigProblem[] {
  const where = new Locator(text);
  const out: ConfigProblem[] = [];
  for (const [client, rules] of Object.entries(config.policy.clients)) {
    for (const [i, allow] of rules.allow.entries()) {
      const deny = rules.deny.find((d) => globCovers(d, allow));
      if (deny === undefined) continue;
      out.push(where.at(
        ["policy", "clients", client, "allow", i],
        `allow "${allow}" is shadowed by deny "${deny}": deny wins, so it allows nothing`,
      ));
    }
  }
  return out;
}

/** Rules that match no tool of a running downstream, and downstreams that did not come up. */
export function probeWarnings(
  config: GatewayConfig,
  downstreams: readonly ProbedDownstream[],
  text?: string,
): ConfigProblem[] {
  const where = new Locator(text);
  const out: ConfigProblem[] = [];
  const up = downstreams.filter((d) => d.state === "up");
  const down = new Set(downstreams.filter((d) => d.state !== "up").map((d) => d.name));
  for (const d of downstreams) {
    if (d.state !== "up") {
      out.push(where.at(
        ["downstreams"],
        `downstream "${d.name}" is ${d.state}: rules naming its tools were not checked`,
      ));
    }
  }
  const names = up.flatMap((d) => d.tools.map((t) => `${d.name}__${t.name}`));
  const unmatched = (pattern: string): boolean => {
    if (pattern === WILDCARD) return false;
    // A rule about a downstream that did not come up cannot be judged.
    const named = splitPattern(pattern)?.downstream;
    if (named !== undefined && !named.includes(WILDCARD) && down.has(named)) return false;
    return !names.some((n) => globMatches(pattern, n));
  };
  const running = up.length === 0 ? "none is running" : `running: ${up.map((d) => d.name).join(", ")}`;
  for (const [client, rules] of Object.entries(config.policy.clients)) {
    for (const kind of ["allow", "deny"] as const) {
      for (const [i, rule] of rules[kind].entries()) {
        if (!unmatched(rule)) continue;
        out.push(where.at(
          ["policy", "clients", client, kind, i],
          `${kind} "${rule}" matches no tool of a running downstream (${running})`,
        ));
      }
    }
  }
  for (const [r, rule] of (config.limits?.rules ?? []).entries()) {
    for (const [i, pattern] of rule.tools.entries()) {
      if (!unmatched(pattern)) continue;
      out.push(where.at(
        ["limits", "rules", r, "tools", i],
        `tool pattern "${pattern}" of limit rule "${rule.name}" matches no tool of a running downstream (${running})`,
      ));
    }
  }
  return out;
}
