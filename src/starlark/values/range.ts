/**
 * The Starlark `range` value. Import it from `value.ts`.
 *
 * @module
 */

import { normInt, StarObject } from "./object.ts";
import { UnhashableError } from "./errors.ts";

/** Length of a range whose bounds and span are safe integers (integer arithmetic only: exact). */
function smallRangeLength(start: number, stop: number, step: number): number {
  const span = step > 0 ? stop - start : start - stop;
  if (span <= 0) return 0;
  const by = step > 0 ? step : -step;
  const q = span - 1;
  return (q - (q % by)) / by + 1;
}

function bigRangeLength(start: bigint, stop: bigint, step: bigint): bigint {
  const span = step > 0n ? stop - start : start - stop;
  if (span <= 0n) return 0n;
  return (span - 1n) / (step > 0n ? step : -step) + 1n;
}

/**
 * The value of `range(start, stop, step)`: an immutable, lazily computed sequence of ints.
 *
 * Two representations share the class. When the bounds, the step and `stop - start` are all safe
 * integers (the usual case), the number fields are exact and every element `start + i*step` is a safe
 * integer computed without rounding. Otherwise {@link Range.big} holds the exact bounds and the number
 * fields are only their nearest doubles: use {@link Range.at}, {@link Range.exactLength},
 * {@link Range.contains} or {@link Range.bounds}, which are exact for both representations.
 */
export class Range extends StarObject {
  /** First value (the nearest double when {@link Range.big} is set). */
  readonly start: number;
  /** Exclusive bound (the nearest double when {@link Range.big} is set). */
  readonly stop: number;
  /** Non-zero step (the nearest double when {@link Range.big} is set). */
  readonly step: number;
  /** Number of elements (the nearest double when {@link Range.big} is set). */
  readonly length: number;
  /**
   * The exact bounds (first value, exclusive bound, non-zero step and number of elements), set only when
   * some bound, the step or the span is outside the safe-integer range.
   */
  readonly big:
    | { readonly start: bigint; readonly stop: bigint; readonly step: bigint; readonly length: bigint }
    | undefined;
  /** Builds a range (step ≠ 0); the arguments are validated by the `range` builtin. */
  constructor(start: number | bigint, stop: number | bigint, step: number | bigint) {
    super();
    const s0 = typeof start === "bigint" ? normInt(start) : start;
    const s1 = typeof stop === "bigint" ? normInt(stop) : stop;
    const s2 = typeof step === "bigint" ? normInt(step) : step;
    if (
      typeof s0 === "number" && typeof s1 === "number" && typeof s2 === "number" &&
      Number.isSafeInteger(s0) && Number.isSafeInteger(s1) && Number.isSafeInteger(s2) &&
      Number.isSafeInteger(s1 - s0) // a rounded difference is never a safe integer
    ) {
      this.start = s0;
      this.stop = s1;
      this.step = s2;
      this.length = smallRangeLength(s0, s1, s2);
      this.big = undefined;
    } else {
      const b0 = BigInt(start), b1 = BigInt(stop), b2 = BigInt(step);
      const n = bigRangeLength(b0, b1, b2);
      this.start = Number(b0);
      this.stop = Number(b1);
      this.step = Number(b2);
      this.length = Number(n);
      this.big = { start: b0, stop: b1, step: b2, length: n };
    }
  }
  /** Always `"range"`. */
  get typeName(): string {
    return "range";
  }
  /** The exact number of elements (a bigint only beyond the safe-integer range). */
  get exactLength(): number | bigint {
    return this.big === undefined ? this.length : normInt(this.big.length);
  }
  /** The i-th element (0 ≤ i < length), exact. */
  at(i: number | bigint): number | bigint {
    const b = this.big;
    if (b === undefined) return this.start + Number(i) * this.step;
    return normInt(b.start + BigInt(i) * b.step);
  }
  /** Whether the int `x` is an element of the range. */
  contains(x: number | bigint): boolean {
    const b = this.big;
    if (b === undefined) {
      if (typeof x !== "number") return false; // every element is a safe integer
      const start = this.start, step = this.step;
      // Within the bounds, x - start is smaller than the span: exact.
      if (step > 0 ? x < start || x >= this.stop : x > start || x <= this.stop) return false;
      return (x - start) % step === 0;
    }
    const v = BigInt(x);
    if (b.step > 0n ? v < b.start || v >= b.stop : v > b.start || v <= b.stop) return false;
    return (v - b.start) % b.step === 0n;
  }
  /** The exact bounds as bigints (computed for a range of safe integers). */
  bounds(): NonNullable<Range["big"]> {
    if (this.big !== undefined) return this.big;
    return {
      start: BigInt(this.start),
      stop: BigInt(this.stop),
      step: BigInt(this.step),
      length: BigInt(this.length),
    };
  }
  /** Ranges are not hashable; throws {@link UnhashableError} with the reference's `unhashable: range`. */
  hashKey(): string {
    const e = new UnhashableError("range");
    e.message = "unhashable: range";
    throw e;
  }
}
