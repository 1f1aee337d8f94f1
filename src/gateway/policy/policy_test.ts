import assert from "node:assert/strict";
import { Catalog, makeTool, type ReasonCode, toolRef } from "../domain/mod.ts";
import { parseRule, Policy } from "./mod.ts";

const policy = new Policy({
  alice: { allow: ["memory__*", "everything__echo"], deny: ["memory__delete_entities"] },
  bob: { allow: ["everything__*"], deny: ["everything__*"] },
  carol: { allow: ["memory__read_graph"], deny: [] },
  dave: { allow: [], deny: [] },
});

const TABLE: [string, string, string, ReasonCode][] = [
  ["alice", "memory", "read_graph", "allowed"],
  ["alice", "memory", "delete_entities", "denied_explicit"],
  ["alice", "everything", "echo", "allowed"],
  ["alice", "everything", "add", "denied_default"],
  ["alice", "files", "read", "denied_default"],
  ["bob", "everything", "echo", "denied_explicit"],
  ["bob", "memory", "read_graph", "denied_default"],
  ["carol", "memory", "read_graph", "allowed"],
  ["carol", "memory", "read_graph2", "denied_default"],
  ["carol", "memory", "read", "denied_default"],
  ["dave", "memory", "read_graph", "denied_default"],
  ["mallory", "memory", "read_graph", "denied_default"],
  // A tool name that itself contains the separator is matched whole, never as a shorter name.
  ["alice", "everything", "echo__x", "denied_default"],
];

Deno.test("policy: decision table (deny by default, deny beats allow, wildcards)", () => {
  for (const [client, ds, tool, reason] of TABLE) {
    const d = policy.decide({ id: client }, toolRef(ds, tool));
    assert.equal(d.reason, reason, `${client} ${ds}__${tool}`);
    assert.equal(d.allow, reason === "allowed", `${client} ${ds}__${tool}`);
  }
});

Deno.test("policy: an empty policy denies everything by default", () => {
  const d = new Policy().decide({ id: "alice" }, toolRef("memory", "read_graph"));
  assert.deepEqual(d, { allow: false, reason: "denied_default" });
});

Deno.test("policy: filter shows a client exactly the tools it may call", () => {
  const tools = ["memory__read_graph", "memory__delete_entities", "everything__echo", "everything__add"];
  const full = new Catalog(tools.map((n) => {
    const [ds, tool] = n.split("__");
    return makeTool({ ref: toolRef(ds, tool), description: `desc of ${n}`, inputSchema: { type: "object" } });
  }));
  const names = (c: Catalog) => c.tools.map((t) => t.name);
  assert.deepEqual(names(policy.filter({ id: "alice" }, full)), [
    "memory__read_graph",
    "everything__echo",
  ]);
  assert.deepEqual(names(policy.filter({ id: "bob" }, full)), []);
  assert.deepEqual(names(policy.filter({ id: "mallory" }, full)), []);
  assert.equal(policy.filter({ id: "alice" }, full).lookup("memory__delete_entities"), undefined);
});

Deno.test("policy: rule syntax", () => {
  assert.deepEqual(parseRule("memory__*"), { kind: "downstream", downstream: "memory" });
  const exact = parseRule("memory__read_graph");
  assert.ok(typeof exact !== "string" && exact.kind === "exact" && exact.name === "memory__read_graph");
  assert.deepEqual(parseRule("memory__read_*"), {
    kind: "glob",
    pattern: "memory__read_*",
    downstream: "memory",
  });
  assert.deepEqual(parseRule("*__search_*"), { kind: "glob", pattern: "*__search_*", downstream: undefined });
  assert.deepEqual(parseRule("a___*"), { kind: "glob", pattern: "a___*", downstream: "a" });
  // A pattern must spell out the separator: a bare `*` or `mem*` would silently cover every downstream.
  for (const bad of ["*", "mem*", "__*", "memory", "memory__", "__x", "a____b", "*__", "a____*"]) {
    assert.equal(typeof parseRule(bad), "string", bad);
  }
  assert.throws(() => new Policy({ x: { allow: ["*"], deny: [] } }), TypeError);
});

Deno.test("policy: `*` within names, deny wins — decisions match a reference model on generated policies", () => {
  let seed = 2025;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const choose = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const downstreams = ["memory", "mem", "github"];
  const tools = ["read_graph", "read", "search_nodes", "search", "delete", "a__search_x", "read_"];
  const names = downstreams.flatMap((d) => tools.map((t) => [d, t] as const));
  const patterns = [
    "memory__*",
    "mem__*",
    "memory__read_*",
    "memory__read*",
    "*__search_*",
    "*__search*",
    "mem*__*",
    "*__*",
    "github__*_x",
    "*__read",
    "memory__read_graph",
    "github__search",
  ];
  // The model, independent of the policy code: a rule is a regex over the whole name with `*` as `.*`.
  const re = (p: string) => new RegExp(`^${p.split("*").join(".*")}$`);
  const any = (rules: string[], name: string) => rules.some((r) => re(r).test(name));
  for (let i = 0; i < 400; i++) {
    const rules = {
      allow: Array.from({ length: Math.floor(next() * 4) }, () => choose(patterns)),
      deny: Array.from({ length: Math.floor(next() * 3) }, () => choose(patterns)),
    };
    const p = new Policy({ c: rules });
    for (const [ds, tool] of names) {
      const name = `${ds}__${tool}`;
      const want: ReasonCode = any(rules.deny, name)
        ? "denied_explicit"
        : any(rules.allow, name)
        ? "allowed"
        : "denied_default";
      assert.equal(p.decide({ id: "c" }, toolRef(ds, tool)).reason, want, `${JSON.stringify(rules)} ${name}`);
    }
  }
});
