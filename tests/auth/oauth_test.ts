/**
 * The OAuth adapter against a real issuer on loopback: every class of bad token is refused with the
 * right refusal, good tokens of each allowed algorithm are accepted, and the JWKS cache refetches on an
 * unknown key at most once per cooldown, one fetch at a time, keeping its keys while the issuer is
 * down or slow.
 */
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import {
  type AuthOutcome,
  OAuthAuthenticator,
  type OAuthSettings,
  RequestAuthenticator,
} from "../../src/auth/mod.ts";
import { b64url, makeKey, TestIssuer } from "./issuer.ts";

const RESOURCE = "https://gw.example.test/mcp";
const SUBJECTS: Record<string, string> = {
  "user-alice": "alice",
  "svc-ci": "alice",
  "client-abc": "claude-web",
};

function adapter(issuer: TestIssuer, extra: Partial<OAuthSettings> = {}): OAuthAuthenticator {
  return new OAuthAuthenticator(
    { issuer: issuer.issuer, audience: RESOURCE, requiredScopes: ["mcp"], ...extra },
    { subjects: (s) => SUBJECTS[s] },
  );
}

function refusalOf(outcome: AuthOutcome): { kind: string; status: number; reason: string } {
  assert.equal(outcome.ok, false, "refused");
  if (outcome.ok) throw new Error("unreachable");
  return outcome.refusal;
}

async function withIssuer(
  algs: string[],
  body: (issuer: TestIssuer) => Promise<void>,
  options: { discovery?: "rfc8414" | "openid"; path?: string } = {},
): Promise<void> {
  const keys = await Promise.all(algs.map((alg, i) => makeKey(alg, `k${i}-${alg}`)));
  const issuer = await TestIssuer.start(keys, options);
  try {
    await body(issuer);
  } finally {
    await issuer.close();
  }
}

const GOOD = { sub: "user-alice", aud: RESOURCE, scope: "mcp tools:read" };

