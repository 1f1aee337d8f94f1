/**
 * Test support: a small seeded pseudo-random generator (mulberry32), so generated test cases are the same
 * on every run and a failure reproduces.
 *
 * @module
 */

/** Returns a generator of numbers in [0, 1) determined by `seed`. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seeded random choices, the base of the test case generators. */
export class SeededChoices {
  /** The next number in [0, 1). */
  protected readonly rnd: () => number;

  /** Choices determined by `seed`. */
  constructor(seed: number) {
    this.rnd = seededRandom(seed);
  }

  /** True with probability `p`. */
  protected chance(p: number): boolean {
    return this.rnd() < p;
  }

  /** One of `items`, uniformly. */
  protected pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rnd() * items.length)];
  }
}
