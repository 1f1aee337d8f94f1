/**
 * Console browser sessions: an operator posts its key once and gets a random session id in a cookie.
 * The session keeps the key server-side and checks it again on every request, so removing or rotating
 * an operator's key (a reload) ends its sessions at once. Bounded: the oldest session goes first.
 *
 * @module
 */
import type { OperatorIdentity } from "./domain.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "codemode_console";

interface Session {
  readonly key: string;
  readonly expiresAt: number;
}

/** Options of a {@link SessionStore}. */
export interface SessionOptions {
  /** Session lifetime in milliseconds (default 8 hours). */
  readonly ttlMs?: number;
  /** Most live sessions (default 256). */
  readonly max?: number;
  /** Epoch milliseconds (tests inject a clock). */
  readonly now?: () => number;
}

/** A new session id: 32 random bytes, base64url. */
function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The live console sessions. */
export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  /** Creates an empty store. */
  constructor(options: SessionOptions = {}) {
    this.#ttlMs = Math.max(1000, options.ttlMs ?? 8 * 3600_000);
    this.#max = Math.max(1, options.max ?? 256);
    this.#now = options.now ?? Date.now;
  }

  /** Session lifetime in seconds (the cookie's `Max-Age`). */
  get ttlSeconds(): number {
    return Math.floor(this.#ttlMs / 1000);
  }

  /** Opens a session for an operator key that was just checked; returns its id. */
  open(key: string): string {
    while (this.#sessions.size >= this.#max) {
      this.#sessions.delete(this.#sessions.keys().next().value!);
    }
    const id = newId();
    this.#sessions.set(id, { key, expiresAt: this.#now() + this.#ttlMs });
    return id;
  }

  /**
   * The operator of session `id`, if it exists, has not expired and its key is still an operator's
   * (checked with `check`, the operator check in force); a session that fails is forgotten.
   */
  resolve(
    id: string | undefined,
    check: (key: string) => OperatorIdentity | undefined,
  ): OperatorIdentity | undefined {
    if (id === undefined) return undefined;
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    const operator = session.expiresAt > this.#now() ? check(session.key) : undefined;
    if (operator === undefined) this.#sessions.delete(id);
    return operator;
  }

  /** Ends a session. */
  close(id: string | undefined): void {
    if (id !== undefined) this.#sessions.delete(id);
  }

  /** How many sessions are live (diagnostics and tests). */
  get size(): number {
    return this.#sessions.size;
  }
}

/** The value of cookie `name` in a `Cookie` header. */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
