import assert from "node:assert/strict";
import {
  breakerScopeOf,
  Catalog,
  classifyError,
  decisionOrZero,
  formatToolRef,
  GatewayError,
  isSecurityRecord,
  makeTool,
  parseToolRef,
  toolRef,
  tryParseToolRef,
  withArgs,
  ZERO_DECISION,
} from "./mod.ts";

Deno.test("domain: ToolRef parses downstream__tool and formats back", () => {
  for (
    const [name, downstream, tool] of [
      ["memory__read_graph", "memory", "read_graph"],
      ["a__b", "a", "b"],
      ["gw__memory__read", "gw", "memory__read"], // a gateway fronting a gateway
      ["a___b", "a", "_b"],
      ["every-thing__get-env", "every-thing", "get-env"],
    ]
  ) {
    const ref = parseToolRef(name);
    assert.deepEqual({ ...ref }, { downstream, tool }, name);
    assert.equal(formatToolRef(ref), name);
    assert.ok(Object.isFrozen(ref));
  }
});

Deno.test("domain: ToolRef parse rejects empty parts, a missing or doubled separator", () => {
  const cases: [string, RegExp][] = [
    ["memory", /missing/],
    ["memory_read", /missing/],
    ["", /missing/],
    ["__read", /empty downstream/],
    ["memory__", /empty tool/],
    ["__", /empty downstream/],
    ["memory____read", /doubled/],
    ["a".repeat(300) + "__b", /longer/],
  ];
  for (const [name, why] of cases) {
    assert.throws(() => parseToolRef(name), (e: unknown) => {
      assert.ok(e instanceof GatewayError && e.code === "invalid_tool_name", name);
      assert.match(e.message, why, name);
      assert.ok(!e.message.includes(name) || name === "", "the message never quotes the name");
      return true;
    });
    assert.equal(tryParseToolRef(name), undefined);
  }
});

Deno.test("domain: formatting refuses refs that would not parse back", () => {
  for (const [ds, tool] of [["", "x"], ["a__b", "c"], ["a_", "b"], ["a", ""], ["a", "__b"]]) {
    assert.throws(() => formatToolRef({ downstream: ds, tool }), GatewayError, `${ds}/${tool}`);
    assert.throws(() => toolRef(ds, tool), GatewayError);
  }
});

Deno.test("domain: the zero decision denies", () => {
  assert.deepEqual(decisionOrZero(undefined), { allow: false, reason: "denied_default" });
  assert.equal(ZERO_DECISION.allow, false);
  // A forged allow without the allowed reason code is not an allow.
  assert.equal(decisionOrZero({ allow: true, reason: "denied_explicit" }).allow, false);
  assert.equal(decisionOrZero({ allow: true, reason: "allowed" }).allow, true);
});

Deno.test("domain: Catalog lookup, first listing wins, frozen entries, pages", () => {
  const tool = (ds: string, name: string, description = name) =>
    makeTool({ ref: toolRef(ds, name), description, inputSchema: { type: "object", properties: {} } });
  const c = new Catalog([tool("m", "a"), tool("m", "b"), tool("m", "a", "dup"), tool("e", "c")]);
  assert.equal(c.size, 3);
  assert.equal(c.lookup("m__a")?.description, "a");
  assert.equal(c.lookup("m__zz"), undefined);
  assert.ok(Object.isFrozen(c.lookup("m__a")!.inputSchema));
  assert.throws(() => {
    (c.lookup("m__a")!.inputSchema as Record<string, unknown>).type = "string";
  }, TypeError);
  const p1 = c.page(undefined, 2);
  assert.deepEqual(p1.tools.map((t) => t.name), ["m__a", "m__b"]);
  assert.equal(p1.nextCursor, "m__b");
  const p2 = c.page(p1.nextCursor, 2);
  assert.deepEqual(p2.tools.map((t) => t.name), ["e__c"]);
  assert.equal(p2.nextCursor, undefined);
  const refreshed = c.replaceDownstream("m", [tool("m", "z")]);
  assert.deepEqual(refreshed.tools.map((t) => t.name), ["e__c", "m__z"]);
});

Deno.test("domain: calls are immutable; rewriting makes a copy", () => {
  const call = Object.freeze({ client: { id: "a" }, tool: toolRef("m", "t"), name: "m__t", args: { x: 1 } });
  const copy = withArgs(call, { x: 2 });
  assert.equal(call.args.x, 1);
  assert.equal(copy.args.x, 2);
  assert.ok(Object.isFrozen(copy));
});

Deno.test("domain: error classification and breaker scopes", () => {
  assert.equal(classifyError(new DOMException("t", "TimeoutError")).code, "timeout");
  assert.equal(classifyError(new DOMException("a", "AbortError")).code, "cancelled");
  assert.equal(classifyError(new Error("boom /secret/path")).code, "internal");
  assert.equal(classifyError(new Error("boom /secret/path")).publicText, "internal gateway error");
  assert.equal(breakerScopeOf("downstream_unavailable"), "downstream");
  assert.equal(breakerScopeOf("timeout"), "tool");
  for (const c of ["cancelled", "unknown_tool", "downstream_error", "audit_unavailable"] as const) {
    assert.equal(breakerScopeOf(c), "none", c);
  }
  const e = new GatewayError("downstream_error", "op text", { detail: "bad input" });
  assert.equal(e.publicText, "the tool's server reported an error: bad input");
  assert.equal(e.withDetail("x").publicText, "the tool's server reported an error: x");
  assert.equal(new GatewayError("invalid_tool_name").publicText, new GatewayError("unknown_tool").publicText);
});

Deno.test("domain: security records are denials, redactions and failed authentication", () => {
  const base = {
    timestamp: "2026-01-01T00:00:00.000Z",
    client_id: "a",
    tool_name: "m__t",
    decision: "allowed" as const,
    allowed: true,
    latency_ms: 1,
    breaker_state: "closed" as const,
    redactions: 0,
    truncated: false,
    error: "",
  };
  assert.equal(isSecurityRecord(base), false);
  assert.equal(isSecurityRecord({ ...base, redactions: 1 }), true);
  assert.equal(isSecurityRecord({ ...base, allowed: false, decision: "denied_default" }), true);
  assert.equal(isSecurityRecord({ ...base, allowed: false, decision: "unauthenticated" }), true);
});
