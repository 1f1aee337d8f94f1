/**
 * Tests of the exact bit length of ints (int_bits.ts) against an independent count, the binary text's
 * length, on generated values of every size and shape that the search could get wrong: both signs, powers
 * of two and their neighbours (where a negative's length changes), sizes around the 2^1024 limit of
 * doubles and around digit boundaries, and sequences whose sizes jump so the per-site guess is far off.
 */
import assert from "node:assert/strict";
import {
  bitLength,
  numberBits,
  probeCount,
  SITE_LEFT,
  SITE_OTHER,
  SITE_RESULT,
  SITE_RIGHT,
  SITE_SHIFT,
} from "./int_bits.ts";
import type { BitSite } from "./int_bits.ts";
import { seededRandom } from "../seeded_random_test.ts";

/** The bit length of |x| counted on its binary text. */
function expected(x: bigint): number {
  const a = x < 0n ? -x : x;
  return a === 0n ? 0 : a.toString(2).length;
}

/** A random bigint of exactly `bits` bits (bits ≥ 1), built 30 bits at a time. */
function randomOfBits(rnd: () => number, bits: number): bigint {
  let x = 1n;
  let have = 1;
  while (have + 30 <= bits) {
    x = (x << 30n) | BigInt(Math.floor(rnd() * 2 ** 30));
    have += 30;
  }
  if (have < bits) x = (x << BigInt(bits - have)) | BigInt(Math.floor(rnd() * 2 ** (bits - have)));
  return x;
}

/** Every shape of a `bits`-bit value the tests look at, both signs. */
function shapes(rnd: () => number, bits: number): bigint[] {
  const p = 1n << BigInt(bits);
  const out = [p, p - 1n, p + 1n, p >> 1n, (p >> 1n) + 1n];
  if (bits > 0) out.push(randomOfBits(rnd, bits));
  return out.flatMap((v) => [v, -v]);
}

function check(x: bigint, site: BitSite, what: string): void {
  assert.equal(bitLength(x, site), expected(x), `${what}: ${x < 0n ? "-" : ""}${expected(x)} bits`);
}

Deno.test("int bits: exact for every size up to 4,200 bits, both signs, powers of two ±1", () => {
  const rnd = seededRandom(11);
  for (let bits = 0; bits <= 4200; bits++) {
    for (const x of shapes(rnd, bits)) check(x, SITE_OTHER, `size ${bits}`);
  }
});

Deno.test("int bits: exact on sizes sampled up to 300,000 bits and around digit and double limits", () => {
  const rnd = seededRandom(12);
  const sizes: number[] = [];
  for (const edge of [1023, 1024, 1025, 2047, 2048, 65_536, 131_072, 262_144, 300_000]) {
    for (let d = -3; d <= 3; d++) sizes.push(edge + d);
  }
  for (let i = 0; i < 120; i++) sizes.push(4200 + Math.floor(rnd() * (300_000 - 4200)));
  for (const bits of sizes) {
    for (const x of shapes(rnd, bits)) check(x, SITE_OTHER, `size ${bits}`);
  }
});

Deno.test("int bits: exact whatever the lengths measured before at the site (guesses far off)", () => {
  const rnd = seededRandom(13);
  // Sizes that climb, fall, alternate between extremes and wander, measured at every site in turn.
  const sizes = [
    1100,
    300_000,
    1030,
    250_000,
    2000,
    2000,
    2001,
    1999,
    70_000,
    69_000,
    71_500,
    5000,
    200_000,
  ];
  for (let i = 0; i < 60; i++) sizes.push(1024 + Math.floor(rnd() ** 3 * 280_000));
  const sites: BitSite[] = [SITE_RESULT, SITE_LEFT, SITE_RIGHT, SITE_SHIFT, SITE_OTHER];
  let n = 0;
  for (const bits of sizes) {
    for (const x of shapes(rnd, bits)) check(x, sites[n++ % sites.length], `sequence, size ${bits}`);
  }
  // One site cycling through more sizes than it remembers, close ones among them (reordering, eviction).
  for (let round = 0; round < 4; round++) {
    for (const bits of [2000, 150_000, 9000, 60_000, 3000, 2600, 150_300, 59_000]) {
      for (const x of shapes(rnd, bits + round)) check(x, SITE_LEFT, `cycle, size ${bits + round}`);
    }
  }
  // The same int twice in a row, and a negative power of two right after its neighbour.
  for (const bits of [5000, 5001, 64_000]) {
    const p = 1n << BigInt(bits);
    for (const x of [-p + 1n, -p, -p, -p - 1n, -p]) check(x, SITE_RESULT, `neighbours of -2^${bits}`);
  }
});

Deno.test("int bits: numbers are exact up to 2^53 (a floating logarithm is not)", () => {
  for (let k = 0; k <= 53; k++) {
    const p = 2 ** k;
    assert.equal(numberBits(p), k + 1, `2^${k}`);
    if (k > 0) assert.equal(numberBits(p - 1), k, `2^${k} - 1`);
    assert.equal(bitLength(-(p - 1)), k, `-(2^${k} - 1)`);
  }
  assert.equal(numberBits(0), 0);
  assert.equal(bitLength(0), 0);
  assert.equal(bitLength(Number.MAX_SAFE_INTEGER), 53);
  assert.equal(bitLength(-Number.MAX_SAFE_INTEGER), 53);
});

Deno.test("int bits: bigints below 2^1024 that round up to a power of two as doubles are exact", () => {
  for (let k = 54; k <= 1030; k++) {
    const p = 1n << BigInt(k);
    for (const x of [p - 1n, -(p - 1n), p - (1n << BigInt(k - 54)), p + 1n]) {
      assert.equal(bitLength(x), expected(x), `2^${k} neighbour`);
    }
  }
});

Deno.test("int bits: a site cycling through up to four sizes measures each with few shifts", () => {
  const rnd = seededRandom(14);
  // Sizes a loop body might meet at one site (a product's operands, say), in any order, growing slowly.
  const bases = [3000, 250_000, 40_000, 3400]; // 3000 and 3400: within one window
  const ints = (round: number) => bases.map((b) => randomOfBits(rnd, b + 13 * round));
  for (const x of ints(0)) bitLength(x, SITE_RIGHT); // the first round learns the sizes
  const before = probeCount();
  let measured = 0;
  for (let round = 1; round <= 20; round++) {
    for (const x of ints(round)) {
      assert.equal(bitLength(-x, SITE_RIGHT), expected(x));
      measured++;
    }
  }
  // The guesses are tried from the largest down, so a measure costs at most one shift per guess above
  // it plus the one that finds it (2.5 on average here); a search would take ten or more.
  const perMeasure = (probeCount() - before) / measured;
  assert.ok(perMeasure <= 2.5, `${perMeasure} shifts per measure`);
});
