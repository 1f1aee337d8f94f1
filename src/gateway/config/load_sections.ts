/**
 * The smaller sections of the gateway configuration: policy rules, redaction patterns, the audit sink,
 * CodeMode limits, Rego authorization, and the allowed browser origins and Host values.
 *
 * @module
 */
import { parseRule, ruleDownstream } from "../policy/mod.ts";
import { LIMIT_FIELDS, resolveLimits } from "../../core/mod.ts";
import type {
  AuditConfig,
  AuthzConfig,
  ClientPolicyConfig,
  CodeModeLimitsConfig,
  RedactionConfig,
  RedactionPatternConfig,
} from "./types.ts";
import { child, type Located, type Reader } from "./yaml_tree.ts";
import { DEFAULTS, optionalInt } from "./load_shared.ts";

/** Loads the per-client allow and deny rules; a rule must name a known downstream. */
export function loadPolicy(
  r: Reader,
  at: Located,
  clientIds: ReadonlySet<string>,
  downstreams: ReadonlySet<string>,
): Record<string, ClientPolicyConfig> {
  const out: Record<string, ClientPolicyConfig> = {};
  if (!r.present(at)) return out;
  const entries = r.map(at, ["default", "clients"]);
  const defAt = child(entries, at, "default");
  if (r.present(defAt)) r.oneOf(defAt, ["deny"] as const);
  const clientsAt = child(entries, at, "clients");
  if (!r.present(clientsAt)) return out;
  for (const [id, cAt] of r.map(clientsAt) ?? []) {
    if (!clientIds.has(id)) r.problems.add(cAt, `policy for unknown client "${id}"`);
    const rules = r.map(cAt, ["allow", "deny"]);
    const lists: Record<"allow" | "deny", string[]> = { allow: [], deny: [] };
    for (const kind of ["allow", "deny"] as const) {
      const listAt = child(rules, cAt, kind);
      if (!r.present(listAt)) continue;
      for (const [i, rule] of (r.strings(listAt) ?? []).entries()) {
        const parsed = parseRule(rule);
        const ruleAt = { path: `${listAt.path}[${i}]`, offset: listAt.offset };
        const named = typeof parsed === "string" ? undefined : ruleDownstream(parsed);
        if (typeof parsed === "string") r.problems.add(ruleAt, parsed);
        // A pattern over downstream names (`*__search`) names none; `--check --probe` warns when it
        // matches no tool.
        else if (named !== undefined && !downstreams.has(named)) {
          r.problems.add(ruleAt, `rule "${rule}" names unknown downstream "${named}"`);
        } else lists[kind].push(rule);
      }
    }
    out[id] = Object.freeze(lists);
  }
  return out;
}

/** Loads the result size cap and the redaction patterns. */
export function loadRedaction(r: Reader, at: Located): RedactionConfig {
  const entries = r.present(at) ? r.map(at, ["max_result_bytes", "patterns"]) : undefined;
  const maxResultBytes = optionalInt(
    r,
    child(entries, at, "max_result_bytes"),
    1,
    1 << 30,
    DEFAULTS.maxResultBytes,
  );
  const patterns: RedactionPatternConfig[] = [];
  const patternsAt = child(entries, at, "patterns");
  const names = new Set<string>();
  for (const item of r.present(patternsAt) ? r.list(patternsAt) ?? [] : []) {
    const e = r.map(item, ["name", "regex", "anchor"]);
    if (e === undefined) continue;
    const nameAt = child(e, item, "name");
    const name = r.string(nameAt);
    if (name !== undefined && names.has(name)) r.problems.add(nameAt, `duplicate pattern name "${name}"`);
    if (name !== undefined) names.add(name);
    const regexAt = child(e, item, "regex");
    const regex = r.string(regexAt);
    const anchorAt = child(e, item, "anchor");
    const anchor = r.string(anchorAt);
    let ok = regex !== undefined;
    if (regex !== undefined) {
      try {
        if (new RegExp(`^(?:${regex})$`).test("")) {
          r.problems.add(regexAt, "must not match the empty string");
          ok = false;
        }
      } catch (err) {
        r.problems.add(regexAt, `is not a valid regular expression (${(err as Error).message})`);
        ok = false;
      }
    }
    if (ok && anchor !== undefined && regex !== undefined && name !== undefined) {
      patterns.push(Object.freeze({ name, regex, anchor }));
    }
  }
  return Object.freeze({ maxResultBytes, patterns });
}