for (const alg of ["ES256", "RS256", "EdDSA"]) {
  for (const discovery of ["rfc8414", "openid"] as const) {
    Deno.test(`oauth: a good ${alg} token is accepted (${discovery} discovery, issuer with a path)`, async () => {
      await withIssuer([alg], async (issuer) => {
        const outcome = await adapter(issuer).verify(await issuer.mint(GOOD));
        assert.deepEqual(outcome, {
          ok: true,
          identity: { id: "alice", method: "oauth", subject: "user-alice", scopes: ["mcp", "tools:read"] },
        });
        assert.equal(issuer.jwksFetches, 1);
      }, { discovery, path: "/tenant/a" });
    });
  }

  Deno.test(`oauth: every class of bad ${alg} token is refused`, async () => {
    await withIssuer([alg], async (issuer) => {
      const oauth = adapter(issuer);
      const now = Math.floor(Date.now() / 1000);
      const cases: [string, Promise<string>, string, string][] = [
        ["expired", issuer.mint({ ...GOOD, exp: now - 120 }), "invalid_token", "expired"],
        ["not yet valid", issuer.mint({ ...GOOD, nbf: now + 600 }), "invalid_token", "not yet valid"],
        [
          "wrong issuer",
          issuer.mint({ ...GOOD, iss: "https://evil.example.test" }),
          "invalid_token",
          "another issuer",
        ],
        [
          "issuer differing by a slash",
          issuer.mint({ ...GOOD, iss: issuer.issuer + "/" }),
          "invalid_token",
          "another issuer",
        ],
        [
          "wrong audience",
          issuer.mint({ ...GOOD, aud: "https://other.example.test/mcp" }),
          "invalid_token",
          "another resource",
        ],
        [
          "audience prefix",
          issuer.mint({ ...GOOD, aud: RESOURCE + "x" }),
          "invalid_token",
          "another resource",
        ],
        [
          "no audience",
          issuer.mint({ sub: "user-alice", scope: "mcp" }),
          "invalid_token",
          "another resource",
        ],
        [
          "no exp",
          new SignJWT({ ...GOOD, iss: issuer.issuer }).setProtectedHeader({
            alg,
            kid: issuer.keys[0].kid,
            typ: "at+jwt",
          }).sign(issuer.keys[0].privateKey),
          "invalid_token",
          "exp",
        ],
        [
          "missing scope",
          issuer.mint({ ...GOOD, scope: "tools:read" }),
          "insufficient_scope",
          "lacks scope mcp",
        ],
        [
          "no scope at all",
          issuer.mint({ sub: "user-alice", aud: RESOURCE }),
          "insufficient_scope",
          "lacks scope mcp",
        ],
        [
          "unknown subject",
          issuer.mint({ ...GOOD, sub: "mallory" }),
          "unknown_subject",
          "no configured client",
        ],
        ["no subject", issuer.mint({ aud: RESOURCE, scope: "mcp" }), "invalid_token", "no sub claim"],
        ["an ID token typ", issuer.mint(GOOD, { typ: "id+jwt" }), "invalid_token", "typ"],
      ];
      for (const [name, token, kind, reason] of cases) {
        const r = refusalOf(await oauth.verify(await token));
        assert.equal(r.kind, kind, name);
        assert.ok(r.reason.includes(reason), `${name}: ${r.reason}`);
        assert.equal(r.status, kind === "invalid_token" ? 401 : 403, name);
      }
      // The signing key stayed cached: one fetch served every case.
      assert.equal(issuer.jwksFetches, 1);
    });
  });

  Deno.test(`oauth: a tampered ${alg} token does not verify`, async () => {
    await withIssuer([alg], async (issuer) => {
      const oauth = adapter(issuer);
      const token = await issuer.mint(GOOD);
      const [h, p, s] = token.split(".");
      const claims = JSON.parse(
        new TextDecoder().decode(
          Uint8Array.from(atob(p.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)),
        ),
      );
      const forged = [
        `${h}.${b64url(JSON.stringify({ ...claims, sub: "svc-ci" }))}.${s}`,
        `${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`,
        `${h}.${p}.`,
      ];
      for (const t of forged) {
        const r = refusalOf(await oauth.verify(t));
        assert.equal(r.kind, "invalid_token");
      }
      // Signed by a key the issuer never published, under the issuer's kid.
      const stranger = await makeKey(alg, issuer.keys[0].kid);
      const r = refusalOf(await oauth.verify(await issuer.mint(GOOD, { key: stranger })));
      assert.match(r.reason, /signature does not verify/);
    });
  });
}

Deno.test("oauth: the clock skew allows a token just past exp or just before nbf, not more", async () => {
  await withIssuer(["ES256"], async (issuer) => {
    const oauth = adapter(issuer, { clockSkewSeconds: 30 });
    const now = Math.floor(Date.now() / 1000);
    assert.equal((await oauth.verify(await issuer.mint({ ...GOOD, exp: now - 10 }))).ok, true);
    assert.equal((await oauth.verify(await issuer.mint({ ...GOOD, nbf: now + 10 }))).ok, true);
    assert.equal((await oauth.verify(await issuer.mint({ ...GOOD, exp: now - 60 }))).ok, false);
    assert.equal((await oauth.verify(await issuer.mint({ ...GOOD, nbf: now + 60 }))).ok, false);
  });
});

