/**
 * The issuer's signing keys, fetched once and kept: a token whose `kid` is cached never waits on the
 * network, so the keys keep working while the JWKS endpoint is down or slow. An unknown `kid` (a key
 * rotation) triggers a refetch, at most one per cooldown (default a minute; the first load is not
 * counted) and one at a time: every
 * request that needs the keys meanwhile waits on the same fetch (no stampede). A failed refetch keeps
 * the keys already cached. Symmetric keys (`kty: oct`) are never used: an HMAC key taken from a public
 * JWKS would let anyone who read it sign tokens.
 *
 * @module
 */
import { importJWK, type JWK } from "jose";
import { discoverJwksUri, fetchJson } from "./discovery.ts";

/** A key jose verifies with. */
export type VerifyKey = Awaited<ReturnType<typeof importJWK>>;

/** Options of a {@link JwksCache}. */
export interface JwksCacheOptions {
  /** The issuer (its metadata names the JWKS unless `jwksUri` is set). */
  readonly issuer: string;
  /** The JWKS URL, skipping discovery. */
  readonly jwksUri?: string;
  /** Least time between two fetches, in milliseconds (default 60000). */
  readonly cooldownMs?: number;
  /** Deadline of one fetch, in milliseconds (default 5000). */
  readonly timeoutMs?: number;
  /** Called after each fetch attempt (metrics, tests): whether it succeeded. */
  readonly onFetch?: (ok: boolean) => void;
}

/** Which key types and curves can verify each asymmetric algorithm. */
function fits(jwk: JWK, alg: string): boolean {
  if (jwk.use !== undefined && jwk.use !== "sig") return false;
  if (jwk.alg !== undefined && jwk.alg !== alg) return false;
  if (jwk.key_ops !== undefined && !jwk.key_ops.includes("verify")) return false;
  switch (alg) {
    case "RS256":
    case "RS384":
    case "RS512":
    case "PS256":
    case "PS384":
    case "PS512":
      return jwk.kty === "RSA";
    case "ES256":
      return jwk.kty === "EC" && jwk.crv === "P-256";
    case "ES384":
      return jwk.kty === "EC" && jwk.crv === "P-384";
    case "ES512":
      return jwk.kty === "EC" && jwk.crv === "P-521";
    case "EdDSA":
    case "Ed25519":
      return jwk.kty === "OKP" && jwk.crv === "Ed25519";
    default:
      return false;
  }
}

/** Milliseconds before a failed first fetch may be retried when nothing is cached yet. */
const EMPTY_RETRY_MS = 5_000;

/** The cached JWKS of one issuer. */
export class JwksCache {
  readonly #options: JwksCacheOptions;
  readonly #cooldown: number;
  readonly #timeout: number;
  #jwks: readonly JWK[] = [];
  #loaded = false;
  #jwksUri: string | undefined;
  #lastAttempt = -Infinity;
  #lastRefetch = -Infinity;
  #pending: Promise<void> | undefined;
  readonly #imported = new Map<string, Promise<VerifyKey | undefined>>();

  /** Creates the cache; nothing is fetched until a key is needed (or {@link refresh} is called). */
  constructor(options: JwksCacheOptions) {
    this.#options = options;
    this.#jwksUri = options.jwksUri;
    this.#cooldown = options.cooldownMs ?? 60_000;
    this.#timeout = options.timeoutMs ?? 5_000;
  }

  /** How many usable (asymmetric) keys are cached. */
  get size(): number {
    return this.#jwks.length;
  }

  /**
   * The key that verifies a token signed with `alg` under `kid`, fetching the JWKS when it is not cached
   * and the cooldown allows; `undefined` when there is none.
   */
  async key(kid: string | undefined, alg: string): Promise<VerifyKey | undefined> {
    const cached = this.#find(kid, alg);
    if (cached !== undefined) return await cached;
    await this.#refetch();
    return await this.#find(kid, alg);
  }

  /** Fetches the JWKS now if the cooldown allows (or joins the fetch under way). */
  async refresh(): Promise<void> {
    await this.#refetch();
  }

  #refetch(): Promise<void> {
    if (this.#pending !== undefined) return this.#pending;
    // The first load does not count against the cooldown: a key rotated in just after start is found.
    // Until a load succeeds, attempts are spaced by a few seconds instead.
    const wait = this.#loaded ? this.#cooldown : Math.min(EMPTY_RETRY_MS, this.#cooldown);
    const last = this.#loaded ? this.#lastRefetch : this.#lastAttempt;
    if (performance.now() - last < wait) return Promise.resolve();
    if (this.#loaded) this.#lastRefetch = performance.now();
    this.#lastAttempt = performance.now();
    this.#pending = this.#fetch().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #fetch(): Promise<void> {
    let ok = false;
    try {
      this.#jwksUri ??= await discoverJwksUri(this.#options.issuer, this.#timeout);
      const doc = await fetchJson(this.#jwksUri, this.#timeout);
      const keys = (doc as { keys?: unknown } | null)?.keys;
      if (!Array.isArray(keys)) throw new Error("the JWKS has no keys array");
      this.#jwks = Object.freeze(
        keys.filter((k): k is JWK =>
          k !== null && typeof k === "object" && typeof k.kty === "string" && k.kty !== "oct" &&
          // A private key published by mistake is still only used to verify; "d" is dropped.
          !("k" in k)
        ).map((k) => {
          const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = k;
          return Object.freeze(pub) as JWK;
        }),
      );
      this.#imported.clear();
      this.#loaded = true;
      ok = true;
    } catch {
      // The keys cached before keep working; the next attempt waits for the cooldown.
    } finally {
      this.#options.onFetch?.(ok);
    }
  }

  /** Whether the JWKS was fetched successfully at least once. */
  get loaded(): boolean {
    return this.#loaded;
  }

  #find(kid: string | undefined, alg: string): Promise<VerifyKey | undefined> | undefined {
    const candidates = this.#jwks.filter((k) => (kid === undefined || k.kid === kid) && fits(k, alg));
    // Without a kid, only an unambiguous key is used.
    if (candidates.length !== 1) return undefined;
    const jwk = candidates[0];
    const id = `${jwk.kid ?? ""}\u0000${alg}\u0000${this.#jwks.indexOf(jwk)}`;
    let key = this.#imported.get(id);
    if (key === undefined) {
      key = importJWK({ ...jwk, ext: true }, alg).then((k) => k, () => undefined);
      this.#imported.set(id, key);
    }
    return key;
  }
}
