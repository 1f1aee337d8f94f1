/**
 * Float formatting checked against the reference implementation: for each value, the expected
 * `str(x)`, `"%e" % x`, `"%f" % x` (omitted for huge values) and `"%G" % x` were printed by the
 * starlark-go binary (Go's strconv.FormatFloat) into testdata/float_format_cases.json.
 *
 * @module
 */
import assert from "node:assert/strict";
import { formatFloat, formatFloatConv } from "./float_format.ts";
import cases from "./testdata/float_format_cases.json" with { type: "json" };

/**
 * `[literal, str, %e, %f or null, %G]` for 601 values. The values are random bit patterns, random
 * decimals, exponent-threshold cases and dyadic rationals whose 6-digit roundings are exact ties.
 */
const FLOATS = cases as [string, string, string, string | null, string][];

Deno.test("formatFloat: str(x) matches Go's FormatFloat(x, 'g', -1, 64) plus '.0'", () => {
  const bad: string[] = [];
  for (const [lit, want] of FLOATS) {
    const got = formatFloat(Number(lit));
    if (got !== want) bad.push(`${lit}: got ${got}, want ${want}`);
  }
  assert.deepEqual(bad, []);
});

Deno.test("formatFloatConv: %e, %f and %G match the reference, including exact ties", () => {
  const bad: string[] = [];
  for (const [lit, , e, f, G] of FLOATS) {
    const x = Number(lit);
    const pairs: [string, string | null][] = [["e", e], ["f", f], ["G", G]];
    for (const [conv, want] of pairs) {
      if (want === null) continue;
      const got = formatFloatConv(x, conv);
      if (got !== want) bad.push(`%${conv} ${lit}: got ${got}, want ${want}`);
    }
  }
  assert.deepEqual(bad, []);
});

Deno.test("formatFloat: documented examples and non-finite values", () => {
  assert.equal(formatFloat(1e6), "1e+06");
  assert.equal(formatFloat(123456), "123456.0");
  assert.equal(formatFloat(1234567), "1.234567e+06");
  assert.equal(formatFloat(0.00001), "1e-05");
  assert.equal(formatFloat(0.0001), "0.0001");
  assert.equal(formatFloat(1.5e300), "1.5e+300");
  assert.equal(formatFloat(-0), "-0.0");
  assert.equal(formatFloat(0), "0.0");
  assert.equal(formatFloat(Infinity), "+inf");
  assert.equal(formatFloat(-Infinity), "-inf");
  assert.equal(formatFloat(NaN), "nan");
  assert.equal(formatFloatConv(NaN, "e"), "nan");
  assert.equal(formatFloatConv(-Infinity, "f"), "-inf");
  assert.equal(formatFloatConv(1.5, "F"), "%F");
  assert.equal(formatFloatConv(-0, "e"), "-0.000000e+00");
  assert.equal(formatFloatConv(-0, "f"), "-0.000000");
  assert.equal(formatFloatConv(100, "G"), "100.0");
  assert.equal(formatFloatConv(1e-7, "G"), "1E-07");
});

Deno.test("formatFloatConv: %f of huge values prints every integer digit", () => {
  assert.equal(
    formatFloatConv(1e300, "f"),
    "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864" +
      "0437044438328838781769425232353604305756447921847867069828483872009265758037378302337947880900593689" +
      "53234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160.000000",
  );
  assert.equal(formatFloatConv(2 ** 70, "f"), "1180591620717411303424.000000");
  assert.equal(formatFloatConv(5e-324, "f"), "0.000000");
  assert.equal(formatFloatConv(5e-324, "e"), "4.940656e-324");
});

Deno.test("formatFloat: round-trips and switches notation at decimal exponents -4 and 6", () => {
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = 0; i < 20000; i++) {
    const x = (rand() < 0.5 ? -1 : 1) * 10 ** (rand() * 16 - 8) * (1 + rand());
    const s = formatFloat(x);
    assert.equal(Number(s), x, s);
    const exp = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(17)))));
    const shortExp = Number(x.toExponential().split("e")[1]);
    assert.equal(s.includes("e"), shortExp < -4 || shortExp >= 6, `${s} (exponent ${exp})`);
    if (!s.includes("e")) assert.ok(s.includes("."), s);
  }
  assert.equal(formatFloat(999999.9999999999), "999999.9999999999");
  assert.equal(formatFloat(0.00009999999999999999), "9.999999999999999e-05"); // values printed by the reference
  assert.equal(formatFloat(0.0000999999999999), "9.99999999999e-05");
});
