// Bit-exactness of the Go math ports against results recorded from Go's math package (testdata), and
// of the fast fused multiply-add against its exact BigInt version.
import assert from "node:assert/strict";
import * as gm from "./gomath.ts";
import * as gt from "./gomath_trig.ts";
import { seededRandom } from "../seeded_random_test.ts";

const view = new DataView(new ArrayBuffer(8));
const fromBits = (hex: string): number => {
  view.setBigUint64(0, BigInt("0x" + hex));
  return view.getFloat64(0);
};
const toBits = (x: number): string => {
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16);
};
const same = (a: number, b: number): boolean => (a !== a && b !== b) || toBits(a) === toBits(b);

const UNARY: Record<string, (x: number) => number> = {
  acos: gt.acos,
  acosh: gt.acosh,
  asin: gt.asin,
  asinh: gt.asinh,
  atan: gt.atan,
  atanh: gt.atanh,
  cos: gt.cos,
  cosh: gt.cosh,
  exp: gm.exp,
  gamma: gt.gamma,
  log: gm.log,
  log1p: gm.log1p,
  round: gm.round,
  sin: gt.sin,
  sinh: gt.sinh,
  tan: gt.tan,
  tanh: gt.tanh,
};
const BINARY: Record<string, (x: number, y: number) => number> = {
  atan2: gt.atan2,
  copysign: gm.copysign,
  hypot: gm.hypot,
  mod: (x, y) => x % y,
  pow: gm.pow,
  remainder: gm.remainder,
};

Deno.test("gomath: bit-identical to Go's math package on recorded arguments", () => {
  const text = Deno.readTextFileSync(new URL("./testdata/gomath_ref.txt", import.meta.url));
  const seen = new Map<string, number>();
  const failures: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const p = line.split(" ");
    const name = p[0];
    let got: number, want: number, args: number[];
    if (p.length === 3) {
      args = [fromBits(p[1])];
      want = fromBits(p[2]);
      got = UNARY[name](args[0]);
    } else {
      args = [fromBits(p[1]), fromBits(p[2])];
      want = fromBits(p[3]);
      got = BINARY[name](args[0], args[1]);
    }
    seen.set(name, (seen.get(name) ?? 0) + 1);
    if (!same(got, want)) failures.push(`${name}(${args.join(", ")}) = ${got}, want ${want}`);
  }
  assert.deepEqual(failures, []);
  assert.equal(seen.size, Object.keys(UNARY).length + Object.keys(BINARY).length);
  for (const [name, n] of seen) assert.ok(n >= 100, `${name}: only ${n} cases`);
});

Deno.test("gomath: exp/log/pow special cases", () => {
  assert.equal(gm.exp(0), 1);
  assert.equal(gm.exp(-Infinity), 0);
  assert.equal(gm.exp(Infinity), Infinity);
  assert.ok(Number.isNaN(gm.exp(NaN)));
  assert.equal(gm.exp(-1e10), 0);
  assert.equal(gm.exp(-745.2), 0);
  assert.equal(gm.exp(-745.1), 5e-324);
  assert.equal(gm.log(1), 0);
  assert.equal(gm.log(0), -Infinity);
  assert.equal(gm.log(-0), -Infinity);
  assert.ok(Number.isNaN(gm.log(-1)));
  assert.equal(gm.pow(-0, -3), -Infinity);
  assert.equal(gm.pow(-0, 3), -0);
  assert.equal(gm.pow(-Infinity, 3), -Infinity);
  assert.equal(gm.pow(-1, Infinity), 1);
  assert.equal(gm.pow(0.5, Infinity), 0);
  assert.equal(gm.pow(2, -Infinity), 0);
  assert.equal(gm.pow(2, 2 ** 64), Infinity);
  assert.equal(gm.pow(4, -0.5), 0.5);
  assert.equal(gm.round(-0.4), -0);
  assert.equal(gm.round(0.5), 1);
  assert.equal(gm.remainder(-4, 4), -0);
  assert.deepEqual(gm.frexp(8), [0.5, 4]);
  assert.deepEqual(gm.frexp(5e-324), [0.5, -1073]);
  assert.equal(gm.ldexp(0.5, -1073), 5e-324);
  assert.equal(gm.ldexp(0.75, -1074), 5e-324); // rounds once, to even
  assert.equal(gm.ldexp(1, 1024), Infinity);
  assert.equal(gm.ldexp(-1, -1076), -0);
});

Deno.test("gomath: fast fma equals the exact BigInt fma, including near-ties and cancellation", () => {
  const rnd = seededRandom(99);
  const value = (): number => {
    const r = rnd();
    if (r < 0.3) return (rnd() - 0.5) * 10;
    if (r < 0.6) return Math.exp((rnd() - 0.5) * 1400) * (rnd() < 0.5 ? -1 : 1);
    if (r < 0.7) {
      return fromBits(
        Math.floor(rnd() * 2 ** 32).toString(16) + Math.floor(rnd() * 2 ** 32).toString(16).padStart(8, "0"),
      );
    }
    return rnd() - 0.5;
  };
  let n = 0;
  for (let i = 0; i < 40000; i++) {
    const a = value(), b = value();
    const p = a * b;
    const cs = [
      value(),
      -p,
      -p * (1 + 2 ** -52 * Math.floor(rnd() * 8)),
      p * 2 ** -53,
      p * 3 * 2 ** -53,
      0,
      -0,
    ];
    for (const c of cs) {
      n++;
      const x = gm.fma(a, b, c), y = gm.fmaExact(a, b, c);
      if (!same(x, y)) assert.fail(`fma(${a}, ${b}, ${c}) = ${x}, exact ${y}`);
    }
  }
  // Exact ties: odd 27-bit factors make a 53/54-bit product; ±0.5 and friends sit on rounding midpoints.
  for (let i = 0; i < 20000; i++) {
    const a = Math.floor(rnd() * 2 ** 26) * 2 + 1, b = Math.floor(rnd() * 2 ** 26) * 2 + 1;
    for (const c of [0.5, -0.5, 1, -1, 0.25, 2 ** -30, -(2 ** -30), 1.5]) {
      n++;
      assert.ok(same(gm.fma(a, b, c), gm.fmaExact(a, b, c)), `fma(${a}, ${b}, ${c})`);
    }
  }
  assert.equal(gm.fmaExact(2 ** 27 + 1, 2 ** 27 + 1, -(2 ** 54)), 2 ** 28 + 1); // exact where a*b+c rounds
  assert.equal(gm.fma(0.1, 10, -1), 5.551115123125783e-17);
  assert.ok(n > 400000);
});
