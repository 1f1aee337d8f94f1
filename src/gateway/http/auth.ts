/**
 * Client authentication: bearer API keys checked in constant time against every configured key, and the
 * Host and Origin checks that keep browsers of other sites (and DNS rebinding) out.
 *
 * @module
 */
import type { Identity } from "../domain/mod.ts";

/** One configured client key. */
export interface ClientKey {
  /** The client id the key authenticates. */
  readonly id: string;
  /** The secret key. */
  readonly apiKey: string;
}

/** The longest bearer token looked at (a longer `Authorization` header is refused unread). */
const MAX_TOKEN = 4096;

/**
 * Resolves a presented bearer key to a client in time that depends only on the presented key's length
 * and the number of configured keys: each configured key is kept repeated to {@link MAX_TOKEN}
 * characters and compared over exactly the presented length, its length compared as one more term,
 * with no early exit and no branch on its characters, and every key is compared whether or not one
 * matched — so neither a matching prefix, nor a key's length, nor which key matched changes the time.
 * (Hashing both sides first gives the same property at several times the cost per request.)
 */
export class ClientKeys {
  readonly #entries: readonly { identity: Identity; length: number; chars: Uint16Array }[];

  /** Prepares the keys. */
  constructor(keys: readonly ClientKey[]) {
    this.#entries = keys.map((k) => {
      const chars = new Uint16Array(MAX_TOKEN);
      // An empty key (the loader refuses one) stays all zeros, which its length term never matches.
      for (let i = 0; k.apiKey.length > 0 && i < MAX_TOKEN; i++) {
        chars[i] = k.apiKey.charCodeAt(i % k.apiKey.length);
      }
      return { identity: Object.freeze({ id: k.id }), length: k.apiKey.length, chars };
    });
  }

  /** The client `presented` belongs to, or `undefined`. */
  check(presented: string): Identity | undefined {
    const n = presented.length;
    if (n > MAX_TOKEN) return undefined;
    let found: Identity | undefined;
    for (const entry of this.#entries) {
      let diff = (n ^ entry.length) | (n === 0 ? 1 : 0);
      const chars = entry.chars;
      for (let i = 0; i < n; i++) diff |= presented.charCodeAt(i) ^ chars[i];
      if (diff === 0 && found === undefined) found = entry.identity;
    }
    return found;
  }
}

/** The token of `Authorization: Bearer <token>` (one token, printable ASCII), or `undefined`. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null || header.length > MAX_TOKEN) return undefined;
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
