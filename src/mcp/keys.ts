/**
 * Bearer API keys: parsing them from configuration text and checking a presented key in constant time.
 *
 * @module
 */
import { CodeModeError } from "../errors.ts";

/** One accepted API key and the subject it authenticates. */
export interface ApiKey {
  /** The subject id the key authenticates (non-secret). */
  readonly subject: string;
  /** The secret key (at least {@link MIN_KEY_LENGTH} characters). */
  readonly key: string;
}

/** The shortest key accepted, so a guessable key cannot be configured by accident. */
export const MIN_KEY_LENGTH = 16;

/** The environment variable the CLI and the Deploy entry read keys from. */
export const API_KEYS_ENV = "CODEMODE_API_KEYS";

const SUBJECT = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/;
// Printable ASCII without spaces and the separators of the configuration syntax.
const KEY_CHARS = /^[\x21-\x7e]+$/;

function configError(message: string): CodeModeError {
  return new CodeModeError("invalid_registration", message);
}

/**
 * Parses `subject=key` pairs separated by commas or newlines (blank entries are ignored), as in
 * `CODEMODE_API_KEYS="alice=3f9a...,ci-bot=77c1..."`. Errors never quote a key.
 */
export function parseApiKeys(text: string): ApiKey[] {
  const keys: ApiKey[] = [];
  const entries = text.split(/[,\n]/).map((e) => e.trim()).filter((e) => e !== "");
  entries.forEach((entry, i) => {
    const eq = entry.indexOf("=");
    if (eq <= 0) throw configError(`API key entry ${i + 1} must look like subject=key`);
    const subject = entry.slice(0, eq).trim();
    const key = entry.slice(eq + 1).trim();
    keys.push({ subject, key });
  });
  checkApiKeys(keys);
  return keys;
}

/** Validates a key list: subject syntax, key length and characters, no key used twice. */
export function checkApiKeys(keys: readonly ApiKey[]): void {
  const seen = new Set<string>();
  keys.forEach((k, i) => {
    if (typeof k?.subject !== "string" || !SUBJECT.test(k.subject)) {
      throw configError(
        `API key ${i + 1}: subject must be 1-128 characters of letters, digits and . _ @ : - ` +
          "starting with a letter or digit",
      );
    }
    if (typeof k.key !== "string" || k.key.length < MIN_KEY_LENGTH || !KEY_CHARS.test(k.key)) {
      throw configError(
        `API key of subject "${k.subject}" must be at least ${MIN_KEY_LENGTH} printable ASCII characters ` +
          "without spaces, commas or newlines",
      );
    }
    if (seen.has(k.key)) throw configError(`API key of subject "${k.subject}" is used by another subject`);
    seen.add(k.key);
  });
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** Compares two equal-length byte arrays without an early exit. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/**
 * Checks presented keys against a fixed set. Both sides are hashed first so the comparison time does
 * not depend on key length or on how many leading characters match, and every stored key is compared
 * so the time does not reveal which one matched.
 */
export class KeyChecker {
  readonly #entries: Promise<{ subject: string; digest: Uint8Array }[]>;
  readonly #count: number;

  /** Creates a checker; throws `invalid_registration` for an invalid key list. */
  constructor(keys: readonly ApiKey[]) {
    checkApiKeys(keys);
    this.#count = keys.length;
    this.#entries = Promise.all(keys.map(async (k) => ({ subject: k.subject, digest: await sha256(k.key) })));
  }

  /** How many keys are configured. */
  get size(): number {
    return this.#count;
  }

  /** The subject of `presented`, or `undefined` when it matches no key. */
  async check(presented: string): Promise<string | undefined> {
    const digest = await sha256(presented);
    let found: string | undefined;
    for (const entry of await this.#entries) {
      if (sameBytes(digest, entry.digest) && found === undefined) found = entry.subject;
    }
    return found;
  }
}

/** The token of an `Authorization: Bearer <token>` header, or `undefined`. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  return match?.[1];
}
