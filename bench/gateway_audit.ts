/**
 * Audit throughput to a file (target: at least 50,000 records/s sustained, none lost).
 *
 * `deno run -A bench/gateway_audit.ts [--records N] [--check]`. The producer submits success records in
 * bursts of 2,048 and then one security record, which resolves only once written: that is the writer's
 * own back-pressure, as calls under load would see it. With the default buffer (4,096) and high-water
 * mark (3,072) nothing may be shed; the file is then read back and every line counted and parsed.
 */
import { AuditWriter, fileTarget } from "../src/gateway/audit/mod.ts";
import type { AuditRecord } from "../src/gateway/domain/mod.ts";

const TARGET_PER_S = 50_000;
const arg = (name: string, fallback: number) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
};
const total = arg("--records", 500_000);
const BURST = 2048;

const dir = await Deno.makeTempDir({ prefix: "gateway_audit_" });
const path = `${dir}/audit.jsonl`;
try {
  const writer = new AuditWriter(await fileTarget(path), {
    buffer: 4096,
    highWater: 3072,
    fsyncMs: 1000,
    securityBlockMs: 2000,
  });
  const base = Date.now();
  const record = (i: number, security: boolean): AuditRecord => ({
    timestamp: new Date(base + i).toISOString(),
    client_id: "alice",
    tool_name: "memory__read_graph",
    decision: security ? "denied_explicit" : "allowed",
    allowed: !security,
    latency_ms: 0.412,
    breaker_state: "closed",
    redactions: 0,
    truncated: false,
    error: security ? "unknown tool" : "",
    execution_id: `exec-${i}`,
  });
  const t0 = performance.now();
  let i = 0;
  while (i < total) {
    const burst = Math.min(BURST, total - i - 1);
    for (let k = 0; k < burst; k++) void writer.submit(record(i++, false));
    await writer.submit(record(i++, true));
  }
  await writer.close();
  const seconds = (performance.now() - t0) / 1000;
  const text = await Deno.readTextFile(path);
  const lines = text.split("\n").filter((l) => l !== "");
  let parsed = 0;
  for (const l of lines) if (JSON.parse(l).client_id === "alice") parsed++;
  const perSecond = total / seconds;
  const stats = writer.stats;
  console.log(
    `audit: ${total} records in ${seconds.toFixed(2)} s = ${Math.round(perSecond)} records/s ` +
      `(target >= ${TARGET_PER_S}); ${(text.length / 1e6).toFixed(1)} MB`,
  );
  console.log(
    `written ${stats.written}, shed ${stats.shed}, unwritable ${stats.unwritable}, lines read back ${parsed}`,
  );
  const lost = total - parsed;
  if (lost !== 0 || stats.shed !== 0) console.log(`LOST ${lost} records, shed ${stats.shed}`);
  if (Deno.args.includes("--check") && (perSecond < TARGET_PER_S || lost !== 0 || stats.shed !== 0)) {
    Deno.exitCode = 1;
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
