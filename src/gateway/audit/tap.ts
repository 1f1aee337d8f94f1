/**
 * A tap on the audit port: every record submitted for the log (already redacted) is also handed to
 * listeners such as the operator console's ring buffer. Listeners run synchronously and must be cheap;
 * one that throws is ignored, so a tap can never fail or delay a call's audit.
 *
 * @module
 */
import type { AuditRecord } from "../domain/mod.ts";

/** The audit port shape the tap wraps (the writer's `submit`). */
export interface AuditSubmit {
  /** Submits a record for the log. */
  submit(record: AuditRecord): Promise<void>;
}

/** An audit port that passes every record to its listeners, then to the wrapped port. */
export class AuditTap implements AuditSubmit {
  readonly #inner: AuditSubmit;
  readonly #listeners = new Set<(record: AuditRecord) => void>();

  /** Wraps `inner`. */
  constructor(inner: AuditSubmit) {
    this.#inner = inner;
  }

  /** Adds a listener; returns the function that removes it. */
  listen(listener: (record: AuditRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Hands `record` to every listener, then submits it. */
  submit(record: AuditRecord): Promise<void> {
    for (const listener of this.#listeners) {
      try {
        listener(record);
      } catch {
        // A listener's failure is its own: the record is still written.
      }
    }
    return this.#inner.submit(record);
  }
}
