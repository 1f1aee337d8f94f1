import assert from "node:assert/strict";
import type { AuditRecord } from "../domain/mod.ts";
import { type CodeModePoolHealth, GatewayMetrics } from "./mod.ts";

const RECORD: AuditRecord = {
  timestamp: "2026-01-01T00:00:00.000Z",
  client_id: "alice",
  tool_name: "memory__read_graph",
  decision: "allowed",
  allowed: true,
  latency_ms: 3,
  breaker_state: "closed",
  redactions: 0,
  truncated: false,
  error: "",
};

/** Parses the text format into `name{labels}` → value, checking every line's syntax on the way. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (-?[0-9.e+]+|\+Inf|NaN)$/.exec(line);
    assert.ok(m, `bad exposition line: ${line}`);
    out.set(m[1], Number(m[2]));
  }
  return out;
}

Deno.test("metrics: calls, latency, redactions and outcomes from real observations", async () => {
  const m = new GatewayMetrics({ downstreams: ["memory"], clients: ["alice"] });
  m.observeCall(RECORD, { downstream: "memory" });
  m.observeCall({ ...RECORD, redactions: 2 }, { downstream: "memory" });
  m.observeCall({ ...RECORD, decision: "denied_explicit", allowed: false, error: "unknown tool" }, {
    downstream: "memory",
    errorCode: "unknown_tool",
  });
  // Client input must not mint label values: an unconfigured downstream is folded.
  m.observeCall({ ...RECORD, decision: "denied_default", allowed: false }, {
    downstream: "evil-" + "x".repeat(50),
    errorCode: "unknown_tool",
  });
  const v = parse(await m.text());
  assert.equal(
    v.get('gateway_calls_total{client="alice",downstream="memory",decision="allowed",outcome="ok"}'),
    2,
  );
  assert.equal(
    v.get(
      'gateway_calls_total{client="alice",downstream="_unknown",decision="denied_explicit",outcome="unknown_tool"}',
    ),
    1,
  );
  assert.equal(
    v.get(
      'gateway_calls_total{client="alice",downstream="_unknown",decision="denied_default",outcome="unknown_tool"}',
    ),
    1,
  );
  assert.equal(v.get('gateway_redactions_total{downstream="memory"}'), 2);
  assert.equal(v.get('gateway_call_duration_seconds_count{downstream="memory"}'), 2);
  assert.equal(v.get('gateway_call_duration_seconds_bucket{le="0.005",downstream="memory"}'), 2);
  assert.equal(v.get('gateway_call_duration_seconds_bucket{le="0.0025",downstream="memory"}'), 0);
  assert.match(m.contentType, /^text\/plain; version=0\.0\.4/);
});

Deno.test("metrics: a denied call to a configured downstream reads like one to a missing downstream", async () => {
  const outcomes = [
    { decision: "denied_default", errorCode: "unknown_tool" },
    { decision: "denied_explicit", errorCode: "unknown_tool" },
    { decision: "denied_default", errorCode: "invalid_arguments" },
  ] as const;
  for (const { decision, errorCode } of outcomes) {
    const series: string[] = [];
    for (const downstream of ["evil", "ghost"]) {
      // "evil" is configured (alice may not call it), "ghost" is not.
      const m = new GatewayMetrics({ downstreams: ["evil", "memory"], clients: ["alice"] });
      m.observeCall({ ...RECORD, tool_name: `${downstream}__x`, decision, allowed: false, redactions: 1 }, {
        downstream,
        errorCode,
      });
      const text = await m.text();
      assert.ok(!/downstream="(evil|ghost)"/.test(text), text);
      series.push(text);
    }
    assert.equal(series[0], series[1], `${decision} ${errorCode}`);
  }
});

Deno.test("metrics: downstream up, breakers, pools, audit and auth counters", async () => {
  const m = new GatewayMetrics({ downstreams: ["memory", "web"] });
  m.setDownstreamUp("memory", true);
  m.setDownstreamUp("web", false);
  m.setBreakerState("downstream", "web", "open");
  m.setBreakerState("tool", "memory__slow", "half_open");
  m.setBreakerState("tool", "ghost__x", "open"); // unconfigured: ignored
  m.setPoolInUse("memory", 3);
  m.poolExhausted("memory");
  m.auditEvent("shed", 5);
  m.auditEvent("unwritable", 1);
  m.authFailure();
  const v = parse(await m.text());
  assert.equal(v.get('gateway_downstream_up{downstream="memory"}'), 1);
  assert.equal(v.get('gateway_downstream_up{downstream="web"}'), 0);
  assert.equal(v.get('gateway_breaker_state{kind="downstream",name="web"}'), 2);
  assert.equal(v.get('gateway_breaker_state{kind="tool",name="memory__slow"}'), 1);
  assert.equal([...v.keys()].some((k) => k.includes("ghost")), false);
  assert.equal(v.get('gateway_pool_in_use{downstream="memory"}'), 3);
  assert.equal(v.get('gateway_pool_exhausted_total{downstream="memory"}'), 1);
  assert.equal(v.get("gateway_audit_shed_total"), 5);
  assert.equal(v.get("gateway_audit_unwritable_total"), 1);
  assert.equal(v.get("gateway_auth_failures_total"), 1);
  m.forgetDownstream("web");
  const after = parse(await m.text());
  assert.equal(after.has('gateway_downstream_up{downstream="web"}'), false);
  // Two instances never share series.
  const other = parse(await new GatewayMetrics().text());
  assert.equal(other.get("gateway_auth_failures_total"), 0);
});

Deno.test("metrics: the code-mode sandbox pool's health is read at each scrape", async () => {
  const m = new GatewayMetrics();
  let health: CodeModePoolHealth | undefined;
  m.watchCodeMode(() => health);
  let v = parse(await m.text());
  assert.equal(v.get("gateway_codemode_degraded"), 0, "no pool yet");
  assert.equal(v.get("gateway_codemode_slots_live"), 0);
  health = { status: "degraded", stuck: 2, live: 8 };
  v = parse(await m.text());
  assert.equal(v.get("gateway_codemode_degraded"), 1);
  assert.equal(v.get("gateway_codemode_sandboxes_stuck"), 2);
  assert.equal(v.get("gateway_codemode_slots_live"), 8);
  health = { status: "ok", stuck: 0, live: 1 };
  v = parse(await m.text());
  assert.equal(v.get("gateway_codemode_degraded"), 0);
  assert.equal(v.get("gateway_codemode_sandboxes_stuck"), 0);
});
