/**
 * Structured log lines of the CLIs: one JSON object per line on stderr for every failed capability call
 * and execution, with the full cause — what an operator needs and a model never sees. The human
 * start-up lines (`codemode: MCP server listening on ...`) stay as they are.
 *
 * @module
 */
import type { ErrorEvent, ErrorHook } from "../core/mod.ts";

/** The longest cause text logged, so a handler's huge message cannot flood the log. */
const MAX_CAUSE_CHARS = 2_000;

function causeText(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  const text = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  return text.length > MAX_CAUSE_CHARS ? `${text.slice(0, MAX_CAUSE_CHARS)}...` : text;
}

/** The log record of one failure (field names as log pipelines expect: `ts`, `level`, `msg`). */
export function failureRecord(event: ErrorEvent, now: Date = new Date()): Record<string, unknown> {
  const record: Record<string, unknown> = {
    ts: now.toISOString(),
    level: event.phase === "execute" ? "warn" : "error",
    msg: event.phase === "execute" ? "execution failed" : "capability call failed",
    phase: event.phase,
    code: event.code,
    execution_id: event.executionId,
    subject: event.subject.id,
  };
  if (event.capability !== undefined) {
    record.capability = event.capability.name;
    record.capability_id = event.capability.id;
  }
  const cause = causeText(event.error.cause);
  if (cause !== undefined) record.cause = cause;
  record.error = event.error.message;
  return record;
}

/**
 * Writes one JSON log line to stderr through the console method of its `level`: Deno's OpenTelemetry
 * export (`OTEL_DENO=true`) takes a log record's severity from the console method, so a line written
 * with `console.error` whatever it says would be exported as ERROR. `warn` goes through `console.warn`,
 * which writes to stderr too; every other level keeps `console.error`, since `console.log`, `info` and
 * `debug` write to stdout, which may carry the MCP protocol.
 */
export function writeLogRecord(record: Readonly<Record<string, unknown>>): void {
  const line = JSON.stringify(record);
  if (record.level === "warn") console.warn(line);
  else console.error(line);
}

/**
 * An error hook that writes {@link failureRecord} lines: with `write` when given, else to stderr at
 * their level ({@link writeLogRecord}).
 */
export function jsonLogHook(write?: (line: string) => void): ErrorHook {
  if (write !== undefined) return (event) => write(JSON.stringify(failureRecord(event)));
  return (event) => writeLogRecord(failureRecord(event));
}