Deno.test("oauth: alg none and HMAC tokens are refused before any key is fetched", async () => {
  await withIssuer(["RS256"], async (issuer) => {
    const oauth = adapter(issuer, { algorithms: ["RS256", "ES256"] });
    const now = Math.floor(Date.now() / 1000);
    const payload = b64url(JSON.stringify({ ...GOOD, iss: issuer.issuer, exp: now + 300 }));
    const kid = issuer.keys[0].kid;
    const none = `${b64url(JSON.stringify({ alg: "none", typ: "at+jwt", kid }))}.${payload}.`;
    assert.match(refusalOf(await oauth.verify(none)).reason, /algorithm is not allowed/);
    const noneUpper = `${b64url(JSON.stringify({ alg: "NONE", kid }))}.${payload}.`;
    assert.match(refusalOf(await oauth.verify(noneUpper)).reason, /algorithm is not allowed/);
    // The classic confusion: HS256 keyed with the public key's bytes, as a naive verifier would check it.
    const jwk = issuer.keys[0].publicJwk;
    for (const secret of [new TextEncoder().encode(JSON.stringify(jwk)), new TextEncoder().encode(jwk.n!)]) {
      const hs = await new SignJWT({ ...GOOD, iss: issuer.issuer, exp: now + 300 })
        .setProtectedHeader({ alg: "HS256", kid, typ: "at+jwt" }).sign(secret);
      assert.match(refusalOf(await oauth.verify(hs)).reason, /algorithm is not allowed/);
    }
    // An ES256 token (allowed alg) under the RSA key's kid finds no fitting key.
    const ec = await makeKey("ES256", kid);
    assert.equal(refusalOf(await oauth.verify(await issuer.mint(GOOD, { key: ec }))).kind, "invalid_token");
    // Only the last case needed the keys.
    assert.ok(issuer.jwksFetches <= 1);
    assert.throws(() => adapter(issuer, { algorithms: ["HS256"] }), /not allowed/);
    assert.throws(() => adapter(issuer, { algorithms: ["none"] }), /not allowed/);
  });
});

Deno.test("oauth: an HMAC key published in the JWKS is never used", async () => {
  await withIssuer(["ES256"], async (issuer) => {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    issuer.keys = [...issuer.keys, {
      kid: "hmac",
      alg: "HS256",
      privateKey: undefined as unknown as CryptoKey,
      publicJwk: { kty: "oct", k: b64url(secret), kid: "hmac", alg: "HS256" },
    }];
    const oauth = adapter(issuer, { algorithms: ["ES256", "RS256"] });
    assert.equal((await oauth.verify(await issuer.mint(GOOD))).ok, true);
    const hs = await new SignJWT({ ...GOOD, iss: issuer.issuer, exp: Math.floor(Date.now() / 1000) + 60 })
      .setProtectedHeader({ alg: "HS256", kid: "hmac", typ: "at+jwt" }).sign(secret);
    assert.equal(refusalOf(await oauth.verify(hs)).kind, "invalid_token");
    assert.equal(oauth.jwks.size, 1, "only the EC key is kept");
  });
});

Deno.test("oauth: typ at+jwt, JWT and none are accepted by default; requireAtJwt keeps only at+jwt", async () => {
  await withIssuer(["ES256"], async (issuer) => {
    const lax = adapter(issuer);
    const strict = adapter(issuer, { requireAtJwt: true });
    for (const typ of ["at+jwt", "application/at+jwt", "JWT", null]) {
      const token = await issuer.mint(GOOD, { typ });
      assert.equal((await lax.verify(token)).ok, true, `lax ${typ}`);
      assert.equal(
        (await strict.verify(token)).ok,
        typ === "at+jwt" || typ === "application/at+jwt",
        `strict ${typ}`,
      );
    }
  });
});

Deno.test("oauth: the subject claim is configurable (client_id, azp)", async () => {
  await withIssuer(["ES256"], async (issuer) => {
    const token = await issuer.mint({ ...GOOD, sub: "someone", client_id: "client-abc", azp: "svc-ci" });
    const byClient = await adapter(issuer, { subjectClaim: "client_id" }).verify(token);
    assert.equal(byClient.ok && byClient.identity.id, "claude-web");
    const byAzp = await adapter(issuer, { subjectClaim: "azp" }).verify(token);
    assert.equal(byAzp.ok && byAzp.identity.id, "alice");
    assert.equal(refusalOf(await adapter(issuer).verify(token)).kind, "unknown_subject");
    assert.throws(() => adapter(issuer, { subjectClaim: "email" }), /subject_claim/);
  });
});