/** Loads the audit sink and its buffering. */
export function loadAudit(r: Reader, at: Located): AuditConfig {
  const d = DEFAULTS.audit;
  const entries = r.present(at)
    ? r.map(at, ["sink", "buffer", "high_water", "fsync_ms", "security_block_ms"])
    : undefined;
  const sinkAt = child(entries, at, "sink");
  const sinkText = r.present(sinkAt) ? r.string(sinkAt) : d.sink;
  let sink: AuditConfig["sink"] = { kind: "stdout" };
  if (sinkText !== undefined && sinkText !== "stdout") {
    if (sinkText.startsWith("file:") && sinkText.length > 5) sink = { kind: "file", path: sinkText.slice(5) };
    else r.problems.add(sinkAt, `must be "stdout" or "file:PATH", got "${sinkText}"`);
  }
  const buffer = optionalInt(r, child(entries, at, "buffer"), 1, 1 << 20, d.buffer);
  const hwAt = child(entries, at, "high_water");
  const highWater = optionalInt(r, hwAt, 0, 1 << 20, Math.min(d.highWater, buffer));
  if (highWater > buffer) r.problems.add(hwAt, `must not exceed buffer (${buffer})`);
  return Object.freeze({
    sink: Object.freeze(sink),
    buffer,
    highWater: Math.min(highWater, buffer),
    fsyncMs: optionalInt(r, child(entries, at, "fsync_ms"), 0, 3_600_000, d.fsyncMs),
    securityBlockMs: optionalInt(r, child(entries, at, "security_block_ms"), 1, 600_000, d.securityBlockMs),
  });
}

/** `max_execution_time` → `maxExecutionTime`: the core's field names in the file's snake_case. */
function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Loads CodeMode limits, checked against the core's own bounds. */
export function loadCodeMode(r: Reader, at: Located): CodeModeLimitsConfig {
  if (!r.present(at)) return Object.freeze({});
  const byKey = new Map(LIMIT_FIELDS.map((f) => [snakeCase(f), f]));
  const entries = r.map(at, [...byKey.keys()]);
  const out: Record<string, number> = {};
  for (const [key, field] of byKey) {
    const fAt = child(entries, at, key);
    if (!r.present(fAt)) continue;
    const value = r.integer(fAt, 1);
    if (value === undefined) continue;
    // The core's own bounds (a time that fits a timer, the smallest int size ...), reported here.
    try {
      resolveLimits({ [field]: value });
      out[field] = value;
    } catch (err) {
      r.problems.add(fAt, (err as Error).message.replace(/^limits: \w+ /, ""));
    }
  }
  return Object.freeze(out);
}

/** Loads the Rego authorization section. */
export function loadAuthz(r: Reader, at: Located): AuthzConfig | undefined {
  if (!r.present(at)) return undefined;
  const entries = r.map(at, ["rego"]);
  const regoAt = child(entries, at, "rego");
  if (!r.present(regoAt)) return undefined;
  const rego = r.map(regoAt, ["policy", "decision"]);
  const policy = r.string(child(rego, regoAt, "policy"));
  const decisionAt = child(rego, regoAt, "decision");
  const decision = r.string(decisionAt);
  if (decision !== undefined && !/^data(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(decision)) {
    r.problems.add(decisionAt, `must be a data reference such as data.gateway.args.allow, got "${decision}"`);
    return undefined;
  }
  if (policy === undefined || decision === undefined) return undefined;
  return Object.freeze({ rego: Object.freeze({ policy, decision }) });
}

/** Loads the allowed browser origins. */
export function loadOrigins(r: Reader, at: Located): string[] {
  if (!r.present(at)) return [];
  const out: string[] = [];
  for (const [i, o] of (r.strings(at) ?? []).entries()) {
    let origin: string | undefined;
    try {
      origin = new URL(o).origin;
    } catch { /* reported below */ }
    if (origin === undefined || origin === "null" || origin !== o.replace(/\/$/, "")) {
      r.problems.add(
        { path: `${at.path}[${i}]`, offset: at.offset },
        `"${o}" is not an origin (scheme://host[:port])`,
      );
    } else out.push(origin);
  }
  return out;
}

// The shape of a Host header value: `name`, `name:port` or `[v6]:port`.
const HOST_RE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/** Loads the allowed Host values (lower-cased). */
export function loadHosts(r: Reader, at: Located): string[] {
  if (!r.present(at)) return [];
  const out: string[] = [];
  for (const [i, h] of (r.strings(at) ?? []).entries()) {
    if (!HOST_RE.test(h)) {
      r.problems.add(
        { path: `${at.path}[${i}]`, offset: at.offset },
        `"${h}" is not a host (name or name:port)`,
      );
    } else out.push(h.toLowerCase());
  }
  return out;
}
