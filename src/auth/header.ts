/**
 * Reads the `Authorization` header of a request into one bearer token, or says why it cannot.
 *
 * The scheme name is matched case-insensitively (RFC 7235 §2.1: `bearer` and `BEARER` are `Bearer`), and
 * one or more spaces may separate it from the token (`1*SP`). The token must be one run of printable
 * ASCII (every JWT and API key is; RFC 6750's `b64token` is a subset); anything else — `Bearer` twice, two
 * credentials, an empty token, a token with spaces or control characters, another scheme — is malformed,
 * so it can never be mistaken for a token.
 *
 * @module
 */

/** The longest `Authorization` header looked at; a longer one is malformed, unread. */
export const MAX_AUTHORIZATION_LENGTH = 8192;

/** What an `Authorization` header holds. */
export type BearerHeader =
  | { readonly kind: "none" }
  | { readonly kind: "malformed" }
  | { readonly kind: "bearer"; readonly token: string };

const NONE: BearerHeader = Object.freeze({ kind: "none" });
const MALFORMED: BearerHeader = Object.freeze({ kind: "malformed" });
const BEARER = /^bearer +([\x21-\x7e]+)$/i;

/** Parses `header` (the value of `Authorization`, or `null` when absent). */
export function parseBearer(header: string | null): BearerHeader {
  if (header === null) return NONE;
  // HTTP strips optional whitespace around a field value; an in-process Request may not have.
  const value = header.replace(/^[ \t]+|[ \t]+$/g, "");
  if (value.length === 0) return NONE;
  if (value.length > MAX_AUTHORIZATION_LENGTH) return MALFORMED;
  const m = BEARER.exec(value);
  if (m === null) return MALFORMED;
  // "Bearer Bearer" would otherwise read as the token "Bearer".
  if (/^bearer$/i.test(m[1])) return MALFORMED;
  return Object.freeze({ kind: "bearer" as const, token: m[1] });
}
