/**
 * Client authentication: bearer API keys checked in constant time against every configured key, and the
 * Host and Origin checks that keep browsers of other sites (and DNS rebinding) out.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Identity } from "../domain/mod.ts";

/** One configured client key. */
export interface ClientKey {
  /** The client id the key authenticates. */
  readonly id: string;
  /** The secret key. */
  readonly apiKey: string;
}

// Synchronous SHA-256: WebCrypto's digest is asynchronous and costs tens of microseconds per request.
function digest(text: string): Uint8Array {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Resolves a presented bearer key to a client. Both sides are hashed first (so neither the key's
 * length nor a matching prefix changes the comparison time), and the digest is compared with every
 * configured key without an early exit (so the time does not reveal which key, if any, matched).
 */
export class ClientKeys {
  readonly #entries: readonly { identity: Identity; digest: Uint8Array }[];

  /** Prepares the digests of `keys`. */
  constructor(keys: readonly ClientKey[]) {
    this.#entries = keys.map((k) => ({ identity: Object.freeze({ id: k.id }), digest: digest(k.apiKey) }));
  }

  /** The client `presented` belongs to, or `undefined`. */
  check(presented: string): Identity | undefined {
    const d = digest(presented);
    let found: Identity | undefined;
    for (const entry of this.#entries) {
      let diff = 0;
      for (let i = 0; i < d.length; i++) diff |= d[i] ^ entry.digest[i];
      if (diff === 0 && found === undefined) found = entry.identity;
    }
    return found;
  }
}

/** The token of `Authorization: Bearer <token>` (one token, printable ASCII), or `undefined`. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null || header.length > 4096) return undefined;
  const m = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i.exec(header);
  return m?.[1];
}

/** Whether `hostname` (no port; IPv6 with or without brackets) is a loopback name or address. */
export function isLoopbackName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), lower-cased, or `undefined`. */
export function hostName(value: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/.exec(value.trim());
  return m === null ? undefined : m[1].toLowerCase();
}

/**
 * Which `Host` headers are accepted: a gateway listening on loopback answers only loopback names
 * (DNS-rebinding protection: a hostile page cannot reach it under its own domain); a gateway on another
 * address accepts the names in `allowedHosts`, or any well-formed Host when that list is empty (its
 * API keys protect it).
 */
export class HostCheck {
  readonly #loopbackOnly: boolean;
  readonly #allowed: ReadonlySet<string>;

  /** Creates the check. */
  constructor(loopbackOnly: boolean, allowedHosts: readonly string[] = []) {
    this.#loopbackOnly = loopbackOnly;
    this.#allowed = new Set(allowedHosts.map((h) => hostName(h) ?? h.toLowerCase()));
  }

  /** Whether `header` (the request's `Host`) is accepted. */
  allows(header: string | null): boolean {
    if (header === null) return false;
    const name = hostName(header);
    if (name === undefined) return false;
    if (this.#allowed.has(name)) return true;
    if (this.#loopbackOnly) return isLoopbackName(name);
    return this.#allowed.size === 0;
  }
}

/**
 * Which `Origin` headers are accepted: exactly the configured origins (`scheme://host[:port]`, compared
 * case-insensitively). A request without `Origin` (not from a browser) is not affected.
 */
export class OriginCheck {
  readonly #allowed: ReadonlySet<string>;

  /** Creates the check. */
  constructor(allowedOrigins: readonly string[]) {
    this.#allowed = new Set(allowedOrigins.map((o) => o.trim().toLowerCase().replace(/\/$/, "")));
  }

  /** Whether a request with this `Origin` header (or none) may proceed. */
  allows(origin: string | null): boolean {
    return origin === null || this.#allowed.has(origin.trim().toLowerCase());
  }
}