Deno.test("oauth: an unknown kid refetches once, then is refused without refetching within the cooldown", async () => {
  await withIssuer(["ES256"], async (issuer) => {
    const oauth = adapter(issuer);
    assert.equal((await oauth.verify(await issuer.mint(GOOD))).ok, true);
    assert.equal(issuer.jwksFetches, 1);
    const unknown = await makeKey("ES256", "not-published");
    for (let i = 0; i < 5; i++) {
      const r = refusalOf(await oauth.verify(await issuer.mint(GOOD, { key: unknown })));
      assert.match(r.reason, /signing key is unknown/);
    }
    assert.equal(issuer.jwksFetches, 2, "one refetch for five unknown-kid tokens");
  });
});

Deno.test("oauth: rotation — old tokens keep working until expiry, new ones after one refetch", async () => {
  await withIssuer(["ES256"], async (issuer) => {
    const oauth = adapter(issuer, { clockSkewSeconds: 0 });
    const old = issuer.keys[0];
    const oldToken = await issuer.mint(GOOD, { expiresIn: 2 });
    assert.equal((await oauth.verify(oldToken)).ok, true);
    const next = await makeKey("RS256", "k-next");
    issuer.keys = [next, old];
    const newToken = await issuer.mint(GOOD, { key: next });
    assert.equal((await oauth.verify(newToken)).ok, true);
    assert.equal((await oauth.verify(oldToken)).ok, true);
    assert.equal(issuer.jwksFetches, 2, "exactly one refetch");
    await new Promise((r) => setTimeout(r, 3100));
    assert.match(refusalOf(await oauth.verify(oldToken)).reason, /expired/);
    assert.equal((await oauth.verify(newToken)).ok, true);
  });
});

Deno.test("oauth: cached keys keep working while the JWKS endpoint is down", async () => {
  await withIssuer(["ES256"], async (issuer) => {
    // No remembered tokens: every verification below needs the cached key.
    const oauth = adapter(issuer, { jwksCooldownMs: 0, verifiedCacheSize: 0 });
    assert.equal((await oauth.verify(await issuer.mint(GOOD))).ok, true);
    issuer.jwksMode = "down";
    const unknown = await makeKey("ES256", "new");
    assert.match(refusalOf(await oauth.verify(await issuer.mint(GOOD, { key: unknown }))).reason, /unknown/);
    assert.equal(issuer.jwksFetches, 2);
    // The failed refetch did not drop the cached key.
    for (let i = 0; i < 3; i++) assert.equal((await oauth.verify(await issuer.mint(GOOD))).ok, true);
    assert.equal(issuer.jwksFetches, 2, "a cached kid never fetches");
  });
});

Deno.test("oauth: a slow JWKS endpoint — one fetch at a time, cached keys answer meanwhile, the fetch times out", async () => {
  await withIssuer(["ES256"], async (issuer) => {
    const oauth = adapter(issuer, { jwksCooldownMs: 0, fetchTimeoutMs: 400, verifiedCacheSize: 0 });
    const good = await issuer.mint(GOOD);
    assert.equal((await oauth.verify(good)).ok, true);
    issuer.jwksMode = "slow";
    issuer.slowMs = 5000;
    const unknown = await makeKey("ES256", "new");
    const stranger = await issuer.mint(GOOD, { key: unknown });
    const started = performance.now();
    const waiting = Array.from({ length: 20 }, () => oauth.verify(stranger));
    // While the refetch stalls, a token with a cached key is answered without waiting for it.
    const quick = performance.now();
    assert.equal((await oauth.verify(good)).ok, true);
    assert.ok(performance.now() - quick < 300, "the cached key did not wait for the fetch");
    const outcomes = await Promise.all(waiting);
    assert.ok(outcomes.every((o) => !o.ok));
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 4000, `the fetch deadline ended the wait (${elapsed} ms)`);
    assert.equal(issuer.jwksFetches, 2, "twenty waiting requests made one fetch");
  });
});

