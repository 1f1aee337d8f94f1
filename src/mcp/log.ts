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

/** An error hook that writes {@link failureRecord} lines with `write` (default: stderr). */
export function jsonLogHook(write: (line: string) => void = (line) => console.error(line)): ErrorHook {
  return (event) => write(JSON.stringify(failureRecord(event)));
}
