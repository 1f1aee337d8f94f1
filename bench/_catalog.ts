/**
 * A deterministic synthetic catalog for benchmarks: 4,096 capabilities across 64 services, with
 * realistic names, summaries, descriptions and search terms.
 *
 * @module
 */
import { type CapabilityDefinition, t } from "../mod.ts";

const SERVICES = [
  "github",
  "gitlab",
  "jira",
  "slack",
  "drive",
  "calendar",
  "mail",
  "records",
  "users",
  "billing",
  "search",
  "storage",
  "files",
  "db",
  "metrics",
  "logs",
  "alerts",
  "deploy",
  "builds",
  "tickets",
  "docs",
  "wiki",
  "crm",
  "sales",
  "support",
  "hr",
  "payroll",
  "inventory",
  "orders",
  "shipping",
  "catalog",
  "pricing",
  "auth",
  "secrets",
  "dns",
  "cdn",
  "queue",
  "cache",
  "cron",
  "email",
  "sms",
  "push",
  "maps",
  "weather",
  "translate",
  "vision",
  "speech",
  "notes",
  "tasks",
  "forms",
  "surveys",
  "events",
  "tickets2",
  "media",
  "images",
  "video",
  "audio",
  "backup",
  "audit",
  "policy",
  "billing2",
  "invoices",
  "contracts",
  "assets",
];
const VERBS = [
  "get",
  "list",
  "create",
  "update",
  "delete",
  "search",
  "archive",
  "restore",
  "export",
  "import",
  "sync",
  "count",
  "find",
  "approve",
  "review",
  "merge",
];
const NOUNS = [
  "Record",
  "User",
  "Issue",
  "PullRequest",
  "Comment",
  "File",
  "Folder",
  "Message",
  "Channel",
  "Event",
  "Invoice",
  "Order",
  "Report",
  "Review",
  "Project",
  "Team",
];
const WORDS = [
  "stored",
  "entry",
  "item",
  "owner",
  "status",
  "history",
  "latest",
  "recent",
  "shared",
  "public",
  "private",
  "pending",
  "active",
  "remote",
  "local",
  "summary",
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `count` capability definitions (at most 4,096). */
export function syntheticCatalog(
  count = 4096,
): CapabilityDefinition<ReturnType<typeof inputFor>, ReturnType<typeof outputFor>>[] {
  const rand = rng(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const out = [];
  for (let i = 0; i < count; i++) {
    const service = SERVICES[i % SERVICES.length];
    const verb = VERBS[Math.floor(i / SERVICES.length) % VERBS.length];
    const noun = NOUNS[Math.floor(i / (SERVICES.length * VERBS.length)) % NOUNS.length];
    const name = `${service}.${verb}${noun}`;
    const noun2 = noun.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
    out.push({
      name,
      summary: `${verb[0].toUpperCase()}${verb.slice(1)} a ${pick(WORDS)} ${noun2} in ${service}`,
      description: `${verb[0].toUpperCase()}${verb.slice(1)} ${noun2} objects of the ${service} service. ` +
        `Returns the ${pick(WORDS)} ${pick(WORDS)} fields and the ${pick(WORDS)} state of each ${noun2}.`,
      searchTerms: [`${pick(WORDS)} ${noun2}`, `${pick(VERBS)} ${pick(WORDS)}`],
      input: inputFor(),
      output: outputFor(),
      handler: () => ({ id: "x", count: 1, tags: null }),
    });
  }
  return out;
}

function inputFor() {
  return t.struct({ id: t.str(), limit: t.optional(t.int()), verbose: t.optional(t.bool()) });
}

function outputFor() {
  return t.struct({ id: t.str(), count: t.int(), tags: t.list(t.str()) });
}

/** Queries of different shapes: exact names, common words, prefixes, multi-token tasks. */
export const QUERIES: readonly string[] = [
  "github.createPullRequest",
  "find stored record",
  "create review for a pull request",
  "list users",
  "invoice",
  "rec",
  "delete old files in drive",
  "approve pending order",
];