Deno.test("oauth: discovery accepts only metadata that names exactly the configured issuer", async () => {
  await withIssuer(["ES256"], async (issuer) => {
    // Configured with a trailing slash: the metadata names the issuer without it, so nothing is trusted.
    const oauth = new OAuthAuthenticator(
      { issuer: issuer.issuer + "/", audience: RESOURCE },
      { subjects: (s) => SUBJECTS[s] },
    );
    const r = refusalOf(await oauth.verify(await issuer.mint({ ...GOOD, iss: issuer.issuer + "/" })));
    assert.match(r.reason, /unknown/);
    // A jwks_uri override skips discovery.
    const direct = adapter(issuer, { jwksUri: issuer.jwksUri });
    assert.equal((await direct.verify(await issuer.mint(GOOD))).ok, true);
  });
});

Deno.test("oauth: settings refuse non-https issuers off loopback and bad values", () => {
  const subjects = () => undefined;
  const base = { issuer: "https://auth.example.test", audience: RESOURCE };
  assert.throws(
    () => new OAuthAuthenticator({ ...base, issuer: "http://auth.example.test" }, { subjects }),
    /https/,
  );
  assert.throws(
    () => new OAuthAuthenticator({ ...base, jwksUri: "http://10.0.0.1/jwks" }, { subjects }),
    /https/,
  );
  assert.throws(() => new OAuthAuthenticator({ ...base, audience: "not a url" }, { subjects }), /audience/);
  assert.throws(() => new OAuthAuthenticator({ ...base, algorithms: [] }, { subjects }), /empty/);
  assert.throws(() => new OAuthAuthenticator({ ...base, clockSkewSeconds: -1 }, { subjects }), /skew/);
  assert.throws(() => new OAuthAuthenticator({ ...base, requiredScopes: ['a"b'] }, { subjects }), /scope/);
  new OAuthAuthenticator({ ...base, issuer: "http://127.0.0.1:1" }, { subjects });
});

Deno.test("oauth + keys: one port accepts either; malformed headers are refused as such", async () => {
  await withIssuer(["ES256"], async (issuer) => {
    const key = "k3y-for-alice-0123456789";
    const auth = new RequestAuthenticator({
      apiKeys: (t) => (t === key ? "alice" : undefined),
      oauth: adapter(issuer),
    });
    const token = await issuer.mint({ ...GOOD, sub: "client-abc" });
    const check = async (header: string | null) => await auth.verifyHeader(header);
    assert.deepEqual(await check(`Bearer ${key}`), {
      ok: true,
      identity: { id: "alice", method: "api_key", scopes: [] },
    });
    const viaToken = await check(`Bearer ${token}`);
    assert.equal(viaToken.ok && viaToken.identity.id, "claude-web");
    // RFC 7235: the scheme is case-insensitive; 1*SP separates it from the token.
    for (const h of [`bearer ${token}`, `BEARER ${token}`, `Bearer   ${token}`, ` Bearer ${token} `]) {
      assert.equal((await check(h)).ok, true, h);
    }
    assert.equal(refusalOf(await check(null)).kind, "missing");
    assert.equal(refusalOf(await check("")).kind, "missing");
    for (
      const h of [
        "Bearer",
        "Bearer ",
        "Bearer    ",
        `Bearer Bearer ${token}`,
        "Bearer Bearer",
        `Bearer ${token} ${token}`,
        `Bearer ${token}, Bearer ${token}`,
        `Basic ${btoa("alice:pw")}`,
        `Token ${token}`,
        `Bearer\u00a0${token}`,
        `Bearer ${token}\u0000`,
        `Bearer ${"a".repeat(9000)}`,
      ]
    ) {
      const r = refusalOf(await check(h));
      assert.equal(r.kind, "invalid_request", JSON.stringify(h.slice(0, 40)));
      assert.equal(r.status, 401);
    }
    assert.equal(refusalOf(await check("Bearer not-a-key-or-token")).kind, "invalid_token");
    // The refusal reasons never carry the token.
    for (const t of [token.slice(0, -3) + "xyz", token]) {
      const r = await new RequestAuthenticator({ oauth: adapter(issuer, { requiredScopes: ["admin"] }) })
        .verifyHeader(`Bearer ${t}`);
      assert.equal(r.ok, false);
      assert.ok(!JSON.stringify(r).includes(t.split(".")[2]));
    }
  });
});
