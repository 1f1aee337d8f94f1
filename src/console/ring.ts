/**
 * A bounded ring of the most recent audit records, numbered in arrival order, so the live view can send
 * what arrived since its last batch without ever holding more than the ring's capacity, whatever the
 * audit rate.
 *
 * @module
 */
import type { AuditEntry } from "./domain.ts";

/** The newest records of an {@link AuditRing} past a sequence number. */
export interface RingSlice {
  /** The records, oldest first. */
  readonly records: readonly AuditEntry[];
  /** The sequence number of the newest record (pass it back to get what follows). */
  readonly last: number;
  /** Records after the given sequence number that were not returned (overwritten or over `max`). */
  readonly skipped: number;
}

/** A fixed-capacity ring buffer of audit records. */
export class AuditRing {
  readonly #slots: (AuditEntry | undefined)[];
  /** Sequence number of the newest record (records are numbered from 1). */
  #last = 0;

  /** Creates a ring that keeps the newest `capacity` records (≥ 1). */
  constructor(capacity: number) {
    this.#slots = new Array(Math.max(1, Math.floor(capacity)));
  }

  /** The sequence number of the newest record (0 before the first). */
  get last(): number {
    return this.#last;
  }

  /** Adds a record, overwriting the oldest once full. */
  push(record: AuditEntry): void {
    this.#last++;
    this.#slots[this.#last % this.#slots.length] = record;
  }

  /** The records numbered after `after`, at most the newest `max` of them, oldest first. */
  since(after: number, max: number): RingSlice {
    const capacity = this.#slots.length;
    const oldest = Math.max(after + 1, this.#last - capacity + 1, this.#last - Math.max(0, max) + 1);
    const records: AuditEntry[] = [];
    for (let seq = oldest; seq <= this.#last; seq++) records.push(this.#slots[seq % capacity]!);
    return { records, last: this.#last, skipped: Math.max(0, oldest - after - 1) };
  }
}
