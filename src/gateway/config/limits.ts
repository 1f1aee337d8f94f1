/**
 * The `limits:` section: where counters live (`store`), what a call gets when that store cannot answer
 * (`on_store_error`), and the rules. Every value is checked with the limits' own parsers so a problem is
 * reported at its place in the file; rules must name configured clients and downstreams (a typo would
 * otherwise silently limit nothing).
 *
 * @module
 */
import {
  DEFAULT_LEASE_MS,
  DEFAULT_STORE_TIMEOUT_MS,
  type LimitRule,
  type LimitsSettings,
  MAX_COUNT,
  namePatternProblem,
  parsePer,
  parseResetTime,
  type Per,
  QUOTA_UNITS,
  RATE_UNITS,
  ruleProblems,
  toolPatternProblem,
} from "../../limits/mod.ts";
import { child, type Located, type Reader } from "./yaml_tree.ts";

const TOP = ["store", "on_store_error", "store_timeout_ms", "lease_ms", "rules"] as const;
const RULE_KEYS = [
  "name",
  "clients",
  "tools",
  "downstreams",
  "rate",
  "burst",
  "concurrency",
  "quota",
  "quota_reset",
] as const;

/** Checks a `store:` value: `memory` or `redis://host:port/db` (`rediss://` for TLS). */
export function storeProblem(store: string): string | undefined {
  if (store === "memory") return undefined;
  let url: URL;
  try {
    url = new URL(store);
  } catch {
    return `must be "memory" or a redis://host:port/db URL, got "${store}"`;
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    return `must be "memory" or a redis://host:port/db URL, got "${store}"`;
  }
  if (url.hostname === "") return "the Redis URL needs a host";
  if (!/^(\/\d{0,2})?$/.test(url.pathname)) {
    return `the database must be a number (/0), got "${url.pathname}"`;
  }
  return undefined;
}

function patterns(r: Reader, at: Located): string[] {
  if (!r.present(at)) return ["*"];
  return r.strings(at) ?? [];
}

function per(r: Reader, at: Located, units: readonly string[]): Per | undefined {
  if (!r.present(at)) return undefined;
  const text = r.string(at, true);
  if (text === undefined) return undefined;
  const parsed = parsePer(text, units);
  if (typeof parsed === "string") {
    r.problems.add(at, parsed);
    return undefined;
  }
  return parsed;
}

