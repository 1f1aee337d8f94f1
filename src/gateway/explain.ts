/**
 * Explains a policy decision: for a client and a namespaced tool, the decision and reason code the
 * pipeline would audit, the rules that made it (with their `file:line` when the configuration file is
 * known), and whether the tool exists. Shared by `deno task gateway explain` and the operator console.
 *
 * @module
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { GatewayConfig } from "./config/mod.ts";
import { type ToolRef, tryParseToolRef } from "./domain/mod.ts";
import { Policy } from "./policy/mod.ts";

/** Whether the tool exists, as its downstream says (text after `tool: `). */
export type ToolPresence =
  | { readonly kind: "exists"; readonly text: string }
  | { readonly kind: "missing"; readonly text: string }
  | { readonly kind: "unknown"; readonly text: string };

/** An explanation. */
export interface Explanation {
  /** `allowed` or `denied`. */
  readonly decision: "allowed" | "denied";
  /** The reason code the audit log records (`allowed`, `denied_default`, `denied_explicit`, `not_found`). */
  readonly reason: string;
  /** Lines: the deciding rules (`rule: ...`), shadowed allows, the tool's presence, what decides next. */
  readonly lines: readonly string[];
}

/** The configuration file, to point at rules by line. */
export interface ConfigSource {
  /** The path shown. */
  readonly file: string;
  /** Its text. */
  readonly text: string;
}

/** Where the tool's presence comes from. */
export type PresenceLookup = (ref: ToolRef) => ToolPresence | Promise<ToolPresence>;

function lineOf(source: ConfigSource | undefined, path: readonly (string | number)[], match: string): string {
  if (source === undefined) return "the configuration";
  const lines = new LineCounter();
  const doc = parseDocument(source.text, { lineCounter: lines });
  const node = doc.getIn(path, true);
  if (isSeq(node)) {
    for (const item of node.items) {
      if (isScalar(item) && item.value === match && item.range) {
        return `${source.file}:${lines.linePos(item.range[0]).line}`;
      }
    }
  }
  if (isMap(node)) {
    for (const pair of node.items) {
      if (isScalar(pair.key) && pair.key.value === match && pair.key.range) {
        return `${source.file}:${lines.linePos(pair.key.range[0]).line}`;
      }
    }
  }
  return source.file;
}

/** Explains what `client` calling `tool` gets under `config` (see the module docs). */
export async function explainDecision(
  config: GatewayConfig,
  client: string,
  tool: string,
  presence: PresenceLookup,
  source?: ConfigSource,
): Promise<Explanation> {
  const ref = tryParseToolRef(tool);
  if (ref === undefined) {
    return {
      decision: "denied",
      reason: "denied_default",
      lines: [`rule: none: "${tool}" is not a namespaced tool name (downstream__tool); no rule can match it`],
    };
  }
  const identity = Object.freeze({ id: client });
  const decision = new Policy(config.policy.clients).decide(identity, ref);
  const rules = config.policy.clients[client];
  // Which rules decided: each rule alone, through the same policy code, so the answer follows the
  // policy's own matching whatever patterns it supports.
  const matching = (list: readonly string[]) =>
    list.filter((rule) => new Policy({ [client]: { allow: [rule], deny: [] } }).decide(identity, ref).allow);
  const at = (list: "allow" | "deny", rule: string) =>
    lineOf(source, ["policy", "clients", client, list], rule);
  const lines: string[] = [];
  let reason: string = decision.reason;
  if (rules === undefined) {
    lines.push(`rule: none: client "${client}" has no policy entry (deny by default)`);
    if (!config.clients.some((c) => c.id === client)) {
      lines.push(`note: "${client}" is not a configured client`);
    }
  } else if (reason === "denied_explicit") {
    for (const rule of matching(rules.deny)) lines.push(`rule: deny "${rule}" at ${at("deny", rule)}`);
    for (const rule of matching(rules.allow)) {
      lines.push(`shadowed: allow "${rule}" at ${at("allow", rule)} (deny wins)`);
    }
  } else if (reason === "allowed") {
    for (const rule of matching(rules.allow)) lines.push(`rule: allow "${rule}" at ${at("allow", rule)}`);
  } else {
    const entry = lineOf(source, ["policy", "clients"], client);
    lines.push(`rule: none: no allow rule of "${client}" at ${entry} matches`);
  }
  const found: ToolPresence = config.downstreams.some((d) => d.name === ref.downstream)
    ? await presence(ref)
    : { kind: "missing", text: `no downstream "${ref.downstream}" is configured` };
  // A call the policy allows to a tool that does not exist is audited as not_found (and answered as a
  // denial).
  if (reason === "allowed" && found.kind === "missing") reason = "not_found";
  lines.push(`tool: ${found.kind}: ${found.text}`);
  if (reason === "allowed" && config.authz?.rego !== undefined) {
    lines.push(
      `then: each call is also decided by the Rego policy ${config.authz.rego.policy} (on its arguments)`,
    );
  }
  if (reason === "allowed" && config.limits !== undefined) {
    lines.push("then: limit rules may refuse a call (rate, quota, concurrency)");
  }
  return { decision: reason === "allowed" ? "allowed" : "denied", reason, lines };
}

/** The presence of `ref` among listed downstreams (name, state, tool names). */
export function presenceIn(
  downstreams: readonly { name: string; state: string; tools: readonly { name: string }[] }[],
  ref: ToolRef,
): ToolPresence {
  const d = downstreams.find((x) => x.name === ref.downstream);
  if (d === undefined) return { kind: "missing", text: `no downstream "${ref.downstream}" is running` };
  if (d.state !== "up") {
    return { kind: "unknown", text: `downstream "${d.name}" is ${d.state}, its tools could not be listed` };
  }
  return d.tools.some((t) => t.name === ref.tool)
    ? { kind: "exists", text: `downstream "${d.name}" lists it` }
    : { kind: "missing", text: `downstream "${d.name}" lists no tool "${ref.tool}"` };
}
