/**
 * A real token issuer on loopback for the OAuth tests: it serves RFC 8414 or OpenID metadata and a JWKS
 * over HTTP, counts JWKS fetches, can be made to fail or stall, rotates its keys, and mints access
 * tokens with its private keys (or with anything a test wants to forge).
 *
 * @module
 */
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";

/** One signing key of the issuer. */
export interface IssuerKey {
  /** Its key id. */
  readonly kid: string;
  /** Its algorithm. */
  readonly alg: string;
  /** The private key (signs). */
  readonly privateKey: CryptoKey;
  /** The public JWK (published). */
  readonly publicJwk: JWK;
}

/** Makes a key pair for `alg`. */
export async function makeKey(alg: string, kid: string): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  return { kid, alg, privateKey, publicJwk };
}

/** How the issuer's endpoints behave. */
export type JwksMode = "ok" | "down" | "slow";

/** The running issuer. */
export class TestIssuer {
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  /** The issuer identifier (`http://127.0.0.1:<port>`, plus `path`). */
  readonly issuer: string;
  /** The published keys. */
  keys: IssuerKey[];
  /** JWKS requests served (any mode). */
  jwksFetches = 0;
  /** How the JWKS endpoint answers. */
  jwksMode: JwksMode = "ok";
  /** Delay of a slow JWKS answer, in milliseconds. */
  slowMs = 3000;
  /** Which discovery document is served. */
  readonly discovery: "rfc8414" | "openid";
  readonly #stalls = new Set<() => void>();

  private constructor(
    server: Deno.HttpServer<Deno.NetAddr>,
    issuer: string,
    keys: IssuerKey[],
    discovery: "rfc8414" | "openid",
  ) {
    this.#server = server;
    this.issuer = issuer;
    this.keys = keys;
    this.discovery = discovery;
  }

  /** Starts an issuer on a free loopback port. */
  static async start(
    keys: IssuerKey[],
    options: { discovery?: "rfc8414" | "openid"; path?: string } = {},
  ): Promise<TestIssuer> {
    const holder: { self?: TestIssuer } = {};
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => holder.self!.#handle(request),
    );
    const issuer = `http://127.0.0.1:${server.addr.port}${options.path ?? ""}`;
    holder.self = new TestIssuer(server, issuer, keys, options.discovery ?? "rfc8414");
    return await Promise.resolve(holder.self);
  }

  /** The JWKS URL. */
  get jwksUri(): string {
    return `${this.issuer}/jwks`;
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = new URL(this.issuer).pathname.replace(/\/$/, "");
    const meta = { issuer: this.issuer, jwks_uri: this.jwksUri, token_endpoint: `${this.issuer}/token` };
    if (this.discovery === "rfc8414" && url.pathname === `/.well-known/oauth-authorization-server${path}`) {
      return Response.json(meta);
    }
    if (this.discovery === "openid" && url.pathname === `${path}/.well-known/openid-configuration`) {
      return Response.json(meta);
    }
    if (url.pathname === `${path}/jwks`) {
      this.jwksFetches++;
      if (this.jwksMode === "down") return new Response("unavailable", { status: 503 });
      if (this.jwksMode === "slow") {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.#stalls.delete(done);
            resolve();
          };
          const timer = setTimeout(done, this.slowMs);
          this.#stalls.add(done);
        });
      }
      return Response.json({ keys: this.keys.map((k) => k.publicJwk) });
    }
    return new Response("not found", { status: 404 });
  }

  /** Signs an access token with `key` (default: the first published key). */
  async mint(
    claims: JWTPayload,
    options: { key?: IssuerKey; typ?: string | null; expiresIn?: number } = {},
  ): Promise<string> {
    const key = options.key ?? this.keys[0];
    const now = Math.floor(Date.now() / 1000);
    const header: { alg: string; kid: string; typ?: string } = { alg: key.alg, kid: key.kid };
    if (options.typ !== null) header.typ = options.typ ?? "at+jwt";
    return await new SignJWT({
      iss: this.issuer,
      iat: now,
      exp: now + (options.expiresIn ?? 300),
      ...claims,
    }).setProtectedHeader(header).sign(key.privateKey);
  }

  /** Stops the server (ending stalled answers first). */
  async close(): Promise<void> {
    for (const done of [...this.#stalls]) done();
    await this.#server.shutdown();
  }
}

/** base64url of text or bytes. */
export function b64url(data: string | Uint8Array): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
