/**
 * The structured log lines keep their level in OpenTelemetry: a child process writes failure records
 * through the real hook with Deno's OTel console exporter on (`OTEL_DENO=true`,
 * `OTEL_EXPORTER_OTLP_PROTOCOL=console`), and every exported log record's severity is the line's own
 * `"level"` (not ERROR for all), while stderr carries the same JSON lines as before and stdout nothing.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** Fires one failure per phase and subject: execute failures are `warn`, call failures `error`. */
const PROGRAM = `
import { CodeModeError } from "${new URL("src/errors.ts", ROOT).href}";
import { jsonLogHook } from "${new URL("src/mcp/log.ts", ROOT).href}";
const hook = jsonLogHook();
const phases = ["authorize", "handler", "result", "execute"];
for (let i = 0; i < 12; i++) {
  const phase = phases[(i * 7) % phases.length];
  hook({
    error: new CodeModeError("internal_error", "failed " + i, { cause: new Error("cause " + i) }),
    code: "internal_error",
    phase,
    executionId: "x" + i,
    subject: { id: "user-" + i },
    ...(phase === "execute" ? {} : { capability: { id: "demo.c" + i, name: "c" + i } }),
  });
}
`;

Deno.test("log lines: each JSON line reaches OpenTelemetry at its own level, stderr unchanged", async () => {
  const dir = await Deno.makeTempDir({ prefix: "codemode-log-otel-" });
  try {
    await Deno.writeTextFile(`${dir}/main.ts`, PROGRAM);
    const run = async (otel: boolean) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          "--no-check",
          "--config",
          new URL("deno.json", ROOT).pathname,
          `${dir}/main.ts`,
        ],
        env: otel
          ? { OTEL_DENO: "true", OTEL_EXPORTER_OTLP_PROTOCOL: "console", NO_COLOR: "1" }
          : { NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decode = (b: Uint8Array) => new TextDecoder().decode(b);
      assert.equal(out.code, 0, decode(out.stderr));
      return { stdout: decode(out.stdout), stderr: decode(out.stderr) };
    };
    const otel = await run(true);
    // The exporter's records: `LOG [SEVERITY] <time> "<the line>` (the line as written, then its newline).
    const exported = [...otel.stderr.matchAll(/^LOG \[(\w+)\] \S+ "(\{.*)$/gm)].map((m) => ({
      severity: m[1],
      record: JSON.parse(m[2]) as { level: string; execution_id: string },
    }));
    assert.equal(exported.length, 12, otel.stderr);
    for (const { severity, record } of exported) {
      assert.equal(severity, record.level.toUpperCase(), `${record.execution_id}: ${severity}`);
    }
    assert.deepEqual(new Set(exported.map((e) => e.severity)), new Set(["WARN", "ERROR"]));
    // Without OTel, the same lines on stderr (one JSON object each), nothing on stdout.
    const plain = await run(false);
    assert.equal(plain.stdout, "");
    const lines = plain.stderr.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 12);
    assert.deepEqual(
      lines.map((l) => [l.execution_id, l.level]),
      exported.map((e) => [e.record.execution_id, e.record.level]),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