function loadRule(
  r: Reader,
  at: Located,
  index: number,
  known: { clients: ReadonlySet<string>; downstreams: ReadonlySet<string> },
): LimitRule | undefined {
  const e = r.map(at, RULE_KEYS);
  if (e === undefined) return undefined;
  const nameAt = child(e, at, "name");
  const name = r.present(nameAt) ? r.string(nameAt, true) : `rule ${index + 1}`;
  const clientsAt = child(e, at, "clients");
  const toolsAt = child(e, at, "tools");
  const dsAt = child(e, at, "downstreams");
  const clients = patterns(r, clientsAt);
  const tools = patterns(r, toolsAt);
  const downstreams = patterns(r, dsAt);
  let ok = name !== undefined;
  const report = (where: Located, problem: string | undefined) => {
    if (problem === undefined) return;
    r.problems.add(where, problem);
    ok = false;
  };
  for (const c of clients) {
    report(clientsAt, namePatternProblem(c, "client"));
    if (c !== "*" && !c.includes("*") && !known.clients.has(c)) report(clientsAt, `unknown client "${c}"`);
  }
  for (const d of downstreams) {
    report(dsAt, namePatternProblem(d, "downstream"));
    if (d !== "*" && !d.includes("*") && !known.downstreams.has(d)) {
      report(dsAt, `unknown downstream "${d}"`);
    }
  }
  for (const t of tools) {
    const problem = toolPatternProblem(t);
    report(toolsAt, problem);
    const ds = t.slice(0, Math.max(0, t.indexOf("__")));
    if (problem === undefined && t !== "*" && !ds.includes("*") && !known.downstreams.has(ds)) {
      report(toolsAt, `"${t}" names unknown downstream "${ds}"`);
    }
  }
  const rate = per(r, child(e, at, "rate"), RATE_UNITS);
  const quota = per(r, child(e, at, "quota"), QUOTA_UNITS);
  const burstAt = child(e, at, "burst");
  const burst = r.present(burstAt) ? r.integer(burstAt, 1, MAX_COUNT) : undefined;
  const concAt = child(e, at, "concurrency");
  const concurrency = r.present(concAt) ? r.integer(concAt, 1, MAX_COUNT) : undefined;
  const resetAt = child(e, at, "quota_reset");
  let quotaResetMs: number | undefined;
  if (r.present(resetAt)) {
    const text = r.string(resetAt, true);
    const parsed = text === undefined ? undefined : parseResetTime(text);
    if (typeof parsed === "string") report(resetAt, parsed);
    else quotaResetMs = parsed;
  }
  const rule: LimitRule = {
    name: name ?? "",
    clients,
    tools,
    downstreams,
    ...(rate === undefined ? {} : { rate }),
    ...(burst === undefined ? {} : { burst }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(quota === undefined ? {} : { quota }),
    ...(quotaResetMs === undefined ? {} : { quotaResetMs }),
  };
  const rateAt = child(e, at, "rate");
  const quotaAt = child(e, at, "quota");
  if (!r.present(rateAt) && !r.present(concAt) && !r.present(quotaAt)) {
    report(at, "states no limit (rate, concurrency or quota)");
  }
  if (r.present(burstAt) && !r.present(rateAt)) report(burstAt, "burst needs a rate");
  if (r.present(resetAt) && !r.present(quotaAt)) report(resetAt, "quota_reset needs a quota");
  for (const [list, where] of [[clients, clientsAt], [tools, toolsAt], [downstreams, dsAt]] as const) {
    if (list.length === 0) report(where, 'must name at least one pattern (or "*")');
  }
  if (!ok || (rate === undefined && concurrency === undefined && quota === undefined)) return undefined;
  // Anything the checks above missed would make the rule throw when compiled: refuse it here instead.
  for (const problem of ruleProblems(rule)) report(at, problem);
  return ok ? Object.freeze(rule) : undefined;
}

/**
 * Loads the `limits:` section (absent: no limits). `clients` and `downstreams` are the configured ids and
 * names rules may refer to.
 */
export function loadLimits(
  r: Reader,
  at: Located,
  known: { clients: ReadonlySet<string>; downstreams: ReadonlySet<string> },
): LimitsSettings | undefined {
  if (!r.present(at)) return undefined;
  const entries = r.map(at, TOP);
  const storeAt = child(entries, at, "store");
  const store = r.present(storeAt) ? r.string(storeAt) : "memory";
  const problem = store === undefined ? undefined : storeProblem(store);
  if (problem !== undefined) r.problems.add(storeAt, problem);
  const actionAt = child(entries, at, "on_store_error");
  const onStoreError = r.present(actionAt) ? r.oneOf(actionAt, ["deny", "allow"] as const) ?? "deny" : "deny";
  const timeoutAt = child(entries, at, "store_timeout_ms");
  const storeTimeoutMs = r.present(timeoutAt)
    ? r.integer(timeoutAt, 1, 60_000) ?? DEFAULT_STORE_TIMEOUT_MS
    : DEFAULT_STORE_TIMEOUT_MS;
  const leaseAt = child(entries, at, "lease_ms");
  const leaseMs = r.present(leaseAt)
    ? r.integer(leaseAt, 1_000, 3_600_000) ?? DEFAULT_LEASE_MS
    : DEFAULT_LEASE_MS;
  const rules: LimitRule[] = [];
  const names = new Set<string>();
  const rulesAt = child(entries, at, "rules");
  for (const [i, item] of (r.present(rulesAt) ? r.list(rulesAt) ?? [] : []).entries()) {
    const rule = loadRule(r, item, i, known);
    if (rule === undefined) continue;
    if (names.has(rule.name)) r.problems.add(item, `duplicate rule name "${rule.name}"`);
    names.add(rule.name);
    rules.push(rule);
  }
  return Object.freeze({
    store: store ?? "memory",
    onStoreError,
    storeTimeoutMs,
    leaseMs,
    rules: Object.freeze(rules),
  });
}
