/**
 * The front end's meter: scanning, parsing, resolving and compiling a program are charged to the same
 * budgets as running it, and polled like it, so a huge or pathological source stops at its step,
 * memory or time budget instead of holding the thread for as long as compiling it takes.
 *
 * Each stage counts its units of work on one meter (a token scanned, a node resolved, a node compiled):
 * every unit is a step and {@link BYTES_PER_UNIT} bytes of memory (what the tree, the scopes and the
 * compiled closures keep per token, measured at 50–250 bytes, plus the garbage the stages leave: at
 * 96 bytes a unit, the host's RSS peaked at ~4.8× the memory budget compiling the containment corpus's
 * compilation family; at 192, under 3×). The meter hands them to its budget in
 * batches, and the budget's own step counter decides when the interrupt poll runs, exactly as it does
 * for execution. A meter without a budget only counts.
 *
 * @module
 */

/** What the front end charges its work to. A `Thread` is one. */
export interface FrontEndBudget {
  /** Charges `n` steps; throws when the step budget is exhausted or the interrupt poll says stop. */
  charge(n: number): void;
  /** Charges `bytes` of memory; throws when the memory budget would be exceeded. */
  allocate(bytes: number): void;
  /** The largest int in bits: int literals beyond it are refused before they are converted. */
  readonly maxIntBits: number;
  /** Polls the interrupt hook now (a poll-only meter calls it; a `Thread` has it). */
  poll?(): void;
}

/** Memory charged per unit of front-end work (bytes). */
export const BYTES_PER_UNIT = 192;

/** Units counted between two hand-overs to the budget (so the cost per unit is an increment). */
const BATCH = 256;

/** Units between two polls of a poll-only meter (the interval of a thread's own polls). */
const POLL_UNITS = 4096;

/** Counts the front end's work and charges it to a budget (see the module doc). */
export class FrontEndMeter {
  /** The budget charged, if any. */
  readonly budget: FrontEndBudget | undefined;
  /** Steps handed to the budget so far. */
  charged = 0;
  /** Bytes handed to the budget so far. */
  chargedBytes = 0;
  #pending = 0;
  #pendingBytes = 0;
  readonly #pollOnly: boolean;

  /**
   * Creates a meter charging `budget` (none: the meter only counts). A `pollOnly` meter charges nothing
   * and polls the budget every few thousand units instead: for work already paid for (the generator
   * forms a sliced compilation builds from the compiled code, see exec.ts).
   */
  constructor(budget?: FrontEndBudget, pollOnly = false) {
    this.budget = budget;
    this.#pollOnly = pollOnly;
  }

  /** All steps counted so far: what the front end costs (charged or about to be). */
  get units(): number {
    return this.charged + this.#pending;
  }

  /** All bytes counted so far: the memory the front end costs (charged or about to be). */
  get bytes(): number {
    return this.chargedBytes + this.#pendingBytes;
  }

  /** Counts `n` units of work: a step and {@link BYTES_PER_UNIT} bytes each. */
  tick(n = 1): void {
    this.#pending += n;
    this.#pendingBytes += n * BYTES_PER_UNIT;
    if (this.#pending >= (this.#pollOnly ? POLL_UNITS : BATCH)) this.flush();
  }

  /**
   * Counts work whose memory is not {@link BYTES_PER_UNIT} a step: `steps` steps and `bytes` bytes (a
   * long literal's scanning, its decoding and its value; a spelling hint's comparisons). Big work is
   * charged at once, before it is done: a literal of megabytes is refused before it is decoded.
   */
  work(steps: number, bytes: number): void {
    if (this.#pollOnly) return this.tick(steps);
    this.#pending += steps;
    this.#pendingBytes += bytes;
    if (this.#pending >= BATCH || this.#pendingBytes >= BATCH * BYTES_PER_UNIT) this.flush();
  }

  /** Charges the work counted since the last hand-over (the stages call it when they finish). */
  flush(): void {
    const n = this.#pending, bytes = this.#pendingBytes;
    if (n === 0 && bytes === 0) return;
    this.#pending = 0;
    this.#pendingBytes = 0;
    if (this.#pollOnly) {
      this.budget?.poll?.();
      return;
    }
    this.charged += n;
    this.chargedBytes += bytes;
    const b = this.budget;
    if (b !== undefined) {
      b.allocate(bytes);
      b.charge(n);
    }
  }
}
