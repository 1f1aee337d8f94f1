/** Introspected claims are held to the same rules as a JWT's: issuer, audience, expiry, not-before. */
import assert from "node:assert/strict";
import { checkIntrospectedClaims } from "./mod.ts";

const expected = {
  issuer: "https://auth.example.test",
  audience: "https://gw.example.test/mcp",
  skewSeconds: 30,
};
const NOW = 1_800_000_000;

Deno.test("introspection: claims pass only with this resource in aud and within exp/nbf", () => {
  const good = { iss: expected.issuer, aud: expected.audience, exp: NOW + 60 };
  assert.equal(checkIntrospectedClaims(good, expected, NOW), undefined);
  assert.equal(checkIntrospectedClaims({ ...good, aud: ["x", expected.audience] }, expected, NOW), undefined);
  assert.equal(
    checkIntrospectedClaims({ aud: expected.audience }, expected, NOW),
    undefined,
    "iss, exp optional",
  );
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ...good, iss: "https://evil.example.test" }, /another issuer/],
    [{ ...good, aud: undefined }, /another resource/],
    [{ ...good, aud: "https://gw.example.test/mcp/" }, /another resource/],
    [{ ...good, aud: ["https://other.example.test"] }, /another resource/],
    [{ ...good, exp: NOW - 31 }, /expired/],
    [{ ...good, exp: "tomorrow" }, /expired/],
    [{ ...good, nbf: NOW + 31 }, /not yet valid/],
  ];
  for (const [claims, reason] of cases) {
    assert.match(checkIntrospectedClaims(claims, expected, NOW) ?? "passed", reason, JSON.stringify(claims));
  }
  // Within the skew both ways.
  assert.equal(checkIntrospectedClaims({ ...good, exp: NOW - 29, nbf: NOW + 29 }, expected, NOW), undefined);
});
