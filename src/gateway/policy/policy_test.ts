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
  for (const bad of ["*", "mem*", "memory__read_*", "__*", "memory", "memory__", "__x", "a____b", "a___*"]) {
    assert.equal(typeof parseRule(bad), "string", bad);
  }
  assert.throws(() => new Policy({ x: { allow: ["*"], deny: [] } }), TypeError);
});
