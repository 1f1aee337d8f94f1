/**
 * Int arithmetic: the number fast paths must agree with exact bigint arithmetic (floored division and
 * modulo like the reference), results must be normalized, and the conversions must give the
 * reference's messages.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  asInt32,
  floatToInt,
  int32Error,
  intAdd,
  intAnd,
  intCmp,
  intFloatCmp,
  intFloorDiv,
  intLsh,
  intMod,
  intMul,
  intNeg,
  intNot,
  intOr,
  intRsh,
  intSub,
  intToFloat,
  intXor,
  numberToInt,
} from "./int.ts";
import type { Int } from "./int.ts";
import { EvalError, Float, normInt } from "./value.ts";

function isNormalized(v: Int): boolean {
  if (typeof v === "number") return Number.isSafeInteger(v) && !Object.is(v, -0);
  return v > 9007199254740991n || v < -9007199254740991n;
}

// Deterministic pseudo-random generator (xorshift), so failures are reproducible.
let seed = 0x2545f491;
function rand(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
}

function randomInt(): Int {
  const kind = rand();
  const sign = rand() < 0.5 ? -1 : 1;
  if (kind < 0.3) return sign * Math.floor(rand() * 100) || 0;
  if (kind < 0.6) return sign * Math.floor(rand() * 2 ** 31) || 0;
  if (kind < 0.85) return normInt(BigInt(sign) * BigInt(Math.floor(rand() * 2 ** 53)));
  let b = 0n;
  for (let i = 0; i < 3; i++) b = (b << 32n) | BigInt(Math.floor(rand() * 2 ** 32));
  return normInt(BigInt(sign) * b);
}

function floorDivRef(x: bigint, y: bigint): bigint {
  const q = x / y;
  return (x % y !== 0n) && ((x < 0n) !== (y < 0n)) ? q - 1n : q;
}

Deno.test("int arithmetic agrees with exact bigint arithmetic and stays normalized", () => {
  for (let i = 0; i < 5000; i++) {
    const x = randomInt(), y = randomInt();
    const bx = BigInt(x), by = BigInt(y);
    const cases: [string, Int, bigint][] = [
      ["+", intAdd(x, y), bx + by],
      ["-", intSub(x, y), bx - by],
      ["*", intMul(x, y), bx * by],
      ["&", intAnd(x, y), bx & by],
      ["|", intOr(x, y), bx | by],
      ["^", intXor(x, y), bx ^ by],
      ["neg", intNeg(x), -bx],
      ["~", intNot(x), -bx - 1n],
    ];
    if (by !== 0n) {
      const q = floorDivRef(bx, by);
      cases.push(["//", intFloorDiv(x, y), q], ["%", intMod(x, y), bx - q * by]);
    }
    const n = Math.floor(rand() * 80);
    cases.push(["<<", intLsh(x, n), bx << BigInt(n)], [">>", intRsh(x, n), bx >> BigInt(n)]);
    for (const [op, got, want] of cases) {
      assert.equal(BigInt(got), want, `${x} ${op} ${y}`);
      assert.ok(isNormalized(got), `${x} ${op} ${y} not normalized: ${typeof got} ${got}`);
    }
    assert.equal(intCmp(x, y), bx < by ? -1 : bx > by ? 1 : 0);
  }
});

Deno.test("floored division and modulo signs follow the reference", () => {
  assert.equal(intFloorDiv(-7, 2), -4);
  assert.equal(intFloorDiv(7, -2), -4);
  assert.equal(intMod(-7, 2), 1);
  assert.equal(intMod(7, -2), -1);
  assert.equal(intFloorDiv(-9007199254740991, -1), 9007199254740991);
  assert.equal(intRsh(-1, 1000), -1);
  assert.equal(intRsh(-7, 1), -4);
  assert.equal(intRsh(-(2 ** 52), 60), -1);
  assert.equal(intLsh(1, 53), 2n ** 53n);
  assert.equal(intLsh(-3, 100), -3n * 2n ** 100n);
});

Deno.test("int/float comparison is exact, NaN is greatest", () => {
  assert.equal(intFloatCmp(9007199254740993n, 9007199254740992), 1);
  assert.equal(intFloatCmp(2n ** 60n, 2 ** 60), 0);
  assert.equal(intFloatCmp(2n ** 60n + 1n, 2 ** 60), 1);
  assert.equal(intFloatCmp(-(2n ** 60n) - 1n, -(2 ** 60)), -1);
  assert.equal(intFloatCmp(10n ** 400n, Infinity), -1);
  assert.equal(intFloatCmp(-(10n ** 400n), -Infinity), 1);
  assert.equal(intFloatCmp(10n ** 400n, 1e308), 1);
  assert.equal(intFloatCmp(10n ** 400n, NaN), -1);
  assert.equal(intFloatCmp(3, 2.5), 1);
  assert.equal(intFloatCmp(2, 2.5), -1);
  assert.equal(intFloatCmp(2n ** 70n, 1.5), 1);
  assert.equal(intFloatCmp(-(2n ** 70n), -1.5), -1);
});

Deno.test("int to float rounds to nearest even and fails beyond the float range", () => {
  assert.equal(intToFloat(2n ** 53n + 1n), 2 ** 53);
  assert.equal(intToFloat(2n ** 54n + 3n * 1n), 2 ** 54 + 4);
  const max = 2n ** 1024n - 2n ** 970n; // halfway between MAX_VALUE and 2^1024: rounds up to infinity
  assert.equal(intToFloat(max - 1n), Number.MAX_VALUE);
  assert.throws(
    () => intToFloat(max),
    (e: unknown) => e instanceof EvalError && e.message === "int too large to convert to float",
  );
});

Deno.test("AsInt32 and NumberToInt messages", () => {
  assert.equal(asInt32(-2147483648), -2147483648);
  assert.equal(int32Error(2147483647), undefined);
  assert.equal(int32Error(2147483648), "2147483648 out of range");
  assert.equal(int32Error(2n ** 80n), "1208925819614629174706176 out of range");
  assert.equal(int32Error("a"), "got string, want int");
  assert.equal(int32Error(new Float(1)), "got float, want int");
  assert.throws(
    () => asInt32(true),
    (e: unknown) => e instanceof EvalError && e.message === "got bool, want int",
  );
  assert.equal(numberToInt(new Float(-3.7)), -3);
  assert.ok(Object.is(numberToInt(new Float(-0.5)), 0));
  assert.equal(numberToInt(new Float(1e20)), 100000000000000000000n);
  assert.equal(floatToInt(2 ** 53), 2n ** 53n);
  assert.throws(() => numberToInt(new Float(NaN)), { message: "cannot convert float NaN to integer" });
  assert.throws(() => numberToInt(new Float(-Infinity)), {
    message: "cannot convert float infinity to integer",
  });
  assert.throws(() => numberToInt(null), { message: "cannot convert NoneType to int" });
});
