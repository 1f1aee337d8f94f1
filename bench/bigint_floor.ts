/**
 * The runtime floor under the big-integer compare programs: one V8 BigInt product and one decimal
 * conversion (ours, `intToDecimal`, as `str` and `%d` use it, and V8's own `toString()`) against Go
 * `math/big` on the same values (`bench/peers/bigint/main.go`, run with `go run`), at 10^3 to 10^5 bits.
 * Medians of 7 timed batches, in microseconds, with the ratio ours ÷ Go.
 *
 *     deno run -A bench/bigint_floor.ts
 *
 * Needs Go on PATH for the peer column (the reference's own figures); without it only ours are printed.
 *
 * @module
 */
import { intToDecimal } from "../src/starlark/values/int_cost.ts";

/** The value the compare programs build: a leading 1 followed by 60-bit chunks of an LCG. */
function mk(bits: number, seed: bigint): bigint {
  let x = 1n;
  let s = seed;
  for (let i = 0; i < Math.floor(bits / 60); i++) {
    s = (s * 6364136223846793005n + 1442695040888963407n) % 18446744073709551616n;
    x = (x << 60n) | (s >> 4n);
  }
  return x;
}

/** Median of 7 batches of `n` calls of `f`, in microseconds per call. */
function timeIt(n: number, f: () => unknown): number {
  for (let i = 0; i < 3; i++) f();
  const batches: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) f();
    batches.push(((performance.now() - t) / n) * 1000);
  }
  return batches.sort((x, y) => x - y)[3];
}

async function goFigures(): Promise<Map<string, number> | undefined> {
  try {
    const out = await new Deno.Command("go", {
      args: ["run", "."],
      cwd: new URL("./peers/bigint/", import.meta.url),
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!out.success) return undefined;
    const figures = new Map<string, number>();
    for (const line of new TextDecoder().decode(out.stdout).trim().split("\n")) {
      const [name, bits, us] = line.split(" ");
      figures.set(`${name} ${bits}`, Number(us));
    }
    return figures;
  } catch {
    return undefined;
  }
}

const go = await goFigures();
if (go === undefined) console.log("(go not found: the reference column is left out)");
console.log("operation     bits      ours µs     go µs   ours/go   (V8 toString() µs)");
for (const bits of [1000, 3000, 10000, 30000, 100000]) {
  const a = mk(bits, 1n), b = mk(bits, 2n);
  const n = Math.floor(2_000_000 / bits);
  const mul = timeIt(n, () => a * b);
  const dec = timeIt(Math.floor(n / 10) + 1, () => intToDecimal(a));
  const v8 = timeIt(Math.floor(n / 10) + 1, () => a.toString());
  for (const [name, ours, extra] of [["mul", mul, ""], ["decimal", dec, v8.toFixed(1)]] as const) {
    const peer = go?.get(`${name} ${bits}`);
    console.log(
      `${name.padEnd(10)} ${String(bits).padStart(7)} ${ours.toFixed(2).padStart(12)} ${
        peer === undefined ? "–".padStart(9) : peer.toFixed(2).padStart(9)
      } ${peer === undefined ? "" : (ours / peer).toFixed(2).padStart(9)}   ${extra}`,
    );
  }
}
