/**
 * The audit log: an asynchronous JSONL writer that sheds only success records under load, never a
 * security record, and fails a call closed when its security record cannot be written; and its sinks
 * (stdout, or a 0600 append-only file).
 *
 * @module
 */
import type { AuditSinkConfig } from "../config/mod.ts";
import { type AuditTarget, fileTarget, stdoutTarget } from "./targets.ts";

export {
  type AuditTarget,
  AuditWriteError,
  fileTarget,
  type LineSink,
  lineTarget,
  stdoutTarget,
} from "./targets.ts";
export { type AuditStats, AuditWriter, type AuditWriterOptions } from "./writer.ts";
export { type AuditSubmit, AuditTap } from "./tap.ts";

/** Opens the target a config's `audit.sink` names. */
export function openAuditTarget(sink: AuditSinkConfig): Promise<AuditTarget> {
  return sink.kind === "stdout" ? Promise.resolve(stdoutTarget()) : fileTarget(sink.path);
}
